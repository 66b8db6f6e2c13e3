// libFuzzer target: option parsing. The input is argv after the program name, NUL-separated.
// Any input must end in a Command or an exit code (0 for help, 2 for usage errors) — never a
// crash, an exception escaping, or another exit code. Parsing only: the look at the named paths
// in a child process (PathLook::first) is the CLI tests' to try, not a fork per input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"fdbench"};
  std::string current;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current.push_back(static_cast<char>(data[i]));
    }
  }
  if (!current.empty()) args.push_back(current);
  if (args.size() > 64) return 0;
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out;
  std::ostringstream err;
  const auto parsed =
      fdbench::cli::parse_command_line(static_cast<int>(argv.size()), argv.data(), out, err,
                                       fdbench::cli::PathLook::none);
  if (!parsed.command && parsed.exit_code != 0 && parsed.exit_code != 2) std::abort();
  if (!parsed.command && parsed.exit_code == 2 && err.str().rfind("Error: ", 0) != 0) {
    std::abort();  // every usage error is one "Error: ..." message
  }
  return 0;
}
