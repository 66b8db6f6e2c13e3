#pragma once
// fdbench server: an unmodified server's first burst, each --pregrow setting in turn, its
// repetitions interleaved, reported through the usual reporters with its own findings.
#include <iosfwd>
#include <string>
#include <vector>

#include "application/command.hpp"

namespace fdbench::app {

int run_server(const ServerCommand& command, const std::vector<std::string>& command_line,
               std::ostream& out, std::ostream& err);

}  // namespace fdbench::app
