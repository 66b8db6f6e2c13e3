#include "fdbench/statistics.hpp"

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
  s.median = n % 2 == 1 ? static_cast<double>(values[n / 2])
                        : (static_cast<double>(values[n / 2 - 1]) +
                           static_cast<double>(values[n / 2])) / 2.0;
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

}  // namespace fdbench
