// html_report() on hand-built documents: which charts a page has and what they hold, text made
// safe, an interrupted run said so, and several runs side by side; a strategy's colour, the
// y axis's scale, where labels go (by geometry), each run's date and command under the title,
// the compare table's heads, and --kernel-trace's stacked bars (or the line saying why there
// are none). (The page as a browser draws it is tested in
// tests/cli/html_report_test.cpp.)
#include "output/html_report.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "engine/strategy.hpp"
#include "model/format.hpp"
#include "model/latency.hpp"
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

// A run of `results` on a machine described by `env`, made on `host`.
ReportInput run_on(const std::string& label, const std::string& host, const Environment& env,
                   const std::vector<Result>& results) {
  RunContext context = testing::run_context();
  context.host = host;
  return {label, parse_results_json(to_json_document(env, results, {}, &context))};
}

// The page's part from `start` to the end of the table that follows it.
std::string table_at(const std::string& page, const std::string& start) {
  const auto at = page.find(start);
  if (at == std::string::npos) return "";
  return page.substr(at, page.find("</table>", at) - at);
}

TEST(HtmlReport, SeveralMachinesAreColumnsOfMediansWithIntervalsAndPublishedFigures) {
  std::vector<Result> slow;
  std::vector<Result> fast;
  for (const int threads : {1, 2}) {
    slow.push_back(ResultBuilder::open("threads", threads).ops(10000).times(
        {30'000'000, 31'000'000, 32'000'000, 33'000'000, 34'000'000, 35'000'000, 36'000'000}));
    fast.push_back(ResultBuilder::open("threads", threads).ops(10000).each_took(15'000'000, 3));
  }
  Environment other = testing::linux_environment();
  other.kernel = "6.18.0-other";
  other.rcu_expedited = 0;
  const std::vector<ReportInput> inputs{
      run_on("alpha.json", "alpha-host", testing::linux_environment(), slow),
      run_on("beta.json", "beta-host", other, fast)};
  const std::string page = html_report(inputs);
  const std::string across = table_at(page, "<table class=\"across\">");
  ASSERT_FALSE(across.empty()) << page;
  // The hosts are the columns, each head naming the run and the host its document records.
  EXPECT_NE(across.find("A · alpha.json<br><span class=\"host\">alpha-host"), std::string::npos);
  EXPECT_NE(across.find("B · beta.json<br><span class=\"host\">beta-host"), std::string::npos);
  EXPECT_EQ(count_of(across, "<tr class=\"group\">"), 1U) << across;
  // Each cell the run's median and the 95% interval of that median, as the result has them;
  // three repetitions give no 95% interval: the full range, marked.
  const Result& one = inputs[0].document.results[0];
  ASSERT_TRUE(one.median_ci.reached);
  EXPECT_NE(across.find(fmt::format("{} ms<br><span class=\"interval\">{}–{}</span>",
                                    format_ms(one.stats.median),
                                    format_ms(static_cast<double>(one.median_ci.lo)),
                                    format_ms(static_cast<double>(one.median_ci.hi)))),
            std::string::npos)
      << across;
  EXPECT_EQ(count_of(across, " *</span>"), 2U) << across;
  // The seeds' published figures for 10,000 opens are rows, each run set against them.
  EXPECT_EQ(count_of(across, "<tr class=\"reference\">"), 2U) << across;
  EXPECT_NE(across.find("published: Apple M2 laptop"), std::string::npos) << across;
  EXPECT_EQ(count_of(across, "× theirs: "), 4U) << across;
  // What differs between the machines is called out; what is alike is not listed.
  const std::string differ = table_at(page, "<table class=\"environment-differences\">");
  EXPECT_NE(differ.find("<td>kernel</td>"), std::string::npos) << differ;
  EXPECT_NE(differ.find("6.18.0-other"), std::string::npos) << differ;
  EXPECT_NE(differ.find("<td>rcu_expedited</td>"), std::string::npos) << differ;
  EXPECT_EQ(differ.find("<td>cpu_model</td>"), std::string::npos) << differ;
}

TEST(HtmlReport, MachinesAlikeAreSaidToBeAlike) {
  const std::vector<ReportInput> inputs{run("a.json", open_sweep(30'000'000)),
                                        run("b.json", open_sweep(30'000'000))};
  const std::string page = html_report(inputs);
  EXPECT_EQ(page.find("environment-differences"), std::string::npos) << page;
  EXPECT_NE(page.find("class=\"meta environment-alike\">The runs' environments record no "
                      "difference"),
            std::string::npos)
      << page;
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
      {"s", {svg::Value{50, 40, 120, ""}, std::nullopt, svg::Value{80, 70, 90, ""}}, "", 0});
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
    l.stalls.push_back({rep, 1, 63, "create", 65, 6'900'000, "waiting-on-growth", std::nullopt});
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

// Issue 34, case 3: the median repetition (#20 of 40) came after the first 100 stalls listed,
// and its chart drew no stall while its key named some. Now it draws its 7, and its key names
// what it draws and nothing else.
TEST(HtmlReport, TheMedianRepetitionsChartDrawsItsStallsAndItsKeyOnlyWhatItDraws) {
  std::vector<CallRecord> records(600);
  for (std::size_t i = 0; i < records.size(); ++i) {
    records[i].start_ns = 10'000 * static_cast<std::int64_t>(i);
    records[i].create_ns = 3'000;
    records[i].fd = 3 + static_cast<int>(i);
    records[i].worker = static_cast<std::int16_t>(i % 2);
  }
  for (const std::size_t i : {61U, 300U, 320U, 340U, 360U, 380U, 400U}) {
    records[i].create_ns = 300'000;  // one grows the table at fd 64, the others stall unexplained
  }
  LatencyCollector collector("create", false);
  std::vector<std::int64_t> times;
  for (int rep = 0; rep < 40; ++rep) {
    times.push_back(rep == 20 ? 500'000 : rep < 20 ? 100'000 + rep : 1'000'000 + rep);
    collector.add(records, times.back(), 64, true);
  }
  const Result r = ResultBuilder::socket("threads", 2)
                       .ops(600)
                       .times(times)
                       .fdsize(64, 1024)
                       .latency(collector.finish());
  const std::vector<ReportInput> inputs{run("sockets", {r})};
  const std::string page = html_report(inputs);
  EXPECT_EQ(count_of(page, "class=\"stall\""), 7U);
  EXPECT_EQ(count_of(page, "class=\"growth\""), 4U);
  EXPECT_NE(page.find("grew the table (diamond), or a stall growing it"), std::string::npos);
  EXPECT_NE(page.find("stall: unexplained"), std::string::npos);
  EXPECT_EQ(page.find("stall: waiting on another worker's growth"), std::string::npos);
}

TEST(HtmlReport, ARepetitionWithoutStallsHasNoStallInItsChartsKey) {
  Latency l;
  l.growth_events.push_back({0, 0, 61, 64, 7'000'000, 64, 128, true});
  l.growth_totals = {1, 7'000'000, 0.5};
  l.stalls_per_repetition = {0};
  l.ns["create"] = {512, 3000, 4000, 60000, 7'000'000, 7'000'000};
  const Result r =
      ResultBuilder::socket("threads", 2).ops(512).times({14'000'000}).fdsize(64, 128).latency(l);
  const std::vector<ReportInput> inputs{run("sockets", {r})};
  const std::string page = html_report(inputs);
  EXPECT_EQ(count_of(page, "class=\"growth\""), 1U);
  EXPECT_EQ(page.find("stall:"), std::string::npos);
  EXPECT_NE(page.find("growth events and stalls</figcaption>"), std::string::npos);
}

// A repetition's stalls are listed up to 100: where it had more, its chart's title says so.
TEST(HtmlReport, AChartOfMoreStallsThanListedSaysHowMany) {
  Latency l;
  l.stalls.push_back({0, 0, 10, "create", 13, 300'000, "unexplained", std::nullopt});
  l.stalls.push_back({0, 1, 11, "create", 14, 300'000, "unexplained", std::nullopt});
  l.stall_totals = {150, 45'000'000, 0.5};
  l.stalls_per_repetition = {150};
  l.ns["create"] = {512, 3000, 4000, 300'000, 300'000, 300'000};
  const Result r =
      ResultBuilder::socket("threads", 2).ops(512).times({90'000'000}).fdsize(64, 64).latency(l);
  const std::vector<ReportInput> inputs{run("sockets", {r})};
  const std::string page = html_report(inputs);
  EXPECT_NE(page.find("growth events and the first 2 of its 150 stalls</figcaption>"),
            std::string::npos);
}

// The first chart's legend, as series name → the colour its line is drawn in.
std::map<std::string, std::string> line_colours(const std::string& markup) {
  const auto chart_end = markup.find("</svg>");
  const std::string chart = markup.substr(0, chart_end);
  std::vector<std::string> strokes;
  const std::regex line(R"re(class="series-line" stroke="([^"]*)")re");
  for (auto it = std::sregex_iterator(chart.begin(), chart.end(), line);
       it != std::sregex_iterator(); ++it) {
    strokes.push_back((*it)[1]);
  }
  // Each legend entry: its swatch's colour, then its name (one line each here).
  std::map<std::string, std::string> out;
  const std::regex entry(
      R"re(<line class="key"[^>]* stroke="([^"]*)"[^>]*/>\s*<text class="tick legend"[^>]*>([^<]*)</text>)re");
  std::size_t k = 0;
  for (auto it = std::sregex_iterator(chart.begin(), chart.end(), entry);
       it != std::sregex_iterator(); ++it, ++k) {
    EXPECT_LT(k, strokes.size());
    if (k < strokes.size()) {
      EXPECT_EQ(strokes[k], (*it)[1]) << "legend and line differ";
    }
    out[(*it)[2]] = (*it)[1];
  }
  EXPECT_EQ(k, strokes.size()) << chart;
  return out;
}

std::vector<Result> sweep_of(const std::vector<std::string>& strategies) {
  std::vector<Result> results;
  for (const auto& strategy : strategies) {
    for (const int threads : {1, 2}) {
      results.push_back(
          ResultBuilder::open(strategy.c_str(), threads).ops(10000).each_took(20'000'000, 5));
    }
  }
  return results;
}

TEST(HtmlReport, AStrategyHasOneColourWhateverOrderItComesIn) {
  const std::vector<ReportInput> first{run("a.json", sweep_of({"threads", "pool", "libuv"}))};
  const std::vector<ReportInput> second{
      run("b.json", sweep_of({"uring", "libuv", "pool", "threads", "made-up"}))};
  const auto a = line_colours(html_report(first));
  const auto b = line_colours(html_report(second));
  ASSERT_EQ(a.size(), 3U);
  ASSERT_EQ(b.size(), 5U);
  for (const auto& [name, colour] : a) {
    EXPECT_EQ(b.at(name), colour) << name;
    EXPECT_EQ(colour, svg::strategy_colour(name)) << name;
  }
  EXPECT_EQ(b.at("made-up"), svg::strategy_colour("made-up"));
}

TEST(SvgChart, EveryStrategyHasItsOwnFixedColourAndOthersOneFromTheirName) {
  std::set<std::string> colours;
  for (const auto& name : strategy_names()) {
    EXPECT_TRUE(std::regex_match(svg::strategy_colour(name), std::regex("#[0-9A-F]{6}"))) << name;
    colours.insert(svg::strategy_colour(name));
  }
  EXPECT_EQ(colours.size(), strategy_names().size());
  // A name from another version: the same colour every time, never a known strategy's.
  for (const char* other : {"made-up", "io-pool", "uring-sqpoll", "x"}) {
    EXPECT_EQ(svg::strategy_colour(other), svg::strategy_colour(std::string(other)));
    EXPECT_EQ(colours.count(svg::strategy_colour(other)), 0U) << other;
  }
}

TEST(SvgChart, OneStrategyAtSeveralBatchesIsOneColourWithDashes) {
  std::vector<Result> results;
  for (const int batch : {8, 64}) {
    for (const int threads : {1, 2}) {
      results.push_back(ResultBuilder::open("pool-batch", threads)
                            .batch(batch)
                            .ops(10000)
                            .each_took(20'000'000, 5));
    }
  }
  const std::vector<ReportInput> inputs{run("r", results)};
  const std::string page = html_report(inputs);
  EXPECT_EQ(
      count_of(page, "class=\"series-line\" stroke=\"" + svg::strategy_colour("pool-batch") + "\""),
      2U);
  EXPECT_EQ(count_of(page, "class=\"series-line\" stroke=\"" + svg::strategy_colour("pool-batch") +
                               "\" stroke-dasharray="),
            1U);
}

svg::Chart chart_of(const std::vector<double>& medians) {
  svg::Chart chart{"c", "title", "files/s", "threads", {"1", "2"}, {}, std::nullopt, ""};
  for (std::size_t k = 0; k < medians.size(); ++k) {
    const double m = medians[k];
    chart.series.push_back(
        {"s" + std::to_string(k), {svg::Value{m, m * 0.9, m * 1.1, ""}, std::nullopt}, "", 0});
  }
  return chart;
}

TEST(SvgChart, ALogAxisWhereValuesSpanMoreThanFiveTimes) {
  const auto wide = chart_of({20'000, 60'000, 400'000});  // 20x: io_uring over the rest
  EXPECT_TRUE(svg::log_axis(wide));
  const std::string log_markup = svg::line_chart(wide);
  EXPECT_NE(log_markup.find("data-scale=\"log\""), std::string::npos);
  EXPECT_NE(log_markup.find("y axis: log scale"), std::string::npos);
  // Ticks at 1, 2 and 5 times powers of ten, labelled.
  for (const char* tick : {">20k<", ">50k<", ">100k<", ">200k<", ">500k<"}) {
    EXPECT_NE(log_markup.find(tick), std::string::npos) << tick << "\n" << log_markup;
  }
  EXPECT_EQ(log_markup.find(">0<"), std::string::npos);  // a log axis has no zero
  // The slowest line is no longer squeezed against the bottom: 20k sits well above it.
  const std::regex point(R"re(class="point" cx="[^"]*" cy="([0-9.]+)")re");
  std::vector<double> ys;
  for (auto it = std::sregex_iterator(log_markup.begin(), log_markup.end(), point);
       it != std::sregex_iterator(); ++it) {
    ys.push_back(std::stod((*it)[1]));
  }
  ASSERT_EQ(ys.size(), 3U);
  EXPECT_LT(ys[0], 290 - 20);
  EXPECT_GT(ys[0] - ys[1], 30);  // 3x apart is a visible step

  const auto narrow = chart_of({200'000, 400'000});  // 2x
  EXPECT_FALSE(svg::log_axis(narrow));
  const std::string linear_markup = svg::line_chart(narrow);
  EXPECT_NE(linear_markup.find("data-scale=\"linear\""), std::string::npos);
  EXPECT_NE(linear_markup.find("y axis: linear scale"), std::string::npos);
  EXPECT_NE(linear_markup.find(">0<"), std::string::npos);
  // Exactly 5x is not more than 5x; the reference counts as a plotted value.
  EXPECT_FALSE(svg::log_axis(chart_of({100, 500})));
  auto with_reference = chart_of({100, 200});
  with_reference.reference = 1000;
  EXPECT_TRUE(svg::log_axis(with_reference));
}

struct Box {
  double left, top, right, bottom;
  std::string text;
};

bool intersect(const Box& a, const Box& b) {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

// Characters as drawn: an entity is one, a UTF-8 sequence is one.
std::size_t drawn_length(const std::string& markup) {
  const std::string text = std::regex_replace(markup, std::regex("&[#a-z0-9]+;"), "_");
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

// The boxes of a chart's labels (the legend's lines, the scale note, a stacked bar's label):
// 12 px text, at most 7 px a character wide, from the baseline 11 px up and 4 down.
std::vector<Box> label_boxes(const std::string& markup) {
  std::vector<Box> out;
  const std::regex text(
      R"re(<text class="tick (?:legend|scale-note|bar-label)" x="([0-9.]+)" y="([0-9.]+)">([^<]*)</text>)re");
  for (auto it = std::sregex_iterator(markup.begin(), markup.end(), text);
       it != std::sregex_iterator(); ++it) {
    const double x = std::stod((*it)[1]);
    const double y = std::stod((*it)[2]);
    out.push_back(
        {x, y - 11, x + 7.0 * static_cast<double>(drawn_length((*it)[3])), y + 4, (*it)[3]});
  }
  return out;
}

// Every point a line passes through, every whisker end and every dot.
std::vector<std::pair<double, double>> drawn_points(const std::string& markup) {
  std::vector<std::pair<double, double>> out;
  const std::regex path(R"re(class="(?:series-line|whisker)"[^>]* d="([^"]*)")re");
  const std::regex xy(R"re([ML]([0-9.]+) ([0-9.]+))re");
  for (auto it = std::sregex_iterator(markup.begin(), markup.end(), path);
       it != std::sregex_iterator(); ++it) {
    const std::string d = (*it)[1];
    for (auto p = std::sregex_iterator(d.begin(), d.end(), xy); p != std::sregex_iterator(); ++p) {
      out.emplace_back(std::stod((*p)[1]), std::stod((*p)[2]));
    }
  }
  const std::regex dot(R"re(class="point" cx="([0-9.]+)" cy="([0-9.]+)")re");
  for (auto it = std::sregex_iterator(markup.begin(), markup.end(), dot);
       it != std::sregex_iterator(); ++it) {
    out.emplace_back(std::stod((*it)[1]), std::stod((*it)[2]));
  }
  return out;
}

TEST(SvgChart, LabelsCoverNeitherEachOtherNorTheLines) {
  // The case of the issue: the seed's loop at 1 thread, a line through its label's old place
  // (the reference's right end), long names, and as many series as the registry has.
  svg::Chart chart{"c",
                   "t",
                   "files/s",
                   "threads",
                   {"1", "2", "4", "8"},
                   {},
                   200'000.0,
                   "the seed's loop (threads, 1 thread)"};
  std::size_t k = 0;
  for (const auto& name : strategy_names()) {
    const double m = 150'000 + 20'000 * static_cast<double>(k++);
    chart.series.push_back({name + " (batch 64) with a name far too long for one line",
                            {svg::Value{m, m, m, ""}, svg::Value{m, m * 0.9, m * 1.1, ""},
                             std::nullopt, svg::Value{200'000, 190'000, 210'000, ""}},
                            svg::strategy_colour(name),
                            0});
  }
  for (const bool lines : {true, false}) {
    const std::string markup = lines ? svg::line_chart(chart) : svg::bar_chart(chart);
    SCOPED_TRACE(markup);
    const auto labels = label_boxes(markup);
    ASSERT_GT(labels.size(), strategy_names().size() + 1);  // a legend, wrapped, and the note
    std::smatch view;
    ASSERT_TRUE(
        std::regex_search(markup, view, std::regex(R"re(viewBox="0 0 ([0-9.]+) ([0-9.]+)")re")));
    const double width = std::stod(view[1]);
    const double height = std::stod(view[2]);
    for (std::size_t i = 0; i < labels.size(); ++i) {
      EXPECT_LE(labels[i].right, width) << labels[i].text;
      EXPECT_LE(labels[i].bottom, height) << labels[i].text;
      for (std::size_t j = i + 1; j < labels.size(); ++j) {
        EXPECT_FALSE(intersect(labels[i], labels[j])) << labels[i].text << " / " << labels[j].text;
      }
      for (const auto& [x, y] : drawn_points(markup)) {
        EXPECT_FALSE(intersect(labels[i], {x - 4, y - 4, x + 4, y + 4, ""}))
            << labels[i].text << " covers " << x << "," << y;
      }
    }
    // Bars: no label box meets a bar's rectangle either.
    const std::regex bar(
        R"re(class="bar" x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)")re");
    for (auto it = std::sregex_iterator(markup.begin(), markup.end(), bar);
         it != std::sregex_iterator(); ++it) {
      const double x = std::stod((*it)[1]);
      const double y = std::stod((*it)[2]);
      const Box b{x, y, x + std::stod((*it)[3]), y + std::stod((*it)[4]), ""};
      for (const auto& label : labels) EXPECT_FALSE(intersect(label, b)) << label.text;
    }
    // The reference's label is in the legend, whole.
    EXPECT_NE(markup.find(">the seed&#39;s loop<"), std::string::npos);
  }
}

TEST(SvgChart, CategoryLabelsTooWideToStandSideBySideAreSlanted) {
  svg::Chart chart{"c", "t", "ms", "strategy, threads", {"threads, 1", "threads, 2"}, {}, {}, ""};
  chart.series.push_back({"A", {svg::Value{1, 1, 1, ""}, svg::Value{2, 2, 2, ""}}, "", 0});
  EXPECT_EQ(svg::bar_chart(chart).find("rotate(-35)"), std::string::npos);
  chart.categories = {"threads, 1",         "threads, 2",         "uring, 1, batch 64",
                      "uring, 2, batch 64", "libuv, 1, batch 64", "libuv, 2, batch 64"};
  for (auto& series : chart.series) series.values.resize(chart.categories.size());
  EXPECT_EQ(count_of(svg::bar_chart(chart), "rotate(-35)"), 6U);
}

TEST(SvgChart, AGrowthsFdLabelGoesARowHigherOrIsLeftOutRatherThanCoverAnother) {
  // The table's growths at 64 ... 512 among a hundred thousand descriptors: a few px apart.
  svg::EventChart chart{"e", "t", {"worker 0", "worker 1"}, 100'000, {}};
  for (const double fd : {64, 128, 256, 512, 50'000}) {
    chart.marks.push_back({fd, 0, 7e6, svg::Mark::Kind::growth, "", ""});
  }
  chart.marks.push_back(
      {64, 1, 7e6, svg::Mark::Kind::growth, "", ""});  // another lane: its own rows
  const std::string markup = svg::event_chart(chart);
  EXPECT_EQ(count_of(markup, "class=\"growth\""), 6U);  // every diamond is drawn
  std::vector<Box> labels;
  const std::regex text(
      R"re(<text class="tick fd-label" x="([0-9.]+)" y="([0-9.]+)"[^>]*>([0-9]+)<)re");
  for (auto it = std::sregex_iterator(markup.begin(), markup.end(), text);
       it != std::sregex_iterator(); ++it) {
    const double x = std::stod((*it)[1]);
    const double y = std::stod((*it)[2]);
    const double half = 3.5 * static_cast<double>((*it)[3].length());
    labels.push_back({x - half, y - 11, x + half, y + 2, (*it)[3]});
  }
  // 64 above its diamond, 128 a row higher, 256 and 512 left out; 50,000 and worker 1's 64.
  ASSERT_EQ(labels.size(), 4U) << markup;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    for (std::size_t j = i + 1; j < labels.size(); ++j) {
      EXPECT_FALSE(intersect(labels[i], labels[j])) << labels[i].text << " / " << labels[j].text;
    }
  }
  // Growths far apart keep their labels in the first row.
  chart.fd_max = 1024;
  chart.marks.pop_back();
  chart.marks.pop_back();
  EXPECT_EQ(count_of(svg::event_chart(chart), "class=\"tick fd-label\""), 4U);
}

ReportInput run_with_context(const std::string& label, const std::string& date,
                             const std::vector<std::string>& argv) {
  RunContext context;
  context.date = date;
  context.host = "bench-1";
  context.command_line = argv;
  context.user = 1000;
  const auto results = open_sweep(30'000'000);
  return {label, parse_results_json(
                     to_json_document(testing::linux_environment(), results, {}, &context))};
}

// What the page says between its title and the first section.
std::string under_title(const std::string& page) {
  const auto from = page.find("</h1>");
  const auto to = page.find("<section");
  EXPECT_NE(from, std::string::npos);
  EXPECT_NE(to, std::string::npos);
  return page.substr(from, to - from);
}

TEST(HtmlReport, TheDateAndCommandLineAreUnderTheTitle) {
  const std::vector<ReportInput> one{
      run_with_context("this run", "2026-12-05T09:14:03Z",
                       {"fdbench", "open", "--dir", "/mnt/a b", "--files", "10000"})};
  const std::string head = under_title(html_report(one));
  EXPECT_NE(head.find("2026-12-05 09:14:03 UTC"), std::string::npos) << head;
  EXPECT_NE(head.find("<code class=\"command\">fdbench open --dir &#39;/mnt/a b&#39; --files "
                      "10000</code>"),
            std::string::npos)
      << head;

  // Several files: each one's, with the letter the compare table calls it by; a document of
  // an older schema says it has none.
  const std::vector<ReportInput> three{
      run_with_context("ext4.json", "2026-12-01T08:00:00Z", {"fdbench", "open"}),
      run_with_context("shm.json", "2026-12-02T20:30:05Z",
                       {"fdbench", "open", "--dir", "/dev/shm"}),
      run("old.json", open_sweep(30'000'000))};
  const std::string heads = under_title(html_report(three));
  EXPECT_NE(heads.find("<b>A</b> ext4.json: <span class=\"date\">2026-12-01 08:00:00 UTC</span> · "
                       "<code class=\"command\">fdbench open</code>"),
            std::string::npos)
      << heads;
  EXPECT_NE(heads.find("<b>B</b> shm.json: <span class=\"date\">2026-12-02 20:30:05 UTC</span> · "
                       "<code class=\"command\">fdbench open --dir /dev/shm</code>"),
            std::string::npos)
      << heads;
  EXPECT_NE(heads.find("<b>C</b> old.json: <span class=\"no-context\">no date or command line "
                       "recorded"),
            std::string::npos)
      << heads;
}

TEST(HtmlReport, TheCompareTablesHeadsAreShortWithAKeyNamingTheFiles) {
  const std::vector<ReportInput> inputs{
      run("/home/someone/results/2026-12-01-ext4-nvme0n1.json", open_sweep(30'000'000)),
      run("/home/someone/results/2026-12-02-tmpfs.json", open_sweep(15'000'000)),
      run("/home/someone/results/2026-12-03-xfs.json", open_sweep(20'000'000))};
  const std::string page = html_report(inputs);
  const auto table = page.find("<table class=\"compare\">");
  ASSERT_NE(table, std::string::npos);
  const std::string head_row = page.substr(table, page.find("</tr>", table) - table);
  const std::regex cell("<th>([^<]*)</th>");
  std::vector<std::string> heads;
  for (auto it = std::sregex_iterator(head_row.begin(), head_row.end(), cell);
       it != std::sregex_iterator(); ++it) {
    heads.push_back((*it)[1]);
  }
  EXPECT_EQ(heads, (std::vector<std::string>{"result", "A ms", "B ms", "B/A", "p", "verdict",
                                             "C ms", "C/A", "p", "verdict"}));
  for (const auto& head : heads) EXPECT_LE(drawn_length(head), 8U) << head;
  const std::string key =
      page.substr(page.rfind("compare-key", table), table - page.rfind("compare-key", table));
  for (const char* file : {"<b>A</b> /home/someone/results/2026-12-01-ext4-nvme0n1.json",
                           "<b>B</b> /home/someone/results/2026-12-02-tmpfs.json",
                           "<b>C</b> /home/someone/results/2026-12-03-xfs.json"}) {
    EXPECT_NE(key.find(file), std::string::npos) << key;
  }
}

KernelEvidence not_traced(const std::string& reason) {
  KernelEvidence k;
  k.reason = reason;
  return k;
}

// The parts of the stacked bars in `markup`, as cause → width, in the order drawn.
std::vector<std::pair<std::string, double>> part_widths(const std::string& markup) {
  std::vector<std::pair<std::string, double>> out;
  const std::regex part(
      R"re(class="bar part" data-key="([^"]*)" x="[0-9.]+" y="[0-9.]+" width="([0-9.]+)")re");
  for (auto it = std::sregex_iterator(markup.begin(), markup.end(), part);
       it != std::sregex_iterator(); ++it) {
    out.emplace_back((*it)[1], std::stod((*it)[2]));
  }
  return out;
}

TEST(HtmlReport, KernelEvidenceIsAStackedBarPerTracedResultScaledToItsThreadsTime) {
  // The seed's stall: 2 threads over 16.5 ms, off-CPU 31 ms of their 33, growing the table
  // and waiting for it; pre-grown, a little preemption only.
  const Result off =
      ResultBuilder::socket("threads", 2)
          .ops(512)
          .holds_descriptors(true)
          .each_took(16'500'000, 5)
          .kernel(testing::traced_kernel(2, 16'500'000,
                                         {{OffCpuCause::fd_table_growth, 16'000'000},
                                          {OffCpuCause::waiting_on_growth, 15'000'000}}));
  const Result grown =
      ResultBuilder::socket("threads", 2)
          .ops(512)
          .holds_descriptors(true)
          .pregrow("auto")
          .each_took(2'000'000, 5)
          .kernel(testing::traced_kernel(2, 2'000'000, {{OffCpuCause::preempted, 400'000}}));
  const std::vector<ReportInput> inputs{run("sockets", {off, grown})};
  const std::string page = html_report(inputs);
  EXPECT_EQ(count_of(page, "data-chart=\"run0-0-kernel\""), 1U);
  const std::string chart = page.substr(page.find("data-chart=\"run0-0-kernel\""));
  EXPECT_EQ(count_of(chart.substr(0, chart.find("</svg>")), "class=\"track\""), 2U);
  // Each part is its share of the threads' time: 16 of 33 ms of the bar's 580 px, and so on.
  const auto parts = part_widths(chart);
  ASSERT_EQ(parts.size(), 3U) << chart;
  EXPECT_EQ(parts[0].first, "fd-table-growth");
  EXPECT_NEAR(parts[0].second, 580.0 * 16 / 33, 0.1);
  EXPECT_EQ(parts[1].first, "waiting-on-growth");
  EXPECT_NEAR(parts[1].second, 580.0 * 15 / 33, 0.1);
  EXPECT_EQ(parts[2].first, "preempted");
  EXPECT_NEAR(parts[2].second, 580.0 * 0.4 / 4, 0.1);
  // One colour per cause, and the legend names only the causes drawn, then the rest.
  EXPECT_NE(chart.find("fill=\"" + svg::cause_colour("fd-table-growth") + "\""), std::string::npos);
  for (const char* key :
       {">fd-table-growth<", ">waiting-on-growth<", ">preempted<", ">on a CPU (the rest)<"}) {
    EXPECT_NE(chart.find(key), std::string::npos) << key;
  }
  EXPECT_EQ(chart.find(">lock<"), std::string::npos);
  // Each bar says what it is and its share above it; the tooltips carry the figures.
  EXPECT_NE(chart.find(">threads, 2 threads, pregrow off: off-CPU 94% (31.0 ms of 2 threads × "
                       "16.5 ms)<"),
            std::string::npos)
      << chart;
  EXPECT_NE(chart.find(">threads, 2 threads, pregrow auto: off-CPU 10% (400 µs of 2 threads × "
                       "2.00 ms)<"),
            std::string::npos)
      << chart;
  EXPECT_NE(chart.find("<title>threads, 2 threads, pregrow off: fd-table-growth 16.0 ms per "
                       "repetition, 48% of the threads&#39; time"),
            std::string::npos)
      << chart;
  EXPECT_NE(chart.find("<title>threads, 2 threads, pregrow off: off-CPU 31.0 ms of 2 threads × "
                       "16.5 ms per repetition: fd-table-growth 16.0 ms, waiting-on-growth "
                       "15.0 ms"),
            std::string::npos)
      << chart;
  EXPECT_EQ(page.find("recorded nothing"), std::string::npos);
}

TEST(HtmlReport, KernelEvidenceWaitingToStartOrDoneIsAPartOfItsOwn) {
  // 16 threads on 2 CPUs over 7 ms: 95 ms on a futex, 93 of it waiting to start or done.
  const KernelEvidence k = testing::traced_kernel(16, 7'000'000, {{OffCpuCause::lock, 95'000'000}},
                                                  {{OffCpuCause::lock, 93'000'000}});
  const Result r = ResultBuilder::open("threads", 16).ops(10000).each_took(7'000'000, 5).kernel(k);
  const std::string page = html_report(std::vector<ReportInput>{run("files", {r})});
  const std::string chart = page.substr(page.find("data-chart=\"run0-0-kernel\""));
  const auto parts = part_widths(chart);
  ASSERT_EQ(parts.size(), 2U) << chart;
  EXPECT_EQ(parts[0].first, "lock");
  EXPECT_NEAR(parts[0].second, 580.0 * 2 / 112, 0.1) << "the lock's time in the work alone";
  EXPECT_EQ(parts[1].first, "waiting to start or done");
  EXPECT_NEAR(parts[1].second, 580.0 * 93 / 112, 0.1);
  EXPECT_NE(chart.find(">waiting to start or done<"), std::string::npos) << "in the legend";
  EXPECT_NE(chart.find("lock 2.00 ms per repetition, 1.8% of the threads&#39; time: waiting on a "
                       "futex"),
            std::string::npos)
      << chart;
  // Without any, no such key.
  const Result none =
      ResultBuilder::open("threads", 16)
          .ops(10000)
          .each_took(7'000'000, 5)
          .kernel(testing::traced_kernel(16, 7'000'000, {{OffCpuCause::lock, 95'000'000}}));
  EXPECT_EQ(html_report(std::vector<ReportInput>{run("files", {none})}).find("waiting to start"),
            std::string::npos);
}

TEST(HtmlReport, KernelEvidenceAskedButNotRecordedIsOneLineSayingWhy) {
  const std::string why = "perf_event_paranoid is 2: run as root or with CAP_PERFMON";
  std::vector<Result> results;
  for (const char* pregrow : {"off", "auto"}) {
    results.push_back(ResultBuilder::socket("threads", 2)
                          .ops(512)
                          .pregrow(pregrow)
                          .each_took(2'000'000, 5)
                          .kernel(not_traced(why)));
  }
  std::string page = html_report(std::vector<ReportInput>{run("sockets", results)});
  EXPECT_EQ(count_of(page, "--kernel-trace recorded nothing: " + why), 1U) << page;
  EXPECT_EQ(page.find("-kernel\""), std::string::npos);  // no chart
  // One result of two: it says which share.
  results[0].kernel = testing::traced_kernel(2, 2'000'000, {{OffCpuCause::lock, 100'000}});
  page = html_report(std::vector<ReportInput>{run("sockets", results)});
  EXPECT_NE(page.find("--kernel-trace recorded nothing for 1 of 2 results: " + why),
            std::string::npos)
      << page;
  EXPECT_EQ(count_of(page, "class=\"track\""), 1U);
  // Not asked: neither.
  page = html_report(std::vector<ReportInput>{run("sockets", open_sweep(30'000'000))});
  EXPECT_EQ(page.find("recorded nothing"), std::string::npos);
  EXPECT_EQ(page.find("-kernel\""), std::string::npos);
}

TEST(SvgChart, StackedBarsKeepTheirLabelsApartAndTheirPartsWithinTheirWhole) {
  svg::StackedChart chart{"k", "t", "share", {}, "the rest", {}};
  for (const char* key : {"fd-table-growth", "waiting-on-growth", "io_uring-wait", "io-wq",
                          "page-fault", "lock", "preempted", "other"}) {
    chart.keys.push_back({key, svg::cause_colour(key)});
  }
  // A label too long for one line with its figures, and medians per cause that add up to
  // more than the whole.
  chart.bars.push_back({"uring-direct (batch 64), 16 threads, pregrow 4096",
                        "off-CPU 80% (812 µs of 16 threads × 1.24 ms) and more words besides",
                        std::vector<svg::Part>(8, svg::Part{30, "part"}), 100, "whole"});
  chart.bars.push_back({"threads, 1 thread, pregrow off", "off-CPU 10%", {{10, ""}}, 100, ""});
  const std::string markup = svg::stacked_bar_chart(chart);
  SCOPED_TRACE(markup);
  const auto parts = part_widths(markup);
  ASSERT_EQ(parts.size(), 5U);  // the first bar is full after four parts of 30%
  double first = 0;
  for (std::size_t i = 0; i < 4; ++i) first += parts[i].second;
  EXPECT_NEAR(first, 580, 0.2);
  EXPECT_NEAR(parts[4].second, 58, 0.1);
  // Every colour is its own.
  std::set<std::string> colours;
  for (const auto& key : chart.keys) colours.insert(key.colour);
  EXPECT_EQ(colours.size(), chart.keys.size());
  const auto labels = label_boxes(markup);
  // The second bar's label is one line; the first's figures are on a line of their own.
  EXPECT_NE(markup.find(">threads, 1 thread, pregrow off: off-CPU 10%<"), std::string::npos);
  EXPECT_NE(markup.find(">uring-direct (batch 64), 16 threads, pregrow 4096:<"), std::string::npos);
  EXPECT_NE(markup.find(">off-CPU 80% (812 µs of 16 threads × 1.24 ms) and more words besides<"),
            std::string::npos);
  ASSERT_EQ(labels.size(), 3U + 9U);  // the bars' three lines; the legend's nine keys
  std::smatch view;
  ASSERT_TRUE(
      std::regex_search(markup, view, std::regex(R"re(viewBox="0 0 ([0-9.]+) ([0-9.]+)")re")));
  std::vector<Box> bars;
  const std::regex track(
      R"re(class="track" x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)")re");
  for (auto it = std::sregex_iterator(markup.begin(), markup.end(), track);
       it != std::sregex_iterator(); ++it) {
    const double x = std::stod((*it)[1]);
    const double y = std::stod((*it)[2]);
    bars.push_back({x, y, x + std::stod((*it)[3]), y + std::stod((*it)[4]), "bar"});
  }
  ASSERT_EQ(bars.size(), 2U);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    EXPECT_LE(labels[i].right, std::stod(view[1])) << labels[i].text;
    EXPECT_LE(labels[i].bottom, std::stod(view[2])) << labels[i].text;
    for (std::size_t j = i + 1; j < labels.size(); ++j) {
      EXPECT_FALSE(intersect(labels[i], labels[j])) << labels[i].text << " / " << labels[j].text;
    }
    for (const auto& bar : bars) EXPECT_FALSE(intersect(labels[i], bar)) << labels[i].text;
  }
}

TEST(HtmlReport, TheCompareTableMarksAResultTracedOnOneSideOnly) {
  auto traced_run = open_sweep(30'000'000);
  traced_run[0].kernel =
      testing::traced_kernel(1, 30'000'000, {{OffCpuCause::preempted, 1'000'000}});
  const std::string page = html_report(std::vector<ReportInput>{
      run("plain.json", open_sweep(30'000'000)), run("traced.json", traced_run)});
  const auto table = page.find("<table class=\"compare\">");
  ASSERT_NE(table, std::string::npos);
  const std::string compared = page.substr(table);
  EXPECT_EQ(count_of(compared.substr(0, compared.find("</table>")), " †</td>"), 1U) << compared;
  EXPECT_NE(compared.find("†: traced with --kernel-trace on one side only: its times include "
                          "the tracing's cost."),
            std::string::npos);
  const std::string plain = html_report(std::vector<ReportInput>{
      run("a.json", open_sweep(30'000'000)), run("b.json", open_sweep(30'000'000))});
  EXPECT_EQ(plain.find("†"), std::string::npos);
}

}  // namespace html_report_test
}  // namespace fdbench
