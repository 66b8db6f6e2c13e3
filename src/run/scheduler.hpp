#pragma once
// How every command measures what it planned: `open` and `socket` (Session) and `tune` build
// a plan (the results to measure and how each measurement starts) and one Scheduler runs it:
// the results' repetitions taken in turns or one result after another (--order), --latency's
// memory bound on how many are open at once, the progress line, --trace-out, the repetition
// runner (--timeout and abandoning a hung repetition), the results with timed repetitions
// kept after Ctrl-C or a hang, and a stop rule: a repetition count, or a time budget spent in
// rounds (tune).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/measurement.hpp"
#include "engine/options.hpp"
#include "model/result.hpp"
#include "model/settings.hpp"
#include "output/trace_out.hpp"
#include "run/progress.hpp"
#include "run/repetition_runner.hpp"

namespace fdbench {

// How one planned measurement is started: with these extras (--latency) and workers, for
// this many repetitions after this many warm-ups.
struct MeasurementStart {
  MeasureExtras extras;
  Workers workers = Workers::kept;
  int repeat = 0;
  int warmup = 0;
};

// How a planned result's measurement starts.
using MeasurementStarter = std::function<std::unique_ptr<Measurement>(const MeasurementStart&)>;

// One result to measure: what it is (--trace-out's columns; its index is set when it starts),
// its name on the progress line and in a hang's message ("uring, 2 threads, pregrow auto"),
// how its measurement starts, and what the command adds to its result (the input, the paths).
struct PlannedResult {
  TraceKey key;
  std::string label;
  MeasurementStarter start;
  std::function<void(Result&)> complete = [](Result&) {};
};

// When the results have repetitions enough.
struct StopRule {
  int repeat = 5;  // timed repetitions of each result; with a budget, of each round
  int warmup = 1;  // untimed ones before them; with a budget, in the first round only
  // 0: one round. Otherwise rounds of `repeat` repetitions of every result, each result's
  // rounds pooled into one result, for as many rounds as fit in this many seconds as the
  // first round's time tells (always at least one).
  double budget_s = 0;
  // With a budget: work the caller does afterwards, kept out of it, in shares of a round.
  double reserved_rounds = 0;
  // --repeat auto (`repeat` is then ignored; no budget): each result's repetitions go on until
  // its median's 95% interval is within ±precision of it, or it has taken max_time_s (its
  // warm-ups and repetitions, wall time), after at least min_samples_for() timed ones, and
  // never beyond kMaxAutoRepetitions or what --latency may keep.
  std::optional<Repeat> automatic = std::nullopt;

  // The rule for a command's --repeat and --warmup.
  static StopRule of(const Repeat& repeat, int warmup);
};

// The most timed repetitions --repeat auto gives one result.
inline constexpr int kMaxAutoRepetitions = 10000;

// How a budget was spent.
struct Rounds {
  int rounds = 1;
  double round_seconds = 0;        // the first round's time
  bool round_over_budget = false;  // that round alone took longer than the budget
};

// What --latency keeps of one result while it is measured: a part made once (a record per
// item) and a part per timed repetition (its call durations).
struct LatencyBytes {
  std::uint64_t fixed = 0;
  std::uint64_t per_repetition = 0;
};

struct SchedulerSettings {
  Order order = Order::interleaved;
  bool latency = false;  // --latency
  LatencyBytes latency_bytes;
  double timeout_s = 0;  // --timeout: a repetition's limit in seconds; 0: none
  std::string doing;     // what the work does, should a repetition hang
};

class Scheduler {
 public:
  // Each finished result: its index in the plan, and the result.
  using Emit = std::function<void(std::size_t planned, Result result)>;
  // `progress`, `trace_out`: nullptr for none; neither owned.
  Scheduler(SchedulerSettings settings, Progress* progress, TraceOut* trace_out);
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Measures `plan` to `stop`'s rule and emits each result in the plan's order: with a
  // repetition count as each window of results finishes, with a budget once every round is
  // in. `first_result`: the index --trace-out gives the plan's first result. After Ctrl-C or
  // a hung repetition, a repetition count emits the results with timed repetitions (said in
  // a warning) and the one that hung before Interrupted or TimedOut goes on; a budget emits
  // nothing. `on_round` (if set) hears "round 2 of 9" as (2, 9) before each later round.
  Rounds run(std::span<const PlannedResult> plan, const StopRule& stop, const Emit& emit,
             std::size_t first_result = 0,
             const std::function<void(int round, int rounds)>& on_round = {});

  [[nodiscard]] bool limited() const { return runner_.limited(); }
  // --kernel-trace: every measurement started from now on records what the kernel saw.
  void trace_kernel(KernelTraceRequest request) { kernel_ = std::move(request); }

 private:
  // One pass over the results `which` of the plan, each to `repeat` after `warmup` (with
  // --repeat auto, `repeat` is the ceiling), in windows; `emit_started`: after Ctrl-C or a
  // hang, emit what ran before going on.
  void run_round(std::span<const PlannedResult> plan, std::span<const std::size_t> which,
                 int repeat, int warmup, bool emit_started, const Emit& emit);
  // Starts the measurements of the window's results.
  [[nodiscard]] std::vector<std::unique_ptr<Measurement>> start_window(
      std::span<const PlannedResult> plan, std::span<const std::size_t> window, int repeat,
      int warmup) const;
  // Runs the window's repetitions in turns until each is done; with --repeat auto, concludes
  // each once it has repetitions enough and says why in `stopped`.
  void run_window(std::span<const PlannedResult> plan, std::span<const std::size_t> window,
                  std::vector<std::unique_ptr<Measurement>>& running,
                  std::vector<RepeatStop>& stopped);
  // With --repeat auto, why a measurement that has taken `spent_s` may stop now, if it may.
  [[nodiscard]] std::optional<RepeatStop> enough(const Measurement& m, double spent_s) const;
  // How many results are measured at once, and the order as results record it; with --repeat
  // auto, the most repetitions one result may take (what --latency keeps bounds it).
  void size_window(std::size_t planned, const StopRule& stop);
  // What the plan and the scheduler add to a finished result; `stopped`: why --repeat auto
  // stopped its repetitions.
  void stamp(const PlannedResult& planned, Result& r, RepeatStop stopped) const;

  SchedulerSettings settings_;
  KernelTraceRequest kernel_;
  Progress* progress_;
  TraceOut* trace_out_;
  // Declared before any measurement it runs: a worker process dies with the thread that
  // forked it, and with --timeout that is the runner's.
  RepetitionRunner runner_;
  std::size_t window_ = 1;
  int most_repetitions_ = kMaxAutoRepetitions;  // --repeat auto's ceiling for this plan
  std::optional<Repeat> automatic_;             // the run's --repeat auto, if it is
  std::string order_text_;
  std::size_t started_ = 0;       // results started so far, for the progress line
  std::size_t first_result_ = 0;  // run()'s first_result: --trace-out's index of plan[0]
};

}  // namespace fdbench
