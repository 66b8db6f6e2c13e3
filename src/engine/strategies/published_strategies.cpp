// --harness published: the seeds' own harnesses, for a user who sets fdbench's figures beside
// theirs. fdbench's minimal harness keeps everything but the calls off the clock; the seeds'
// programs did not, and this is what they timed instead:
// - threads: the clock starts before the threads are created and stops after they are
//   joined. The first seed's open.cpp creates T std::threads and only joins them, thread t
//   taking n/T files from t*(n/T), the last one the rest; the second seed's program creates
//   one thread and works beside it (the caller and T-1 new threads, an equal share each).
//   Which one is the workload's to say (Workload::seed_threads()).
// - pool: the first seed's open_pool.cpp makes its pool just before the clock, in each
//   measurement (its threads may not be waiting yet when the first task comes), enqueues one
//   task and one future per file into a vector that grows as it goes, waits on every future,
//   and destroys the pool after the clock.
// Page faults and context switches are the whole process's over the timed region: the threads
// that did the work no longer exist when it ends.
#include <mutex>
#include <thread>

#include "engine/strategies/classic_pool.hpp"
#include "engine/strategies/registry.hpp"
#include "engine/strategies/worker_group.hpp"
#include "engine/strategy.hpp"
#include "platform/platform.hpp"

namespace fdbench {

namespace {

// Item ranges [first, second) of the seed program's threads.
std::vector<std::pair<std::size_t, std::size_t>> seed_shares(std::size_t n, std::size_t t,
                                                             SeedThreads how) {
  std::vector<std::pair<std::size_t, std::size_t>> shares;
  const std::size_t per_thread = n / t;
  for (std::size_t i = 0; i < t; ++i) {
    if (how == SeedThreads::created) {
      shares.emplace_back(i * per_thread, i == t - 1 ? n : (i + 1) * per_thread);
    } else {
      shares.emplace_back(n * i / t, n * (i + 1) / t);
    }
  }
  return shares;
}

class PublishedThreadsStrategy final : public Strategy {
 public:
  explicit PublishedThreadsStrategy(const StrategyConfig& config)
      : threads_(config.threads), tallies_(static_cast<std::size_t>(config.threads)) {}

  Repetition run(Workload& work) override {
    const SeedThreads how = work.seed_threads();
    const auto shares = seed_shares(work.ops(), tallies_.size(), how);
    for (auto& tally : tallies_) tally = WorkerTally{};
    // The first created thread's share: the caller's own when it works beside them.
    const std::size_t first_created = how == SeedThreads::created ? 0 : 1;
    std::vector<std::thread> created;

    const auto before = platform::process_usage();
    const std::int64_t start = platform::now_ns();
    try {
      for (std::size_t i = first_created; i < shares.size(); ++i) {
        created.emplace_back([&work, &shares, this, i] {
          work.run_range(shares[i].first, shares[i].second, tallies_[i].tally);
        });
      }
    } catch (const std::exception& e) {  // system_error (EAGAIN at a limit) or bad_alloc
      Unavailable why = cannot_create(count_of(threads_ - static_cast<int>(first_created),
                                               "thread", "threads"),
                                      thread_start_errno(e));
      for (auto& thread : created) thread.join();
      throw why;
    }
    if (first_created == 1) work.run_range(shares[0].first, shares[0].second, tallies_[0].tally);
    for (auto& thread : created) thread.join();
    const std::int64_t end = platform::now_ns();

    Repetition rep{end - start, {}, taken_between(before, platform::process_usage()), start};
    for (const auto& padded : tallies_) rep.tally.merge(padded.tally);
    return rep;
  }

 private:
  int threads_;
  std::vector<WorkerTally> tallies_;
};

class PublishedPoolStrategy final : public Strategy {
 public:
  explicit PublishedPoolStrategy(const StrategyConfig& config) : threads_(config.threads) {}

  Repetition run(Workload& work) override {
    const std::size_t n = work.ops();
    Tally shared;
    std::mutex shared_mutex;
    ClassicPool pool(threads_);  // made per measurement, just before the clock, as the seed does
    std::vector<std::future<void>> done;  // not reserved: the seed's grows inside the clock

    const auto before = platform::process_usage();
    const std::int64_t start = platform::now_ns();
    for (std::size_t i = 0; i < n; ++i) {
      done.emplace_back(pool.enqueue([&work, &shared, &shared_mutex, i] {
        Tally tally;
        work.run_range(i, i + 1, tally);
        if (tally.failures != 0) {
          std::lock_guard lock(shared_mutex);
          shared.merge(tally);
        }
      }));
    }
    for (auto& f : done) f.get();
    const std::int64_t end = platform::now_ns();
    return {end - start, shared, taken_between(before, platform::process_usage()), start};
  }  // the pool is joined here, after the clock

 private:
  int threads_;
};

}  // namespace

std::unique_ptr<Strategy> make_published_threads_strategy(const StrategyConfig& config) {
  return std::make_unique<PublishedThreadsStrategy>(config);
}

std::unique_ptr<Strategy> make_published_pool_strategy(const StrategyConfig& config) {
  return std::make_unique<PublishedPoolStrategy>(config);
}

}  // namespace fdbench
