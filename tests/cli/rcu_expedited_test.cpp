// --rcu-expedited: a system-wide setting changed only for the results that ask, and put back
// on every way out, SIGKILL too (by a watcher process that outlives fdbench). Where this
// process may not set it (not root, not Linux), the option is refused with one line; where it
// may, the tests change it briefly and check it comes back.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "platform/platform.hpp"
#include "support/fdbench_process.hpp"
#include "support/require.hpp"
#include "support/run_processes.hpp"

namespace fdbench::testing {
namespace rcu_expedited_test {

const std::vector<std::string> kSocket = {"socket", "--per-thread", "64", "--repeat",
                                          "2",      "--warmup",     "0"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// The run's processes outside fdbench's own group: its watcher, which left the group.
std::vector<pid_t> outside_group(const std::string& marker, pid_t group) {
  std::vector<pid_t> found;
  for (const pid_t pid : processes_marked(marker)) {
    if (process_group_of(pid) != group) found.push_back(pid);
  }
  return found;
}

// Whether `pid` has exited: reaped here (this process is the subreaper its orphans come to),
// or gone altogether.
bool exited(pid_t pid) {
  return waitpid(pid, nullptr, WNOHANG) == pid || (kill(pid, 0) != 0 && errno == ESRCH);
}

TEST(RcuExpedited, ValuesOtherThanKeepZeroAndOneAreRefused) {
  for (const std::string bad : {"2", "yes", "0,", "keep,0"}) {
    const auto run = run_fdbench(with(kSocket, {"--rcu-expedited", bad}));
    EXPECT_EQ(run.exit_code, 2) << bad << "\n" << run.err;
    EXPECT_NE(run.err.find("--rcu-expedited"), std::string::npos) << run.err;
  }
}

TEST(RcuExpedited, RefusedInOneLineWhereItCannotBeSet) {
  const std::string why = platform::rcu_expedited_unsettable();
  if (why.empty()) GTEST_SKIP() << "this process may set rcu_expedited (root on Linux)";
  const auto run = run_fdbench(with(kSocket, {"--rcu-expedited", "0,1"}));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find(why), std::string::npos) << run.err;
  EXPECT_EQ(run.out, "");  // nothing was measured
}

class RcuExpeditedSet : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = platform::rcu_expedited_unsettable(); !why.empty()) {
      FDBENCH_SKIP_WITHOUT("rcu_expedited") << why;
    }
    original_ = platform::rcu_expedited().value_or(-1);
    ASSERT_GE(original_, 0);
  }
  void TearDown() override {
    if (original_ >= 0 && platform::rcu_expedited() != original_) {
      platform::set_rcu_expedited(original_);  // never leave the machine changed
      ADD_FAILURE() << "rcu_expedited was not restored";
    }
  }
  int original_ = -1;
};

// One test, not several: ctest runs tests in parallel, and two that change one system-wide
// setting would read each other's value as the original.
TEST_F(RcuExpeditedSet, EachValueIsABlockOfResultsAndTheOriginalComesBackOnEveryWayOut) {
  const auto run = run_fdbench(with(kSocket, {"--rcu-expedited", "0,1", "--format", "json"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(platform::rcu_expedited(), original_);
  const auto doc = nlohmann::json::parse(run.out);
  std::vector<std::string> order;
  for (const auto& r : doc["results"])
    order.push_back(std::to_string(r["rcu_expedited"].get<int>()));
  EXPECT_EQ(order, (std::vector<std::string>{"0", "0", "1", "1"}));  // pregrow off, auto each

  // Caught signals unwind through fdbench's own restore; SIGKILL, to fdbench alone or to its
  // whole group (the watcher is in neither), leaves it to the watcher. Either way the watcher
  // is gone afterwards.
  const std::string other = original_ == 0 ? "1" : "0";
  struct WayOut {
    int sig;
    bool whole_group;
  };
  for (const WayOut way : {WayOut{SIGINT, false}, WayOut{SIGTERM, false}, WayOut{SIGKILL, false},
                           WayOut{SIGKILL, true}}) {
    const std::string what =
        fmt::format("after signal {}{}", way.sig, way.whole_group ? " to the group" : "");
    RunOptions options = as_a_job();
    const std::string marker = new_run_marker();
    options.env.push_back(marker);
    FdbenchProcess fdbench(
        {"socket", "--per-thread", "64", "--repeat", "100000", "--rcu-expedited", other}, options);
    ASSERT_TRUE(wait_until([&] { return platform::rcu_expedited() == std::stoi(other); }))
        << "fdbench never set it";
    // Started before the change, so there by now.
    const std::vector<pid_t> watcher = outside_group(marker, fdbench.pid());
    EXPECT_EQ(watcher.size(), 1U) << what;
    fdbench.signal(way.sig, way.whole_group);
    const auto stopped = fdbench.wait();
    EXPECT_EQ(stopped.exit_code, 128 + way.sig) << what << ": " << stopped.err;
    if (way.sig == SIGKILL) {  // the watcher writes it back as soon as it sees fdbench gone
      EXPECT_TRUE(wait_until([&] { return platform::rcu_expedited() == original_; },
                             std::chrono::seconds(5)))
          << what;
    } else {
      EXPECT_EQ(platform::rcu_expedited(), original_) << what;
    }
    for (const pid_t pid : watcher) {
      EXPECT_TRUE(wait_until([&] { return exited(pid); }, std::chrono::seconds(5)))
          << "the watcher " << pid << " is still there " << what;
    }
    EXPECT_EQ(fdbench.leftovers().running, 0) << what;
    EXPECT_EQ(processes_marked(marker), std::vector<pid_t>{}) << what;
  }
}

}  // namespace rcu_expedited_test
}  // namespace fdbench::testing
