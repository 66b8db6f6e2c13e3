// fdbench: how fast can this machine create file descriptors?
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>

#include "cli.hpp"
#include "model/format.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"
#include "run/repetition_runner.hpp"
#include "run/session.hpp"

int main(int argc, char** argv) {
  fdbench::install_interrupt_handlers();
  int code = 0;
  try {
    const auto parsed = fdbench::cli::parse_command_line(argc, argv, std::cout, std::cerr);
    if (!parsed.command) return parsed.exit_code;
    code = fdbench::cli::run(*parsed.command, std::cout, std::cerr);
  } catch (const std::bad_alloc&) {
    // Memory ran out outside a measurement (ulimit -v): caught here, so the stack unwinds and
    // the private file set goes with it; one line, as for any failure.
    std::cerr << "Error: " << fdbench::platform::out_of_memory_text("") << "\n";
    code = 1;
  } catch (const std::exception& e) {
    // Every error is caught where it is said, with its exit code; one that slipped through is
    // still one line and exit 1, never an abort (exit 134) with the terminate handler's text.
    std::cerr << "Error: " << fdbench::printable(e.what()) << "\n";
    code = 1;
  }
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
