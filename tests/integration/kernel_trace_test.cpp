// Kernel evidence on workloads whose cause is known: a thread that sleeps, one that waits on a
// futex, pages touched for the first time, and the seed's two threads creating sockets in a
// fresh process (the descriptor table grows under an RCU grace period). What the kernel says
// is held to what was done, never to how long it took.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/kernel_attribution.hpp"
#include "model/kernel_evidence.hpp"
#include "platform/platform.hpp"
#include "support/require.hpp"
#include "support/threads.hpp"
#include "support/wait_until.hpp"

namespace fdbench {
namespace kernel_trace_test {

using namespace std::chrono_literals;

std::unique_ptr<platform::KernelTracer> tracer_or_skip(std::string& why) {
  // A sanitizer's helper thread (ThreadSanitizer starts one with the first thread created)
  // must exist before tracing begins, among the threads that do not measure; otherwise it
  // counts as a measuring thread that ran in the region.
  EXPECT_TRUE(testing::a_thread_came_and_went());
  auto tracer = platform::KernelTracer::open(why);
  return tracer;
}

#define KERNEL_TRACER_OR_SKIP(name)                                   \
  std::string why_##name;                                             \
  auto name = tracer_or_skip(why_##name);                             \
  if (!name) FDBENCH_SKIP_WITHOUT("kernel_trace") << why_##name;

MeasuringThreads in_this_process(const platform::KernelTracer& tracer) {
  MeasuringThreads who;
  who.own_pid = getpid();
  who.harness = tracer.threads_at_start();
  return who;
}

std::int64_t off(const KernelSample& s, OffCpuCause cause) {
  return s.off_cpu[static_cast<std::size_t>(cause)];
}

// Whether thread `tid` of this process sleeps now (state S in /proc/self/task/TID/stat).
bool asleep(int tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  const auto paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'S';
}

int perf_descriptors() {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const auto target = std::filesystem::read_symlink(e.path(), ec);
    if (!ec && target.string().find("perf_event") != std::string::npos) ++n;
  }
  return n;
}

}  // namespace kernel_trace_test

using namespace kernel_trace_test;

TEST(KernelTrace, AvailabilityIsOneLineWithItsFix) {
  const std::string why = platform::kernel_trace_unavailable();
  if (why.empty()) {
    std::string again;
    EXPECT_NE(platform::KernelTracer::open(again), nullptr) << again;
    return;
  }
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  EXPECT_NE(why.find("kernel evidence needs"), std::string::npos) << why;
}

TEST(KernelTrace, ASleepIsOtherWithItsCallChain) {
  KERNEL_TRACER_OR_SKIP(tracer);
  KernelAttribution attribution(in_this_process(*tracer), platform::kernel_symbol);
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::thread sleeper([&] {
    start = platform::now_ns();
    std::this_thread::sleep_for(30ms);
    end = platform::now_ns();
  });
  sleeper.join();
  const KernelSample s = attribution.during(tracer->drain(), start, end);
  EXPECT_EQ(s.threads, 1);
  EXPECT_GE(off(s, OffCpuCause::other), 25'000'000) << "30 ms asleep";
  // The chain with the most time: the thread may also have waited briefly elsewhere as it began
  // (its stack's mmap, say), and other_stacks is ordered by chain, not by time.
  ASSERT_FALSE(s.other_stacks.empty());
  const auto longest =
      std::max_element(s.other_stacks.begin(), s.other_stacks.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  EXPECT_NE(longest->first.find("nanosleep"), std::string::npos) << longest->first;
  EXPECT_TRUE(s.complete);
}

TEST(KernelTrace, AWaitOnAConditionIsALock) {
  KERNEL_TRACER_OR_SKIP(tracer);
  KernelAttribution attribution(in_this_process(*tracer), platform::kernel_symbol);
  std::mutex m;
  std::condition_variable cv;
  bool go = false;
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::atomic<int> tid = 0;
  std::thread waiter([&] {
    start = platform::now_ns();
    tid = platform::thread_id();
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return go; });
    end = platform::now_ns();
  });
  // Once the kernel shows the waiter asleep, it is woken 20 ms later (the workload).
  ASSERT_TRUE(testing::wait_until([&] { return tid != 0 && asleep(tid); }));
  std::this_thread::sleep_for(20ms);
  {
    std::lock_guard lock(m);
    go = true;
  }
  cv.notify_one();
  waiter.join();
  const KernelSample s = attribution.during(tracer->drain(), start, end);
  EXPECT_GE(s.threads, 1);
  EXPECT_GE(off(s, OffCpuCause::lock), 10'000'000) << "waited ~20 ms on a futex";
}

TEST(KernelTrace, PagesTouchedFirstAreCounted) {
  KERNEL_TRACER_OR_SKIP(tracer);
  KernelAttribution attribution(in_this_process(*tracer), platform::kernel_symbol);
  constexpr std::size_t kPages = 64;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::thread toucher([&] {
    void* p = mmap(nullptr, kPages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    ASSERT_NE(p, MAP_FAILED);
    // One fault per page: no huge page of any size (a kernel with 16-64 kB folios on would
    // map several pages per fault).
#ifdef MADV_NOHUGEPAGE
    (void)madvise(p, kPages * page, MADV_NOHUGEPAGE);
#endif
    start = platform::now_ns();
    for (std::size_t i = 0; i < kPages; ++i) static_cast<volatile char*>(p)[i * page] = 1;
    end = platform::now_ns();
    munmap(p, kPages * page);
  });
  toucher.join();
  const KernelSample s = attribution.during(tracer->drain(), start, end);
  EXPECT_GE(s.page_faults, kPages);
}

TEST(KernelTrace, TheSeedStallIsTableGrowthAndAFreshChildIsTraced) {
  KERNEL_TRACER_OR_SKIP(tracer);
  MeasuringThreads who = in_this_process(*tracer);
  who.in_child = true;
  KernelAttribution attribution(who, platform::kernel_symbol);
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The seed: one more thread, then both create 256 sockets, holding them.
    const auto make = [] {
      for (int i = 0; i < 256; ++i) {
        if (socket(AF_INET, SOCK_STREAM, 0) < 0) _exit(3);
      }
    };
    const std::int64_t start = platform::now_ns();
    std::thread other(make);
    make();
    other.join();
    const std::int64_t times[2] = {start, platform::now_ns()};
    _exit(write(pipe_fds[1], times, sizeof times) == sizeof times ? 0 : 4);
  }
  close(pipe_fds[1]);
  std::int64_t times[2] = {};
  ASSERT_EQ(read(pipe_fds[0], times, sizeof times), static_cast<ssize_t>(sizeof times));
  close(pipe_fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const KernelSample s = attribution.during(tracer->drain(), times[0], times[1]);
  EXPECT_GE(s.threads, 1);
  EXPECT_GT(off(s, OffCpuCause::fd_table_growth), 0) << "the table grew 3 times while shared";
  EXPECT_FALSE(s.grace_period.empty());
}

TEST(KernelTrace, NothingStaysAttachedOnceItIsGone) {
  const int before = perf_descriptors();
  {
    KERNEL_TRACER_OR_SKIP(tracer);
    EXPECT_EQ(perf_descriptors(), before + tracer->descriptors());
    std::thread([] {}).join();  // an inherited event, ended with its thread
  }
  EXPECT_EQ(perf_descriptors(), before);
}

}  // namespace fdbench

#undef KERNEL_TRACER_OR_SKIP
