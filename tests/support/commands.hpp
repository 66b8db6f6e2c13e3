#pragma once
// A parsed Command's parts by name, whichever command it is, so that a test reads
// `open_of(c).files` rather than visiting the variant. A part the command does not have
// throws std::bad_variant_access, which gtest reports as the test's failure.
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "application/command.hpp"

namespace fdbench::testing {

template <class T>
bool is(const app::Command& command) {
  return std::holds_alternative<T>(command.what);
}

template <class T>
const T& as(const app::Command& command) {
  return std::get<T>(command.what);
}

// open's sweep: open's, the suite's or tune's.
inline const OpenOptions& open_of(const app::Command& command) {
  if (const auto* suite = std::get_if<app::SuiteCommand>(&command.what)) return suite->open;
  if (const auto* tune = std::get_if<app::TuneCommand>(&command.what)) return tune->tune.open;
  return as<app::OpenCommand>(command).open;
}

// socket's sweep: socket's or the suite's.
inline const SocketOptions& socket_of(const app::Command& command) {
  if (const auto* suite = std::get_if<app::SuiteCommand>(&command.what)) return suite->socket;
  return as<app::SocketCommand>(command).socket;
}

// Where a measuring command writes.
inline const app::OutputSettings& outputs_of(const app::Command& command) {
  return std::visit(
      [](const auto& c) -> const app::OutputSettings& {
        if constexpr (requires { c.outputs; }) {
          return c.outputs;
        } else {
          throw std::bad_variant_access();
        }
      },
      command.what);
}

// --format of any command that takes it (the measuring ones, env, compare).
inline const std::string& format_of(const app::Command& command) {
  if (const auto* env = std::get_if<app::EnvCommand>(&command.what)) return env->format;
  if (const auto* compare = std::get_if<app::CompareCommand>(&command.what)) {
    return compare->format;
  }
  return outputs_of(command).format;
}

}  // namespace fdbench::testing
