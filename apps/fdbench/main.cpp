// fdbench: how fast can this machine create file descriptors?
#include <iostream>

#include "cli.hpp"
#include "fdbench/interrupt.hpp"

int main(int argc, char** argv) {
  fdbench::install_interrupt_handlers();
  const auto parsed = fdbench::cli::parse_command_line(argc, argv, std::cout, std::cerr);
  if (!parsed.command) return parsed.exit_code;
  return fdbench::cli::run(*parsed.command, std::cout, std::cerr);
}
