// The timed region of every strategy: it holds every item's work and nothing of the untimed
// edges. A workload whose before_repetition() and after_repetition() sleep 200 ms, and one of
// whose items takes at least 20 ms, must measure at least 20 ms and less than 200 ms. The
// lower bound holds on any machine; the upper one only on a machine that is not stalled for
// 200 ms, so a strategy is measured again (up to 3 times) when it is missed: a timed edge
// misses it every time, a busy machine rarely twice.
//
// The slow item has to be slow whoever performs it: a thread of ours (threads, the pools), a
// forked worker running its copy of the workload (process), the kernel itself (io_uring issues
// the openat from the workload's ItemSpec) or libuv's pool in its helper process. So it is an
// ordinary open of an ordinary file, made slow by the kernel: the file carries a write lease
// (fcntl F_SETLEASE), and any open of it blocks until the lease holder lets go. A thread of the
// process that made the workload holds the lease; it sees the break begin the moment the open
// starts (F_GETLEASE no longer says F_WRLCK), waits 20 ms, and releases it. So the item takes
// at least 20 ms from its own start, inside any timed region that contains it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "engine/measure.hpp"
#include "engine/strategy.hpp"
#include "engine/workload.hpp"
#include "engine/workloads/item_workload.hpp"
#include "fdbench/unique_fd.hpp"
#include "model/path_table.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"

namespace fdbench {
namespace timed_region_test {

using std::chrono::milliseconds;

constexpr milliseconds kEdge{200};     // each untimed edge sleeps this long
constexpr milliseconds kSlowItem{20};  // the leased item takes at least this long
constexpr std::size_t kItems = 8;

#if defined(F_SETLEASE)

// Holds a write lease on `path` until an open of it begins, then kSlowItem more.
class LeaseHolder {
 public:
  explicit LeaseHolder(const std::string& path) : fd_(open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (!fd_ || fcntl(fd_.get(), F_SETLEASE, F_WRLCK) != 0) {
      error_ = errno;
      return;
    }
    thread_ = std::thread([this] { hold(); });
  }
  LeaseHolder(const LeaseHolder&) = delete;
  LeaseHolder& operator=(const LeaseHolder&) = delete;
  ~LeaseHolder() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  [[nodiscard]] int error() const { return error_; }

 private:
  void hold() {
    while (fcntl(fd_.get(), F_GETLEASE) == F_WRLCK) {  // no open has begun yet
      if (stop_.load()) return;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    std::this_thread::sleep_for(kSlowItem);
    fcntl(fd_.get(), F_SETLEASE, F_UNLCK);
  }

  UniqueFd fd_;
  int error_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// The open workload over `paths` (item 0 leased), with slow untimed edges. Strategies that run
// it in other processes run their copies' edges there too (sleeping there as well); only the
// process that made it holds the lease.
class TimedRegionWorkload final : public Workload {
 public:
  TimedRegionWorkload(const testing::TempDir& dir, const PathTable& paths)
      : dir_(dir), paths_(paths), inner_(make_workload(dir, paths)), owner_(getpid()) {}

  [[nodiscard]] std::string_view name() const override { return inner_->name(); }
  [[nodiscard]] DescriptorKind kind() const override { return inner_->kind(); }
  [[nodiscard]] std::size_t ops() const override { return inner_->ops(); }
  [[nodiscard]] std::string_view unit() const override { return inner_->unit(); }
  void before_repetition() override {
    std::this_thread::sleep_for(kEdge);
    inner_->before_repetition();
    if (getpid() == owner_) lease_ = std::make_unique<LeaseHolder>(dir_ / paths_[0]);
  }
  void run_range(std::size_t begin, std::size_t end, Tally& tally) noexcept override {
    inner_->run_range(begin, end, tally);
  }
  void after_repetition() override {
    inner_->after_repetition();
    lease_.reset();
    std::this_thread::sleep_for(kEdge);
  }
  [[nodiscard]] ItemSpec spec() const override { return inner_->spec(); }
  void keep(std::size_t i, int fd) noexcept override { inner_->keep(i, fd); }

  [[nodiscard]] int lease_error() const { return lease_ ? lease_->error() : 0; }

 private:
  // fdbench's open workload, but for O_NONBLOCK, which it sets for the user's files (a FIFO
  // must not hang it) and which makes an open of a leased file fail with EWOULDBLOCK at once.
  static std::unique_ptr<Workload> make_workload(const testing::TempDir& dir,
                                                 const PathTable& paths) {
    UniqueFd dir_fd(open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    ItemSpec item;
    item.op = ItemSpec::Op::open_file;
    item.dir_fd = dir_fd.get();
    item.dir_path = dir.path();
    item.paths = &paths;
    item.open_flags = O_RDONLY | O_CLOEXEC;
    return std::make_unique<ItemWorkload>("open", DescriptorKind::file, item, paths.size(),
                                          std::move(dir_fd));
  }

  const testing::TempDir& dir_;
  const PathTable& paths_;
  std::unique_ptr<Workload> inner_;
  pid_t owner_;
  std::unique_ptr<LeaseHolder> lease_;
};

class TimedRegion : public ::testing::Test {
 protected:
  void SetUp() override {
    // A lease break signals the holder's process (SIGIO, deadly by default); the holder
    // polls instead.
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGIO, &ignore, &old_sigio_);
    for (std::size_t i = 0; i < kItems; ++i) {
      paths_.add(std::to_string(i) + ".txt");
      testing::write_text(dir_ / paths_[i], "");
    }
    const LeaseHolder probe(dir_ / paths_[0]);
    if (probe.error() != 0) {
      FDBENCH_SKIP_WITHOUT("lease") << dir_.path() << ": " << std::strerror(probe.error());
    }
  }
  void TearDown() override { sigaction(SIGIO, &old_sigio_, nullptr); }

  testing::TempDir dir_;
  PathTable paths_;
  struct sigaction old_sigio_ {};
};

TEST_F(TimedRegion, HoldsEveryItemAndNoneOfTheUntimedEdgesForEveryStrategy) {
  int measured = 0;
  for (const StrategyInfo& strategy : strategy_registry()) {
    if (strategy.accepts_only) continue;  // accept's alone
    SCOPED_TRACE(std::string(strategy.name));
    if (!strategy.unavailable_reason().empty()) continue;
    std::int64_t longest = 0;
    for (int attempt = 0; attempt < 3; ++attempt) {
      TimedRegionWorkload work(dir_, paths_);
      const Result r = measure(work, strategy, {2, 64}, 2, 0);
      ASSERT_EQ(r.error, "");
      EXPECT_EQ(work.lease_error(), 0);
      EXPECT_EQ(r.failures, 0U) << r.first_failure;
      ASSERT_EQ(r.times_ns.size(), 2U);
      for (const std::int64_t ns : r.times_ns) {
        EXPECT_GE(ns, std::chrono::nanoseconds(kSlowItem).count()) << "the slow item was not timed";
      }
      longest = *std::max_element(r.times_ns.begin(), r.times_ns.end());
      if (longest < std::chrono::nanoseconds(kEdge).count()) break;
    }
    EXPECT_LT(longest, std::chrono::nanoseconds(kEdge).count()) << "an untimed edge was timed";
    ++measured;
  }
  EXPECT_GE(measured, 5) << "threads, pool, pool-batch, fast-pool and process run everywhere";
}

#else

TEST(TimedRegion, NeedsLeases) {
  GTEST_SKIP() << "no F_SETLEASE on this system";
}

#endif

}  // namespace timed_region_test
}  // namespace fdbench
