#include "model/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace fdbench {

namespace {
std::vector<std::int64_t> sorted(std::span<const std::int64_t> samples) {
  std::vector<std::int64_t> copy(samples.begin(), samples.end());
  std::sort(copy.begin(), copy.end());
  return copy;
}

}  // namespace

std::size_t median_index(std::span<const std::int64_t> samples) {
  if (samples.empty()) return 0;
  std::vector<std::size_t> order(samples.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return samples[a] < samples[b]; });
  return order[order.size() / 2];
}

double percentile(std::span<const std::int64_t> samples, double p) {
  if (samples.empty()) return 0;
  const auto values = sorted(samples);
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(values.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(rank));
  const auto upper = static_cast<std::size_t>(std::ceil(rank));
  const double fraction = rank - static_cast<double>(lower);
  return static_cast<double>(values[lower]) +
         fraction * static_cast<double>(values[upper] - values[lower]);
}

Summary summarize(std::span<const std::int64_t> samples) {
  Summary s;
  if (samples.empty()) return s;
  const auto values = sorted(samples);
  const std::size_t n = values.size();
  s.count = n;
  s.min = values.front();
  s.max = values.back();
  s.median =
      n % 2 == 1
          ? static_cast<double>(values[n / 2])
          : (static_cast<double>(values[n / 2 - 1]) + static_cast<double>(values[n / 2])) / 2.0;
  double sum = 0;
  for (const auto v : values) sum += static_cast<double>(v);
  s.mean = sum / static_cast<double>(n);
  if (n > 1) {
    double squares = 0;
    for (const auto v : values) {
      const double d = static_cast<double>(v) - s.mean;
      squares += d * d;
    }
    s.stddev = std::sqrt(squares / static_cast<double>(n - 1));
  }
  return s;
}

MedianInterval median_interval(std::span<const std::int64_t> samples, double confidence) {
  MedianInterval out;
  if (samples.empty()) return out;
  const auto values = sorted(samples);
  const std::size_t n = values.size();
  // [x(k), x(n-k+1)] (1-based) misses the median when fewer than k samples fall below it or
  // fewer than k above: level = 1 - 2 P(X <= k - 1), X ~ Binomial(n, 1/2). Narrow it from the
  // full range while the level holds; the terms go in log space, as 0.5^n underflows.
  double log_term = static_cast<double>(n) * std::log(0.5);  // log P(X = 0)
  double below = std::exp(log_term);                         // P(X <= k - 1)
  double level = 1 - 2 * below;
  std::size_t k = 1;
  while (2 * (k + 1) <= n + 1) {
    log_term += std::log(static_cast<double>(n - k + 1)) - std::log(static_cast<double>(k));
    const double narrower = 1 - 2 * (below + std::exp(log_term));
    if (narrower < confidence) break;
    below += std::exp(log_term);
    level = narrower;
    ++k;
  }
  out.lo = values[k - 1];
  out.hi = values[n - k];
  out.level = level;
  out.reached = level >= confidence;
  return out;
}

std::optional<double> relative_half_width(const MedianInterval& ci, double median) {
  if (!ci.reached || median <= 0) return std::nullopt;
  const double half =
      std::max(median - static_cast<double>(ci.lo), static_cast<double>(ci.hi) - median);
  return half / median;
}

std::size_t min_samples_for(double confidence) {
  std::size_t n = 1;
  // The full range's level, 1 - 2 × 0.5^n, is the best n samples can give.
  while (n < 64 && 1 - 2 * std::pow(0.5, static_cast<double>(n)) < confidence) ++n;
  return n;
}

Separation separation(const MedianInterval& a, const MedianInterval& b) {
  if (!a.reached || !b.reached) return Separation::too_few;
  if (a.lo > b.hi || b.lo > a.hi) return Separation::separated;
  const double lowest = static_cast<double>(std::min(a.lo, b.lo));
  const double highest = static_cast<double>(std::max(a.hi, b.hi));
  return highest <= (1 + kSameMargin) * lowest ? Separation::same : Separation::cannot_tell;
}

std::vector<std::size_t> outlier_indices(std::span<const std::int64_t> samples) {
  std::vector<std::size_t> out;
  const double q1 = percentile(samples, 25);
  const double q3 = percentile(samples, 75);
  const double fence = 1.5 * (q3 - q1);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const auto v = static_cast<double>(samples[i]);
    if (v < q1 - fence || v > q3 + fence) out.push_back(i);
  }
  return out;
}

}  // namespace fdbench
