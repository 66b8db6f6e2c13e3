// fdbench: how fast can this machine create file descriptors?
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cli.hpp"
#include "platform/interrupt.hpp"
#include "run/repetition_runner.hpp"
#include "run/session.hpp"

int main(int argc, char** argv) {
  fdbench::install_interrupt_handlers();
  const auto parsed = fdbench::cli::parse_command_line(argc, argv, std::cout, std::cerr);
  if (!parsed.command) return parsed.exit_code;
  const int code = fdbench::cli::run(*parsed.command, std::cout, std::cerr);
  // Threads of an abandoned repetition still exist, parked or blocked in the kernel: no exit
  // handler or static destructor may wait for them (a leak checker stopping every thread
  // would wait for ever on one blocked in a dead mount). Everything is written by now.
  if (fdbench::abandoned_hung_work()) {
    std::cout.flush();
    std::fflush(nullptr);
    std::_Exit(code);
  }
  return code;
}
