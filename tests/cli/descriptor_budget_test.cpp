// The descriptor budget, end to end: a strategy that holds many descriptors at once (io_uring's
// batch in flight, libuv's requests in flight) gets a soft RLIMIT_NOFILE raised to fit, or a
// refusal up front naming the numbers when the hard limit is too low; never EMFILE mid-run.
// A sweep (open, socket, the default suite, tune) under a hard limit too low for some of its
// combinations runs those that fit and reports each of the others as unavailable, saying what
// the limit would have to be; it is refused only when none fits.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/strategy.hpp"
#include "platform/platform.hpp"
#include "support/fdbench_process.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace descriptor_budget_test {

constexpr rlim_t kLimit = 1024;

std::vector<std::string> batched_run(const std::string& strategy, const std::string& dir) {
  return {"open", "--strategy", strategy, "--threads", "1",   "--batch",
          "2000", "--files",    "3000",   "--repeat",  "2",   "--warmup",
          "1",    "--dir",      dir,      "--format",  "json"};
}

RunResult run_limited(const std::vector<std::string>& args, RunOptions options) {
  options.timeout = std::chrono::seconds(60);
  FdbenchProcess child(args, options);
  RunResult run = child.wait();
  EXPECT_NE(run.exit_code, -1) << "fdbench hung: " << describe(args);
  const auto left = child.leftovers();
  EXPECT_EQ(left.running + left.orphans, 0) << "processes outlived fdbench";
  return run;
}

// Why `strategy` cannot run here, or empty.
std::string unavailable(const std::string& strategy) {
  return find_strategy(strategy)->unavailable_reason();
}

// Every call of the run succeeded.
void expect_no_failures(const RunResult& run, const std::string& strategy) {
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  const auto& r = doc.at("results").at(0);
  EXPECT_EQ(r.at("strategy"), strategy);
  EXPECT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r.at("failures"), 0) << r.dump();
  EXPECT_EQ(r.at("times_ns").size(), 2U) << r.dump();
}

// Whether this process may raise its hard limit (so fdbench, started by it, may too): the
// capability in its effective set ("CapEff:" in /proc/self/status, a hex mask).
bool has_cap_sys_resource() {
  const std::string status = read_text("/proc/self/status");
  const auto at = status.find("CapEff:");
  if (at == std::string::npos) return false;
  const auto mask = std::stoull(status.substr(at + 7), nullptr, 16);
  return ((mask >> CAP_SYS_RESOURCE) & 1U) != 0;
}

class BatchedStrategy : public ::testing::TestWithParam<const char*> {};

TEST_P(BatchedStrategy, RaisesTheSoftLimitToHoldItsBatch) {
  const std::string strategy = GetParam();
  if (const auto why = unavailable(strategy); !why.empty()) {
    FDBENCH_SKIP_WITHOUT(testing::strategy_feature(strategy)) << why;
  }
  FastTempDir dir;
  RunOptions options = as_a_job();
  options.nofile = 8 * kLimit;
  options.nofile_soft = kLimit;
  const RunResult run = run_limited(batched_run(strategy, dir.path()), options);
  expect_no_failures(run, strategy);
  EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{});
}

TEST_P(BatchedStrategy, RefusesUpFrontWhenTheHardLimitIsTooLow) {
  const std::string strategy = GetParam();
  FastTempDir dir;
  RunOptions options = as_a_job();
  options.nofile = kLimit;  // soft and hard; CAP_SYS_RESOURCE dropped
  const RunResult run = run_limited(batched_run(strategy, dir.path()), options);
  // A build without the strategy (the portable one has no io_uring) refuses it before the
  // budget: nothing it asks for can run.
  if (run.exit_code == 2 && run.err.find("nothing it asks for can run here") != std::string::npos) {
    FDBENCH_SKIP_WITHOUT("uring") << run.err;
  }
  EXPECT_NE(run.exit_code, 0) << run.out;
  EXPECT_EQ(run.err.rfind("Error: needs ", 0), 0U) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << "not one line:\n" << run.err;
  for (const std::string& part :
       std::vector<std::string>{"soft limit is 1024", "hard limit is 1024", "ulimit -Hn", "--batch",
                                strategy + " --threads 1 --batch 2000 holds"}) {
    EXPECT_NE(run.err.find(part), std::string::npos) << "lacks '" << part << "': " << run.err;
  }
  EXPECT_EQ(run.err.find("Too many open files"), std::string::npos) << run.err;
  EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{}) << "refused after setup";
}

// Root (CAP_SYS_RESOURCE) may raise the hard limit, up to fs.nr_open: then it is not refused.
TEST_P(BatchedStrategy, RaisesTheHardLimitTooWithCapSysResource) {
  if (!platform::uses_linux_interfaces()) GTEST_SKIP() << "raises the hard limit on Linux only";
  if (!has_cap_sys_resource()) FDBENCH_SKIP_WITHOUT("cap_sys_resource") << "not in CapEff";
  const std::string strategy = GetParam();
  if (const auto why = unavailable(strategy); !why.empty()) {
    FDBENCH_SKIP_WITHOUT(testing::strategy_feature(strategy)) << why;
  }
  FastTempDir dir;
  RunOptions options = as_a_job();
  options.nofile = kLimit;
  options.keep_cap_sys_resource = true;
  const RunResult run = run_limited(batched_run(strategy, dir.path()), options);
  expect_no_failures(run, strategy);
}

// A descriptor fdbench inherits high up (a shell's 255; here 251) costs it one number, not 252:
// new descriptors take the lowest free ones. Under a hard limit of 256 a small run fits; it
// was refused, asking for 268 ("lower --files ... the workload 0").
TEST(InheritedDescriptor, AHighOneCostsOneNumberNotAllBelowIt) {
  FastTempDir dir;
  const int spare = open("/dev/null", O_RDONLY);  // no O_CLOEXEC: fdbench inherits it
  ASSERT_GE(spare, 0);
  ASSERT_EQ(dup2(spare, 251), 251);
  close(spare);
  RunOptions options = as_a_job();
  options.nofile = 256;
  const RunResult run =
      run_limited({"open", "--files", "10", "--threads", "1", "--strategy", "threads", "--repeat",
                   "2", "--dir", dir.path(), "--format", "json"},
                  options);
  close(251);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc.at("results").at(0).at("failures"), 0);
}

// The parts of a refusal add up to what it needs (issue 39 item 14): an inherited descriptor
// above the limit takes no number below it, and was counted in fdbench's own ("needs 20 ...
// (threads --threads 1 holds 0, the workload 0, fdbench 21)").
TEST(InheritedDescriptor, ARefusalsPartsAddUpToWhatItNeeds) {
  FastTempDir dir;
  const int spare = open("/dev/null", O_RDONLY);  // no O_CLOEXEC: fdbench inherits it
  ASSERT_GE(spare, 0);
  ASSERT_EQ(dup2(spare, 251), 251);
  close(spare);
  RunOptions options = as_a_job();
  options.nofile = 12;  // below what any run needs
  const RunResult run = run_limited({"open", "--files", "10", "--threads", "1", "--strategy",
                                     "threads", "--repeat", "1", "--dir", dir.path()},
                                    options);
  close(251);
  EXPECT_NE(run.exit_code, 0);
  unsigned needed = 0;
  unsigned holds = 0;
  unsigned workload = 0;
  unsigned own = 0;
  const auto at = run.err.find("needs ");
  ASSERT_NE(at, std::string::npos) << run.err;
  const auto said = std::sscanf(run.err.c_str() + at,
                                "needs %u descriptors (threads --threads 1 holds %u, the workload "
                                "%u, fdbench %u",
                                &needed, &holds, &workload, &own);
  ASSERT_EQ(said, 4) << run.err;
  EXPECT_EQ(needed, holds + workload + own) << run.err;
}

// The sweep's results whose status is `status`, as "strategy/threads/pregrow".
std::vector<std::string> results_with(const nlohmann::json& doc, const std::string& status) {
  std::vector<std::string> found;
  for (const auto& r : doc.at("results")) {
    if (r.value("status", "measured") != status) continue;
    found.push_back(fmt::format("{}/{}/{}", r.at("strategy").get<std::string>(),
                                r.at("threads").get<int>(), r.value("pregrow", "")));
  }
  return found;
}

// Each skipped result says what it needs, the hard limit, and how to raise it.
void expect_skipped_say_why(const nlohmann::json& doc, rlim_t hard) {
  for (const auto& r : doc.at("results")) {
    if (r.value("status", "measured") != "unavailable") continue;
    const std::string why = r.at("error").get<std::string>();
    for (const std::string& part :
         {std::string("needs "), fmt::format("the hard limit is {}", hard),
          std::string("ulimit -Hn")}) {
      EXPECT_NE(why.find(part), std::string::npos) << "lacks '" << part << "': " << r.dump();
    }
  }
}

// The findings of kind `kind`.
std::size_t findings_of(const nlohmann::json& doc, const std::string& kind) {
  std::size_t n = 0;
  for (const auto& f : doc.at("findings")) n += f.at("kind") == kind ? 1 : 0;
  return n;
}

// 64 worker processes hold a channel each (2 descriptors): 147 in all, over a hard limit of
// 128. The other three combinations fit and are measured; the run succeeds.
TEST(SweepUnderALowHardLimit, OpenRunsWhatFitsAndSaysWhatWasSkipped) {
  FastTempDir dir;
  RunOptions options = as_a_job();
  options.nofile = 128;
  const std::vector<std::string> args{
      "open",     "--strategy", "threads,process", "--threads", "1,64",  "--files", "40",
      "--repeat", "2",          "--warmup",        "0",         "--dir", dir.path()};
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.end(), {"--format", "json"});
  const RunResult run = run_limited(json_args, options);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.find("Error"), std::string::npos) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(results_with(doc, "measured"),
            (std::vector<std::string>{"threads/1/off", "threads/64/off", "process/1/off"}));
  EXPECT_EQ(results_with(doc, "unavailable"), std::vector<std::string>{"process/64/off"});
  expect_skipped_say_why(doc, 128);
  for (const auto& r : doc.at("results")) EXPECT_EQ(r.value("failures", 0), 0) << r.dump();
  EXPECT_EQ(findings_of(doc, "unavailable"), 1U) << doc.at("findings").dump();

  // The table: the skipped row in place, with its reason.
  const RunResult table = run_limited(args, options);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const auto row = table.out.find("unavailable: needs ");
  ASSERT_NE(row, std::string::npos) << table.out;
  const std::string line = table.out.substr(table.out.rfind('\n', row) + 1,
                                            table.out.find('\n', row) - table.out.rfind('\n', row));
  EXPECT_NE(line.find("process"), std::string::npos) << line;
  EXPECT_NE(line.find("64"), std::string::npos) << line;
  EXPECT_NE(line.find("the hard limit is 128"), std::string::npos) << line;
  EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{});
}

// Sockets are held to the end of a repetition: 2 threads of 60 hold 120, over 128 with
// fdbench's own; 1 thread fits, with and without pre-growing.
TEST(SweepUnderALowHardLimit, SocketRunsWhatFitsAndSaysWhatWasSkipped) {
  RunOptions options = as_a_job();
  options.nofile = 128;
  const RunResult run =
      run_limited({"socket", "--strategy", "threads", "--threads", "1,2", "--per-thread", "60",
                   "--repeat", "2", "--warmup", "0", "--format", "json"},
                  options);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(results_with(doc, "measured"),
            (std::vector<std::string>{"threads/1/off", "threads/1/auto"}));
  EXPECT_EQ(results_with(doc, "unavailable"),
            (std::vector<std::string>{"threads/2/off", "threads/2/auto"}));
  expect_skipped_say_why(doc, 128);
}

// One combination that does not fit, or a sweep none of whose do, is refused as before: one
// line naming the one that needs least, before any file is made.
TEST(SweepUnderALowHardLimit, NothingFitsRefusesTheRun) {
  FastTempDir dir;
  RunOptions options = as_a_job();
  options.nofile = 128;
  for (const std::string threads : {"64", "64,80"}) {
    const RunResult run = run_limited({"open", "--strategy", "process", "--threads", threads,
                                       "--files", "40", "--dir", dir.path(), "--format", "json"},
                                      options);
    EXPECT_NE(run.exit_code, 0) << run.out;
    EXPECT_EQ(run.err.rfind("Error: needs ", 0), 0U) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_NE(run.err.find("process --threads 64 holds 128"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("hard limit is 128"), std::string::npos) << run.err;
    EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{}) << "refused after setup";
  }
}

// tune's larger batches (io_uring's in flight per thread or slots per ring, libuv's in its
// helper) do not fit under 128; batch 16 does, and the strategies that hold none. The sweep
// recommends from what it measured.
TEST(SweepUnderALowHardLimit, TuneSkipsWhatDoesNotFitAndRecommendsFromTheRest) {
  if (!unavailable("uring").empty() && !unavailable("libuv").empty()) {
    FDBENCH_SKIP_WITHOUT("uring") << "neither io_uring nor libuv holds a batch here";
  }
  FastTempDir dir;
  RunOptions options = as_a_job();
  options.nofile = 128;
  const std::vector<std::string> args{"tune", "--budget", "1",       "--files",
                                      "20",   "--dir",    dir.path()};
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.end(), {"--format", "json"});
  const RunResult run = run_limited(json_args, options);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  const auto skipped = results_with(doc, "unavailable");
  EXPECT_FALSE(skipped.empty()) << run.out;
  EXPECT_FALSE(results_with(doc, "measured").empty()) << run.out;
  expect_skipped_say_why(doc, 128);  // stderr is no terminal: no progress line says it there
  const auto& rec = doc.at("recommendation");
  for (const auto& r : doc.at("results")) {
    if (r.value("status", "measured") != "unavailable") continue;
    EXPECT_NE(r.at("strategy"), "threads") << r.dump();  // holds none: it always fits
    EXPECT_FALSE(r.at("strategy") == rec.at("strategy") && r.at("threads") == rec.at("threads") &&
                 r.at("batch") == rec.at("batch"))
        << "recommended a skipped combination: " << rec.dump();
  }

  const RunResult table = run_limited(args, options);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("more combinations skipped"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("unavailable: needs "), std::string::npos) << table.out;
}

INSTANTIATE_TEST_SUITE_P(DescriptorBudget, BatchedStrategy, ::testing::Values("uring", "libuv"),
                         [](const auto& param) { return std::string(param.param); });

}  // namespace descriptor_budget_test
}  // namespace fdbench::testing
