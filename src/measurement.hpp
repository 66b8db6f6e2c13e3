#pragma once
// What measure() and measure_in_fresh_child() share when they fill in a Result.
#include <vector>

#include "fdbench/measure.hpp"
#include "fdbench/result.hpp"
#include "fdbench/strategy.hpp"
#include "fdbench/workload.hpp"

namespace fdbench {

// The fields every result of this combination has, measured or not.
Result base_result(const WorkloadFacts& work, const StrategyInfo& strategy,
                   const StrategyConfig& config, int repeat, int warmup);
// The failed calls of every repetition, warm-up included, by errno.
void record_failures(Result& r, const Tally& tally);
// A descriptor leak is a bug: says so in the result, and stops a debug build on the spot.
void check_no_leak(Result& r, const std::vector<int>& before);

}  // namespace fdbench
