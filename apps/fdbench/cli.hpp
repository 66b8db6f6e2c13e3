#pragma once
// argv -> validated Command, the application's (app/command.hpp), which runs it. Kept out of
// main() so that tests can drive it in-process.
#include <iosfwd>
#include <optional>

#include "application/command.hpp"

namespace fdbench::cli {

using app::Command;
using app::Export;
using app::look_at_inputs;
using app::run;

struct Parsed {
  std::optional<Command> command;  // empty: nothing to run, exit with exit_code
  int exit_code = 0;
};

// Parses and validates. Help and --version are printed to `out` (exit 0); every usage error
// is one line "Error: fdbench COMMAND: ..." on `err` naming the flag, with exit code 2; a
// mistake in the line's form (an unknown option or command, a missing or bad value) ends with
// "; see 'fdbench COMMAND --help'".
//
// Before the command is built (its builders stat() the paths it names), each path is looked at
// by a child process fdbench can abandon, so that a dead mount ends the run naming the path
// (exit 1) instead of holding fdbench in the kernel. PathLook::none leaves that out: for a
// caller that only parses, such as the fuzzer, which must not fork for every input.
enum class PathLook { first, none };
Parsed parse_command_line(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
                          PathLook look = PathLook::first);

}  // namespace fdbench::cli
