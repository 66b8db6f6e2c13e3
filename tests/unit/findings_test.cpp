// findings(): plain-words conclusions from hand-built results.
#include "fdbench/findings.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fdbench {
namespace {

Result socket_result(const std::string& pregrow, std::int64_t ns, int before, int after) {
  Result r;
  r.workload = "socket";
  r.strategy = "threads";
  r.threads = 2;
  r.kind = "tcp";
  r.pregrow = pregrow;
  r.ops = 512;
  r.repeat = 3;
  r.times_ns = {ns, ns, ns};
  r.fdsize_before = before;
  r.fdsize_after = after;
  finalize(r);
  return r;
}

Result open_result(const std::string& strategy, int threads, std::int64_t ns) {
  Result r;
  r.workload = "open";
  r.strategy = strategy;
  r.threads = threads;
  r.kind = "file";
  r.ops = 10000;
  r.repeat = 1;
  r.times_ns = {ns};
  finalize(r);
  return r;
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
  Result failed = open_result("threads", 2, 1'000'000);
  failed.failures = 5;
  failed.first_failure = "Too many open files";
  const auto lines = findings(std::vector<Result>{failed});
  const std::string line = finding_with(lines, "failed");
  EXPECT_NE(line.find('1'), std::string::npos) << line;  // one result failed
}

TEST(Findings, UnavailableCombinationsAreMentioned) {
  Result unavailable = open_result("pool", 2, 0);
  unavailable.times_ns.clear();
  unavailable.error = "built without liburing";
  finalize(unavailable);
  finding_with(findings(std::vector<Result>{unavailable}), "could not run");
}

TEST(Findings, FailedResultsAreNotCalledFastest) {
  Result failed = open_result("pool", 2, 1'000);  // absurdly fast because every call failed
  failed.failures = 10000;
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
