#pragma once
// A result's warnings apart from the noise warning, which any run on a shared, busy machine
// may earn: tests insist that there are no others (a descriptor leak, above all).
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace fdbench::testing {

inline std::vector<std::string> warnings_besides_noise(std::vector<std::string> warnings) {
  std::erase_if(warnings, [](const std::string& w) { return w.rfind(kNoisyWarning, 0) == 0; });
  return warnings;
}

// The same for a result in the JSON output.
inline std::vector<std::string> warnings_besides_noise(const nlohmann::json& result) {
  if (!result.contains("warnings")) return {};
  return warnings_besides_noise(result.at("warnings").get<std::vector<std::string>>());
}

}  // namespace fdbench::testing
