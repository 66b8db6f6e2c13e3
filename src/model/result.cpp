#include "model/result.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace fdbench {

namespace {

constexpr std::pair<WorkerKind, std::string_view> kWorkerNames[] = {
    {WorkerKind::threads, "threads"}, {WorkerKind::processes, "processes"}};
constexpr std::pair<FdTable, std::string_view> kTableNames[] = {
    {FdTable::shared, "shared"}, {FdTable::per_worker, "per-worker"}, {FdTable::none, "none"}};

template <class Enum, std::size_t N>
std::string_view name_of(const std::pair<Enum, std::string_view> (&names)[N], Enum value) {
  for (const auto& [v, name] : names) {
    if (v == value) return name;
  }
  return "unknown";
}

template <class Enum, std::size_t N>
bool value_of(const std::pair<Enum, std::string_view> (&names)[N], std::string_view text,
              Enum& value) {
  for (const auto& [v, name] : names) {
    if (name == text) {
      value = v;
      return true;
    }
  }
  return false;
}

}  // namespace

std::string_view to_string(WorkerKind workers) {
  return name_of(kWorkerNames, workers);
}
std::string_view to_string(FdTable table) {
  return name_of(kTableNames, table);
}
bool parse_worker_kind(std::string_view text, WorkerKind& workers) {
  return value_of(kWorkerNames, text, workers);
}
bool parse_fd_table(std::string_view text, FdTable& table) {
  return value_of(kTableNames, text, table);
}

bool cut_short(const Result& result) {
  return std::any_of(result.warnings.begin(), result.warnings.end(),
                     [](const std::string& w) { return w.starts_with(kCutShortWarning); });
}

bool hung(const Result& result) {
  return result.error.starts_with(kTimedOutError) || result.error.starts_with(kHungError);
}

std::string_view error_kind(std::string_view error) {
  if (error.starts_with(kTimedOutError)) return "timed out";
  if (error.starts_with(kHungError)) return "hung";
  return "unavailable";
}

std::string error_text(const Result& result) {
  return hung(result) ? result.error : "unavailable: " + result.error;
}

void finalize(Result& result) {
  result.stats = summarize(result.times_ns);
  result.ops_per_sec =
      result.stats.median > 0 ? static_cast<double>(result.ops) * 1e9 / result.stats.median : 0.0;
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
