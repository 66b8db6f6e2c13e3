#pragma once
// The user's files (--tree, --list) enumerated in a child process under --timeout's limit: on a
// mount whose server never answers, looking at a path hangs as opening it does, where no signal
// reaches it, and only a process of its own can be abandoned there.
#include <functional>
#include <string>

#include "common/errors.hpp"
#include "inputs/input_files.hpp"

namespace fdbench {

// Runs `examine` (scan_tree or read_list) in a child process and returns what it found, or
// rethrows its Error or UsageError. When it has not finished within `timeout_s` (0: no limit;
// SIGINT or SIGTERM end it either way) the child is killed, or left behind and named when it
// cannot be, and TimedOut is thrown naming `what` ("--list paths.txt") and the path it was
// examining (Linux).
InputFiles examine_in_child(const std::function<InputFiles()>& examine, double timeout_s,
                            const std::string& what);

// Runs `look` (a stat() of a path the user named, say) in a child process, as
// examine_in_child() does, so that this process never makes the first call into a mount that
// may not answer: once the child has come back, the path answers and this process may touch
// it. Rethrows `look`'s Error or UsageError; at the limit throws TimedOut "WHAT: no answer
// from its filesystem in N s (a dead mount?)", with the processes it left behind.
void look_in_child(const std::function<void()>& look, double timeout_s, const std::string& what);

}  // namespace fdbench
