// tune's "Recommendation" block on hand-built sweeps and reports: what it says when one setting
// is ahead, when several are within noise of the fastest, when none is separated from it, when
// held direct descriptors were measured but cannot be recommended, when the sweep overran its
// budget, and how many repetitions the combinations took and how many reached the precision.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/recommendation.hpp"
#include "output/tune_text.hpp"
#include "support/results.hpp"

namespace fdbench {
namespace tune_text_test {

using testing::around;
using testing::ResultBuilder;

TuneSummary report_of(std::vector<Result> sweep, Eligibility eligibility = {}) {
  TuneSummary report;
  report.input.keep_open = !sweep.empty() && sweep.front().holds_descriptors;
  report.holds = report.input.keep_open;
  report.sweep = std::move(sweep);
  report.combinations = static_cast<int>(report.sweep.size());
  report.precision = 0.03;
  report.eligibility = eligibility;
  report.recommendation = recommend_from(report.sweep, eligibility);
  report.best_interval_reached = true;
  report.nofile = {100, 1024, 4096};
  return report;
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(TuneText, OneSettingAheadOfEveryOtherIsUsedWithoutCaveat) {
  const std::string text = tune_text(report_of({
      around(ResultBuilder::open("threads", 1), 40'000'000),
      around(ResultBuilder::open("uring", 2).batch(64), 10'000'000),
  }));
  EXPECT_NE(text.find("  use:           uring, 2 threads, batch 64: 1,000,000 files/s"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("not separated: none"), std::string::npos) << text;
  EXPECT_EQ(text.find("inconclusive"), std::string::npos) << text;
  EXPECT_EQ(text.find("not separated from the fastest"), std::string::npos) << text;
}

TEST(TuneText, SettingsTiedWithTheFastestAreCountedAndTheSimplestIsUsed) {
  const std::string text = tune_text(report_of({
      around(ResultBuilder::open("threads", 1), 40'000'000),
      around(ResultBuilder::open("threads", 2), 20'000'000),
      around(ResultBuilder::open("uring", 2).batch(64), 19'900'000),
  }));
  EXPECT_NE(text.find("  2 of 3 settings are not separated from the fastest (uring, 2 threads, "
                      "batch 64: "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  use:           threads, 2 threads: 500,000 files/s"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  not separated: uring, 2 threads, batch 64"), std::string::npos) << text;
  EXPECT_EQ(text.find("inconclusive"), std::string::npos) << text;
  // Each setting is named once in the block: the fastest in its line, the use line, the list.
  EXPECT_EQ(count(text, "threads, 2 threads:"), 1U) << text;
}

TEST(TuneText, NothingSeparatedFromTheFastestIsInconclusive) {
  const std::string text = tune_text(report_of({
      around(ResultBuilder::open("threads", 2), 20'000'000),
      around(ResultBuilder::open("fast-pool", 2), 19'950'000),
      around(ResultBuilder::open("uring", 1).batch(16), 19'900'000),
  }));
  EXPECT_NE(
      text.find("  inconclusive:  none of the 3 settings is separated from the fastest (uring, "
                "1 thread, batch 16"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("use:           threads, 2 threads"), std::string::npos) << text;
}

TEST(TuneText, HeldDirectDescriptorsAreMeasuredButNotComparedUnlessAllowed) {
  const std::vector<Result> sweep = {
      around(ResultBuilder::open("uring-direct", 2).holds_descriptors(true).pregrow("auto"),
             5'000'000),
      around(ResultBuilder::open("threads", 2).holds_descriptors(true).pregrow("auto"), 20'000'000),
  };
  const std::string text = tune_text(report_of(sweep));
  EXPECT_NE(text.find("use:           threads, 2 threads"), std::string::npos) << text;
  EXPECT_NE(text.find("not compared:  uring-direct"), std::string::npos) << text;
  EXPECT_NE(text.find("--allow-direct"), std::string::npos) << text;
  EXPECT_NE(text.find("pregrow_fd_table(10064)"), std::string::npos) << text;

  // Allowed, it is used, and no table advice goes with descriptors that never grow the table.
  const std::string allowed = tune_text(report_of(sweep, {.direct = true}));
  EXPECT_NE(allowed.find("use:           uring-direct, 2 threads"), std::string::npos) << allowed;
  EXPECT_EQ(allowed.find("not compared"), std::string::npos) << allowed;
  EXPECT_EQ(allowed.find("pregrow_fd_table("), std::string::npos) << allowed;
  EXPECT_NE(allowed.find("live in the io_uring's own table"), std::string::npos) << allowed;
}

// The recommendation is for the program calling fdbench: worker processes' descriptors are
// measured, named as not compared with why, and recommended only when allowed; their workers
// are called processes (issue 34: "use: process, 2 threads").
TEST(TuneText, WorkerProcessesAreNotComparedUnlessAllowedAndAreCalledProcesses) {
  const std::vector<Result> sweep = {
      around(ResultBuilder::open("process", 2), 5'000'000),
      around(ResultBuilder::open("uring-direct", 2).batch(64), 6'000'000),
      around(ResultBuilder::open("threads", 2), 20'000'000),
  };
  const std::string text = tune_text(report_of(sweep));
  EXPECT_NE(text.find("use:           threads, 2 threads: 500,000 files/s"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  not compared:  process (measured above): its descriptors are made in "
                      "worker processes"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("--allow-process to include it\n"
                      "                 uring-direct (measured above): "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("--allow-direct to include it\n"), std::string::npos) << text;

  const std::string allowed = tune_text(report_of(sweep, {.processes = true}));
  EXPECT_NE(allowed.find("use:           process, 2 processes: 2,000,000 files/s"),
            std::string::npos)
      << allowed;
  EXPECT_NE(allowed.find("knee:          2 processes (the fewest with which process is"), std::string::npos) << allowed;
  EXPECT_EQ(allowed.find("process, 2 threads"), std::string::npos) << allowed;
  EXPECT_EQ(allowed.find("not compared:  process"), std::string::npos) << allowed;
  EXPECT_NE(allowed.find("not compared:  uring-direct"), std::string::npos) << allowed;
}

// tune's text says when the sweep overran its --budget, and by how much (issue 21 item 16:
// tune --budget 1 ran 21.6 s and said nothing of it).
TuneSummary timed_report(double seconds, double budget) {
  TuneSummary report;
  report.combinations = 24;
  report.precision = 0.03;
  report.seconds = seconds;
  report.budget_seconds = budget;
  return report;
}

TEST(TuneText, AnOverrunBudgetIsSaidWithTheFigure) {
  const TuneSummary over = timed_report(21.6, 1);
  EXPECT_EQ(budget_overrun_text(over), "the sweep took 21.6 s, more than its --budget of 1 s");
  const std::string text = tune_text(over);
  EXPECT_NE(text.find("(the sweep took 21.6 s, more than its --budget of 1 s: every combination "
                      "runs 6 repetitions at least"),
            std::string::npos)
      << text;
}

TEST(TuneText, TheSweepLineSaysTheRepetitionsTakenAndHowManyReachedThePrecision) {
  // around(): nine repetitions, a median known within about ±1%.
  TuneSummary report = report_of({
      around(ResultBuilder::open("threads", 1), 40'000'000),
      around(ResultBuilder::open("uring", 2).batch(64), 10'000'000),
  });
  EXPECT_NE(tune_text(report).find("Measured: 2 combinations in turns, 9 repetitions each: all "
                                   "within ±3%\n"),
            std::string::npos)
      << tune_text(report);

  // One that spent its share of the budget before its median was known within ±1%.
  report.precision = 0.01;
  report.sweep.push_back(
      ResultBuilder::open("threads", 2)
          .ops(10000)
          .times({10'000'000, 12'000'000, 11'000'000, 10'500'000, 13'000'000, 10'200'000})
          .auto_repeat(0.01, 0.4, RepeatStop::budget)
          .build());
  report.combinations = 3;
  EXPECT_NE(tune_text(report).find("Measured: 3 combinations in turns, 6 to 9 repetitions each: 2 "
                                   "within ±1%, the others stopped by their share of --budget\n"),
            std::string::npos)
      << tune_text(report);
}

TEST(TuneText, ASweepWithinItsBudgetSaysNothingOfIt) {
  const TuneSummary within = timed_report(19.2, 20);
  EXPECT_EQ(budget_overrun_text(within), "");
  EXPECT_EQ(tune_text(within).find("--budget of"), std::string::npos) << tune_text(within);
}

}  // namespace tune_text_test
}  // namespace fdbench
