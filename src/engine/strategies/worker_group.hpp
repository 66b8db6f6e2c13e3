#pragma once
// T workers released together: the calling thread is worker 0 and T-1 threads wait on a
// futex-backed epoch (std::atomic::wait), so waiting workers burn no CPU on a small machine.
// Thread creation happens in the constructor, outside any timed region. A group made for one
// run ends each worker thread as soon as its body returns, as a thread made for one job
// would: the descriptor table is then shared only while more than one thread still works.
#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "engine/workload.hpp"

namespace fdbench {

// One worker's failure tally on its own cache line, so workers never share one.
struct alignas(64) WorkerTally {
  Tally tally;
};

class WorkerGroup {
 public:
  enum class Lifetime { reused, one_run };
  explicit WorkerGroup(int workers, Lifetime lifetime = Lifetime::reused);
  WorkerGroup(const WorkerGroup&) = delete;
  WorkerGroup& operator=(const WorkerGroup&) = delete;
  ~WorkerGroup();

  [[nodiscard]] int size() const { return workers_; }
  // Runs body(w) on every worker w at once; returns nanoseconds from the release to the
  // moment the last worker finished. A one_run group runs once.
  std::int64_t run(const std::function<void(int)>& body);

 private:
  struct alignas(64) Finish {
    std::int64_t ns = 0;
  };
  void loop(int worker);

  int workers_;
  Lifetime lifetime_;
  bool ran_ = false;
  std::atomic<std::uint32_t> epoch_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
  const std::function<void(int)>* body_ = nullptr;
  std::vector<Finish> finish_;
  std::vector<std::thread> threads_;
};

}  // namespace fdbench
