// The runner's descriptor-leak check: a workload that opens a descriptor and never closes it
// is reported by measure() in the result's warnings, and stops a debug build on the spot; a
// strategy that throws inside a repetition still has the repetition's descriptors released
// first, so it makes no false report.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include "engine/measure.hpp"
#include "fdbench/error.hpp"
#include "platform/platform.hpp"
#include "support/temp_dir.hpp"
#include "support/warnings.hpp"

namespace fdbench {
namespace leak_check_test {

// One item: open /dev/null, keep nothing, close nothing.
class LeakingWorkload final : public Workload {
 public:
  [[nodiscard]] std::string_view name() const override { return "open"; }
  [[nodiscard]] DescriptorKind kind() const override { return DescriptorKind::file; }
  [[nodiscard]] std::size_t ops() const override { return 1; }
  void run_range(std::size_t begin, std::size_t end, Tally& tally) noexcept override {
    for (std::size_t i = begin; i < end; ++i) {
      if (open("/dev/null", O_RDONLY | O_CLOEXEC) < 0) tally.fail(errno);  // and never closed
    }
  }
  [[nodiscard]] ItemSpec spec() const override { return {}; }
  void keep(std::size_t /*i*/, int fd) noexcept override { close(fd); }
};

Result measure_leak() {
  LeakingWorkload work;
  return measure(work, *find_strategy("threads"), {1, 1}, 2, 0);
}

#ifdef NDEBUG
TEST(LeakCheck, ALeakingWorkloadIsReportedInTheWarnings) {
  const auto before = platform::open_descriptors();
  const Result r = measure_leak();
  const auto warnings = testing::warnings_besides_noise(r.warnings);
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_NE(warnings[0].find("descriptor leak"), std::string::npos) << warnings[0];
  EXPECT_EQ(r.error, "");  // the measurement itself ran
  // Close what the workload leaked, so this test leaks nothing itself.
  for (const int fd : platform::open_descriptors()) {
    if (!std::binary_search(before.begin(), before.end(), fd)) close(fd);
  }
  EXPECT_EQ(platform::open_descriptors(), before);
}
#else
TEST(LeakCheckDeathTest, ALeakingWorkloadStopsADebugBuild) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the runner starts threads
  EXPECT_EXIT(measure_leak(), ::testing::KilledBySignal(SIGABRT), "descriptor leak");
}
#endif

TEST(LeakCheck, AWorkloadThatClosesEverythingHasNoWarning) {
  const auto work = make_socket_workload(SocketKind::tcp, 8);
  const auto before = platform::open_descriptors();
  const Result r = measure(*work, *find_strategy("threads"), {2, 1}, 2, 0);
  EXPECT_EQ(r.error, "");  // the check ran: the measurement itself did
  EXPECT_EQ(r.times_ns.size(), 2U);
  EXPECT_EQ(r.failures, 0U);
  EXPECT_TRUE(testing::warnings_besides_noise(r.warnings).empty()) << r.warnings.front();
  EXPECT_EQ(platform::open_descriptors(), before);
}

// Does every item, then throws: a strategy whose ring broke or whose helper died after its
// workers made the repetition's descriptors.
class ThrowingStrategy final : public Strategy {
 public:
  Repetition run(Workload& work) override {
    Tally tally;
    work.run_range(0, work.ops(), tally);
    throw Error("the strategy broke mid-repetition");
  }
};

StrategyInfo throwing_strategy() {
  StrategyInfo info;
  info.name = "throwing";
  info.make = [](const StrategyConfig&) -> std::unique_ptr<Strategy> {
    return std::make_unique<ThrowingStrategy>();
  };
  return info;
}

TEST(LeakCheck, AStrategyThatThrowsStillReleasesWhatTheRepetitionHolds) {
  const auto work = make_socket_workload(SocketKind::tcp, 8);  // held until after_repetition()
  const auto before = platform::open_descriptors();
  const Result r = measure(*work, throwing_strategy(), {1, 1}, 2, 0);
  EXPECT_EQ(r.error, "the strategy broke mid-repetition");
  EXPECT_TRUE(testing::warnings_besides_noise(r.warnings).empty()) << r.warnings.front();
  EXPECT_EQ(platform::open_descriptors(), before);
}

// Leaves a file behind when after_repetition() runs: in a fresh child nothing else shows it.
class MarkingWorkload final : public Workload {
 public:
  explicit MarkingWorkload(std::string marker) : marker_(std::move(marker)) {}
  [[nodiscard]] std::string_view name() const override { return "marking"; }
  [[nodiscard]] DescriptorKind kind() const override { return DescriptorKind::file; }
  [[nodiscard]] std::size_t ops() const override { return 4; }
  void run_range(std::size_t /*begin*/, std::size_t /*end*/, Tally& /*tally*/) noexcept override {}
  void after_repetition() override { testing::write_text(marker_, "ran"); }
  [[nodiscard]] ItemSpec spec() const override { return {}; }
  void keep(std::size_t /*i*/, int fd) noexcept override { close(fd); }

 private:
  std::string marker_;
};

TEST(LeakCheck, AStrategyThatThrowsInAFreshChildStillEndsTheRepetition) {
  testing::TempDir dir;
  const std::string marker = dir / "after_repetition";
  const WorkloadRecipe recipe{{"marking", DescriptorKind::file, 4, 1, "fds", false},
                              [marker] { return std::make_unique<MarkingWorkload>(marker); }};
  const Result r = measure_in_fresh_child(recipe, throwing_strategy(), {1, 1}, Pregrow{}, 1, 0);
  EXPECT_EQ(r.error, "the strategy broke mid-repetition");
  EXPECT_EQ(testing::read_text(marker), "ran") << "after_repetition() did not run in the child";
}

}  // namespace leak_check_test
}  // namespace fdbench
