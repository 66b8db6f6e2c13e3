// WorkerGroup: a reused group keeps its threads for the next run; a one-run group (a fresh
// child's, one repetition) ends each worker thread with its share, so the descriptor table is
// shared only while more than one thread still works, as with the seed's own threads.
#include "engine/strategies/worker_group.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "platform/platform.hpp"
#include "support/fdbench_process.hpp"
#include "support/require.hpp"

namespace fdbench {
namespace worker_group_test {

int threads_now() {
  return platform::thread_count().value_or(-1);
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
  std::thread([] {}).join();  // a sanitizer's helper thread, if any, exists from here on
  const int before = threads_now();
  if (before < 0) FDBENCH_SKIP_WITHOUT("proc_status") << "no thread count";
  WorkerGroup group(2);
  group.run([](int) {});
  EXPECT_EQ(threads_now(), before + 1) << "the worker waits for the next run";
}

TEST(WorkerGroup, AOneRunGroupsWorkersEndWithTheirShare) {
  std::thread([] {}).join();
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

}  // namespace worker_group_test
}  // namespace fdbench
