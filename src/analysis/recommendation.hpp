#pragma once
// The recommendation a sweep of measured results supports (what `tune` and recommend() hand a
// program), and its JSON form (declared with the public API in fdbench/tune.hpp).
#include <optional>
#include <span>

#include "fdbench/tune.hpp"
#include "model/result.hpp"

namespace fdbench {

// Only results that ran without failure, of strategies the registry marks recommendable (a
// strategy measured for comparison only, such as the seed's naive pool, never is), and where
// the workload holds its descriptors, only strategies whose descriptors a program can use
// (not io_uring's direct descriptors) unless `allow_direct`. nullopt when no such result is
// left. The fastest's ties go to the earlier result of the sweep.
std::optional<Recommendation> recommend_from(std::span<const Result> sweep,
                                             bool allow_direct = false);

}  // namespace fdbench
