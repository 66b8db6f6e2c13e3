// The runner's descriptor-leak check: a workload that opens a descriptor and never closes it
// is reported by measure() in the result's warnings, and stops a debug build on the spot; a
// strategy that throws inside a repetition still has the repetition's descriptors released
// first, so it makes no false report.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "engine/measure.hpp"
#include "engine/measurement.hpp"
#include "fdbench/error.hpp"
#include "platform/interrupt.hpp"
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

// Holds a descriptor for as long as it exists, as a ring or a helper's pipe does.
class HoldingStrategy final : public Strategy {
 public:
  HoldingStrategy() : held_(open("/dev/null", O_RDONLY | O_CLOEXEC)) {}
  ~HoldingStrategy() override { close(held_); }
  HoldingStrategy(const HoldingStrategy&) = delete;
  HoldingStrategy& operator=(const HoldingStrategy&) = delete;
  Repetition run(Workload& work) override {
    Tally tally;
    work.run_range(0, work.ops(), tally);
    return {1, tally, std::nullopt, 0};
  }

 private:
  int held_;
};

// A measurement keeps a reference to its strategy, as to a registry entry: one that lives as long.
const StrategyInfo& holding_strategy() {
  static const StrategyInfo info = [] {
    StrategyInfo made;
    made.name = "holding";
    made.make = [](const StrategyConfig&) -> std::unique_ptr<Strategy> {
      return std::make_unique<HoldingStrategy>();
    };
    return made;
  }();
  return info;
}

// Receives a signal (SIGHUP, as a closed terminal sends) at its `at`-th pass.
class SignalledWorkload final : public Workload {
 public:
  explicit SignalledWorkload(int at) : at_(at) {}
  [[nodiscard]] std::string_view name() const override { return "signalled"; }
  [[nodiscard]] DescriptorKind kind() const override { return DescriptorKind::file; }
  [[nodiscard]] std::size_t ops() const override { return 1; }
  void run_range(std::size_t /*begin*/, std::size_t /*end*/, Tally& /*tally*/) noexcept override {
    if (++passes_ == at_) raise(SIGHUP);
  }
  [[nodiscard]] ItemSpec spec() const override { return {}; }
  void keep(std::size_t /*i*/, int fd) noexcept override { close(fd); }

 private:
  int at_;
  int passes_ = 0;
};

// Two interleaved measurements, each with workers made per repetition, and a signal during one
// of their passes: every result finished after it (the scheduler finishes the ones with timed
// repetitions, in order) finds the descriptors it began with, and so does the process once both
// are gone (issue 39 item 10b: a debug build stopped on "descriptor leak" when the signal
// caught the second one's repetition, whose workers were not released). Each signal moment
// in its own process, where the handlers are installed.
int interleaved_and_signalled(int at) {
  install_interrupt_handlers();
  const auto before = platform::open_descriptors();
  SignalledWorkload work(at);
  std::vector<std::unique_ptr<Measurement>> running;
  for (int i = 0; i < 2; ++i) {
    running.push_back(in_process_measurement(work, holding_strategy(), {1, 1}, 3, 0, {},
                                             Workers::per_repetition));
  }
  try {
    for (int round = 0; round < 3; ++round) {
      for (auto& m : running) m->run_next();
    }
    return 10;  // the signal never came
  } catch (const Interrupted&) {
  }
  for (auto& m : running) {
    if (m->timed_repetitions_run() == 0) continue;
    const Result r = m->finish();  // cut short, and said so; a leak would be said too
    for (const Warning& w : r.warnings) {
      if (w.kind == WarningKind::leak) return 11;
    }
  }
  running.clear();
  return platform::open_descriptors() == before ? 0 : 12;
}

TEST(LeakCheckDeathTest, ASignalDuringAnInterleavedRepetitionLeaksNothing) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Each of the first passes: per repetition, an untimed one that primes the new workers, then
  // the timed one; the first measurement's, then the second's.
  for (int at = 1; at <= 8; ++at) {
    SCOPED_TRACE(at);
    EXPECT_EXIT(std::exit(interleaved_and_signalled(at)), ::testing::ExitedWithCode(0), "");
  }
}

}  // namespace leak_check_test
}  // namespace fdbench
