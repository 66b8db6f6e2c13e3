#pragma once
// Plain-words conclusions drawn from a set of results (pure: results in, findings out),
// computed once per run into the results document, so that every format carries the same
// ones and a reader gets the numbers each one rests on.
#include <map>
#include <span>
#include <string>
#include <vector>

#include "model/environment.hpp"
#include "model/finding.hpp"
#include "model/result.hpp"

namespace fdbench {

// `env` adds what the machine explains (the measured cost of a system call).
std::vector<Finding> findings(std::span<const Result> results, const Environment& env);

}  // namespace fdbench
