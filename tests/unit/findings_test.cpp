// findings(): plain-words conclusions from hand-built results.
#include "fdbench/findings.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/results.hpp"

namespace fdbench {
namespace {

using testing::ResultBuilder;

// The seed's second experiment: 2 threads x 256 tcp sockets, 3 repetitions of `ns` each.
ResultBuilder socket_result(const std::string& pregrow, std::int64_t ns, int before, int after) {
  return ResultBuilder::socket("threads", 2)
      .pregrow(pregrow)
      .ops(512)
      .each_took(ns, 3)
      .fdsize(before, after);
}

// The seed's first experiment: 10,000 files, one repetition of `ns`.
ResultBuilder open_result(const std::string& strategy, int threads, std::int64_t ns) {
  return ResultBuilder::open(strategy, threads).ops(10000).each_took(ns, 1);
}

// The one finding that contains `needle`, or "" (and a failure listing all of them).
std::string finding_with(const std::vector<std::string>& lines, const std::string& needle) {
  for (const auto& line : lines) {
    if (line.find(needle) != std::string::npos) return line;
  }
  std::string all;
  for (const auto& line : lines) all += "\n  " + line;
  ADD_FAILURE() << "no finding mentions '" << needle << "'; findings:" << all;
  return {};
}

// Whether `lines` holds exactly `sentence` (and a failure listing all of them if not).
void expect_finding(const std::vector<std::string>& lines, const std::string& sentence) {
  if (std::find(lines.begin(), lines.end(), sentence) != lines.end()) return;
  std::string all;
  for (const auto& line : lines) all += "\n  " + line;
  ADD_FAILURE() << "no finding says '" << sentence << "'; findings:" << all;
}

TEST(Findings, NothingMeasuredNothingSaid) {
  EXPECT_TRUE(findings({}).empty());
}

TEST(Findings, PregrowPairGivesTheRatioAndTheTableGrowth) {
  const std::vector<Result> results{socket_result("off", 20'000'000, 64, 512),
                                    socket_result("auto", 2'000'000, 512, 512)};
  const auto lines = findings(results);
  const std::string line = finding_with(lines, "pregrow auto");
  EXPECT_NE(line.find("10×"), std::string::npos) << line;       // 20 ms / 2 ms
  EXPECT_NE(line.find("64 → 512"), std::string::npos) << line;  // FDSize before → after
  EXPECT_NE(line.find("20.00"), std::string::npos) << line;
  EXPECT_NE(line.find("2.00"), std::string::npos) << line;
  // 64 → 512 is three doublings, each an RCU grace period while shared.
  finding_with(lines, "grew 3 times");
}

TEST(Findings, PregrowThatDidNotHelpSaysSo) {
  const std::vector<Result> results{socket_result("off", 2'100'000, 64, 512),
                                    socket_result("auto", 2'000'000, 512, 512)};
  const auto lines = findings(results);
  const std::string line = finding_with(lines, "pregrow auto");
  EXPECT_NE(line.find("1.1×"), std::string::npos) << line;
  finding_with(lines, "little difference");
  for (const auto& l : lines) EXPECT_EQ(l.find("grace period"), std::string::npos) << l;
}

TEST(Findings, FailuresAreMentioned) {
  const std::vector<Result> one_failed{
      open_result("threads", 1, 2'000'000),
      open_result("threads", 2, 1'000'000).failed(5, "Too many open files")};
  expect_finding(findings(one_failed),
                 "1 result had failed calls and must not be read as timings (see the rows "
                 "marked FAILED).");

  const std::vector<Result> two_failed{
      open_result("threads", 1, 2'000'000).failed(1, "Permission denied"),
      open_result("threads", 2, 1'000'000).failed(5, "Too many open files"),
      open_result("pool", 2, 1'000'000)};
  const auto lines = findings(two_failed);
  expect_finding(lines,
                 "2 results had failed calls and must not be read as timings (see the rows "
                 "marked FAILED).");
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                          [](const std::string& l) { return l.find("failed") != l.npos; }),
            1)
      << "one sentence for all the failed results";
}

TEST(Findings, NoFailuresNoFailureFinding) {
  const std::vector<Result> results{open_result("threads", 1, 2'000'000),
                                    open_result("threads", 2, 1'000'000)};
  for (const auto& line : findings(results)) {
    EXPECT_EQ(line.find("failed"), std::string::npos) << line;
    EXPECT_EQ(line.find("could not run"), std::string::npos) << line;
  }
}

TEST(Findings, UnavailableCombinationsAreMentioned) {
  const std::vector<Result> one{
      ResultBuilder::open("uring", 2).ops(10000).unavailable("built without liburing", 1)};
  expect_finding(findings(one), "1 combination could not run here (marked unavailable).");

  // Unavailable is not failed: each is counted in its own sentence.
  const std::vector<Result> mixed{
      ResultBuilder::open("uring", 2).ops(10000).unavailable("built without liburing", 1),
      ResultBuilder::open("libuv", 2).ops(10000).unavailable("built without libuv", 1),
      open_result("threads", 2, 1'000'000).failed(3, "Too many open files")};
  const auto lines = findings(mixed);
  expect_finding(lines, "2 combinations could not run here (marked unavailable).");
  expect_finding(lines,
                 "1 result had failed calls and must not be read as timings (see the rows "
                 "marked FAILED).");
}

TEST(Findings, FailedResultsAreNotCalledFastest) {
  // Absurdly fast because every call failed.
  const Result failed = open_result("pool", 2, 1'000).failed(10000, "Too many open files");
  const std::vector<Result> results{open_result("threads", 1, 50'000'000), failed};
  const std::string line = finding_with(findings(results), "fastest");
  EXPECT_NE(line.find("`threads`"), std::string::npos) << line;
}

TEST(Findings, OpenNamesTheFastestStrategy) {
  const std::vector<Result> results{open_result("threads", 1, 50'000'000),
                                    open_result("threads", 2, 25'000'000),
                                    open_result("pool", 2, 100'000'000)};
  const std::string line = finding_with(findings(results), "fastest");
  EXPECT_NE(line.find("`threads` with 2 threads"), std::string::npos) << line;
  EXPECT_NE(line.find("400,000"), std::string::npos) << line;  // 10,000 files / 25 ms
}

}  // namespace
}  // namespace fdbench
