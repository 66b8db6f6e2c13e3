#pragma once
// A finding as data: what every output format prints and the JSON contract records. The
// findings themselves are worked out in analysis/findings.hpp.
#include <map>
#include <string>

namespace fdbench {

struct Finding {
  std::string kind;  // what it concludes: "fastest", "tied", "knee", "pregrow", "events", ...
  std::string text;  // the sentence every format prints
  std::map<std::string, double> numbers;  // the measured numbers it cites, by name

  bool operator==(const Finding&) const = default;
};

}  // namespace fdbench
