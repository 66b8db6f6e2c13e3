// `history trend --format html` on hand-built series: a chart per kind of work, a line per
// configuration, the runs along the x axis oldest first, a run's kernel named only where the
// chart's runs differ in it, and a run that measured nothing a break in the line.
#include "application/trend_chart.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fdbench::app {
namespace trend_chart_test {

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

history::TrendPoint point(std::int64_t run, const std::string& kernel, double median_ns,
                          Status status = Status::measured) {
  history::TrendPoint p;
  p.run = run;
  p.date = "2026-12-0" + std::to_string(run) + "T10:30:00Z";
  p.host = "ci-runner";
  p.kernel = kernel;
  p.status = status;
  p.repetitions = 10;
  p.median_ns = median_ns;
  p.low_ns = median_ns * 0.9;
  p.high_ns = median_ns * 1.1;
  p.interval_reached = true;
  return p;
}

history::TrendSeries series(const std::string& workload, int threads,
                            std::vector<history::TrendPoint> points) {
  history::TrendSeries s;
  s.workload = workload;
  s.config.strategy = "threads";
  s.config.threads = threads;
  s.ops = 512;
  s.points = std::move(points);
  return s;
}

TEST(TrendChart, AChartPerWorkALinePerConfigurationAndTheRunsOldestFirst) {
  const std::vector<history::TrendSeries> all = {
      series("socket", 1, {point(1, "6.1.0", 2e6), point(2, "6.1.0", 3e6)}),
      series("socket", 2, {point(1, "6.1.0", 4e6), point(2, "6.1.0", 5e6)}),
      series("open", 2, {point(3, "6.1.0", 1e6)})};
  const std::string page = trend_page(all);
  EXPECT_EQ(count_of(page, "<svg class=\"chart\""), 2U) << page;
  EXPECT_NE(page.find("data-chart=\"trend-0\""), std::string::npos);
  EXPECT_NE(page.find("data-chart=\"trend-1\""), std::string::npos);
  EXPECT_EQ(count_of(page, "class=\"series-line\""), 3U);
  EXPECT_EQ(count_of(page, "class=\"point\""), 5U);
  // One kernel: the x axis says run and date only; the tooltip says the rest.
  const auto first = page.find(">run 1 · 12-01 10:30<");
  const auto second = page.find(">run 2 · 12-02 10:30<");
  ASSERT_NE(first, std::string::npos) << page;
  ASSERT_NE(second, std::string::npos) << page;
  EXPECT_LT(first, second);
  EXPECT_EQ(page.find("10:30 · 6.1.0<"), std::string::npos) << page;
  EXPECT_NE(page.find("run 1 (2026-12-01T10:30:00Z, ci-runner, 6.1.0): 2.00 ms, 95% interval"),
            std::string::npos)
      << page;
}

TEST(TrendChart, AKernelChangeIsOnTheAxisAndARunWithoutTimesBreaksTheLine) {
  const std::vector<history::TrendSeries> all = {series(
      "socket", 2,
      {point(1, "6.1.0", 2e6), point(2, "6.18.0", 0, Status::failed), point(3, "6.18.0", 3e6)})};
  const std::string page = trend_page(all);
  EXPECT_NE(page.find(">run 1 · 12-01 10:30 · 6.1.0<"), std::string::npos) << page;
  EXPECT_NE(page.find(">run 3 · 12-03 10:30 · 6.18.0<"), std::string::npos) << page;
  EXPECT_EQ(count_of(page, "class=\"point\""), 2U) << page;
  // The line is broken at the run that failed: it starts again (M) after the gap.
  const auto line = page.find("class=\"series-line\"");
  ASSERT_NE(line, std::string::npos);
  const auto d = page.find(" d=\"", line) + 4;
  EXPECT_EQ(count_of(page.substr(d, page.find('"', d) - d), "M"), 2U) << page;
}

TEST(TrendChart, NothingToDrawIsSaid) {
  const std::string page = trend_page({});
  EXPECT_EQ(page.find("<svg"), std::string::npos);
  EXPECT_NE(page.find("No results in the history match."), std::string::npos);
}

}  // namespace trend_chart_test
}  // namespace fdbench::app
