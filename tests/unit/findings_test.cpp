// findings(): plain-words conclusions from hand-built results.
#include "fdbench/findings.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fdbench/strategy.hpp"

namespace fdbench {
namespace {

// The properties the runner records for a registered strategy.
void as_registered(Result& r) {
  const StrategyInfo* info = find_strategy(r.strategy);
  ASSERT_NE(info, nullptr) << r.strategy;
  r.workers = info->workers;
  r.fd_table = info->fd_table;
  r.reference = info->reference;
}

Result socket_result(const std::string& pregrow, std::int64_t ns, int before, int after,
                     const std::string& strategy = "threads") {
  Result r;
  r.workload = "socket";
  r.strategy = strategy;
  as_registered(r);
  r.threads = 2;
  r.kind = "tcp";
  r.pregrow = pregrow;
  r.ops = 512;
  r.repeat = 3;
  r.times_ns = {ns, ns, ns};
  r.fdsize_before = before;
  r.fdsize_after = after;
  r.holds_descriptors = true;
  finalize(r);
  return r;
}

// A result over a list of files, without the registry: what a strategy that is not
// registered here (added later, or read back from another build's JSON) would record.
Result listed_result(const std::string& strategy, int threads, std::int64_t ns) {
  Result r;
  r.workload = "open";
  r.strategy = strategy;
  r.threads = threads;
  r.kind = "file";
  r.ops = 10000;
  r.repeat = 1;
  r.times_ns = {ns};
  r.unit = "files";
  r.input = InputSummary{};
  r.input->files = r.ops;
  finalize(r);
  return r;
}

Result open_result(const std::string& strategy, int threads, std::int64_t ns) {
  Result r = listed_result(strategy, threads, ns);
  as_registered(r);
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

TEST(Findings, TheKneeAndTheLeagueAreMeasuredAgainstTheReference) {
  const std::vector<Result> results{
      open_result("threads", 1, 50'000'000), open_result("threads", 2, 25'000'000),
      open_result("threads", 4, 25'500'000), open_result("pool", 1, 100'000'000),
      open_result("pool", 2, 50'000'000),    open_result("process", 2, 20'000'000)};
  const auto lines = findings(results);
  const std::string knee = finding_with(lines, "reached its best");
  EXPECT_NE(knee.find("`threads` reached its best with 2 threads (25.00 ms)"), std::string::npos)
      << knee;
  EXPECT_NE(knee.find("with 4 it was no faster"), std::string::npos) << knee;
  const std::string league = finding_with(lines, "at its best");
  EXPECT_NE(league.find("a multiple of `threads` at its best (25.00 ms"), std::string::npos)
      << league;
  EXPECT_NE(league.find("`pool` 2.0× (2 threads)"), std::string::npos) << league;
  EXPECT_NE(league.find("`process` 0.8× (2 processes)"), std::string::npos) << league;
  const std::string single = finding_with(lines, "With one thread");
  EXPECT_NE(single.find("`pool` 2.0×"), std::string::npos) << single;
  EXPECT_EQ(single.find("`process`"), std::string::npos) << single;  // not run with one
}

// A strategy the findings have never heard of is described by the properties its result
// carries: adding a strategy does not touch findings.cpp.
TEST(Findings, StrategiesAreKnownByTheirPropertiesNotByTheirNames) {
  Result plain_1 = listed_result("plain-loop", 1, 50'000'000);
  Result plain_2 = listed_result("plain-loop", 2, 30'000'000);
  Result plain_4 = listed_result("plain-loop", 4, 31'000'000);
  for (Result* r : {&plain_1, &plain_2, &plain_4}) r->reference = true;
  Result forked_1 = listed_result("forked-loop", 1, 45'000'000);
  Result forked_2 = listed_result("forked-loop", 2, 20'000'000);
  for (Result* r : {&forked_1, &forked_2}) {
    r->workers = WorkerKind::processes;
    r->fd_table = FdTable::per_worker;
  }
  const auto lines = findings(std::vector<Result>{plain_1, plain_2, plain_4, forked_1, forked_2});
  const std::string fastest = finding_with(lines, "fastest");
  EXPECT_NE(fastest.find("`forked-loop` with 2 processes"), std::string::npos) << fastest;
  const std::string knee = finding_with(lines, "reached its best");
  EXPECT_NE(knee.find("`plain-loop` reached its best with 2 threads"), std::string::npos) << knee;
  const std::string league = finding_with(lines, "at its best (");
  EXPECT_NE(league.find("a multiple of `plain-loop` at its best (30.00 ms"), std::string::npos)
      << league;
  EXPECT_NE(league.find("`forked-loop` 0.7× (2 processes)"), std::string::npos) << league;
  EXPECT_EQ(league.find("`plain-loop` 1.0×"), std::string::npos) << league;  // not against itself
  const std::string single = finding_with(lines, "With one thread");
  EXPECT_NE(single.find("`forked-loop` 0.9×"), std::string::npos) << single;

  // The same for held descriptors: the pair is described in the strategy's own workers.
  Result off = socket_result("off", 20'000'000, 64, 512);
  Result grown = socket_result("auto", 2'000'000, 512, 512);
  for (Result* r : {&off, &grown}) {
    r->strategy = "forked-loop";
    r->workers = WorkerKind::processes;
    r->reference = false;
  }
  const std::string pair = finding_with(findings(std::vector<Result>{off, grown}), "pregrow auto");
  EXPECT_NE(pair.find("`forked-loop` with 2 processes × 256 tcp descriptors"), std::string::npos)
      << pair;
}

// Without a reference among the results there is nothing to measure the others against.
TEST(Findings, NoReferenceNoLeague) {
  const std::vector<Result> results{open_result("pool", 1, 100'000'000),
                                    open_result("pool", 2, 50'000'000),
                                    open_result("fast-pool", 2, 30'000'000)};
  const auto lines = findings(results);
  finding_with(lines, "`fast-pool` with 2 threads");
  for (const auto& line : lines) {
    EXPECT_EQ(line.find("at its best"), std::string::npos) << line;
    EXPECT_EQ(line.find("With one thread"), std::string::npos) << line;
  }
}

// The advice names every registered strategy that never shares a descriptor table.
TEST(Findings, WhyNamesEveryStrategyThatNeverSharesTheTable) {
  const std::vector<Result> results{socket_result("off", 20'000'000, 64, 512),
                                    socket_result("auto", 2'000'000, 512, 512)};
  const std::string why = finding_with(findings(results), "Why:");
  int unshared = 0;
  for (const StrategyInfo& info : strategy_registry()) {
    const std::string named = "`" + std::string(info.name) + "`";
    if (info.fd_table == FdTable::shared) {
      EXPECT_EQ(why.find(named), std::string::npos) << why;
      continue;
    }
    ++unshared;
    EXPECT_NE(why.find(std::string(info.unshared_by) + " (" + named + ")"), std::string::npos)
        << why;
  }
  EXPECT_GT(unshared, 0);
  EXPECT_NE(why.find("never share the table."), std::string::npos) << why;
}

// Socket results make descriptors per thread: their times grow with the thread count and are
// not compared as if every result did the same work.
TEST(Findings, DescriptorsMadePerThreadAreNotRankedByTime) {
  const std::vector<Result> results{socket_result("auto", 2'000'000, 512, 512)};
  for (const auto& line : findings(results)) {
    EXPECT_EQ(line.find("fastest"), std::string::npos) << line;
  }
}

}  // namespace
}  // namespace fdbench
