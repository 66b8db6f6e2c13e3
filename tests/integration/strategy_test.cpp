// Every registered strategy, present and future, must perform every item of a workload
// exactly once per repetition, whatever the thread count, item count and batch size.
//
// Three views, because strategies reach items in different ways:
//  - run_range() strategies (threads, pools, process): a counting workload of kind "other"
//    sees each index directly;
//  - strategies that issue the opens themselves (io_uring, libuv) refuse kind "other" with
//    an Error; for them a counting open workload that holds its descriptors sees each
//    index through keep(), and checks the descriptor is the right file;
//  - whatever a strategy does with the descriptors (direct descriptors never reach keep()),
//    the kernel sees each file opened once (inotify, on Linux), and a set where exactly one
//    file is missing must produce exactly one failure.
#include "engine/strategy.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/inotify.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "engine/measure.hpp"
#include "engine/workload.hpp"
#include "fdbench/error.hpp"
#include "fdbench/unique_fd.hpp"
#include "inputs/file_set.hpp"
#include "platform/platform.hpp"
#include "support/require.hpp"
#include "support/sanitizers.hpp"
#include "support/temp_dir.hpp"

namespace fdbench {
namespace strategy_test {

using testing::TempDir;

// Counters in a shared anonymous mapping, so that items run by forked worker processes
// (the `process` strategy, the libuv helper) are counted as well.
class SharedCounters {
 public:
  explicit SharedCounters(std::size_t n) : n_(n), bytes_(sizeof(Counter) * (n + 2)) {
    void* memory = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) throw std::bad_alloc();
    counters_ = static_cast<Counter*>(memory);
    for (std::size_t i = 0; i < n + 2; ++i) new (&counters_[i]) Counter(0);
  }
  SharedCounters(const SharedCounters&) = delete;
  SharedCounters& operator=(const SharedCounters&) = delete;
  ~SharedCounters() { munmap(counters_, bytes_); }

  void reset() {
    for (std::size_t i = 0; i < n_ + 2; ++i) counters_[i].store(0);
  }
  void item(std::size_t i) { counters_[i].fetch_add(1, std::memory_order_relaxed); }
  // Something that must never happen (a bad range, the wrong file): counted, not thrown,
  // because it may happen in another process or in a noexcept callback.
  void anomaly() { counters_[n_].fetch_add(1); }
  [[nodiscard]] std::uint32_t anomalies() const { return counters_[n_].load(); }
  [[nodiscard]] std::uint64_t total() const {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < n_; ++i) sum += counters_[i].load();
    return sum;
  }
  // Items that did not run exactly once, as "index:count ..." (empty when all is well).
  [[nodiscard]] std::string miscounted() const {
    std::string text;
    int listed = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      const auto c = counters_[i].load();
      if (c != 1 && listed++ < 10) text += std::to_string(i) + ":" + std::to_string(c) + " ";
    }
    return text;
  }

 private:
  using Counter = std::atomic<std::uint32_t>;
  std::size_t n_;
  std::size_t bytes_;
  Counter* counters_ = nullptr;
};

// Items of kind "other": only run_range() knows what they are.
class CountingWorkload final : public Workload {
 public:
  explicit CountingWorkload(std::size_t ops) : ops_(ops), counts_(ops) {}

  [[nodiscard]] std::string_view name() const override { return "counting"; }
  [[nodiscard]] DescriptorKind kind() const override { return DescriptorKind::file; }
  [[nodiscard]] std::size_t ops() const override { return ops_; }
  void before_repetition() override { counts_.reset(); }
  void run_range(std::size_t begin, std::size_t end, Tally& /*tally*/) noexcept override {
    if (begin > end || end > ops_) return counts_.anomaly();
    for (std::size_t i = begin; i < end; ++i) counts_.item(i);
  }
  [[nodiscard]] ItemSpec spec() const override { return ItemSpec{}; }  // Op::other
  void keep(std::size_t /*i*/, int fd) noexcept override { close(fd); }

  [[nodiscard]] const SharedCounters& counts() const { return counts_; }

 private:
  std::size_t ops_;
  SharedCounters counts_;
};

// Opens the files of a FileSet and holds them: each item is counted where the strategy
// performs it, in run_range() or in keep(), and each descriptor must be the item's file.
class CountingOpenWorkload final : public Workload {
 public:
  explicit CountingOpenWorkload(const FileSet& files)
      : files_(files), counts_(files.size()), inodes_(files.size()) {
    for (std::size_t i = 0; i < files.size(); ++i) {
      struct stat info {};
      if (fstatat(files.dir_fd(), files.names()[i], &info, 0) == 0) inodes_[i] = info.st_ino;
    }
  }

  [[nodiscard]] std::string_view name() const override { return "counting-open"; }
  [[nodiscard]] DescriptorKind kind() const override { return DescriptorKind::file; }
  [[nodiscard]] std::size_t ops() const override { return files_.size(); }
  void before_repetition() override { counts_.reset(); }

  void run_range(std::size_t begin, std::size_t end, Tally& tally) noexcept override {
    if (begin > end || end > ops()) return counts_.anomaly();
    for (std::size_t i = begin; i < end; ++i) {
      const int fd = openat(files_.dir_fd(), files_.names()[i], O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        tally.fail(errno);
        continue;
      }
      keep(i, fd);
    }
  }

  [[nodiscard]] ItemSpec spec() const override {
    ItemSpec spec;
    spec.op = ItemSpec::Op::open_file;
    spec.dir_fd = files_.dir_fd();
    spec.dir_path = files_.path();
    spec.paths = &files_.names();
    spec.open_flags = O_RDONLY | O_CLOEXEC;
    spec.keep_open = true;  // so that every descriptor comes back through keep()
    return spec;
  }

  void keep(std::size_t i, int fd) noexcept override {
    struct stat info {};
    if (i >= ops() || fstat(fd, &info) != 0 || info.st_ino != inodes_[i]) {
      counts_.anomaly();
    } else {
      counts_.item(i);
    }
    close(fd);
  }

  [[nodiscard]] const SharedCounters& counts() const { return counts_; }

 private:
  const FileSet& files_;
  SharedCounters counts_;
  std::vector<ino_t> inodes_;
};

// The opens of the files in one directory as the kernel reports them (Linux inotify), whoever
// makes them: a worker thread, a worker process, io_uring (direct descriptors included) or
// libuv's helper. inotify merges an event with an identical one still unread before it, so a
// count can only come out low: one per file proves that each was opened, and two, that one
// was opened again.
class OpenWatch {
 public:
  explicit OpenWatch(const std::string& dir) {
#if defined(__linux__)
    fd_.reset(inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
    if (fd_ && inotify_add_watch(fd_.get(), dir.c_str(), IN_OPEN) < 0) fd_.reset();
#else
    static_cast<void>(dir);
#endif
  }

  [[nodiscard]] bool available() const {
    return fd_.valid();
  }

  // Files of `files` not opened exactly once since the last call, as "name:opens ..." (and
  // any other name opened there); empty when all is well.
  [[nodiscard]] std::string not_once(const FileSet& files) {
    std::map<std::string, int> opens = take();
    std::string text;
    for (std::size_t i = 0; i < files.size(); ++i) {
      const auto it = opens.find(files.names()[i]);
      const int n = it == opens.end() ? 0 : it->second;
      if (n != 1) text += std::string(files.names()[i]) + ":" + std::to_string(n) + " ";
      if (it != opens.end()) opens.erase(it);
    }
    for (const auto& [name, n] : opens)
      text += name + ":" + std::to_string(n) + " (not in the set) ";
    return text;
  }

  // Forgets what was opened so far.
  void clear() {
    take();
  }

 private:
  // Opens by name since the last call; the directory's own are left out.
  std::map<std::string, int> take() {
    std::map<std::string, int> opens;
#if defined(__linux__)
    alignas(inotify_event) char buffer[64 * 1024];
    for (ssize_t n; (n = read(fd_.get(), buffer, sizeof buffer)) > 0;) {
      for (const char* p = buffer; p < buffer + n;) {
        const auto* event = reinterpret_cast<const inotify_event*>(p);
        if ((event->mask & IN_Q_OVERFLOW) != 0) ADD_FAILURE() << "inotify lost events";
        if (event->len > 0 && (event->mask & IN_ISDIR) == 0) ++opens[event->name];
        p += sizeof(inotify_event) + event->len;
      }
    }
#endif
    return opens;
  }

  UniqueFd fd_;
};

std::vector<const StrategyInfo*> available_strategies() {
  std::vector<const StrategyInfo*> out;
  for (const StrategyInfo& info : strategy_registry()) {
    if (info.accepts_only) continue;  // accept's alone
    if (const auto reason = info.unavailable_reason(); !reason.empty()) {
      std::printf("[ note ] %s is unavailable here: %s\n", std::string(info.name).c_str(),
                  reason.c_str());
      continue;
    }
    out.push_back(&info);
  }
  return out;
}

std::vector<int> batches_for(const StrategyInfo& info) {
  // Batches that divide the item counts, do not, and exceed them.
  return info.uses_batch() ? std::vector<int>{1, 3, 64, 1000} : std::vector<int>{64};
}

std::string case_name(const StrategyInfo& info, int threads, int batch, std::size_t ops) {
  return std::string(info.name) + " threads=" + std::to_string(threads) +
         " batch=" + std::to_string(batch) + " ops=" + std::to_string(ops);
}

// Whether `info` performs items of kind "other" through run_range() (false: it issues the
// calls itself and says so with an Error).
bool runs_other_items(const StrategyInfo& info) {
  CountingWorkload work(1);
  const auto strategy = info.make({1, 1});
  try {
    work.before_repetition();
    strategy->run(work);
    work.after_repetition();
    return true;
  } catch (const Error& e) {
    std::printf("[ note ] %s does not run kind 'other': %s\n", std::string(info.name).c_str(),
                e.what());
    return false;
  }
}

TEST(Strategies, RegistryIsNotEmptyAndNamesAreUnique) {
  const auto names = strategy_names();
  ASSERT_FALSE(names.empty());
  for (const char* seed : {"threads", "pool", "pool-batch"}) {
    EXPECT_NE(find_strategy(seed), nullptr) << seed;
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t j = i + 1; j < names.size(); ++j) EXPECT_NE(names[i], names[j]);
    ASSERT_NE(find_strategy(names[i]), nullptr);
    EXPECT_EQ(find_strategy(names[i])->name, names[i]);
    EXPECT_FALSE(find_strategy(names[i])->summary.empty()) << names[i];
  }
  EXPECT_EQ(find_strategy("no-such-strategy"), nullptr);
}

TEST(Strategies, RegistryPropertiesAreConsistent) {
  int references = 0;
  for (const StrategyInfo& info : strategy_registry()) {
    SCOPED_TRACE(std::string(info.name));
    if (info.reference) {
      ++references;
      EXPECT_EQ(info.name, "threads");  // the seed's plain loop
    }
    // Worker processes each have a table of their own; threads share one unless the
    // descriptors bypass the table altogether.
    EXPECT_EQ(info.workers == WorkerKind::processes, info.fd_table == FdTable::per_worker);
  }
  EXPECT_EQ(references, 1);
  EXPECT_EQ(find_strategy("process")->fd_table, FdTable::per_worker);
  EXPECT_EQ(find_strategy("uring-direct")->fd_table, FdTable::none);
  EXPECT_EQ(find_strategy("uring")->fd_table, FdTable::shared);
}

// What findings and reporters read instead of names: the strategy's properties and the
// workload's, in every result, also when the strategy could not run here.
TEST(Strategies, ResultsRecordTheStrategyAndWorkloadProperties) {
  TempDir parent;
  const FileSet files = FileSet::create(parent.path(), 4);
  const auto work = make_open_workload(files.dir_fd(), files.path(), files.names());
  for (const StrategyInfo& info : strategy_registry()) {
    if (info.accepts_only) continue;  // accept's alone
    SCOPED_TRACE(std::string(info.name));
    const Result r = measure(*work, info, {1, 2}, 1, 0);
    EXPECT_EQ(r.workers, info.workers);
    EXPECT_EQ(r.fd_table, info.fd_table);
    EXPECT_EQ(r.reference, info.reference);
    EXPECT_FALSE(r.holds_descriptors);
    EXPECT_EQ(r.unit, "files");
  }
  const auto sockets = make_socket_workload(SocketKind::udp, 2);
  const Result r = measure(*sockets, *find_strategy("threads"), {1, 1}, 1, 0);
  EXPECT_TRUE(r.holds_descriptors);
  EXPECT_EQ(r.unit, "fds");
}

TEST(Strategies, SeedStrategiesRunAnyWorkload) {
  for (const char* name : {"threads", "pool", "pool-batch"}) {
    EXPECT_TRUE(runs_other_items(*find_strategy(name))) << name;
  }
}

TEST(Strategies, EveryItemRunsExactlyOnce) {
  for (const StrategyInfo* info : available_strategies()) {
    if (!runs_other_items(*info)) continue;  // covered by the open-file tests below
    for (const int threads : {1, 2, 3, 7}) {
      for (const int batch : batches_for(*info)) {
        for (const std::size_t ops : {1, 5, 64, 1000}) {
          SCOPED_TRACE(case_name(*info, threads, batch, ops));
          // The workload first: a strategy may fork workers that see it as it was then.
          CountingWorkload work(ops);
          const auto strategy = info->make({threads, batch});
          ASSERT_NE(strategy, nullptr);
          // Two repetitions on the same workers: a strategy reuses them between repetitions.
          for (int rep = 0; rep < 2; ++rep) {
            work.before_repetition();
            const Repetition result = strategy->run(work);
            work.after_repetition();
            EXPECT_EQ(work.counts().miscounted(), "") << "repetition " << rep;
            EXPECT_EQ(work.counts().anomalies(), 0U);
            EXPECT_EQ(result.tally.failures, 0U);
            EXPECT_GE(result.ns, 0);
          }
        }
      }
    }
  }
}

// One test per strategy, so that ctest runs them side by side (under ThreadSanitizer each
// strategy's cases take seconds: threads, forks and libuv's helper process all cost more).
class StrategiesOnFiles : public ::testing::TestWithParam<std::string> {
 protected:
  // Under ThreadSanitizer each run of libuv's helper process takes seconds: libuv then gets
  // the first and the last of the thread counts, and every third missing item.
  [[nodiscard]] bool sparse() const { return testing::kThreadSanitized && GetParam() == "libuv"; }
  [[nodiscard]] std::vector<int> thread_counts(std::vector<int> all) const {
    if (sparse()) return {all.front(), all.back()};
    return all;
  }
  TempDir parent_;
};

TEST_P(StrategiesOnFiles, EveryFileIsOpenedExactlyOnceAsItself) {
  const StrategyInfo* info = find_strategy(GetParam());
  ASSERT_NE(info, nullptr) << GetParam();
  if (const auto why = info->unavailable_reason(); !why.empty()) {
    FDBENCH_SKIP_WITHOUT(testing::strategy_feature(info->name)) << why;
  }
  for (const std::size_t count : {1, 7, 150}) {
    const FileSet files = FileSet::create(parent_.path(), count);
    OpenWatch watch(files.path());
    for (const int threads : thread_counts({1, 2, 3, 7})) {
      for (const int batch :
           info->uses_batch() ? std::vector<int>{1, 3, 1000} : std::vector<int>{64}) {
        SCOPED_TRACE(case_name(*info, threads, batch, count));
        CountingOpenWorkload work(files);
        const auto strategy = info->make({threads, batch});
        for (int rep = 0; rep < 2; ++rep) {
          work.before_repetition();
          watch.clear();
          const Repetition result = strategy->run(work);
          work.after_repetition();
          EXPECT_EQ(result.tally.failures, 0U);
          EXPECT_EQ(work.counts().anomalies(), 0U) << "a descriptor was not its item's file";
          // Each file opened exactly once, as the kernel saw it whatever became of the
          // descriptor; where it cannot be watched, as keep() saw it.
          EXPECT_EQ(watch.available() ? watch.not_once(files) : work.counts().miscounted(), "")
              << "repetition " << rep;
          // What reached keep() is each item exactly once, or nothing at all: direct
          // descriptors live in the ring.
          if (work.counts().total() != 0) {
            EXPECT_EQ(work.counts().miscounted(), "") << "repetition " << rep;
          }
        }
      }
    }
  }
}

TEST_P(StrategiesOnFiles, ExactlyOneMissingFileIsExactlyOneFailure) {
  const StrategyInfo* info = find_strategy(GetParam());
  ASSERT_NE(info, nullptr) << GetParam();
  if (const auto why = info->unavailable_reason(); !why.empty()) {
    FDBENCH_SKIP_WITHOUT(testing::strategy_feature(info->name)) << why;
  }
  // If item j is missing and the strategy opens every item exactly once, exactly one call
  // fails, for each j: this holds whatever the strategy does with the descriptors.
  constexpr std::size_t kCount = 7;
  const FileSet files = FileSet::create(parent_.path(), kCount);
  for (const int threads : thread_counts({1, 2, 3})) {
    for (const int batch : info->uses_batch() ? std::vector<int>{1, 4} : std::vector<int>{64}) {
      for (std::size_t missing = 0; missing < kCount; missing += sparse() ? 3 : 1) {
        SCOPED_TRACE(case_name(*info, threads, batch, kCount) +
                     " missing=" + std::to_string(missing));
        PathTable names;
        for (std::size_t i = 0; i < kCount; ++i) {
          names.add(i == missing ? std::string("missing.txt") : std::string(files.names()[i]));
        }
        const auto work = make_open_workload(files.dir_fd(), files.path(), names);
        const auto strategy = info->make({threads, batch});
        work->before_repetition();
        const Repetition result = strategy->run(*work);
        work->after_repetition();
        EXPECT_EQ(result.tally.failures, 1U);
        EXPECT_EQ(result.tally.first_errno, ENOENT);
      }
    }
  }
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const StrategyInfo& info : strategy_registry()) {
    if (!info.accepts_only) names.emplace_back(info.name);  // these open files
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(EveryStrategy, StrategiesOnFiles, ::testing::ValuesIn(strategy_names()),
                         [](const auto& each) {
                           std::string name = each.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(Strategies, MoreThreadsThanItemsIsFine) {
  for (const StrategyInfo* info : available_strategies()) {
    if (!runs_other_items(*info)) continue;
    SCOPED_TRACE(std::string(info->name));
    CountingWorkload work(3);
    const auto strategy = info->make({16, 2});
    work.before_repetition();
    strategy->run(work);
    work.after_repetition();
    EXPECT_EQ(work.counts().miscounted(), "");
  }
}

TEST(Strategies, NothingIsLeftOpenWhenAStrategyIsDestroyed) {
  TempDir parent;
  const FileSet files = FileSet::create(parent.path(), 50);
  const auto before = platform::open_descriptors();
  for (const StrategyInfo* info : available_strategies()) {
    SCOPED_TRACE(std::string(info->name));
    {
      CountingOpenWorkload work(files);
      const auto strategy = info->make({4, 8});
      work.before_repetition();
      strategy->run(work);
      work.after_repetition();
    }
    EXPECT_EQ(platform::open_descriptors(), before);
  }
}

}  // namespace strategy_test
}  // namespace fdbench
