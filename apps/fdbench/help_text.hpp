#pragma once
// Each command's name, one-line summary and the text --help prints after its options.
#include <vector>

#include "application/option_rows.hpp"

namespace fdbench::cli {

using app::Cmd;

struct CommandHelp {
  Cmd command;
  const char* name;     // as typed ("fdbench" for the default suite)
  const char* summary;  // the line `fdbench --help` lists it with
  const char* footer;
};

// Every command, the default suite first, in the order `fdbench --help` lists them.
const std::vector<CommandHelp>& commands_help();

}  // namespace fdbench::cli
