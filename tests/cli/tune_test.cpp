// `fdbench tune` run for real: it recommends a strategy that can run here and a program may
// adopt, writes the same recommendation with --save, and words it in the table.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "engine/strategy.hpp"
#include "output/reporter.hpp"
#include "run/tune_sweep.hpp"
#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace tune_test {

class Tune : public ::testing::Test {
 protected:
  FastTempDir work_;
  TempDir out_;
};

void expect_adoptable_here(const nlohmann::json& setting) {
  const StrategyInfo* info = find_strategy(setting.at("strategy").get<std::string>());
  ASSERT_NE(info, nullptr) << setting.dump();
  EXPECT_TRUE(info->recommendable) << setting.dump();
  EXPECT_EQ(info->unavailable_reason(), "") << setting.dump();
  EXPECT_GE(setting.at("threads").get<int>(), 1);
  EXPECT_GT(setting.at("ops_per_sec").get<double>(), 0);
}

TEST_F(Tune, RecommendsAnAvailableStrategyAndSavesIt) {
  const std::string save = out_ / "rec.json";
  const RunResult run = run_fdbench({"tune", "--budget", "5", "--files", "2000", "--precision", "5",
                                     "--dir", work_.path(), "--format", "json", "--save", save});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto document = nlohmann::json::parse(run.out);
  const auto& rec = document.at("recommendation");
  expect_adoptable_here(rec);
  for (const auto& alternative : rec.at("within_noise")) expect_adoptable_here(alternative);
  EXPECT_TRUE(rec.at("pregrow_to").is_null());  // open+close holds nothing
  // The knee is the fastest strategy's; the setting to use may be a simpler one tied with it.
  EXPECT_LE(rec.at("knee_threads").get<int>(), rec.at("fastest").at("threads").get<int>());

  // The sweep: several strategies, the pool not among them unless asked for.
  std::set<std::string> strategies;
  for (const auto& r : document.at("results")) strategies.insert(r.at("strategy"));
  EXPECT_GE(strategies.size(), 2U);
  EXPECT_EQ(strategies.count("pool"), 0U);

  // Every combination repeated by open's --repeat auto rule, within its share of the budget,
  // never below the 6 repetitions a 95% interval needs.
  for (const auto& r : document.at("results")) {
    EXPECT_GE(r.at("repeat").get<int>(), 6) << r.dump();
    const auto& precision = r.at("precision");
    EXPECT_EQ(precision.at("target"), 0.05) << r.dump();  // --precision 5
    const std::string stopped = precision.at("stopped_by");
    EXPECT_TRUE(stopped == "precision" || stopped == "budget") << r.dump();
    EXPECT_EQ(precision.at("met"), stopped == "precision") << r.dump();
  }

  // --save holds the same recommendation, and the library reads it back.
  EXPECT_EQ(nlohmann::json::parse(read_text(save)), rec);
  const Recommendation loaded = load_recommendation(save);
  EXPECT_EQ(loaded.best.strategy, rec.at("strategy"));
  EXPECT_EQ(loaded.best.threads, rec.at("threads"));
  EXPECT_EQ(loaded.knee_threads, rec.at("knee_threads"));
}

TEST_F(Tune, TheTableEndsWithTheRecommendation) {
  const RunResult run = run_fdbench(
      {"tune", "--budget", "1", "--files", "200", "--dir", work_.path(), "--strategy", "pool"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto block = run.out.find("\nRecommendation\n");
  ASSERT_NE(block, std::string::npos) << run.out;
  EXPECT_NE(run.out.find("pool "), std::string::npos) << "asked for, so measured";
  for (const char* line : {"  use:", "  knee:", "  fd table:", "  RLIMIT_NOFILE:"}) {
    EXPECT_NE(run.out.find(line, block), std::string::npos) << line << "\n" << run.out;
  }
  EXPECT_EQ(run.out.find("  use:           pool,"), std::string::npos) << run.out;
  // stderr is a file here: no progress lines (progress_test.cpp shows them on a terminal).
  EXPECT_EQ(run.err.find("turn "), std::string::npos) << run.err;
}

// The recommendation is for the program that calls fdbench: only strategies whose descriptors
// land in its own table, unless --allow-process or --allow-direct (issue 34 item 8: it
// recommended "process, 2 threads"). The others are measured and named as not compared.
TEST_F(Tune, RecommendsOnlyDescriptorsTheCallingProgramCanUseUnlessAllowed) {
  const std::vector<std::string> args{"tune",  "--budget",   "1",        "--files", "200",
                                      "--dir", work_.path(), "--format", "json"};
  const RunResult run = run_fdbench(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto rec = nlohmann::json::parse(run.out).at("recommendation");
  std::vector<nlohmann::json> named{rec, rec.at("fastest")};
  for (const auto& s : rec.at("within_noise")) named.push_back(s);
  for (const auto& setting : named) {
    const StrategyInfo* info = find_strategy(setting.at("strategy").get<std::string>());
    ASSERT_NE(info, nullptr) << setting.dump();
    EXPECT_EQ(info->fd_table, FdTable::shared) << setting.dump();
  }
  // JSON has no place for it: stderr says what was measured but not compared, and why.
  EXPECT_NE(run.err.find("fdbench tune: not compared: process: its descriptors are made in "
                         "worker processes"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("--allow-process to include it"), std::string::npos) << run.err;

  std::vector<std::string> allowed = args;
  allowed.insert(allowed.end(), {"--allow-process", "--allow-direct"});
  const RunResult all = run_fdbench(allowed);
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.err.find("not compared"), std::string::npos) << all.err;
  EXPECT_GT(nlohmann::json::parse(all.out).at("recommendation").at("compared").get<int>(),
            rec.at("compared").get<int>());
}

// Every subject a sentence of the findings names reads differently: settings that differ only
// by their batch are named with it (issue 34: "`uring-direct` with 2 threads" three times).
TEST_F(Tune, NoFindingNamesOneSubjectTwice) {
  const RunResult run =
      run_fdbench({"tune", "--budget", "1", "--files", "200", "--dir", work_.path()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto findings = run.out.find("\nFindings\n");
  ASSERT_NE(findings, std::string::npos) << run.out;
  const std::regex subject("`[a-z-]+` with [0-9]+ (threads?|process(es)?)(, batch [0-9]+)?");
  for (const auto& line : lines_of(run.out.substr(findings))) {
    std::set<std::string> seen;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), subject);
         it != std::sregex_iterator(); ++it) {
      EXPECT_TRUE(seen.insert(it->str()).second) << it->str() << " twice in: " << line;
    }
  }
}

TEST_F(Tune, HeldDescriptorsGetThePregrowSizeAndTheStallCheck) {
  const RunResult run =
      run_fdbench({"tune", "--budget", "2", "--files", "300", "--keep-open", "--dir", work_.path(),
                   "--strategy", "threads", "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto document = nlohmann::json::parse(run.out);
  EXPECT_EQ(document.at("recommendation").at("pregrow_to"), 300 + kProgramDescriptors);
  int off = 0;
  for (const auto& r : document.at("results")) off += r.at("pregrow") == "off" ? 1 : 0;
  EXPECT_EQ(off, 1) << "the recommended setting once more, without pre-growing";
}

// tune writes through the reporters as open does: every format, --output and every
// --export-FORMAT, each wording the recommendation its own way (CSV has the sweep's rows only).
TEST_F(Tune, EveryFormatThroughOutputAndExports) {
  const std::string md = out_ / "tune.md";
  const std::string json = out_ / "tune.json";
  const std::string csv = out_ / "tune.csv";
  const std::string html = out_ / "tune.html";
  const RunResult run = run_fdbench(
      {"tune", "--budget", "1", "--files", "200", "--dir", work_.path(), "--format", "markdown",
       "--output", md, "--export-json", json, "--export-csv", csv, "--export-html", html});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "");
  const std::string page = read_text(md);
  EXPECT_NE(page.find("\n## Recommendation\n\n```text\n"), std::string::npos) << page;
  EXPECT_NE(page.find("\n  use:           "), std::string::npos) << page;
  EXPECT_NE(page.find("| strategy | threads |"), std::string::npos) << page;

  const auto document = nlohmann::json::parse(read_text(json));
  const auto& results = document.at("results");
  EXPECT_EQ(document.at("complete"), true);
  const std::string best = document.at("recommendation").at("strategy");
  EXPECT_NE(page.find("  use:           " + best + ", "), std::string::npos) << page;

  // CSV: a header and one row per result, nothing else (no comment rows).
  const auto rows = lines_of(read_text(csv));
  ASSERT_EQ(rows.size(), results.size() + 1) << read_text(csv);
  EXPECT_EQ(rows.front(), csv_header());

  const std::string report = read_text(html);
  EXPECT_NE(report.find("<h3>Recommendation</h3>"), std::string::npos);
  EXPECT_NE(report.find("use:           " + best + ", "), std::string::npos);
  EXPECT_NE(report.find("</html>"), std::string::npos);
}

TEST_F(Tune, CsvAndHtmlOnStandardOutput) {
  const RunResult csv = run_fdbench({"tune", "--budget", "1", "--files", "200", "--dir",
                                     work_.path(), "--strategy", "threads", "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const auto rows = lines_of(csv.out);
  ASSERT_GE(rows.size(), 2U) << csv.out;
  EXPECT_EQ(rows.front(), csv_header());
  EXPECT_EQ(csv.out.find("Recommendation"), std::string::npos) << csv.out;
  // What CSV has no place for goes to stderr, as with JSON.
  EXPECT_NE(csv.err.find("fdbench tune: not compared:"), std::string::npos) << csv.err;

  const RunResult html = run_fdbench({"tune", "--budget", "1", "--files", "200", "--dir",
                                      work_.path(), "--strategy", "threads", "--format", "html"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(html.out.find("<h3>Recommendation</h3>"), std::string::npos);
  EXPECT_NE(html.out.find("RLIMIT_NOFILE:"), std::string::npos);
}

TEST_F(Tune, UsageErrorsNameTheirFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"tune", "--budget", "0"}, "--budget"},
      {{"tune", "--precision", "0"}, "--precision"},
      {{"tune", "--precision", "x"}, "--precision"},
      {{"tune", "--format", "xml"}, "--format"},
      {{"tune", "--strategy", "nope"}, "--strategy"},
      {{"tune", "--files", "0"}, "--files"},
      {{"tune", "--save", "/nonexistent/dir/rec.json"}, "--save"},
  };
  for (const auto& [args, flag] : cases) {
    const RunResult run = run_fdbench(args);
    EXPECT_EQ(run.exit_code, 2) << describe(args);
    EXPECT_NE(run.err.find(flag), std::string::npos) << run.err;
  }
}

// tune --workload accept (issue 37 item 5): a server's answer through the same sweep. It
// measures the strategies that accept here, accept's own among them, and recommends one it
// measured, with the table size a server holding the burst pre-grows to.
TEST_F(Tune, RecommendsForAcceptFromTheStrategiesItMeasured) {
  const RunResult run = run_fdbench({"tune", "--workload", "accept", "--connections", "100",
                                     "--budget", "2", "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto document = nlohmann::json::parse(run.out);
  std::set<std::string> measured;
  for (const auto& r : document.at("results")) {
    EXPECT_EQ(r.at("workload"), "accept") << r.dump();
    if (r.at("status") == "measured") measured.insert(r.at("strategy").get<std::string>());
  }
  EXPECT_EQ(measured.count("threads"), 1U) << document.at("results").dump();
  if (find_strategy("epoll")->unavailable_reason().empty()) {
    EXPECT_EQ(measured.count("epoll"), 1U) << "made for accept: measured for it";
  }
  const auto& rec = document.at("recommendation");
  for (const char* field : {"strategy", "threads", "batch", "ops_per_sec", "fastest",
                            "within_noise", "compared", "inconclusive", "knee_threads",
                            "pregrow_to"}) {
    EXPECT_TRUE(rec.contains(field)) << field << " " << rec.dump();
  }
  expect_adoptable_here(rec);
  const std::string best = rec.at("strategy");
  EXPECT_EQ(measured.count(best), 1U) << best;
  EXPECT_EQ(find_strategy(best)->fd_table, FdTable::shared) << "no --allow-process/direct";
  ASSERT_TRUE(rec.at("pregrow_to").is_number_integer()) << rec.dump();
  EXPECT_GE(rec.at("pregrow_to").get<int>(), 100) << "a server holds every connection";
  // The recommended setting again without pre-growing: a result of its own, pregrow off.
  bool off_measured = false;
  for (const auto& r : document.at("results")) {
    off_measured = off_measured || (r.at("strategy") == best && r.at("pregrow") == "off");
  }
  EXPECT_TRUE(off_measured) << document.at("results").dump();
}

// The options of one workload with the other are refused up front, as is an unknown one.
TEST_F(Tune, RefusesTheOtherWorkloadsOptions) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"tune", "--workload", "accept", "--files", "10"},
        std::vector<std::string>{"tune", "--connections", "10"},
        std::vector<std::string>{"tune", "--workload", "create"}}) {
    const RunResult run = run_fdbench(args);
    EXPECT_EQ(run.exit_code, 2) << args.back() << run.err;
    EXPECT_NE(run.err.find("--"), std::string::npos) << run.err;
  }
}

}  // namespace tune_test
}  // namespace fdbench::testing
