// The io_uring strategies' ring set-up and slot handling, with liburing itself: built only
// where liburing is (tests/integration/uring_test.cpp tests the strategies through their
// interface, in every build). Skipped where io_uring cannot run.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <liburing.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "engine/measure.hpp"
#include "engine/strategy.hpp"
#include "engine/workload.hpp"
#include "fdbench/error.hpp"
#include "fdbench/unique_fd.hpp"
#include "inputs/file_set.hpp"
#include "platform/platform.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"
#include "uring/ring.hpp"

namespace fdbench {
namespace {

using testing::TempDir;

#define SKIP_IF_UNAVAILABLE(info)                                           \
  do {                                                                      \
    if (const auto reason = (info).unavailable_reason(); !reason.empty()) { \
      FDBENCH_SKIP_WITHOUT(testing::strategy_feature((info).name)) << (info).name << ": " << reason; \
    }                                                                       \
  } while (0)

const StrategyInfo& strategy_named(std::string_view name) {
  const StrategyInfo* info = find_strategy(name);
  FDBENCH_ASSERT(info != nullptr);
  return *info;
}

// Every file name of `set`, with every `every`-th entry replaced by a name that does not exist.
PathTable with_missing_names(const FileSet& set, std::size_t every, std::size_t& missing) {
  PathTable table;
  missing = 0;
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (i % every == 0) {
      table.add("missing-" + std::to_string(i));
      ++missing;
    } else {
      table.add(set.names()[i]);
    }
  }
  return table;
}

// A result records the ring set-up that the probe chose for this kernel, in the probe's words.
TEST(UringSetup, ResultsRecordTheSetupTheProbeChose) {
  for (const char* name : {"uring", "uring-direct"}) {
    SCOPED_TRACE(name);
    const StrategyInfo& info = strategy_named(name);
    SKIP_IF_UNAVAILABLE(info);
    TempDir parent;
    const FileSet files = FileSet::create(parent.path(), 50);
    const auto work = make_open_workload(files.dir_fd(), files.path(), files.names());
    const Result tuned = measure(*work, info, {2, 8}, 1, 0);
    ASSERT_EQ(tuned.error, "");
    const auto expected = uring::describe(uring::ring_setup(UringOptions{}));
    EXPECT_EQ(tuned.parameters.at("ring_setup"), expected.at("ring_setup"));
    EXPECT_EQ(tuned.parameters.at("ring_fd"), expected.at("ring_fd"));
  }
}

TEST(UringSetup, ARefusedFlagSetFallsBackToTheNext) {
  constexpr unsigned kRefused = 1U << 30;
  const unsigned candidates[] = {kRefused, 2U, 0U};
  std::vector<unsigned> tried;
  const auto try_setup = [&](unsigned flags) {
    tried.push_back(flags);
    return flags == kRefused ? -EINVAL : 0;
  };
  EXPECT_EQ(uring::first_accepted(candidates, try_setup), 2U);
  EXPECT_EQ(tried, (std::vector<unsigned>{kRefused, 2U}));
}

TEST(UringSetup, AnErrorOtherThanEinvalEndsTheSearchWithNoFlags) {
  const unsigned candidates[] = {4U, 2U, 0U};
  std::vector<unsigned> tried;
  const auto try_setup = [&](unsigned flags) {
    tried.push_back(flags);
    return -ENOMEM;
  };
  EXPECT_EQ(uring::first_accepted(candidates, try_setup), 0U);
  EXPECT_EQ(tried, std::vector<unsigned>{4U});
}

// The real kernel: a flag it does not know is refused with EINVAL, and the probe moves on to
// what the running kernel accepts.
TEST(UringSetup, TheKernelRefusesAnUnknownFlagAndTheProbeMovesOn) {
  if (!uring::support().unavailable.empty()) {
    FDBENCH_SKIP_WITHOUT("uring") << uring::support().unavailable;
  }
  constexpr unsigned kUnknown = 1U << 31;
  EXPECT_EQ(uring::try_ring_setup(kUnknown), -EINVAL);
  const auto real = uring::setup_flag_candidates();
  std::vector<unsigned> candidates{kUnknown};
  candidates.insert(candidates.end(), real.begin(), real.end());
  const unsigned best = uring::first_accepted(real, uring::try_ring_setup);
  EXPECT_EQ(uring::first_accepted(candidates, uring::try_ring_setup), best);
  EXPECT_EQ(uring::support().best_flags, best);
  EXPECT_EQ(uring::try_ring_setup(best), 0);
}

// How many registered file slots of this process's rings hold a file under `dir`, as each
// ring's /proc fdinfo lists them.
std::size_t slots_holding(const std::string& dir) {
  std::size_t held = 0;
  for (const int fd : platform::open_descriptors()) {
    const std::string name = std::to_string(fd);
    char target[64] = {};
    const ssize_t n = readlink(("/proc/self/fd/" + name).c_str(), target, sizeof target - 1);
    if (n <= 0 ||
        std::string_view(target, static_cast<std::size_t>(n)) != "anon_inode:[io_uring]") {
      continue;
    }
    std::ifstream info("/proc/self/fdinfo/" + name);
    for (std::string line; std::getline(info, line);) {
      if (line.find(dir) != std::string::npos) ++held;
    }
  }
  return held;
}

// uring-direct closes every slot it opened, in both close modes, and tries every name once.
TEST(UringDirectClose, BothModesCloseEverySlotTheyOpened) {
  const StrategyInfo& info = strategy_named("uring-direct");
  SKIP_IF_UNAVAILABLE(info);
  TempDir parent;
  const FileSet files = FileSet::create(parent.path(), 200);
  {  // the check itself sees a slot that holds one of these files
    io_uring ring{};
    ASSERT_EQ(io_uring_queue_init(2, &ring, 0), 0);
    const UniqueFd file(openat(files.dir_fd(), files.names()[0], O_RDONLY | O_CLOEXEC));
    const int fd = file.get();
    ASSERT_EQ(io_uring_register_files(&ring, &fd, 1), 0);
    EXPECT_EQ(slots_holding(files.path()), 1U);
    io_uring_queue_exit(&ring);
  }
  std::size_t missing = 0;
  const PathTable names = with_missing_names(files, 9, missing);
  const auto work = make_open_workload(files.dir_fd(), files.path(), names);
  const auto held_before = platform::open_descriptors();
  for (const auto close : {UringOptions::Close::batched, UringOptions::Close::linked}) {
    for (const int threads : {1, 2}) {
      for (const int batch : {1, 7, 64}) {
        SCOPED_TRACE(to_string(close) + " threads=" + std::to_string(threads) +
                     " batch=" + std::to_string(batch));
        StrategyConfig config{threads, batch};
        config.uring.close = close;
        const auto strategy = info.make(config);
        work->before_repetition();
        const Repetition rep = strategy->run(*work);
        work->after_repetition();
        EXPECT_EQ(rep.tally.failures, missing);
        EXPECT_EQ(rep.tally.by_errno[ENOENT], missing);
        EXPECT_EQ(slots_holding(files.path()), 0U);
      }
    }
  }
  EXPECT_EQ(platform::open_descriptors(), held_before);
}

}  // namespace
}  // namespace fdbench
