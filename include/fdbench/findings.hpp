#pragma once
// Plain-words conclusions drawn from a set of results (pure: results in, findings out),
// computed once per run into the results document, so that every format carries the same
// ones and a reader gets the numbers each one rests on.
#include <map>
#include <span>
#include <string>
#include <vector>

#include "fdbench/environment.hpp"
#include "fdbench/result.hpp"

namespace fdbench {

struct Finding {
  std::string kind;  // what it concludes: "fastest", "tied", "knee", "pregrow", "events", ...
  std::string text;  // the sentence every format prints
  std::map<std::string, double> numbers;  // the measured numbers it cites, by name

  bool operator==(const Finding&) const = default;
};

// `env` adds what the machine explains (the measured cost of a system call).
std::vector<Finding> findings(std::span<const Result> results, const Environment& env);

}  // namespace fdbench
