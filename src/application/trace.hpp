#pragma once
// fdbench trace: the descriptor-creating calls of a command it starts or of a running process.
#include <iosfwd>

#include "application/command.hpp"

namespace fdbench::app {

// Traces until the command exits (its exit code is returned), the process ends, --duration
// ends or Ctrl-C; 1 with one line when tracing cannot begin (the command is then not run);
// 127 (not found) or 126 when the command cannot be run, as env and timeout say it.
int run_trace(const TraceCommand& command, std::ostream& out, std::ostream& err);

}  // namespace fdbench::app
