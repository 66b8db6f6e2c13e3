#pragma once
// Statistics as small pure functions over raw samples (nanoseconds).
#include <cstdint>
#include <span>

namespace fdbench {

struct Summary {
  std::size_t count = 0;
  std::int64_t min = 0;
  double median = 0;
  std::int64_t max = 0;
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n - 1); 0 for fewer than two samples
};

// Summary of `samples`; all zero for an empty span.
Summary summarize(std::span<const std::int64_t> samples);

// Linear-interpolated percentile, p in [0, 100]; 0 for an empty span.
double percentile(std::span<const std::int64_t> samples, double p);

}  // namespace fdbench
