// html_report() on hand-built documents: which charts a page has and what they hold, text made
// safe, an interrupted run said so, and several runs side by side. (The page as a browser
// draws it is tested in tests/cli/html_report_test.cpp.)
#include "output/html_report.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "output/reporter.hpp"
#include "output/reporters/svg_chart.hpp"
#include "support/results.hpp"

namespace fdbench {
namespace html_report_test {

using testing::ResultBuilder;

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

ReportInput run(const std::string& label, const std::vector<Result>& results,
                bool complete = true) {
  ReportInput in{label,
                 parse_results_json(to_json_document(testing::linux_environment(), results))};
  in.document.complete = complete;
  return in;
}

std::vector<Result> open_sweep(std::int64_t ns_at_one_thread) {
  std::vector<Result> results;
  for (const char* strategy : {"threads", "pool"}) {
    for (const int threads : {1, 2, 4}) {
      results.push_back(ResultBuilder::open(strategy, threads)
                            .ops(10000)
                            .each_took(ns_at_one_thread / threads, 5));
    }
  }
  return results;
}

TEST(HtmlReport, OneRunHasARateChartWithALinePerStrategyAndTheSeedsLoop) {
  const std::vector<ReportInput> inputs{run("this run", open_sweep(30'000'000))};
  const std::string page = html_report(inputs);
  EXPECT_EQ(count_of(page, "<svg class=\"chart\""), 1U);
  EXPECT_EQ(count_of(page, "class=\"series-line\""), 2U);
  EXPECT_EQ(count_of(page, "class=\"point\""), 6U);
  EXPECT_EQ(count_of(page, "class=\"whisker\""), 6U);
  EXPECT_EQ(count_of(page, "class=\"reference\""), 1U);  // threads at 1 thread
  EXPECT_NE(page.find("the seed&#39;s loop"), std::string::npos);
  EXPECT_EQ(page.find("side by side"), std::string::npos);  // one run: nothing to set beside
  EXPECT_EQ(page.find("interrupted"), std::string::npos);
  // The rates in the tooltips are the results' own.
  EXPECT_NE(page.find("threads, 1 thread: 333,333 files/s"), std::string::npos) << page;
}

TEST(HtmlReport, HeldDescriptorsAreBarsPerPregrowSetting) {
  std::vector<Result> results;
  for (const char* pregrow : {"off", "auto"}) {
    results.push_back(ResultBuilder::socket("threads", 2)
                          .pregrow(pregrow)
                          .ops(512)
                          .holds_descriptors(true)
                          .each_took(pregrow == std::string("off") ? 40'000'000 : 2'000'000, 5));
  }
  const std::vector<ReportInput> inputs{run("sockets", results, false)};
  const std::string page = html_report(inputs);
  EXPECT_EQ(count_of(page, "class=\"bar\""), 2U);
  EXPECT_NE(page.find("pregrow off"), std::string::npos);
  EXPECT_NE(page.find("pregrow auto"), std::string::npos);
  EXPECT_NE(page.find("This run was interrupted"), std::string::npos);
}

TEST(HtmlReport, SeveralRunsAreSetSideBySideWithTheCompareTable) {
  const std::vector<ReportInput> inputs{run("ext4.json", open_sweep(30'000'000)),
                                        run("tmpfs.json", open_sweep(15'000'000))};
  const std::string page = html_report(inputs);
  EXPECT_NE(page.find("The runs side by side"), std::string::npos);
  EXPECT_EQ(count_of(page, "data-chart=\"compare-"), 1U);
  EXPECT_EQ(count_of(page, "class=\"bar\""), 12U);  // 6 results x 2 runs
  EXPECT_NE(page.find("0.50× (0.50–0.50)"), std::string::npos) << page;
  EXPECT_NE(page.find(">faster<"), std::string::npos);
}

TEST(HtmlReport, TextFromFilesIsEscaped) {
  auto results = open_sweep(30'000'000);
  results[0].warnings.push_back({WarningKind::other, "<script>alert(1)</script> & \"more\""});
  const std::vector<ReportInput> inputs{run("<b>label</b>", results)};
  const std::string page = html_report(inputs);
  EXPECT_EQ(page.find("<script>"), std::string::npos);
  EXPECT_EQ(page.find("<b>label"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;more&quot;"),
            std::string::npos);
  EXPECT_EQ(svg::escape("a<b>&'\""), "a&lt;b&gt;&amp;&#39;&quot;");
}

TEST(SvgChart, MarksStayInsideTheViewBoxAndAMissingValueBreaksTheLine) {
  svg::Chart chart{"c", "title", "y", "x", {"1", "2", "4"}, {}, 100.0, "ref"};
  chart.series.push_back(
      {"s", {svg::Value{50, 40, 120, ""}, std::nullopt, svg::Value{80, 70, 90, ""}}});
  const std::string markup = svg::line_chart(chart);
  // Two moves (M): the line starts again after the missing value.
  const std::regex path(R"re(class="series-line" stroke="[^"]*" d="([^"]*)")re");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(markup, m, path));
  const std::string d = m[1];
  EXPECT_EQ(std::count(d.begin(), d.end(), 'M'), 2) << d;
  // Every y coordinate is within the view box, the whisker's top (120) included.
  const std::regex y(R"re(c?y[12]?="(-?[0-9.]+)")re");
  for (auto it = std::sregex_iterator(markup.begin(), markup.end(), y);
       it != std::sregex_iterator(); ++it) {
    const double v = std::stod((*it)[1]);
    EXPECT_GE(v, 0);
    EXPECT_LE(v, 430);
  }
}

TEST(HtmlReport, LatencyDrawsTheMedianRepetitionsGrowthEventsAndStallsPerWorker) {
  Latency l;
  for (int rep = 0; rep < 3; ++rep) {
    int size = 64;
    for (const int fd : {64, 128, 256, 512}) {
      l.growth_events.push_back({rep, fd == 256 ? 1 : 0, static_cast<std::uint64_t>(fd), fd,
                                 7'000'000, size, size * 2, true});
      size *= 2;
    }
    l.stalls.push_back({rep, 1, 63, "create", 65, 6'900'000, "waiting-on-growth"});
  }
  l.growth_totals = {12, 84'000'000, 0.9};
  l.stall_totals = {3, 20'700'000, 0.2};
  l.ns["create"] = {1536, 3000, 4000, 60000, 7'000'000, 7'000'000};
  const Result off = ResultBuilder::socket("threads", 2)
                         .ops(512)
                         .times({30'000'000, 10'000'000, 20'000'000})  // the median: repetition 2
                         .fdsize(64, 1024)
                         .latency(l);
  const Result grown =
      ResultBuilder::socket("threads", 2).ops(512).pregrow("auto").each_took(2'000'000, 3);
  const std::vector<ReportInput> inputs{run("sockets", {off, grown})};
  const std::string page = html_report(inputs);
  EXPECT_EQ(count_of(page, "data-chart=\"run0-0-events-"), 1U);  // only the result with events
  EXPECT_EQ(count_of(page, "class=\"growth\""), 4U);             // one repetition's four
  EXPECT_EQ(count_of(page, "class=\"stall\""), 1U);
  EXPECT_NE(page.find(">worker 1<"), std::string::npos);
  EXPECT_NE(page.find("worker 1 grew the table at fd 256 (256 → 512 slots, shared)"),
            std::string::npos);
  EXPECT_NE(page.find("worker 1, create of fd 65: 6.90 ms (waiting-on-growth)"), std::string::npos);
}

}  // namespace html_report_test
}  // namespace fdbench
