#include "application/launcher.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <ostream>

#include "fdbench/error.hpp"
#include "model/format.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"

namespace fdbench::app {

int launch_pregrown(const PregrowCommand& command, std::ostream& err) {
  // One thread here: exec keeps the table only when no other thread shares it (a shared table
  // is copied at exec, sized for the highest open descriptor).
  if (const int error = platform::grow_fd_table(command.slots - 1); error != 0) {
    err << fmt::format("fdbench pregrow: cannot grow the descriptor table to {} slots: {}\n",
                       command.slots, errno_text(error));
    return 1;
  }
  err.flush();
  std::fflush(nullptr);
  restore_inherited_signals();
  const int error = platform::exec_program(command.program);
  install_interrupt_handlers();
  const std::string& name = command.program.front();
  if (error == ENOENT || error == ENOTDIR) {
    err << fmt::format(
        "fdbench pregrow: {}: command not found (check the name, or give its "
        "path)\n",
        printable(name));
    return 127;
  }
  err << fmt::format("fdbench pregrow: {}: cannot run it: {}\n", printable(name),
                     errno_text(error));
  return 126;
}

}  // namespace fdbench::app
