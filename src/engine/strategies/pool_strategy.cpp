// pool and pool-batch: the seed's classic pool (created before timing). The main thread
// enqueues one task per item (pool) or per `batch` items (pool-batch), then waits on every
// future; the timed region is the first enqueue to the last completed future. Its page faults
// and context switches are the whole process's over that region (the pool's threads cannot be
// read one by one without changing the seed's pool): the caller's and the pool's together.
#include <mutex>

#include "engine/strategies/classic_pool.hpp"
#include "engine/strategies/registry.hpp"
#include "engine/strategy.hpp"
#include "platform/platform.hpp"

namespace fdbench {

namespace {

class PoolStrategy final : public Strategy {
 public:
  PoolStrategy(const StrategyConfig& config, std::size_t items_per_task)
      : pool_(config.threads), items_per_task_(items_per_task) {}

  Repetition run(Workload& work) override {
    const std::size_t n = work.ops();
    Tally shared;
    std::mutex shared_mutex;
    std::vector<std::future<void>> done;
    done.reserve((n + items_per_task_ - 1) / items_per_task_);

    const auto before = platform::process_usage();
    const std::int64_t start = platform::now_ns();
    try {
      for (std::size_t begin = 0; begin < n; begin += items_per_task_) {
        const std::size_t end = std::min(n, begin + items_per_task_);
        done.push_back(pool_.enqueue([&work, &shared, &shared_mutex, begin, end] {
          Tally tally;
          work.run_range(begin, end, tally);
          if (tally.failures != 0) {  // rare path: only failures take the lock
            std::lock_guard lock(shared_mutex);
            shared.merge(tally);
          }
        }));
      }
      for (auto& f : done) f.get();
    } catch (...) {
      // An allocation that failed (ulimit -v) in an enqueue or a task: the tasks already queued
      // use this frame's tally and mutex, so none may outlive it.
      for (auto& f : done) {
        if (f.valid()) f.wait();
      }
      throw;
    }
    const std::int64_t end = platform::now_ns();
    return {end - start, shared, taken_between(before, platform::process_usage()), start};
  }

 private:
  ClassicPool pool_;
  std::size_t items_per_task_;
};

}  // namespace

std::unique_ptr<Strategy> make_pool_strategy(const StrategyConfig& config) {
  return std::make_unique<PoolStrategy>(config, 1);
}

std::unique_ptr<Strategy> make_pool_batch_strategy(const StrategyConfig& config) {
  return std::make_unique<PoolStrategy>(config, static_cast<std::size_t>(config.batch));
}

}  // namespace fdbench
