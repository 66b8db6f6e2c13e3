#pragma once
// Plain-words conclusions drawn from a set of results (pure: results in, sentences out).
#include <span>
#include <string>
#include <vector>

#include "fdbench/result.hpp"

namespace fdbench {

std::vector<std::string> findings(std::span<const Result> results);

}  // namespace fdbench
