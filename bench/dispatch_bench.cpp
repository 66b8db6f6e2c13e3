// The harness's own cost: each strategy's run() over a workload whose items do nothing, per
// item, against a plain loop. What a strategy adds to every open(2) is this number; an
// open+close pair costs ~2-3 µs on a 2-vCPU VM, so a dispatch cost of 1 µs is a third of it.
#include <benchmark/benchmark.h>

#include "engine/strategy.hpp"
#include "engine/workload.hpp"

namespace {

// Items that do next to nothing: each one is kept from being optimized away and none writes
// shared memory, so a range costs what its items cost whoever splits the list, and any
// difference is the strategy's dispatch. (A shared counter bumped once per range would cost
// `threads` one atomic per share but a per-item pool one contended atomic per item.)
class NoopWorkload final : public fdbench::Workload {
 public:
  explicit NoopWorkload(std::size_t n) : n_(n) {}
  [[nodiscard]] std::string_view name() const override { return "noop"; }
  // Makes nothing: the kind is only what the interface asks for.
  [[nodiscard]] fdbench::DescriptorKind kind() const override {
    return fdbench::DescriptorKind::file;
  }
  [[nodiscard]] std::size_t ops() const override { return n_; }
  void run_range(std::size_t begin, std::size_t end, fdbench::Tally& /*tally*/) noexcept override {
    for (std::size_t i = begin; i < end; ++i) benchmark::DoNotOptimize(i);
  }
  [[nodiscard]] fdbench::ItemSpec spec() const override { return {}; }
  void keep(std::size_t /*i*/, int /*fd*/) noexcept override {}

 private:
  std::size_t n_;
};

constexpr std::size_t kItems = 10000;

void plain_loop(benchmark::State& state) {
  NoopWorkload work(kItems);
  fdbench::Tally tally;
  for (auto _ : state) work.run_range(0, kItems, tally);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kItems));
}
BENCHMARK(plain_loop)->Unit(benchmark::kMicrosecond);

void strategy_dispatch(benchmark::State& state, const fdbench::StrategyInfo* info) {
  if (!info->unavailable_reason().empty()) {
    state.SkipWithError(info->unavailable_reason().c_str());
    return;
  }
  NoopWorkload work(kItems);
  const auto strategy = info->make({static_cast<int>(state.range(0)), 64});
  try {
    for (auto _ : state) {
      const auto rep = strategy->run(work);
      state.SetIterationTime(static_cast<double>(rep.ns) / 1e9);
    }
  } catch (const std::exception& e) {  // e.g. io_uring/libuv cannot run a no-op workload
    state.SkipWithError(e.what());
    return;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kItems));
}

// One benchmark per registered strategy, so a new strategy is measured here without edits.
const bool kRegistered = [] {
  for (const auto& info : fdbench::strategy_registry()) {
    benchmark::RegisterBenchmark(("dispatch/" + std::string(info.name)).c_str(),
                                 strategy_dispatch, &info)
        ->Arg(1)
        ->Arg(2)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
