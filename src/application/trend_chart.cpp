// `fdbench history trend`: the series' titles, and the page `--format html` writes.
#include "application/trend_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "fdbench/version.hpp"
#include "model/format.hpp"
#include "output/html_report.hpp"
#include "output/reporters/svg_chart.hpp"

namespace fdbench::app {

std::string work_title(const history::TrendSeries& s) {
  return fmt::format("{}, {}, {} descriptors", s.workload, to_string(s.config.kind),
                     group_digits(s.ops));
}

std::string configuration_title(const history::TrendSeries& s) {
  std::string title = fmt::format("{}, {}", s.config.strategy, thread_count_text(s.config.threads));
  if (s.config.batch != 1) title += fmt::format(", batch {}", s.config.batch);
  if (s.config.pregrow.grows()) title += ", pregrow " + s.config.pregrow.label();
  if (s.config.harness != Harness::minimal)
    title += fmt::format(", {} harness", to_string(s.config.harness));
  if (s.config.paths) title += fmt::format(", {} paths", to_string(*s.config.paths));
  if (s.config.rcu_expedited) title += fmt::format(", rcu_expedited {}", *s.config.rcu_expedited);
  return title;
}

std::string series_title(const history::TrendSeries& s) {
  return work_title(s) + ": " + configuration_title(s);
}

namespace {

// A run on the x axis: its id and when it was made ("run 3 · 12-07 14:55"), and its kernel
// where the chart's runs were made on more than one (what an upgrade changes). Kept short:
// a long label is slanted and crowds the chart; the year, host and kernel are in each point's
// tooltip.
std::string run_category(const history::TrendPoint& p, bool kernels_differ) {
  std::string when = p.date.size() >= 16 ? p.date.substr(5, 11) : p.date;
  std::replace(when.begin(), when.end(), 'T', ' ');
  std::string label = fmt::format("run {} · {}", p.run, when);
  return kernels_differ && !p.kernel.empty() ? label + " · " + p.kernel : label;
}

std::optional<svg::Value> point_value(const history::TrendSeries& s, const history::TrendPoint& p) {
  if ((p.status != Status::measured && p.status != Status::cut_short) || p.median_ns <= 0) {
    return std::nullopt;
  }
  return svg::Value{
      p.median_ns / 1e6, p.low_ns / 1e6, p.high_ns / 1e6,
      fmt::format("{}, run {} ({}, {}{}): {} ms, {} {}–{} ms, {} repetitions",
                  configuration_title(s), p.run, p.date, p.host,
                  p.kernel.empty() ? "" : ", " + p.kernel, format_ms(p.median_ns),
                  p.interval_reached ? "95% interval" : "min–max", format_ms(p.low_ns),
                  format_ms(p.high_ns), p.repetitions)};
}

// One kind of work's series in one chart: the runs any of them has, oldest first.
svg::Chart work_chart(const std::vector<const history::TrendSeries*>& group, std::size_t index) {
  svg::Chart chart{fmt::format("trend-{}", index),
                   work_title(*group.front()) + " — across runs, lower is faster",
                   "ms per repetition (median, 95% interval)",
                   "run · date (and kernel, where the runs' differ)",
                   {},
                   {},
                   {},
                   {}};
  std::set<std::string> kernels;
  for (const auto* s : group) {
    for (const auto& p : s->points) kernels.insert(p.kernel);
  }
  std::map<std::int64_t, std::string> runs;
  for (const auto* s : group) {
    for (const auto& p : s->points) runs.emplace(p.run, run_category(p, kernels.size() > 1));
  }
  for (const auto& [run, label] : runs) chart.categories.push_back(label);
  std::map<std::string, std::size_t> variants;  // a strategy's lines told apart by dashes
  for (const auto* s : group) {
    svg::Series line{configuration_title(*s), std::vector<std::optional<svg::Value>>(runs.size()),
                     svg::strategy_colour(s->config.strategy), variants[s->config.strategy]++};
    for (const auto& p : s->points) {
      const auto at = static_cast<std::size_t>(std::distance(runs.begin(), runs.find(p.run)));
      line.values[at] = point_value(*s, p);
    }
    chart.series.push_back(std::move(line));
  }
  return chart;
}

}  // namespace

std::string trend_page(std::span<const history::TrendSeries> series) {
  std::vector<std::string> works;
  std::map<std::string, std::vector<const history::TrendSeries*>> groups;
  for (const auto& s : series) {
    const std::string work = work_title(s);
    if (!groups.count(work)) works.push_back(work);
    groups[work].push_back(&s);
  }
  std::string body = fmt::format("<p class=\"meta\">fdbench {} · {} configuration{}</p>\n",
                                 svg::escape(std::string(version())), series.size(),
                                 series.size() == 1 ? "" : "s");
  if (works.empty()) body += "<p>No results in the history match.</p>\n";
  for (std::size_t i = 0; i < works.size(); ++i) {
    body += svg::line_chart(work_chart(groups[works[i]], i));
  }
  return html_page("fdbench history trend", body);
}

}  // namespace fdbench::app
