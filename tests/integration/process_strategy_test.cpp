// The `process` strategy: forked workers with their own descriptor tables. Besides doing
// every item once, it must never leave a zombie or an orphan, and a worker that dies must
// turn into an Error, not a hang.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "fdbench/error.hpp"
#include "fdbench/file_set.hpp"
#include "fdbench/options.hpp"
#include "fdbench/platform.hpp"
#include "fdbench/runner.hpp"
#include "fdbench/strategy.hpp"
#include "fdbench/workload.hpp"
#include "support/child_pids.hpp"

namespace fdbench {
namespace {

using testing::child_pids;
using testing::new_children;
using testing::reaped;
using testing::ScratchDir;

const StrategyInfo& process_strategy() {
  const StrategyInfo* info = find_strategy("process");
  if (info == nullptr) throw std::logic_error("process is not registered");
  return *info;
}

class ProcessStrategy : public ::testing::Test {
 protected:
  ScratchDir scratch_;
  FileSet files_ = FileSet::create(scratch_.path(), 40);
};

TEST_F(ProcessStrategy, OpensEveryFileWithoutLeaksOrZombies) {
  const auto work = make_open_workload(files_.dir_fd(), files_.path(), files_.names());
  const auto fds_before = platform::open_descriptors();
  const auto children_before = child_pids();
  for (const int threads : {1, 2, 3}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    const Result r = measure(*work, process_strategy(), {threads, 64}, 4, 1);
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.failures, 0U);
    EXPECT_EQ(r.times_ns.size(), 4U);
    EXPECT_EQ(platform::open_descriptors(), fds_before);
    EXPECT_EQ(child_pids(), children_before);
  }
}

TEST_F(ProcessStrategy, EveryItemRunsExactlyOnce) {
  // Every third name is missing: exactly those fail, once each, in every repetition.
  PathTable names;
  std::size_t missing = 0;
  for (std::size_t i = 0; i < files_.size(); ++i) {
    if (i % 3 == 1) {
      names.add("absent-" + std::to_string(i) + ".txt");
      ++missing;
    } else {
      names.add(files_.names()[i]);
    }
  }
  const auto work = make_open_workload(files_.dir_fd(), files_.path(), names);
  for (const int threads : {1, 2, 3, 5, 64}) {  // 64: more workers than items
    SCOPED_TRACE("threads=" + std::to_string(threads));
    const auto strategy = process_strategy().make({threads, 1});
    for (int rep = 0; rep < 3; ++rep) {
      work->before_repetition();
      const Repetition result = strategy->run(*work);
      work->after_repetition();
      EXPECT_EQ(result.tally.failures, missing);
      EXPECT_EQ(result.tally.first_errno, ENOENT);
      EXPECT_GE(result.ns, 0);
    }
  }
}

TEST_F(ProcessStrategy, HeldDescriptorsAreClosedInTheWorkers) {
  OpenSpec spec;
  spec.dir_path = files_.path();
  spec.dir_fd = files_.dir_fd();
  spec.paths = &files_.names();
  spec.keep_open = true;
  const auto work = make_open_workload(spec);
  const auto fds_before = platform::open_descriptors();
  const Result r = measure(*work, process_strategy(), {3, 1}, 3, 1);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.failures, 0U);
  EXPECT_EQ(platform::open_descriptors(), fds_before);
}

TEST_F(ProcessStrategy, WorkersAreReapedWhenTheStrategyEnds) {
  if (!testing::can_list_children()) GTEST_SKIP() << "no /proc/<pid>/task/<tid>/children here";
  const auto work = make_open_workload(files_.dir_fd(), files_.path(), files_.names());
  const auto before = child_pids();
  std::vector<pid_t> workers;
  {
    const auto strategy = process_strategy().make({3, 1});
    workers = new_children(before, child_pids());
    EXPECT_EQ(workers.size(), 3U);
    work->before_repetition();
    strategy->run(*work);
    work->after_repetition();
  }
  for (const pid_t pid : workers) EXPECT_TRUE(reaped(pid)) << pid;
  EXPECT_EQ(child_pids(), before);
}

TEST_F(ProcessStrategy, AKilledWorkerIsAnErrorAndEveryWorkerIsReaped) {
  if (!testing::can_list_children()) GTEST_SKIP() << "no /proc/<pid>/task/<tid>/children here";
  const auto work = make_open_workload(files_.dir_fd(), files_.path(), files_.names());
  const auto fds_before = platform::open_descriptors();
  const auto before = child_pids();
  std::vector<pid_t> workers;
  {
    const auto strategy = process_strategy().make({3, 1});
    workers = new_children(before, child_pids());
    ASSERT_EQ(workers.size(), 3U);
    work->before_repetition();
    strategy->run(*work);
    work->after_repetition();

    ASSERT_EQ(kill(workers[1], SIGKILL), 0);
    for (int waited_ms = 0; platform::process_running(workers[1]); ++waited_ms) {
      ASSERT_LT(waited_ms, 10'000) << "the killed worker still looks alive";
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    work->before_repetition();
    try {
      strategy->run(*work);
      ADD_FAILURE() << "run() went on without a worker";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("a process worker died"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("signal 9"), std::string::npos) << e.what();
    }
    EXPECT_THROW(strategy->run(*work), Error);  // and stays broken, without hanging
    work->after_repetition();
  }
  for (const pid_t pid : workers) EXPECT_TRUE(reaped(pid)) << pid;
  EXPECT_EQ(child_pids(), before);
  EXPECT_EQ(platform::open_descriptors(), fds_before);
}

TEST_F(ProcessStrategy, AWorkerKilledMidwayThroughMeasureBecomesTheResultError) {
  if (!testing::can_list_children()) GTEST_SKIP() << "no /proc/<pid>/task/<tid>/children here";
  // A workload that kills its worker process on its first item: measure() reports the death
  // as the result's error and leaves nothing behind.
  class Suicidal final : public Workload {
   public:
    [[nodiscard]] std::string_view name() const override { return "suicidal"; }
    [[nodiscard]] std::string kind() const override { return "none"; }
    [[nodiscard]] std::size_t ops() const override { return 4; }
    void run_range(std::size_t begin, std::size_t end, Tally& /*tally*/) noexcept override {
      if (begin == 0 && end > 0) raise(SIGKILL);
    }
    [[nodiscard]] ItemSpec spec() const override { return {}; }
    void keep(std::size_t /*i*/, int fd) noexcept override { close(fd); }
  } work;
  const auto fds_before = platform::open_descriptors();
  const auto before = child_pids();
  const Result r = measure(work, process_strategy(), {2, 1}, 3, 0);
  EXPECT_NE(r.error.find("a process worker died: worker 0"), std::string::npos) << r.error;
  EXPECT_TRUE(r.times_ns.empty());
  EXPECT_EQ(child_pids(), before);
  EXPECT_EQ(platform::open_descriptors(), fds_before);
}

// Busy forever: each item reports on `busy_fd` that a worker is inside run_range(), then
// sleeps until killed.
class Endless final : public Workload {
 public:
  explicit Endless(int busy_fd) : busy_fd_(busy_fd) {}
  [[nodiscard]] std::string_view name() const override { return "endless"; }
  [[nodiscard]] std::string kind() const override { return "none"; }
  [[nodiscard]] std::size_t ops() const override { return 2; }
  void run_range(std::size_t /*begin*/, std::size_t /*end*/, Tally& /*tally*/) noexcept override {
    const char busy = 'b';
    if (write(busy_fd_, &busy, 1) != 1) _exit(1);
    for (;;) pause();
  }
  [[nodiscard]] ItemSpec spec() const override { return {}; }
  void keep(std::size_t /*i*/, int fd) noexcept override { close(fd); }

 private:
  int busy_fd_;
};

// Reads exactly `size` bytes, waiting at most 20 s in all.
bool read_within(int fd, void* data, std::size_t size) {
  auto* p = static_cast<char*>(data);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (size > 0) {
    pollfd ready{fd, POLLIN, 0};
    if (poll(&ready, 1, 100) <= 0) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      continue;
    }
    const ssize_t n = read(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

TEST_F(ProcessStrategy, BusyWorkersDieWithTheirParent) {
  if (!platform::uses_linux_interfaces()) {
    GTEST_SKIP() << "PR_SET_PDEATHSIG is Linux-only: this build's die_with_parent() does nothing";
  }
  if (!testing::can_list_children()) GTEST_SKIP() << "no /proc/<pid>/task/<tid>/children here";
  // A child of ours runs the strategy and is killed while its workers are in the middle of
  // a repetition (not waiting on their channel, where EOF would end them anyway): the
  // workers must not live on as orphans.
  int pids[2];
  int busy[2];
  ASSERT_EQ(pipe(pids), 0);
  ASSERT_EQ(pipe(busy), 0);
  const pid_t parent = fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    close(pids[0]);
    close(busy[0]);
    Endless work(busy[1]);
    const auto strategy = process_strategy().make({2, 1});
    for (const pid_t pid : child_pids()) {  // a fresh child: all its children are workers
      if (write(pids[1], &pid, sizeof pid) != sizeof pid) _exit(1);
    }
    strategy->run(work);  // never returns
    _exit(1);
  }
  close(pids[1]);
  close(busy[1]);
  pid_t workers[2] = {};
  char both_busy[2] = {};
  const bool started = read_within(pids[0], workers, sizeof workers) &&
                       read_within(busy[0], both_busy, sizeof both_busy);
  kill(parent, SIGKILL);
  int status = 0;
  waitpid(parent, &status, 0);
  close(pids[0]);
  close(busy[0]);
  ASSERT_TRUE(started) << "the workers did not start";
  for (const pid_t pid : workers) {
    for (int waited_ms = 0; platform::process_running(pid) && waited_ms < 10'000; ++waited_ms) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_FALSE(platform::process_running(pid)) << "orphaned worker " << pid;
    kill(pid, SIGKILL);  // leave nothing behind, even when the test fails
  }
}

TEST(ProcessStrategySockets, EachWorkerGrowsItsOwnTable) {
  // The second seed experiment, with processes: 2 workers x 256 sockets from a fresh child.
  const Result r = measure_in_fresh_child(socket_workload_recipe(SocketKind::tcp, 2 * 256),
                                          process_strategy(), {2, 1}, Pregrow{}, 3, 1);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.failures, 0U);
  EXPECT_EQ(r.times_ns.size(), 3U);
}

}  // namespace
}  // namespace fdbench
