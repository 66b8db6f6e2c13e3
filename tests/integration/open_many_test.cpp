// open_many with real files: every descriptor in input order, per-path errors, whole-call
// failures, cancellation (before the call and midway), calls from several threads, and no
// descriptor left behind in any of these cases.
#include "fdbench/open_many.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "fdbench/tune.hpp"
#include "platform/platform.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"
#include "support/wait_until.hpp"

namespace fdbench {
namespace open_many_test {

using testing::TempDir;

constexpr int kFiles = 300;

// kFiles empty files f0 ... f299 in a private directory, as absolute and as relative paths.
class OpenManyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < kFiles; ++i) {
      relative_.push_back("f" + std::to_string(i));
      absolute_.push_back(dir_ / relative_.back());
      testing::write_text(absolute_.back(), "");
    }
    before_ = platform::open_descriptors();
  }
  void TearDown() override { EXPECT_EQ(platform::open_descriptors(), before_) << "leaked"; }

  // Every path opened, each descriptor on the file at the same position in `paths`.
  static void expect_in_order(const OpenManyResult& r, const std::vector<std::string>& paths) {
    ASSERT_TRUE(r.ok()) << r.message;
    ASSERT_EQ(r.fds.size(), paths.size());
    ASSERT_EQ(r.errors.size(), paths.size());
    EXPECT_EQ(r.opened(), paths.size());
    for (std::size_t i = 0; i < paths.size(); ++i) {
      struct stat by_fd {};
      struct stat by_path {};
      ASSERT_EQ(fstat(r.fds[i].get(), &by_fd), 0) << i;
      ASSERT_EQ(stat(paths[i].c_str(), &by_path), 0) << i;
      EXPECT_EQ(by_fd.st_ino, by_path.st_ino) << "descriptor " << i << " is not " << paths[i];
      EXPECT_EQ(r.errors[i], 0);
    }
  }

  TempDir dir_;
  std::vector<std::string> relative_;
  std::vector<std::string> absolute_;
  std::vector<int> before_;
};

struct Setting {
  const char* strategy;
  int threads;
};

OpenManyOptions options(const char* strategy, int threads, int batch, std::stop_token stop = {}) {
  OpenManyOptions o;
  o.strategy = open_strategy(strategy).value();
  o.threads = threads;
  o.batch = batch;
  o.stop = std::move(stop);
  return o;
}

class OpenManyStrategyTest : public OpenManyTest, public ::testing::WithParamInterface<Setting> {
 protected:
  [[nodiscard]] static OpenManyOptions options() {
    return open_many_test::options(GetParam().strategy, GetParam().threads, 16);  // several batches
  }
};

#define SKIP_IF_UNAVAILABLE(result)                                                      \
  do {                                                                                   \
    if ((result).error == EOPNOTSUPP) FDBENCH_SKIP_WITHOUT("uring") << (result).message; \
  } while (0)

TEST_P(OpenManyStrategyTest, ReturnsEveryDescriptorInInputOrder) {
  const OpenManyResult r = open_many(AT_FDCWD, absolute_, O_RDONLY | O_CLOEXEC, options());
  SKIP_IF_UNAVAILABLE(r);
  expect_in_order(r, absolute_);
}

TEST_P(OpenManyStrategyTest, OpensRelativeToDirFd) {
  const UniqueFd dir(open(dir_.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(dir);
  std::vector<std::string> reversed(relative_.rbegin(), relative_.rend());
  const OpenManyResult r = open_many(dir.get(), reversed, O_RDONLY | O_CLOEXEC, options());
  SKIP_IF_UNAVAILABLE(r);
  for (auto& path : reversed) path = dir_ / path;
  expect_in_order(r, reversed);
}

TEST_P(OpenManyStrategyTest, ReportsEachFailedPathAndOpensTheRest) {
  ASSERT_EQ(symlink("loop", (dir_ / "loop").c_str()), 0);
  std::vector<std::string> paths = absolute_;
  paths[7] = dir_ / "missing";
  paths[150] = dir_ / "f1/not-a-directory";
  paths[299] = dir_ / "loop";
  const OpenManyResult r = open_many(AT_FDCWD, paths, O_RDONLY | O_CLOEXEC, options());
  SKIP_IF_UNAVAILABLE(r);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.errors[7], ENOENT);
  EXPECT_EQ(r.errors[150], ENOTDIR);
  EXPECT_EQ(r.errors[299], ELOOP);
  for (const std::size_t i : {7U, 150U, 299U}) EXPECT_FALSE(r.fds[i].valid()) << i;
  EXPECT_EQ(r.opened(), paths.size() - 3);
  EXPECT_TRUE(r.fds[0].valid() && r.fds[298].valid());
}

TEST_P(OpenManyStrategyTest, ClosesEverythingWhenCancelledBeforeItStarts) {
  std::stop_source stop;
  stop.request_stop();
  OpenManyOptions o = options();
  o.stop = stop.get_token();
  const OpenManyResult r = open_many(AT_FDCWD, absolute_, O_RDONLY | O_CLOEXEC, o);
  SKIP_IF_UNAVAILABLE(r);
  EXPECT_EQ(r.error, ECANCELED);
  EXPECT_FALSE(r.message.empty());
  EXPECT_TRUE(r.fds.empty() && r.errors.empty());
}

TEST_P(OpenManyStrategyTest, CallsFromSeveralThreadsAtOnce) {
  std::vector<OpenManyResult> results(3);  // 900 descriptors: below the usual limit of 1,024
  std::vector<std::thread> callers;
  for (auto& result : results) {
    callers.emplace_back(
        [&] { result = open_many(AT_FDCWD, absolute_, O_RDONLY | O_CLOEXEC, options()); });
  }
  for (auto& caller : callers) caller.join();
  SKIP_IF_UNAVAILABLE(results[0]);
  for (const auto& result : results) expect_in_order(result, absolute_);
}

INSTANTIATE_TEST_SUITE_P(Settings, OpenManyStrategyTest,
                         ::testing::Values(Setting{"threads", 1}, Setting{"threads", 2},
                                           Setting{"threads", 7}, Setting{"threads", 0},
                                           Setting{"uring", 1}, Setting{"uring", 2}),
                         [](const auto& test) {
                           return std::string(test.param.strategy) + "_" +
                                  std::to_string(test.param.threads);
                         });

TEST_F(OpenManyTest, KeepsWhatTheCallerReleases) {
  OpenManyResult r = open_many(AT_FDCWD, absolute_, O_RDONLY | O_CLOEXEC);
  ASSERT_TRUE(r.ok()) << r.message;
  const int kept = r.fds[5].release();
  r = OpenManyResult{};  // closes the rest
  EXPECT_NE(fcntl(kept, F_GETFD), -1);
  close(kept);
}

TEST_F(OpenManyTest, NoPathsIsNoWork) {
  const OpenManyResult r = open_many(AT_FDCWD, std::vector<std::string>{}, O_RDONLY);
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.fds.empty() && r.errors.empty());
}

TEST_F(OpenManyTest, RejectsOptionsItCannotHonour) {
  const auto error_for = [&](const OpenManyOptions& o) {
    const OpenManyResult r = open_many(AT_FDCWD, absolute_, O_RDONLY | O_CLOEXEC, o);
    EXPECT_FALSE(r.message.empty());
    EXPECT_TRUE(r.fds.empty());
    return r.error;
  };
  OpenManyOptions unknown = options("threads", 1, 64);
  unknown.strategy = static_cast<OpenStrategy>(7);  // what a C cast can make
  EXPECT_EQ(error_for(unknown), EINVAL);
  EXPECT_EQ(error_for(options("threads", -1, 64)), EINVAL);
  const int batch_zero = error_for(options("uring", 1, 0));
  EXPECT_TRUE(batch_zero == EINVAL || batch_zero == EOPNOTSUPP) << batch_zero;
}

// Only one file is readable by nobody-but-root: checked as an unprivileged user (root
// drops to nobody in a child, as root would open it anyway).
TEST_F(OpenManyTest, ReportsUnreadableFiles) {
  ASSERT_EQ(chmod(dir_.path().c_str(), 0755), 0);
  ASSERT_EQ(chmod(absolute_[3].c_str(), 0644), 0);
  ASSERT_EQ(chmod(absolute_[4].c_str(), 0000), 0);
  const std::vector<std::string> paths{absolute_[3], absolute_[4]};
  EXPECT_EXIT(
      {
        if (geteuid() == 0 && setuid(65534) != 0) std::exit(3);
        const OpenManyResult r = open_many(AT_FDCWD, paths, O_RDONLY | O_CLOEXEC);
        std::exit(r.ok() && r.fds[0].valid() && r.errors[0] == 0 && r.errors[1] == EACCES ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// Above the soft RLIMIT_NOFILE the opens fail one by one with EMFILE; the call still works.
TEST_F(OpenManyTest, RunningOutOfDescriptorsIsAPerPathError) {
  rlimit low{};
  getrlimit(RLIMIT_NOFILE, &low);
  low.rlim_cur = 100;
  const std::vector<std::string> warm_up(absolute_.begin(), absolute_.begin() + 4);
  EXPECT_EXIT(
      {
        // UBSan checks a type it has not yet seen through a pipe(2) of its own, which fails
        // once the table is full: this first call lets it meet the engine's types in time.
        if (open_many(AT_FDCWD, warm_up, O_RDONLY | O_CLOEXEC, options("threads", 2, 64))
                .opened() != warm_up.size()) {
          std::exit(4);
        }
        if (setrlimit(RLIMIT_NOFILE, &low) != 0) std::exit(3);
        const OpenManyResult r =
            open_many(AT_FDCWD, absolute_, O_RDONLY | O_CLOEXEC, options("threads", 2, 64));
        std::size_t emfile = 0;
        for (const int err : r.errors) emfile += err == EMFILE ? 1 : 0;
        // _exit: the table is still full, and exit's destructors would meet UBSan again
        _exit(r.ok() && r.opened() > 0 && emfile > 0 && r.opened() + emfile == kFiles ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// Midway, deterministically: the only worker opens paths 0-99, then blocks opening a FIFO
// (open(2) waits for a writer), so it cannot get past 100 descriptors. Once it holds them,
// stop is requested and a writer releases it; it must stop there and close everything.
TEST_F(OpenManyTest, ClosesEverythingWhenCancelledMidway) {
  const std::string fifo = dir_ / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::vector<std::string> paths(absolute_.begin(), absolute_.begin() + 100);
  paths.push_back(fifo);
  paths.insert(paths.end(), absolute_.begin() + 100, absolute_.end());
  std::stop_source stop;
  std::atomic<bool> returned{false};
  OpenManyResult r;
  std::thread caller([&] {
    r = open_many(AT_FDCWD, paths, O_RDONLY | O_CLOEXEC,
                  options("threads", 1, 64, stop.get_token()));
    returned = true;
  });
  EXPECT_TRUE(testing::wait_until(
      [&] { return platform::open_descriptors().size() >= before_.size() + 100; }))
      << "the worker never held its first 100 descriptors";
  stop.request_stop();
  // A non-blocking writer open succeeds once the reader waits in open(2), and releases it.
  UniqueFd writer;
  EXPECT_TRUE(testing::wait_until([&] {
    writer.reset(open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC));
    return writer || returned;
  })) << "the worker never reached the FIFO";
  caller.join();
  EXPECT_EQ(r.error, ECANCELED);
  EXPECT_TRUE(r.fds.empty());
}

// io_uring opens never block on a FIFO, so there the stop races the work: whichever wins,
// the result is all or nothing and nothing leaks.
TEST_F(OpenManyTest, UringCancelledWhileRunningIsAllOrNothing) {
  std::vector<std::string> paths;
  for (int round = 0; round < 3; ++round) {  // 900 descriptors: below the usual limit of 1,024
    paths.insert(paths.end(), absolute_.begin(), absolute_.end());
  }
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::stop_source stop;
    std::thread canceller([&] {
      // Not a wait for an event: the stop lands at a different moment each attempt, and every
      // moment must give all or nothing.
      std::this_thread::sleep_for(std::chrono::microseconds(200 * attempt));
      stop.request_stop();
    });
    const OpenManyResult r =
        open_many(AT_FDCWD, paths, O_RDONLY | O_CLOEXEC, options("uring", 2, 8, stop.get_token()));
    canceller.join();
    SKIP_IF_UNAVAILABLE(r);
    if (r.ok()) {
      EXPECT_EQ(r.opened(), paths.size());
    } else {
      EXPECT_EQ(r.error, ECANCELED) << r.message;
      EXPECT_TRUE(r.fds.empty());
    }
  }
}

// A unity build compiles the next file in the same translation unit.
#undef SKIP_IF_UNAVAILABLE

}  // namespace open_many_test
}  // namespace fdbench
