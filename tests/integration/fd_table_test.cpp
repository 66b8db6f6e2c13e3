// pregrow_fd_table and raise_nofile_limit on this machine. Both change process-wide state
// (the table never shrinks, the limit is per process), so every test that changes it runs in
// a forked child (EXPECT_EXIT) and says what went wrong on stderr.
#include "fdbench/fd_table.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "platform/platform.hpp"

namespace fdbench {
namespace fd_table_test {

// In a child: stop with a message when `ok` is false.
void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "failed: %s\n", what);
    std::exit(1);
  }
}

bool set_soft_limit(std::uint64_t soft) {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = static_cast<rlim_t>(soft);
  return setrlimit(RLIMIT_NOFILE, &limit) == 0;
}

TEST(PregrowFdTable, GrowsTheTableToHoldMaxFd) {
  if (!platform::uses_linux_interfaces()) GTEST_SKIP() << "the table size is not shown here";
  EXPECT_EXIT(
      {
        const auto before = platform::fd_table_size();
        require(before.has_value(), "FDSize readable");
        const int max_fd = *before;  // one past the last slot: the table must double
        raise_nofile_limit(static_cast<std::size_t>(max_fd) + 1);
        const auto fds_before = platform::open_descriptors();
        const PregrowResult r = pregrow_fd_table(max_fd);
        require(r.outcome == PregrowOutcome::grown && r.grown(), "outcome grown");
        require(r.error == 0, "no error");
        require(r.fdsize_before == *before, "fdsize_before is the table before");
        require(r.fdsize_after > max_fd, "the table holds max_fd");
        require(platform::fd_table_size() == r.fdsize_after, "fdsize_after is the table now");
        require(platform::open_descriptors() == fds_before, "no descriptor left open");
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(PregrowFdTable, IsANoOpWhenTheTableIsAlreadyLarge) {
  const PregrowResult r = pregrow_fd_table(10);  // every table holds 64 slots at least
  EXPECT_EQ(r.error, 0);
  EXPECT_FALSE(r.grown());
  if (platform::uses_linux_interfaces()) {
    EXPECT_EQ(r.outcome, PregrowOutcome::already_large);
    EXPECT_GE(r.fdsize_before, platform::kSmallestFdTable);
    EXPECT_EQ(r.fdsize_after, r.fdsize_before);
  } else {
    EXPECT_EQ(r.outcome, PregrowOutcome::not_needed);
    EXPECT_EQ(r.fdsize_before, -1);
  }
}

TEST(PregrowFdTable, SaysWhyNot) {
  const PregrowResult negative = pregrow_fd_table(-1);
  EXPECT_EQ(negative.outcome, PregrowOutcome::failed);
  EXPECT_EQ(negative.error, EINVAL);
  if (!platform::uses_linux_interfaces()) GTEST_SKIP() << "the limit is checked on Linux only";
  const std::uint64_t soft = platform::nofile_limit().soft;
  if (soft > 1'000'000) GTEST_SKIP() << "soft RLIMIT_NOFILE is too large to exceed";
  const PregrowResult above = pregrow_fd_table(static_cast<int>(soft));
  EXPECT_EQ(above.outcome, PregrowOutcome::failed);
  EXPECT_EQ(above.error, EMFILE);  // raise the limit first
}

TEST(RaiseNofileLimit, NeverLowersTheLimit) {
  const NofileResult r = raise_nofile_limit(1);
  EXPECT_EQ(r.error, 0);
  EXPECT_EQ(r.soft_after, r.soft_before);
  EXPECT_EQ(platform::nofile_limit().soft, r.soft_before);
  EXPECT_LE(r.ceiling, r.hard);
}

TEST(RaiseNofileLimit, RaisesTheSoftLimitToWhatIsWanted) {
  if (platform::nofile_limit().hard < 300) GTEST_SKIP() << "hard RLIMIT_NOFILE below 300";
  EXPECT_EXIT(
      {
        require(set_soft_limit(256), "lower the soft limit to 256");
        const NofileResult r = raise_nofile_limit(300);
        require(r.error == 0, "no error");
        require(r.soft_before == 256 && r.soft_after == 300, "raised from 256 to 300");
        require(platform::nofile_limit().soft == 300, "the limit is 300 now");
        require(platform::nofile_limit().hard == r.hard, "the hard limit is untouched");
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(RaiseNofileLimit, StopsAtTheCeilingAndSaysSo) {
  const NofileResult now = raise_nofile_limit(1);
  if (now.ceiling >= RLIM_INFINITY - 1) GTEST_SKIP() << "no finite ceiling to exceed";
  EXPECT_EXIT(
      {
        require(set_soft_limit(std::min<std::uint64_t>(now.ceiling, 256)), "lower the soft limit");
        const NofileResult r = raise_nofile_limit(now.ceiling + 1);
        require(r.error == EPERM, "EPERM: the ceiling is below what is wanted");
        require(r.soft_after == r.ceiling, "raised as far as the ceiling");
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(RaiseNofileLimit, ConcurrentCallsNeverLowerIt) {
  if (platform::nofile_limit().hard < 1000) GTEST_SKIP() << "hard RLIMIT_NOFILE below 1000";
  EXPECT_EXIT(
      {
        require(set_soft_limit(256), "lower the soft limit to 256");
        std::vector<std::thread> threads;
        for (int t = 0; t < 8; ++t) {
          threads.emplace_back(
              [t] { raise_nofile_limit(300 + static_cast<std::size_t>(t) * 100); });
        }
        for (auto& thread : threads) thread.join();
        require(platform::nofile_limit().soft == 1000, "the highest wanted (1000) wins");
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace fd_table_test
}  // namespace fdbench
