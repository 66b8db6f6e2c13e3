#pragma once
// Statistics as small pure functions over raw samples (nanoseconds).
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

namespace fdbench {

struct Summary {
  std::size_t count = 0;
  std::int64_t min = 0;
  double median = 0;
  std::int64_t max = 0;
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n - 1); 0 for fewer than two samples
};

// A median, a mean or a deviation of nanoseconds to the whole nanosecond, as the JSON contract
// and findings write it: the clock counts whole nanoseconds, and a fraction of one is noise.
inline std::int64_t whole_ns(double ns) {
  return std::llround(ns);
}

// Summary of `samples`; all zero for an empty span.
Summary summarize(std::span<const std::int64_t> samples);

// Linear-interpolated percentile, p in [0, 100]; 0 for an empty span.
double percentile(std::span<const std::int64_t> samples, double p);

// A distribution-free confidence interval for the median: two order statistics chosen with
// the binomial distribution, so it holds whatever the shape of the noise.
struct MedianInterval {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  double level = 0;      // the probability that [lo, hi] holds the true median
  bool reached = false;  // level is at least the one asked for; if not, [lo, hi] = [min, max]
};

// The narrowest interval [x(k), x(n-k+1)] of the sorted samples whose level is at least
// `confidence`. Fewer samples than that needs (5 or fewer for 95%) give the full range, with
// its lower level and reached = false; an empty span gives all zeros.
MedianInterval median_interval(std::span<const std::int64_t> samples, double confidence = 0.95);

// Whether two results are within noise of each other: their median intervals overlap.
bool within_noise(const MedianInterval& a, const MedianInterval& b);

// Indices of the samples beyond 1.5 × IQR outside the quartiles (Tukey's fences, as
// hyperfine flags them), ascending. Reported, never removed.
std::vector<std::size_t> outlier_indices(std::span<const std::int64_t> samples);

// (max - min) / median: how far apart the repetitions are; 0 without a median.
double relative_spread(const Summary& summary);

}  // namespace fdbench
