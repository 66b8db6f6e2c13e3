// The descriptor budget, end to end: a strategy that holds many descriptors at once (io_uring's
// batch in flight, libuv's requests in flight) gets a soft RLIMIT_NOFILE raised to fit, or a
// refusal up front naming the numbers when the hard limit is too low; never EMFILE mid-run.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
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

INSTANTIATE_TEST_SUITE_P(DescriptorBudget, BatchedStrategy, ::testing::Values("uring", "libuv"),
                         [](const auto& param) { return std::string(param.param); });

}  // namespace descriptor_budget_test
}  // namespace fdbench::testing
