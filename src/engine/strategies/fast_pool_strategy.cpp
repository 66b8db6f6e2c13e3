// fast-pool: a pool that still hands out one task per item, at near-`threads` cost: no
// per-task allocation, no future, no global lock on the hot path. Every worker owns a
// contiguous range with its own claim counter on its own cache line and claims its items
// one at a time (fetch_add 1: one task per item); once its range is exhausted it steals
// single items from the other ranges the same way, so one slow worker's items are finished
// by the others instead of holding up the whole repetition.
//
// The calling thread is worker 0 (WorkerGroup), as in `threads`: T means T threads doing
// items in both, so the two compare directly, and at T=1 there is no hand-off at all (the
// pool costs one uncontended atomic and one call per item). A pool whose caller only waits
// would add a wake-up per repetition and leave a core idle on a small machine.
#include <atomic>
#include <functional>
#include <vector>

#include "engine/strategies/registry.hpp"
#include "engine/strategies/worker_group.hpp"
#include "engine/strategy.hpp"

namespace fdbench {

namespace {

class FastPoolStrategy final : public Strategy {
 public:
  explicit FastPoolStrategy(const StrategyConfig& config)
      : group_(config.threads, config.one_repetition ? WorkerGroup::Lifetime::one_run
                                                     : WorkerGroup::Lifetime::reused),
        ranges_(static_cast<std::size_t>(config.threads)),
        tallies_(static_cast<std::size_t>(config.threads)) {}

  Repetition run(Workload& work) override {
    const std::size_t n = work.ops();
    const std::size_t t = ranges_.size();
    for (std::size_t w = 0; w < t; ++w) {
      // Plain stores suffice: WorkerGroup's release publishes them to every worker.
      ranges_[w].next.store(n * w / t, std::memory_order_relaxed);
      ranges_[w].end = n * (w + 1) / t;
      tallies_[w] = WorkerTally{};
    }
    const std::function<void(int)> body = [&](int w) { drain(work, static_cast<std::size_t>(w)); };
    Repetition rep;
    rep.ns = group_.run(body);
    rep.start_ns = group_.started_ns();
    rep.usage = group_.usage();
    for (const auto& padded : tallies_) rep.tally.merge(padded.tally);
    return rep;
  }

 private:
  // Own range first, then the others in turn, starting with the next one so that stealers
  // spread over the ranges instead of all hitting range 0.
  void drain(Workload& work, std::size_t w) {
    const std::size_t t = ranges_.size();
    Tally& tally = tallies_[w].tally;
    for (std::size_t k = 0; k < t; ++k) {
      Range& range = ranges_[(w + k) % t];
      for (std::size_t i = range.next.fetch_add(1, std::memory_order_relaxed); i < range.end;
           i = range.next.fetch_add(1, std::memory_order_relaxed)) {
        work.run_range(i, i + 1, tally);
      }
    }
  }

  // Claim counters are hit by their owner and by stealers: one cache line each. A counter
  // may overshoot `end` by a few failed claims; that only means "empty".
  struct alignas(64) Range {
    std::atomic<std::size_t> next{0};
    std::size_t end = 0;
  };

  WorkerGroup group_;
  std::vector<Range> ranges_;
  std::vector<WorkerTally> tallies_;
};

}  // namespace

std::unique_ptr<Strategy> make_fast_pool_strategy(const StrategyConfig& config) {
  return std::make_unique<FastPoolStrategy>(config);
}

}  // namespace fdbench
