// --rcu-expedited: a system-wide setting changed only for the results that ask, and put back
// on every way out. Where this process may not set it (not root, not Linux), the option is
// refused with one line; where it may, the tests change it briefly and check it comes back.
#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "platform/platform.hpp"
#include "support/fdbench_process.hpp"
#include "support/require.hpp"

namespace fdbench::testing {
namespace rcu_expedited_test {

const std::vector<std::string> kSocket = {"socket", "--per-thread", "64", "--repeat",
                                          "2",      "--warmup",     "0"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
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

// One test, not two: ctest runs tests in parallel, and two that change one system-wide
// setting would read each other's value as the original.
TEST_F(RcuExpeditedSet, EachValueIsABlockOfResultsAndTheOriginalComesBackAlsoAfterSignals) {
  const auto run = run_fdbench(with(kSocket, {"--rcu-expedited", "0,1", "--format", "json"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(platform::rcu_expedited(), original_);
  const auto doc = nlohmann::json::parse(run.out);
  std::vector<std::string> order;
  for (const auto& r : doc["results"])
    order.push_back(std::to_string(r["rcu_expedited"].get<int>()));
  EXPECT_EQ(order, (std::vector<std::string>{"0", "0", "1", "1"}));  // pregrow off, auto each

  const std::string other = original_ == 0 ? "1" : "0";
  for (const int sig : {SIGINT, SIGTERM}) {
    FdbenchProcess fdbench(
        {"socket", "--per-thread", "64", "--repeat", "100000", "--rcu-expedited", other},
        as_a_job());
    ASSERT_TRUE(wait_until([&] { return platform::rcu_expedited() == std::stoi(other); }))
        << "fdbench never set it";
    fdbench.signal(sig);
    const auto stopped = fdbench.wait();
    EXPECT_EQ(stopped.exit_code, 128 + sig) << stopped.err;
    EXPECT_EQ(platform::rcu_expedited(), original_) << "after signal " << sig;
  }
}

}  // namespace rcu_expedited_test
}  // namespace fdbench::testing
