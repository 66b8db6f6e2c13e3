// The `libuv` strategy: uv_fs_open/uv_fs_close on libuv's pool, in a helper process per
// strategy object (libuv sizes its pool once per process). Skipped when built without libuv.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/measure.hpp"
#include "engine/strategy.hpp"
#include "engine/workload.hpp"
#include "fdbench/error.hpp"
#include "inputs/file_set.hpp"
#include "platform/platform.hpp"
#include "support/child_pids.hpp"
#include "support/require.hpp"
#include "support/sanitizers.hpp"
#include "support/temp_dir.hpp"

namespace fdbench {
namespace libuv_strategy_test {

using testing::child_pids;
using testing::new_children;

const StrategyInfo& libuv() {
  const StrategyInfo* info = find_strategy("libuv");
  if (info == nullptr) throw std::logic_error("libuv is not registered");
  return *info;
}

#define SKIP_WITHOUT_LIBUV()                                                 \
  do {                                                                       \
    if (const auto reason = libuv().unavailable_reason(); !reason.empty()) { \
      FDBENCH_SKIP_WITHOUT("libuv") << reason;                               \
    }                                                                        \
  } while (0)

class LibuvStrategy : public ::testing::Test {
 protected:
  testing::TempDir scratch_;
  FileSet files_ = FileSet::create(scratch_.path(), 60);
};

TEST(LibuvStrategyInfo, IsRegisteredAndSaysWhyNot) {
  EXPECT_TRUE(libuv().uses_batch());
  if (const auto reason = libuv().unavailable_reason(); !reason.empty()) {
    EXPECT_EQ(reason, "built without libuv");
  }
}

TEST_F(LibuvStrategy, OpensEveryFileWithoutLeaksOrLeftoverChildren) {
  SKIP_WITHOUT_LIBUV();
  const auto work = make_open_workload(files_.dir_fd(), files_.path(), files_.names());
  const auto fds_before = platform::open_descriptors();
  const auto children_before = child_pids();
  for (const int threads : {1, 2, 3}) {
    for (const int batch : {1, 4, 64}) {
      SCOPED_TRACE("threads=" + std::to_string(threads) + " batch=" + std::to_string(batch));
      const Result r = measure(*work, libuv(), {threads, batch}, 3, 1);
      EXPECT_EQ(r.error, "");
      EXPECT_EQ(r.failures, 0U);
      EXPECT_EQ(r.times_ns.size(), 3U);
      EXPECT_EQ(r.config.batch, batch);
      EXPECT_EQ(platform::open_descriptors(), fds_before);
      EXPECT_EQ(child_pids(), children_before);
    }
  }
}

TEST_F(LibuvStrategy, EveryMissingFileIsExactlyOneFailure) {
  SKIP_WITHOUT_LIBUV();
  PathTable names;
  std::size_t missing = 0;
  for (std::size_t i = 0; i < files_.size(); ++i) {
    if (i % 4 == 2) {
      names.add("absent-" + std::to_string(i) + ".txt");
      ++missing;
    } else {
      names.add(files_.names()[i]);
    }
  }
  const auto work = make_open_workload(files_.dir_fd(), files_.path(), names);
  for (const int threads : {1, 2, 3}) {
    for (const int batch : {1, 5, 1000}) {
      SCOPED_TRACE("threads=" + std::to_string(threads) + " batch=" + std::to_string(batch));
      const auto strategy = libuv().make({threads, batch});
      for (int rep = 0; rep < 2; ++rep) {
        work->before_repetition();
        const Repetition result = strategy->run(*work);
        work->after_repetition();
        EXPECT_EQ(result.tally.failures, missing);
        EXPECT_EQ(result.tally.first_errno, ENOENT);
      }
    }
  }
}

TEST_F(LibuvStrategy, AbsolutePathsAreOpenedAsThey) {
  SKIP_WITHOUT_LIBUV();
  PathTable names;
  for (std::size_t i = 0; i < files_.size(); ++i) {
    names.add(i % 2 == 0 ? files_.path() + "/" + files_.names()[i]
                         : std::string(files_.names()[i]));
  }
  const auto work = make_open_workload(files_.dir_fd(), files_.path(), names);
  const Result r = measure(*work, libuv(), {2, 8}, 2, 0);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.failures, 0U);
}

TEST(LibuvStrategyOther, RefusesWhatIsNotOpeningFiles) {
  SKIP_WITHOUT_LIBUV();
  const auto work = make_socket_workload(SocketKind::tcp, 8);
  const auto fds_before = platform::open_descriptors();
  const Result r = measure(*work, libuv(), {2, 4}, 2, 0);
  EXPECT_EQ(r.status, Status::unavailable);
  EXPECT_EQ(r.error, libuv().cannot_make(ItemSpec::Op::create_socket));
  EXPECT_EQ(r.error.rfind("libuv opens files only", 0), 0U) << r.error;
  EXPECT_TRUE(r.times_ns.empty());
  EXPECT_EQ(platform::open_descriptors(), fds_before);
}

// Holds what the strategy hands to keep(); after_repetition() reports, over a pipe, which
// process held how many descriptors that were still open, then closes them.
class HoldingWorkload final : public Workload {
 public:
  HoldingWorkload(const FileSet& files, int report_fd)
      : files_(files), held_(files.size(), -1), report_fd_(report_fd) {}

  [[nodiscard]] std::string_view name() const override { return "holding"; }
  [[nodiscard]] DescriptorKind kind() const override { return DescriptorKind::file; }
  [[nodiscard]] std::size_t ops() const override { return files_.size(); }
  void run_range(std::size_t, std::size_t, Tally&) noexcept override {}
  [[nodiscard]] ItemSpec spec() const override {
    ItemSpec spec;
    spec.op = ItemSpec::Op::open_file;
    spec.dir_fd = files_.dir_fd();
    spec.dir_path = files_.path();
    spec.paths = &files_.names();
    spec.open_flags = O_RDONLY | O_CLOEXEC;
    spec.keep_open = true;
    return spec;
  }
  void keep(std::size_t i, int fd) noexcept override { held_[i] = fd; }
  void after_repetition() override {
    Report report{getpid(), 0};
    for (int& fd : held_) {
      if (fd >= 0 && fcntl(fd, F_GETFD) != -1) ++report.open;
      if (fd >= 0) close(fd);
      fd = -1;
    }
    if (write(report_fd_, &report, sizeof report) != sizeof report) std::abort();
  }

  struct Report {
    pid_t pid;
    int open;
  };

 private:
  const FileSet& files_;
  std::vector<int> held_;
  int report_fd_;
};

TEST_F(LibuvStrategy, KeptDescriptorsAreHeldAndReleasedWhereTheyWereOpened) {
  SKIP_WITHOUT_LIBUV();
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  {
    HoldingWorkload work(files_, fds[1]);
    const auto strategy = libuv().make({2, 8});
    for (int rep = 0; rep < 2; ++rep) {
      work.before_repetition();
      const Repetition result = strategy->run(work);
      work.after_repetition();
      EXPECT_EQ(result.tally.failures, 0U);
      HoldingWorkload::Report helper{}, ours{};
      ASSERT_EQ(read(fds[0], &helper, sizeof helper), static_cast<ssize_t>(sizeof helper));
      ASSERT_EQ(read(fds[0], &ours, sizeof ours), static_cast<ssize_t>(sizeof ours));
      EXPECT_NE(helper.pid, getpid());
      EXPECT_EQ(helper.open, static_cast<int>(files_.size()));
      EXPECT_EQ(ours.pid, getpid());
      EXPECT_EQ(ours.open, 0);
    }
  }
  close(fds[0]);
  close(fds[1]);
}

TEST_F(LibuvStrategy, EachStrategyGetsAPoolOfItsOwnSize) {
  SKIP_WITHOUT_LIBUV();
  if (!testing::can_list_children()) FDBENCH_SKIP_WITHOUT("proc_children") << "no such file";
  // libuv sizes its pool once per process; several sizes in one process must still each get
  // their own: the helper holds the loop thread and exactly T pool threads.
  const auto work = make_open_workload(files_.dir_fd(), files_.path(), files_.names());
  for (const int threads : {2, 5, 1}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    const auto before = child_pids();
    const auto strategy = libuv().make({threads, 4});
    const auto helpers = new_children(before, child_pids());
    ASSERT_EQ(helpers.size(), 1U);
    work->before_repetition();
    strategy->run(*work);
    work->after_repetition();
    std::size_t tasks = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator("/proc/" + std::to_string(helpers[0]) + "/task")) {
      static_cast<void>(entry);
      ++tasks;
    }
    if (testing::kSanitized) {
      // Sanitizer runtimes add threads of their own to the helper.
      EXPECT_GE(tasks, static_cast<std::size_t>(threads) + 1);
    } else {
      EXPECT_EQ(tasks, static_cast<std::size_t>(threads) + 1);
    }
  }
}

TEST(LibuvStrategyLimits, TooManyThreadsIsAClearError) {
  SKIP_WITHOUT_LIBUV();
  try {
    libuv().make({2000, 4});
    ADD_FAILURE() << "a pool of 2000 threads was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "libuv's thread pool holds 1 to 1024 threads, not 2000: lower --threads");
  }
}

// A unity build compiles the next file in the same translation unit.
#undef SKIP_WITHOUT_LIBUV

}  // namespace libuv_strategy_test
}  // namespace fdbench
