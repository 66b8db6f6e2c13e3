#pragma once
// How every command measures what it planned: `open` and `socket` (Session) and `tune` build
// a plan (the results to measure and how each measurement starts) and one Scheduler runs it:
// the results' repetitions taken in turns or one result after another (--order), --latency's
// memory bound on how many are open at once, the progress line, --trace-out, the repetition
// runner (--timeout and abandoning a hung repetition), the results with timed repetitions
// kept after Ctrl-C or a hang, and a stop rule: a repetition count, or --repeat auto's
// precision, each result within its own time (open, socket) or its share of a time budget for
// the whole plan (tune).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "engine/measurement.hpp"
#include "model/result.hpp"
#include "model/settings.hpp"
#include "output/trace_out.hpp"
#include "platform/platform.hpp"
#include "run/options.hpp"
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

// What tells a planned result apart from the others of its plan, for --repeat auto's racing:
// two results are contenders (a finding may rank one against the other) when they differ in
// exactly one of these: the strategies at one thread count, the thread counts of one strategy,
// a strategy's batch sizes, pregrow settings, harnesses.
struct Contest {
  std::string strategy;
  int threads = 0;
  int batch = 0;
  std::optional<Pregrow> pregrow;
  Harness harness = Harness::minimal;
};
bool contenders(const Contest& a, const Contest& b);

// One result to measure: what it is (--trace-out's columns; its index is set when it starts),
// its name on the progress line and in a hang's message ("uring, 2 threads, pregrow auto"),
// how its measurement starts, what the command adds to its result (the input, the paths), and
// what it contends on (nullopt: with none of the plan).
struct PlannedResult {
  TraceKey key;
  std::string label;
  MeasurementStarter start;
  std::function<void(Result&)> complete = [](Result&) {};
  std::optional<Contest> contest = std::nullopt;
};

// When the results have repetitions enough.
struct StopRule {
  int repeat = 5;  // timed repetitions of each result
  int warmup = 1;  // untimed ones before them
  // --repeat auto (`repeat` is then ignored), a race: after at least min_samples_for() timed
  // repetitions, each result's go on until its median's 95% interval is separated from, or
  // shown the same as (separation()), every contender's twice in a row (decided), or is within
  // ±precision of it, or it has spent its time (its warm-ups and repetitions, wall time:
  // max_time_s, and with a budget no more than its share of it); never beyond
  // kMaxAutoRepetitions or what --latency may keep.
  std::optional<Repeat> automatic = std::nullopt;
  // With `automatic`: the seconds the whole plan may take (tune's and the suite's --budget), if
  // it has a budget. After each repetition, every result still measuring may have spent an
  // equal part of what is left once the run's other time is taken out (results that have
  // stopped, measurements being started; results not started yet get their part too): so a
  // result decided early leaves its turns to the others, and the plan ends within the budget
  // but for each result's last repetition and the least a 95% interval needs.
  std::optional<double> budget_s = std::nullopt;

  // The rule for a command's --repeat and --warmup (and Repeat::budget_s, where set).
  static StopRule of(const Repeat& repeat, int warmup);
  // --repeat auto to `precision`, the whole plan within `budget_s` seconds (tune).
  static StopRule within_budget(double precision, double budget_s, int warmup);
};

// The most timed repetitions --repeat auto gives one result.
inline constexpr int kMaxAutoRepetitions = 10000;

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
  // The clock a result's time and a budget are read from: the machine's steady one, or a
  // test's that a scripted measurement moves on.
  std::function<std::int64_t()> now_ns = platform::now_ns;
  // Asked after every repetition: whether a machine-wide setting the results depend on is no
  // longer what they are measured under (another program wrote /sys/kernel/rcu_expedited), as
  // the warning each result measured meanwhile gets; empty while it holds. Unset: not asked.
  std::function<std::string()> changed_setting = nullptr;
};

// What SchedulerSettings::changed_setting says when /sys/kernel/rcu_expedited no longer reads
// `meant` (the value --rcu-expedited set for the results, `set_for_them`, or else the one the
// run began with): the warning each result measured meanwhile gets; "" while it holds, and
// where there is no such setting.
std::string rcu_expedited_changed(std::optional<int> meant, bool set_for_them);

class Scheduler {
 public:
  // Each finished result: its index in the plan, and the result.
  using Emit = std::function<void(std::size_t planned, Result result)>;
  // `progress`, `trace_out`: nullptr for none; neither owned.
  Scheduler(SchedulerSettings settings, Progress* progress, TraceOut* trace_out);
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Measures `plan` to `stop`'s rule and emits each result in the plan's order, as each
  // window of results finishes. `first_result`: the index --trace-out gives the plan's first
  // result. After Ctrl-C or a hung repetition, the results with timed repetitions are emitted
  // (said in a warning) and the one that hung, before Interrupted or TimedOut goes on.
  void run(std::span<const PlannedResult> plan, const StopRule& stop, const Emit& emit,
           std::size_t first_result = 0);

  [[nodiscard]] bool limited() const { return runner_.limited(); }
  // --kernel-trace: every measurement started from now on records what the kernel saw.
  void trace_kernel(KernelTraceRequest request) { kernel_ = std::move(request); }

 private:
  // The plan's results, each to `repeat` after `warmup` (with --repeat auto, `repeat` is the
  // ceiling), in windows.
  void run_windows(std::span<const PlannedResult> plan, int repeat, int warmup, const Emit& emit);
  // After Ctrl-C or a hung repetition: the window's results with timed repetitions, cut short,
  // and the one that hung, in the plan's order (but those emitted already).
  void emit_what_ran(std::span<const PlannedResult> plan, std::span<const std::size_t> window,
                     std::vector<std::unique_ptr<Measurement>>& running,
                     std::vector<AutoRepeat>& goals, const std::vector<std::string>& changed,
                     const Emit& emit, const std::function<void(std::size_t)>& emit_from);
  // Starts the measurements of the window's results.
  [[nodiscard]] std::vector<std::unique_ptr<Measurement>> start_window(
      std::span<const PlannedResult> plan, std::span<const std::size_t> window, int repeat,
      int warmup) const;
  // Runs the window's repetitions in turns until each is done; with --repeat auto, concludes
  // each once it has repetitions enough and says in `goals` why and with what time it had.
  // A repetition of result k has run: `changed` gets what changed_setting says, if it is
  // the first thing said of that result; then `ready` may emit the results that are done.
  void run_window(std::span<const PlannedResult> plan, std::span<const std::size_t> window,
                  std::vector<std::unique_ptr<Measurement>>& running,
                  std::vector<AutoRepeat>& goals, std::vector<std::string>& changed,
                  const std::function<void()>& ready);
  // With --repeat auto, after a repetition of the plan's result `i` (measured by `m`): its
  // interval noted, and whether the rule concludes it; `goal` gets why.
  [[nodiscard]] bool conclude(std::size_t i, const Measurement& m, double spent_s,
                              AutoRepeat& goal);
  // Whether the plan's result `i` has a real interval, decided against every contender's.
  [[nodiscard]] bool decided(std::size_t i) const;
  // Each planned result's contenders in the plan (by index).
  void find_contenders(std::span<const PlannedResult> plan);
  // With --repeat auto, the seconds the window's result may spend: --max-time, or with a budget
  // its share, from what each result of the window has spent so far (`spent`).
  [[nodiscard]] double time_allowed(std::span<const std::unique_ptr<Measurement>> running,
                                    std::span<const double> spent) const;
  // With --repeat auto, why the plan's result `i`, whose measurement `m` has taken `spent_s`
  // of the `allowed_s` it may take, may stop now, if it may.
  [[nodiscard]] std::optional<RepeatStop> enough(std::size_t i, const Measurement& m,
                                                 double spent_s, double allowed_s) const;
  // How many results are measured at once, and the order as results record it; with --repeat
  // auto, the most repetitions one result may take (what --latency keeps bounds it).
  void size_window(std::size_t planned, const StopRule& stop);
  // What the plan and the scheduler add to a finished result; `goal`: with --repeat auto, what
  // it aimed for and why it stopped; `changed`: a setting that changed while it was measured.
  void stamp(const PlannedResult& planned, Result& r, const AutoRepeat& goal,
             const std::string& changed) const;

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
  std::optional<double> budget_s_;              // its budget for the whole plan, if any
  std::int64_t began_ns_ = 0;                   // when run() began
  std::size_t waiting_ = 0;  // results of the plan after the current window, not started yet
  std::string order_text_;
  std::vector<std::vector<std::size_t>> contenders_;  // by plan index
  // Where a result stands, as last taken (--repeat auto).
  struct Standing {
    MedianInterval interval;
    std::optional<double> half_width;  // relative_half_width() of it
    int decided_in_a_row = 0;          // checks in a row it was decided at
    bool out = false;  // ended without an interval (unavailable, failed): none to decide against
  };
  std::vector<Standing> standings_;  // by plan index
  std::vector<bool> emitted_;        // by the window's index: the result was emitted
  std::size_t started_ = 0;       // results started so far, for the progress line
  std::size_t first_result_ = 0;  // run()'s first_result: --trace-out's index of plan[0]
};

}  // namespace fdbench
