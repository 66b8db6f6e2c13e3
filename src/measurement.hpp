#pragma once
// What measure() and measure_in_fresh_child() share when they fill in a Result.
#include <optional>
#include <span>
#include <vector>

#include "fdbench/latency.hpp"

#include "fdbench/measure.hpp"
#include "fdbench/result.hpp"
#include "fdbench/strategy.hpp"
#include "fdbench/workload.hpp"

namespace fdbench {

// One repetition's untimed edges: before_repetition() now, after_repetition() at end(), or on
// the way out when the strategy throws inside the repetition, so that what the repetition
// holds is released before the leak check (no false leak report, no abort in a debug build).
class RepetitionScope {
 public:
  explicit RepetitionScope(Workload& work) : work_(work) { work_.before_repetition(); }
  RepetitionScope(const RepetitionScope&) = delete;
  RepetitionScope& operator=(const RepetitionScope&) = delete;
  ~RepetitionScope() {
    if (ended_) return;
    try {
      work_.after_repetition();
    } catch (...) {  // the strategy's exception, already on its way, says more
    }
  }
  void end() {
    ended_ = true;
    work_.after_repetition();
  }

 private:
  Workload& work_;
  bool ended_ = false;
};

// --latency for one result: what the timed repetitions' call records make (percentiles,
// growth events, stalls), or, when the strategy issued its calls outside the workload's loop
// (io_uring, libuv, worker processes), a parameter that says so instead of a made-up figure.
class LatencyRecording {
 public:
  explicit LatencyRecording(const WorkloadFacts& work);
  // One timed repetition's records, its time, its starting table size (nullopt: not known
  // here) and whether more than one thread of the process was alive during it.
  void add(std::span<const CallRecord> records, std::int64_t ns, std::optional<int> fdsize_before,
           bool shared);
  void store(Result& r) const;

 private:
  LatencyCollector collector_;
  bool recorded_ = true;  // every repetition so far had its calls timed
  int repetitions_ = 0;
};

// Whether the table a strategy's workers fill is shared while they run: more than one thread
// of this process alive now (the workers made), or, where the OS does not tell, by its count.
bool table_shared_now(const StrategyInfo& strategy, const StrategyConfig& config);

// The fields every result of this combination has, measured or not.
Result base_result(const WorkloadFacts& work, const StrategyInfo& strategy,
                   const StrategyConfig& config, int repeat, int warmup);
// The failed calls of every repetition, warm-up included, by errno.
void record_failures(Result& r, const Tally& tally);
// A descriptor leak is a bug: says so in the result, and stops a debug build on the spot.
void check_no_leak(Result& r, const std::vector<int>& before);

}  // namespace fdbench
