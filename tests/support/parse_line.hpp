#pragma once
// A command line parsed as fdbench's main parses it, with what parsing printed (help, errors).
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"

namespace fdbench::testing {

struct ParsedLine {
  cli::Parsed parsed;
  std::string out;
  std::string err;
};

// `args` without the program's name: {"open", "--files", "10"}.
inline ParsedLine parse_line(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"fdbench"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out;
  std::ostringstream err;
  cli::Parsed parsed = cli::parse_command_line(static_cast<int>(argv.size()), argv.data(), out, err);
  return {std::move(parsed), out.str(), err.str()};
}

}  // namespace fdbench::testing
