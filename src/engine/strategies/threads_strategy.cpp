// threads: T workers (the calling thread and T-1 others), each a contiguous 1/T share of
// the list, released together. The seed's "regular" case, without timing thread creation.
#include "engine/strategies/registry.hpp"
#include "engine/strategies/worker_group.hpp"
#include "engine/strategy.hpp"

namespace fdbench {

namespace {

class ThreadsStrategy final : public Strategy {
 public:
  explicit ThreadsStrategy(const StrategyConfig& config)
      : group_(config.threads, config.one_repetition ? WorkerGroup::Lifetime::one_run
                                                     : WorkerGroup::Lifetime::reused),
        tallies_(config.threads) {}

  Repetition run(Workload& work) override {
    const std::size_t n = work.ops();
    const auto t = static_cast<std::size_t>(group_.size());
    for (auto& tally : tallies_) tally = WorkerTally{};
    const std::function<void(int)> body = [&](int w) {
      const auto i = static_cast<std::size_t>(w);
      work.run_range(n * i / t, n * (i + 1) / t, tallies_[i].tally);
    };
    Repetition rep;
    rep.ns = group_.run(body);
    rep.start_ns = group_.started_ns();
    rep.usage = group_.usage();
    for (const auto& padded : tallies_) rep.tally.merge(padded.tally);
    return rep;
  }

 private:
  WorkerGroup group_;
  std::vector<WorkerTally> tallies_;
};

}  // namespace

std::unique_ptr<Strategy> make_threads_strategy(const StrategyConfig& config) {
  return std::make_unique<ThreadsStrategy>(config);
}

}  // namespace fdbench
