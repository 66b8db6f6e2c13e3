// The `process` strategy: forked workers with their own descriptor tables. Besides doing
// every item once, it must never leave a zombie or an orphan, and a worker that dies must
// turn into an Error, not a hang.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/measure.hpp"
#include "engine/strategy.hpp"
#include "engine/workload.hpp"
#include "fdbench/error.hpp"
#include "inputs/file_set.hpp"
#include "platform/platform.hpp"
#include "run/options.hpp"
#include "support/child_pids.hpp"
#include "support/fd_table.hpp"
#include "support/read_within.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"
#include "support/wait_until.hpp"

namespace fdbench {
namespace process_strategy_test {

using testing::child_pids;
using testing::new_children;
using testing::reaped;
using testing::TempDir;
using testing::wait_until;

const StrategyInfo& process_strategy() {
  const StrategyInfo* info = find_strategy("process");
  if (info == nullptr) throw std::logic_error("process is not registered");
  return *info;
}

class ProcessStrategy : public ::testing::Test {
 protected:
  TempDir scratch_;
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
  if (!testing::can_list_children()) FDBENCH_SKIP_WITHOUT("proc_children") << "no such file";
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
  if (!testing::can_list_children()) FDBENCH_SKIP_WITHOUT("proc_children") << "no such file";
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
    ASSERT_TRUE(wait_until([&] { return !platform::process_running(workers[1]); },
                           std::chrono::seconds(10)))
        << "the killed worker still looks alive";
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
  if (!testing::can_list_children()) FDBENCH_SKIP_WITHOUT("proc_children") << "no such file";
  // A workload that kills its worker process on its first item: measure() reports the death
  // as the result's error and leaves nothing behind.
  class Suicidal final : public Workload {
   public:
    [[nodiscard]] std::string_view name() const override { return "suicidal"; }
    [[nodiscard]] DescriptorKind kind() const override { return DescriptorKind::file; }
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

// Untimed edges of 300 ms in every process that runs it (before_repetition and
// after_repetition sleep) around one item that keeps its worker busy for 20 ms: the last item,
// so it is the last worker's.
class SlowEdges final : public Workload {
 public:
  static constexpr auto kEdge = std::chrono::milliseconds(300);  // far above a loaded CPU's delays
  static constexpr std::int64_t kBusyNs = 20'000'000;

  [[nodiscard]] std::string_view name() const override { return "slow-edges"; }
  [[nodiscard]] DescriptorKind kind() const override { return DescriptorKind::file; }
  [[nodiscard]] std::size_t ops() const override { return 4; }
  void before_repetition() override { std::this_thread::sleep_for(kEdge); }
  void run_range(std::size_t begin, std::size_t end, Tally& /*tally*/) noexcept override {
    if (begin == end || end != ops()) return;
    const std::int64_t until = platform::now_ns() + kBusyNs;
    while (platform::now_ns() < until) {
    }
  }
  void after_repetition() override { std::this_thread::sleep_for(kEdge); }
  [[nodiscard]] ItemSpec spec() const override { return {}; }
  void keep(std::size_t /*i*/, int fd) noexcept override { close(fd); }
};

TEST(ProcessStrategyTiming, TimesFromTheReleaseToTheLastWorkersFinishStamp) {
  // The time must include the busy item (the last worker's finish stamp ends it) and none
  // of the edges (each worker sleeps before it says it is ready, and after it has reported).
  // Bounds far apart: a behaviour test, not a speed test.
  SlowEdges work;
  for (const int threads : {1, 2, 3}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    const Result r = measure(work, process_strategy(), {threads, 1}, 3, 0);
    ASSERT_EQ(r.error, "");
    ASSERT_EQ(r.times_ns.size(), 3U);
    for (const std::int64_t ns : r.times_ns) EXPECT_GE(ns, SlowEdges::kBusyNs);
    // A timed edge would lengthen every repetition; a loaded machine's stall, one of them.
    EXPECT_LT(*std::min_element(r.times_ns.begin(), r.times_ns.end()),
              std::chrono::nanoseconds(SlowEdges::kEdge).count());
  }
}

// Busy forever: each item reports on `busy_fd` that a worker is inside run_range(), then
// sleeps until killed.
class Endless final : public Workload {
 public:
  explicit Endless(int busy_fd) : busy_fd_(busy_fd) {}
  [[nodiscard]] std::string_view name() const override { return "endless"; }
  [[nodiscard]] DescriptorKind kind() const override { return DescriptorKind::file; }
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

using testing::read_within;

TEST_F(ProcessStrategy, BusyWorkersDieWithTheirParent) {
  if (!platform::uses_linux_interfaces()) {
    GTEST_SKIP() << "PR_SET_PDEATHSIG is Linux-only: this build's die_with_parent() does nothing";
  }
  if (!testing::can_list_children()) FDBENCH_SKIP_WITHOUT("proc_children") << "no such file";
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
    wait_until([&] { return !platform::process_running(pid); }, std::chrono::seconds(10));
    EXPECT_FALSE(platform::process_running(pid)) << "orphaned worker " << pid;
    kill(pid, SIGKILL);  // leave nothing behind, even when the test fails
  }
}

// What one process that ran the workload held at the end of a repetition, and how big its own
// descriptor table was before the repetition and at its end (-1: not shown here).
struct TableReport {
  pid_t pid = 0;
  int fdsize_before = -1;
  int fdsize_after = -1;
  std::size_t sockets = 0;  // created (and still held) by this process
};

// Reports written by any process forked from this one: they live in a shared mapping.
class SharedReports {
 public:
  static constexpr std::size_t kCapacity = 64;
  SharedReports() {
    void* memory =
        mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) throw std::bad_alloc();
    shared_ = new (memory) Shared();
  }
  SharedReports(const SharedReports&) = delete;
  SharedReports& operator=(const SharedReports&) = delete;
  ~SharedReports() { munmap(shared_, sizeof(Shared)); }

  void add(const TableReport& report) noexcept {
    const std::size_t slot = shared_->used.fetch_add(1);
    if (slot < kCapacity) shared_->reports[slot] = report;
  }
  [[nodiscard]] std::vector<TableReport> all() const {
    const std::size_t used = std::min(shared_->used.load(), kCapacity);
    return {shared_->reports, shared_->reports + used};
  }

 private:
  struct Shared {
    std::atomic<std::size_t> used{0};
    TableReport reports[kCapacity];
  };
  Shared* shared_ = nullptr;
};

// The socket workload, unchanged, except that each process running it reports how many
// sockets it holds and the size of its own table, before the repetition and before it lets
// the sockets go.
class TableReportingWorkload final : public Workload {
 public:
  TableReportingWorkload(std::unique_ptr<Workload> sockets, SharedReports& reports)
      : sockets_(std::move(sockets)), reports_(reports) {}

  [[nodiscard]] std::string_view name() const override { return sockets_->name(); }
  [[nodiscard]] DescriptorKind kind() const override { return sockets_->kind(); }
  [[nodiscard]] std::size_t ops() const override { return sockets_->ops(); }
  [[nodiscard]] std::string_view unit() const override { return sockets_->unit(); }
  [[nodiscard]] bool holds_descriptors() const override { return sockets_->holds_descriptors(); }
  void before_repetition() override {
    held_ = 0;
    fdsize_before_ = testing::fdsize_in_proc_status().value_or(-1);
    sockets_->before_repetition();
  }
  void run_range(std::size_t begin, std::size_t end, Tally& tally) noexcept override {
    sockets_->run_range(begin, end, tally);
    held_ += end - begin;
  }
  void after_repetition() override {
    reports_.add({getpid(), fdsize_before_, testing::fdsize_in_proc_status().value_or(-1), held_});
    sockets_->after_repetition();
  }
  [[nodiscard]] ItemSpec spec() const override { return sockets_->spec(); }
  void keep(std::size_t i, int fd) noexcept override { sockets_->keep(i, fd); }

 private:
  std::unique_ptr<Workload> sockets_;
  SharedReports& reports_;
  std::size_t held_ = 0;
  int fdsize_before_ = -1;
};

TEST(ProcessStrategySockets, EachWorkerGrowsItsOwnTable) {
  // The second seed experiment, with processes: 2 workers x 256 sockets from a fresh child.
  // Each worker's table grows to hold its sockets, while the table of the fresh child that
  // forked them stays as it was: every worker grew a table of its own.
  if (!testing::fdsize_in_proc_status()) FDBENCH_SKIP_WITHOUT("proc_status") << "no FDSize";
  constexpr std::size_t kPerWorker = 256;
  constexpr int kRepeat = 3;
  constexpr int kWarmup = 1;
  SharedReports reports;
  WorkloadRecipe recipe = socket_workload_recipe(SocketKind::tcp, 2 * kPerWorker);
  recipe.make = [&reports] {
    return std::make_unique<TableReportingWorkload>(
        make_socket_workload(SocketKind::tcp, 2 * kPerWorker), reports);
  };
  const Result r =
      measure_in_fresh_child(recipe, process_strategy(), {2, 1}, Pregrow{}, kRepeat, kWarmup);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.failures, 0U);
  EXPECT_EQ(r.times_ns.size(), static_cast<std::size_t>(kRepeat));

  int parents = 0;
  int workers = 0;
  std::set<pid_t> pids;
  for (const TableReport& report : reports.all()) {
    SCOPED_TRACE("pid " + std::to_string(report.pid));
    pids.insert(report.pid);
    EXPECT_NE(report.pid, getpid());
    EXPECT_GT(report.fdsize_before, 0);
    if (report.sockets == 0) {  // the fresh child that forked the workers
      ++parents;
      EXPECT_EQ(report.fdsize_after, report.fdsize_before) << "the parent's table grew";
      if (r.fdsize_after) {
        EXPECT_EQ(report.fdsize_after, *r.fdsize_after);
      }
    } else {
      ++workers;
      EXPECT_EQ(report.sockets, kPerWorker);
      EXPECT_GT(report.fdsize_after, static_cast<int>(kPerWorker)) << "room for its sockets";
      EXPECT_GT(report.fdsize_after, report.fdsize_before) << "the worker's own table grew";
    }
  }
  // Every repetition, warm-up included: one fresh child and two workers, all different.
  EXPECT_EQ(parents, kRepeat + kWarmup);
  EXPECT_EQ(workers, 2 * (kRepeat + kWarmup));
  EXPECT_EQ(pids.size(), reports.all().size());
  if (platform::fd_table_size()) {  // where fdbench reads the table: from the smallest, no growth
    EXPECT_EQ(r.fdsize_before, platform::kSmallestFdTable);
    EXPECT_EQ(r.fdsize_after, platform::kSmallestFdTable);
  }
}

}  // namespace process_strategy_test
}  // namespace fdbench
