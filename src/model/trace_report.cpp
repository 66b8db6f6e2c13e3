#include "model/trace_report.hpp"

#include <algorithm>

namespace fdbench {

std::uint64_t TracedCalls::failed() const {
  std::uint64_t n = 0;
  for (const auto& [name, n_failed] : failures_by_errno) n += n_failed;
  return n;
}

OffCpuByCause TraceReport::growth_off_cpu() const {
  OffCpuByCause sum{};
  for (const TableGrowth& g : growths) {
    for (std::size_t c = 0; c < kOffCpuCauses; ++c) sum[c] += g.off_cpu[c];
  }
  return sum;
}

int TraceReport::most_threads_sharing() const {
  int most = 0;
  for (const TableGrowth& g : growths) most = std::max(most, g.threads_sharing);
  return most;
}

}  // namespace fdbench
