// A configuration's results across the runs of a history, read back into typed values.
#include <fmt/format.h>

#include <map>
#include <tuple>

#include "history/history.hpp"

namespace fdbench::history {

namespace {

// The series a row belongs to, typed: its workload, configuration and item count. The text
// columns are read back through each type's one parse function.
std::tuple<std::string, Configuration, std::uint64_t> trend_key(const sqlite::Statement& row) {
  Configuration config;
  config.strategy = row.text(1);
  config.threads = static_cast<int>(row.integer(2));
  config.batch = static_cast<int>(row.integer(3));
  if (!parse_descriptor_kind(row.text(4), config.kind) ||
      !parse_pregrow(row.text(5), config.pregrow) || !parse_harness(row.text(6), config.harness)) {
    throw Error("the history holds a result this fdbench cannot read (kind, pregrow or harness)");
  }
  if (!row.is_null(7)) {
    PathMode paths{};
    if (parse_path_mode(row.text(7), paths)) config.paths = paths;
  }
  if (!row.is_null(8)) config.rcu_expedited = static_cast<int>(row.integer(8));
  return {row.text(0), config, static_cast<std::uint64_t>(row.integer(9))};
}

TrendPoint trend_point(const sqlite::Statement& row) {
  TrendPoint point;
  point.run = row.integer(10);
  point.date = row.text(11);
  point.host = row.text(12);
  if (!parse_status(row.text(13), point.status)) point.status = Status::failed;
  point.repetitions = row.integer(14);
  point.median_ns = row.real(15);
  point.low_ns = row.real(16);
  point.high_ns = row.real(17);
  point.interval_reached = row.integer(18) != 0;
  point.kernel = row.text(19);
  return point;
}

}  // namespace

std::vector<TrendSeries> History::trend() {
  auto select = db_.prepare(
      "SELECT r.workload, r.strategy, r.threads, r.batch, r.kind, r.pregrow, r.harness, r.paths, "
      "r.rcu_expedited, r.ops, runs.id, runs.date, runs.host, r.status, r.repetitions, "
      "r.median_ns, r.ci_low_ns, r.ci_high_ns, r.ci_reached, runs.kernel "
      "FROM results AS r JOIN runs ON runs.id = r.run_id ORDER BY runs.id, r.position");
  std::map<std::tuple<std::string, Configuration, std::uint64_t>, std::size_t> index;
  std::vector<TrendSeries> series;
  while (select.step()) {
    auto key = trend_key(select);
    auto [it, fresh] = index.try_emplace(key, series.size());
    if (fresh) {
      series.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), {}});
    }
    series[it->second].points.push_back(trend_point(select));
  }
  return series;
}

}  // namespace fdbench::history
