#pragma once
// A result's warnings apart from those about the machine rather than fdbench: noise, which any
// run on a shared, busy machine may earn, and page faults while timed (a fresh process's first
// touches, memory the kernel reclaimed meanwhile). Tests insist that there are no others (a
// descriptor leak, above all).
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace fdbench {
// For failure messages: `<< r.warnings.front()`.
inline std::ostream& operator<<(std::ostream& out, const Warning& w) {
  return out << to_string(w.kind) << ": " << w.text;
}
}  // namespace fdbench

namespace fdbench::testing {

// The texts of every warning that is not about the machine.
inline std::vector<std::string> warnings_besides_noise(const std::vector<Warning>& warnings) {
  std::vector<std::string> texts;
  for (const auto& w : warnings) {
    if (w.kind != WarningKind::noisy && w.kind != WarningKind::page_faults) {
      texts.push_back(w.text);
    }
  }
  return texts;
}

// The same for a result in the JSON output, by its warning_kinds.
inline std::vector<std::string> warnings_besides_noise(const nlohmann::json& result) {
  if (!result.contains("warnings")) return {};
  const auto texts = result.at("warnings").get<std::vector<std::string>>();
  const auto kinds = result.at("warning_kinds").get<std::vector<std::string>>();
  std::vector<std::string> others;
  for (std::size_t i = 0; i < texts.size() && i < kinds.size(); ++i) {
    if (kinds[i] != "noisy" && kinds[i] != "page-faults") others.push_back(texts[i]);
  }
  return others;
}

}  // namespace fdbench::testing
