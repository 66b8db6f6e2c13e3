#include "fdbench/result.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fdbench {

void finalize(Result& result) {
  result.stats = summarize(result.times_ns);
  result.ops_per_sec = result.stats.median > 0
                           ? static_cast<double>(result.ops) * 1e9 / result.stats.median
                           : 0.0;
  result.median_ci = median_interval(result.times_ns);
  result.outliers = outlier_indices(result.times_ns);
  const double spread = relative_spread(result.stats);
  if (result.stats.count < 2 || spread <= kNoisySpread) return;
  // The text follows from times_ns alone, so finalizing again (a reader does) adds nothing.
  const std::string warning =
      fmt::format("{}min–max spread is {:.0f}% of the median (over {:.0f}%)", kNoisyWarning,
                  spread * 100, kNoisySpread * 100);
  auto& w = result.warnings;
  if (std::find(w.begin(), w.end(), warning) == w.end()) w.push_back(warning);
}

}  // namespace fdbench
