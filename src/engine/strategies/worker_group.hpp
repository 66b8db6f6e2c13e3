#pragma once
// T workers released together: the calling thread is worker 0 and T-1 threads wait on a
// futex-backed epoch (platform::wait_word). Thread creation happens in the constructor, outside
// any timed region, which returns only once every thread has run and reached its wait: a new
// thread's first run (tens to hundreds of microseconds on a VM's idle vCPU) is not the
// release's. Where every worker has a CPU of its own (T <= the CPUs it may run on), a waiting
// thread watches the epoch for kReleaseSpinNs before it sleeps, so a release that soon after (a
// fresh child's one run, the next repetition) starts it without a wake-up; where workers outnumber
// CPUs they sleep at once (no polling and no sched_yield), so waiting workers take no CPU time
// or context switches from the working ones. A group made for one run ends each worker thread
// as soon as its body returns, as a thread made for one job would: the descriptor table is then
// shared only while more than one thread still works.
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "engine/workload.hpp"
#include "model/result.hpp"
#include "platform/platform.hpp"
#include "platform/unavailable.hpp"

namespace fdbench {

// One worker's failure tally on its own cache line, so workers never share one.
struct alignas(64) WorkerTally {
  Tally tally;
};

// What a strategy throws when the system will not create the threads or processes it needs
// (`what`: "3 threads", "1 process"), fork or pthread_create having failed with `err`: the
// result is unavailable, and says which limit to look at: "cannot create 3 threads (Resource
// temporarily unavailable; ulimit -u is 2 for this user)". Made while the threads that did
// start still run, so that a limit's count includes them.
Unavailable cannot_create(std::string_view what, int err);
// "1 thread", "3 threads"; "1 process", "4 processes".
std::string count_of(int n, std::string_view one, std::string_view many);
// The errno of a failure to start a std::thread: its system_error's, ENOMEM for bad_alloc.
int thread_start_errno(const std::exception& e) noexcept;

// What a thread or a process took between two readings (platform::thread_usage() or
// process_usage()) around its timed part; nullopt if either reading is missing.
std::optional<TimedRegion> taken_between(const std::optional<platform::Usage>& before,
                                         const std::optional<platform::Usage>& after) noexcept;
// Adds `part` to `sum`; the sum stays nullopt once any part is (a worker that was not counted
// leaves the repetition not counted).
void add_usage(std::optional<TimedRegion>& sum, const std::optional<TimedRegion>& part) noexcept;

class WorkerGroup {
 public:
  // How long a waiting worker watches for its release before it sleeps, where it has a CPU of
  // its own: longer than a wake-up of the caller takes, so a release right after the group is
  // made finds its workers still watching.
  static constexpr std::int64_t kReleaseSpinNs = 200'000;
  // Starts the workers-1 threads; throws cannot_create() (having stopped those that started)
  // when the system will not create one.
  enum class Lifetime { reused, one_run };
  explicit WorkerGroup(int workers, Lifetime lifetime = Lifetime::reused);
  WorkerGroup(const WorkerGroup&) = delete;
  WorkerGroup& operator=(const WorkerGroup&) = delete;
  ~WorkerGroup();

  [[nodiscard]] int size() const { return workers_; }
  // Runs body(w) on every worker w at once; returns nanoseconds from the release to the
  // moment the last worker finished. A one_run group runs once.
  std::int64_t run(const std::function<void(int)>& body);
  // What the last run's workers took while timed (platform::thread_usage() around each one's
  // body), summed; nullopt where the OS does not count a thread's own.
  [[nodiscard]] std::optional<TimedRegion> usage() const noexcept;
  // When the last run's clock started (platform::now_ns()).
  [[nodiscard]] std::int64_t started_ns() const noexcept { return started_ns_; }

 private:
  struct alignas(64) Finish {
    std::int64_t ns = 0;
    std::optional<TimedRegion> usage;  // what the worker's body took
  };
  void loop(int worker);
  // Stops and joins every thread started.
  void stop() noexcept;

  int workers_;
  Lifetime lifetime_;
  std::int64_t spin_ns_;  // kReleaseSpinNs where every worker has a CPU of its own, else 0
  bool ran_ = false;
  std::int64_t started_ns_ = 0;
  std::atomic<std::uint32_t> epoch_{0};
  std::atomic<std::uint32_t> pending_{0};  // workers still in their share
  std::atomic<std::uint32_t> ready_{0};    // threads that have reached their first wait
  std::atomic<bool> stop_{false};
  const std::function<void(int)>* body_ = nullptr;
  std::vector<Finish> finish_;
  std::vector<std::thread> threads_;
};

}  // namespace fdbench
