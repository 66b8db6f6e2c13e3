#pragma once
// Statistics as small pure functions over raw samples (nanoseconds).
#include <cmath>
#include <cstdint>
#include <optional>
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

// The index of the sample that stands for the median: the middle one in sorted order (the
// upper of the middle two for an even count; equal samples in their order). What "the median
// repetition" means wherever one repetition is shown for a result: --latency's listed events
// and --kernel-trace's figures. 0 for an empty span.
std::size_t median_index(std::span<const std::int64_t> samples);

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

// How precisely a median is known: the larger half of its 95% interval as a share of it
// (0.021: "±2.1%"). nullopt where the interval is not reached (too few samples) or there is no
// median.
std::optional<double> relative_half_width(const MedianInterval& ci, double median);

// The fewest samples whose median interval reaches `confidence`: the full range [min, max]
// misses the median with probability 2 × 0.5^n, so 6 for 95% (5 give 93.75%).
std::size_t min_samples_for(double confidence = 0.95);

// The one rule by which fdbench tells two results apart, in the findings, in `tune`'s
// recommendation and in the library that reads it. Both need a real 95% interval of the median
// (reached), else there are too few repetitions to separate them, whatever the ranges look
// like. With both reached:
//   separated    the intervals do not overlap: one is faster;
//   same         they overlap, and both are narrow enough to exclude a difference larger than
//                kSameMargin (the largest upper end is within kSameMargin of the smallest lower
//                end): sameness needs evidence;
//   cannot_tell  they overlap only because they are wide: absence of evidence of a difference,
//                not evidence of its absence.
// (`fdbench compare` asks another question, whether one setting changed between two runs, and
// tests the raw samples with Mann-Whitney U.)
enum class Separation { too_few, cannot_tell, same, separated };
inline constexpr double kSameMargin = 0.10;
Separation separation(const MedianInterval& a, const MedianInterval& b);

// The two that overlap: the same, or too noisy to tell.
inline bool overlap(Separation s) {
  return s == Separation::same || s == Separation::cannot_tell;
}

// Indices of the samples beyond 1.5 × IQR outside the quartiles (Tukey's fences, as
// hyperfine flags them), ascending. Reported, never removed.
std::vector<std::size_t> outlier_indices(std::span<const std::int64_t> samples);

}  // namespace fdbench
