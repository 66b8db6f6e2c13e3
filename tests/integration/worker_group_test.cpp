// WorkerGroup: a reused group keeps its threads for the next run; a one-run group (a fresh
// child's, one repetition) ends each worker thread with its share, so the descriptor table is
// shared only while more than one thread still works, as with the seed's own threads. Every
// thread has run once before the group is made, so a new thread's first scheduling is never on
// the clock; and platform::wait_word() can watch a word before it sleeps.
#include "engine/strategies/worker_group.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "platform/platform.hpp"
#include "support/fdbench_process.hpp"
#include "support/require.hpp"
#include "support/threads.hpp"

namespace fdbench {
namespace worker_group_test {

int threads_now() {
  return platform::thread_count().value_or(-1);
}

// Nanoseconds each thread of this process has run on a CPU (/proc/self/task/*/schedstat's first
// field), or empty where the kernel does not show it.
std::vector<long long> run_times() {
  std::vector<long long> times;
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", error)) {
    std::ifstream stat(task.path() / "schedstat");
    long long ns = -1;
    if (!(stat >> ns)) return {};
    times.push_back(ns);
  }
  return times;
}

TEST(WorkerGroup, EveryWorkerRunsItsShareAndTheTimeCoversThem) {
  WorkerGroup group(3);
  std::atomic<int> ran{0};
  for (int run = 0; run < 2; ++run) {  // a reused group runs again
    const std::int64_t ns = group.run([&](int) { ran.fetch_add(1); });
    EXPECT_GE(ns, 0);
  }
  EXPECT_EQ(ran.load(), 6);
}

TEST(WorkerGroup, AReusedGroupKeepsItsThreadsBetweenRuns) {
  ASSERT_TRUE(testing::a_thread_came_and_went());
  const int before = threads_now();
  if (before < 0) FDBENCH_SKIP_WITHOUT("proc_status") << "no thread count";
  WorkerGroup group(2);
  group.run([](int) {});
  EXPECT_EQ(threads_now(), before + 1) << "the worker waits for the next run";
}

TEST(WorkerGroup, AOneRunGroupsWorkersEndWithTheirShare) {
  ASSERT_TRUE(testing::a_thread_came_and_went());
  const int before = threads_now();
  if (before < 0) FDBENCH_SKIP_WITHOUT("proc_status") << "no thread count";
  WorkerGroup group(3, WorkerGroup::Lifetime::one_run);
  std::atomic<int> ran{0};
  group.run([&](int) { ran.fetch_add(1); });
  EXPECT_EQ(ran.load(), 3);
  // The group still exists; its two threads have ended (the kernel says so once they exit).
  EXPECT_TRUE(
      testing::wait_until([&] { return threads_now() == before; }, std::chrono::seconds(10)))
      << threads_now() << " threads, " << before << " before the group";
}

TEST(WorkerGroup, EveryThreadHasRunOnceBeforeTheGroupIsMade) {
  std::thread([] {}).join();
  if (run_times().empty()) FDBENCH_SKIP_WITHOUT("proc_status") << "no /proc/self/task/*/schedstat";
  // A thread not yet scheduled has run for 0 ns; the group waits for each to reach its wait,
  // so none of its threads starts the first run late by its first scheduling.
  for (int attempt = 0; attempt < 20; ++attempt) {
    WorkerGroup group(4, WorkerGroup::Lifetime::one_run);
    for (const long long ns : run_times()) EXPECT_GT(ns, 0) << "a thread that has never run";
    group.run([](int) {});
  }
}

TEST(WaitWord, SeesAChangeWhileItWatchesWithoutAWakeUp) {
  std::atomic<std::uint32_t> word{0};
  std::atomic<bool> returned{false};
  // Watching for up to 10 minutes: only the store ends the wait, since no one wakes it.
  std::thread waiter([&] {
    platform::wait_word(word, 0, 600'000'000'000);
    returned.store(true);
  });
  word.store(1, std::memory_order_release);
  waiter.join();
  EXPECT_TRUE(returned.load());
}

TEST(WaitWord, SleepsAfterItsSpinUntilWoken) {
  std::atomic<std::uint32_t> word{0};
  std::atomic<bool> returned{false};
  std::thread waiter([&] {
    platform::wait_word(word, 0, 1'000);  // 1 µs of watching, then asleep
    returned.store(true);
  });
  EXPECT_FALSE(returned.load());
  word.store(1, std::memory_order_release);
  platform::wake_word(word);
  waiter.join();
  EXPECT_TRUE(returned.load());
}

}  // namespace worker_group_test
}  // namespace fdbench
