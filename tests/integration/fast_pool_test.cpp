// The `fast-pool` strategy: one task per item, claimed from per-worker ranges with
// stealing. Every item must run exactly once, as a task of its own, whatever the thread
// count and size (also fewer items than threads), and stealing must really happen.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/measure.hpp"
#include "engine/strategy.hpp"
#include "engine/workload.hpp"
#include "inputs/file_set.hpp"
#include "platform/platform.hpp"
#include "support/temp_dir.hpp"

namespace fdbench {
namespace fast_pool_test {

const StrategyInfo& fast_pool() {
  const StrategyInfo* info = find_strategy("fast-pool");
  if (info == nullptr) throw std::logic_error("fast-pool is not registered");
  return *info;
}

// Counts each item, fails the items `fails(i)` says, and notes any task of more than one
// item.
class CountingWorkload final : public Workload {
 public:
  explicit CountingWorkload(std::size_t ops, std::size_t fail_every = 0)
      : counts_(std::make_unique<std::atomic<std::uint32_t>[]>(ops)),
        ops_(ops),
        fail_every_(fail_every) {}

  [[nodiscard]] std::string_view name() const override { return "counting"; }
  [[nodiscard]] DescriptorKind kind() const override { return DescriptorKind::file; }
  [[nodiscard]] std::size_t ops() const override { return ops_; }
  void before_repetition() override {
    for (std::size_t i = 0; i < ops_; ++i) counts_[i].store(0, std::memory_order_relaxed);
    wide_tasks_.store(0);
  }
  void run_range(std::size_t begin, std::size_t end, Tally& tally) noexcept override {
    if (end != begin + 1) wide_tasks_.fetch_add(1);
    for (std::size_t i = begin; i < end && i < ops_; ++i) {
      counts_[i].fetch_add(1, std::memory_order_relaxed);
      if (fail_every_ != 0 && i % fail_every_ == 0) tally.fail(EIO);
    }
  }
  [[nodiscard]] ItemSpec spec() const override { return {}; }
  void keep(std::size_t /*i*/, int fd) noexcept override { close(fd); }

  // Items not run exactly once, as "index:count ..." (empty when all is well).
  [[nodiscard]] std::string miscounted() const {
    std::string text;
    for (std::size_t i = 0; i < ops_; ++i) {
      if (const auto c = counts_[i].load(); c != 1) {
        text += std::to_string(i) + ":" + std::to_string(c) + " ";
      }
    }
    return text;
  }
  [[nodiscard]] std::uint32_t wide_tasks() const { return wide_tasks_.load(); }

 private:
  std::unique_ptr<std::atomic<std::uint32_t>[]> counts_;
  std::size_t ops_;
  std::size_t fail_every_;
  std::atomic<std::uint32_t> wide_tasks_{0};
};

TEST(FastPool, EveryItemRunsExactlyOnceAsItsOwnTask) {
  for (const int threads : {1, 2, 3, 4, 7, 8, 16}) {
    for (const std::size_t ops : {0, 1, 2, 3, 5, 7, 15, 16, 64, 1000, 4097}) {
      SCOPED_TRACE("threads=" + std::to_string(threads) + " ops=" + std::to_string(ops));
      CountingWorkload work(ops);
      const auto strategy = fast_pool().make({threads, 64});
      for (int rep = 0; rep < 3; ++rep) {
        work.before_repetition();
        const Repetition result = strategy->run(work);
        work.after_repetition();
        EXPECT_EQ(work.miscounted(), "") << "repetition " << rep;
        EXPECT_EQ(work.wide_tasks(), 0U);
        EXPECT_EQ(result.tally.failures, 0U);
        EXPECT_GE(result.ns, 0);
      }
    }
  }
}

TEST(FastPool, FailuresOfEveryWorkerAreCounted) {
  for (const int threads : {1, 2, 3, 8}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    CountingWorkload work(1000, 7);  // items 0, 7, ..., 994 fail
    const auto strategy = fast_pool().make({threads, 64});
    work.before_repetition();
    const Repetition result = strategy->run(work);
    work.after_repetition();
    EXPECT_EQ(result.tally.failures, 143U);
    EXPECT_EQ(result.tally.first_errno, EIO);
  }
}

// Worker 0's first item blocks until another thread has run one of worker 0's items: it
// returns only if the other worker, its own range done, steals.
class StealingWorkload final : public Workload {
 public:
  static constexpr std::size_t kOps = 8;  // 2 workers: ranges [0, 4) and [4, 8)

  [[nodiscard]] std::string_view name() const override { return "stealing"; }
  [[nodiscard]] DescriptorKind kind() const override { return DescriptorKind::file; }
  [[nodiscard]] std::size_t ops() const override { return kOps; }
  void run_range(std::size_t begin, std::size_t /*end*/, Tally& tally) noexcept override {
    const auto me = std::this_thread::get_id();
    runner_[begin].store(std::hash<std::thread::id>{}(me));
    if (begin != 0) return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!stolen(std::hash<std::thread::id>{}(me))) {
      if (std::chrono::steady_clock::now() > deadline) return tally.fail(ETIMEDOUT);
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }
  [[nodiscard]] ItemSpec spec() const override { return {}; }
  void keep(std::size_t /*i*/, int fd) noexcept override { close(fd); }

  // Threads that ran items of the first range.
  [[nodiscard]] std::size_t first_range_runners() const {
    std::set<std::size_t> who;
    for (std::size_t i = 0; i < kOps / 2; ++i) who.insert(runner_[i].load());
    return who.size();
  }

 private:
  [[nodiscard]] bool stolen(std::size_t me) const {
    for (std::size_t i = 1; i < kOps / 2; ++i) {
      const auto who = runner_[i].load();
      if (who != 0 && who != me) return true;
    }
    return false;
  }
  std::atomic<std::size_t> runner_[kOps] = {};
};

TEST(FastPool, IdleWorkersStealSingleItems) {
  StealingWorkload work;
  const auto strategy = fast_pool().make({2, 64});
  work.before_repetition();
  const Repetition result = strategy->run(work);
  work.after_repetition();
  EXPECT_EQ(result.tally.failures, 0U) << "nobody stole from the blocked worker";
  EXPECT_EQ(work.first_range_runners(), 2U);
}

TEST(FastPool, OpensRealFilesWithoutLeaks) {
  testing::TempDir scratch;
  const FileSet files = FileSet::create(scratch.path(), 100);
  const auto work = make_open_workload(files.dir_fd(), files.path(), files.names());
  const auto before = platform::open_descriptors();
  for (const int threads : {1, 2, 3}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    const Result r = measure(*work, fast_pool(), {threads, 64}, 4, 1);
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.failures, 0U);
    EXPECT_EQ(r.times_ns.size(), 4U);
    EXPECT_EQ(platform::open_descriptors(), before);
  }
}

}  // namespace fast_pool_test
}  // namespace fdbench
