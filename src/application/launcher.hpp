#pragma once
// fdbench pregrow N -- CMD: the launcher. Grows this process's descriptor table, then becomes
// CMD, which keeps the table (Linux keeps an unshared table's size across execve): the remedy
// for a server's first-burst stall applied from outside, with no change to the server.
#include <iosfwd>

#include "application/command.hpp"

namespace fdbench::app {

// Returns only when CMD could not be run: 127 (not found) or 126 (not executable), as a shell
// does, or 1 when the table could not be grown; one line on `err` says which.
int launch_pregrown(const PregrowCommand& command, std::ostream& err);

}  // namespace fdbench::app
