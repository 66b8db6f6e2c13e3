#pragma once
// What measure() and measure_in_fresh_child() share when they fill in a Result.
#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/measure.hpp"
#include "engine/strategy.hpp"
#include "engine/workload.hpp"
#include "engine/kernel_attribution.hpp"
#include "model/latency.hpp"
#include "model/result.hpp"

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
  LatencyRecording(const WorkloadFacts& work, const StrategyInfo& strategy, CallsDone on_calls);
  // One timed repetition's records, its time, its starting table size (nullopt: not known
  // here) and whether more than one thread of the process was alive during it.
  // `kernel`: what --kernel-trace recorded of it, for its stalls' causes (nullptr: nothing).
  void add(std::span<const CallRecord> records, std::int64_t ns, std::optional<int> fdsize_before,
           bool shared, const KernelCalls* kernel = nullptr);
  void store(Result& r) const;

 private:
  LatencyCollector collector_;
  CallsDone on_calls_;
  std::string_view not_recorded_;  // why the strategy's calls cannot be timed, where it says
  bool recorded_ = true;           // every repetition so far had its calls timed
  int repetitions_ = 0;
};

// --kernel-trace, as one measurement follows it (Measurement::trace_kernel).
struct KernelTracking {
  platform::KernelTracer* tracer = nullptr;  // nullptr: `unavailable` says why
  std::string unavailable;
  bool in_child = false;
  std::optional<KernelAttribution> attribution;  // made at the first repetition
  std::vector<KernelSample> samples;             // one per timed repetition
  bool every_repetition = true;                  // no timed one went without a sample
  // The last timed repetition's stretches off a CPU, with --latency (for its stalls); nullopt
  // when it had none to go by (untimed, unplaced, or records lost).
  std::optional<std::vector<OffCpuSpan>> spans;
  std::optional<std::int64_t> steal_before;  // the machine's steal time as a repetition began
};

// One combination's repetitions, run one at a time: a Session runs several combinations'
// repetitions round-robin (--order interleaved) or each combination's back to back.
// measure() and measure_in_fresh_child() are one Measurement run to its end.
class Measurement {
 public:
  virtual ~Measurement() = default;
  Measurement(const Measurement&) = delete;
  Measurement& operator=(const Measurement&) = delete;

  // Runs the next repetition, warm-ups first. An error that ends the measurement (the
  // strategy cannot do this here) goes into the result and makes done() true; Ctrl-C throws
  // Interrupted, and the repetition it cut short is no sample.
  void run_next();
  // Every repetition ran, or an error ended the measurement.
  [[nodiscard]] bool done() const { return stopped_ || next_ == warmup_ + repeat_; }
  // The timed repetitions' times so far.
  [[nodiscard]] std::span<const std::int64_t> times() const { return r_.times_ns; }
  // The result of the timed repetitions so far, for a display between repetitions (the live
  // table): their statistics, nothing finish() adds (leaks, failures, kernel evidence).
  [[nodiscard]] Result so_far() const;
  // --repeat auto: the repetition count given is only a ceiling, and the progress and a hang's
  // message say "repetition 7" without it. conclude() ends the measurement after the timed
  // repetitions run so far (at least one): done() from then on, and finish() keeps them as a
  // whole result, its `repeat` their number.
  void open_ended() { open_ended_ = true; }
  void conclude();
  // Repetitions run so far, warm-ups included; of them, the timed ones.
  [[nodiscard]] int repetitions_run() const { return next_; }
  [[nodiscard]] int timed_repetitions_run() const { return std::max(0, next_ - warmup_); }
  // The result of the timed repetitions run so far: all of them once done(); fewer (after
  // Ctrl-C) are said in a warning. Call once.
  Result finish();
  // Every repetition left, then finish().
  Result run_all();

  // For a repetition that hung (--timeout), read while it may still be running: which one
  // it is ("repetition 3 of 10", "warm-up 1 of 1"), and the result that says so: the
  // combination's fields with `status` (timed_out or hung) and `what`, no times. Neither
  // touches what a repetition writes.
  [[nodiscard]] std::string next_repetition_text() const;
  [[nodiscard]] Result hung(Status status, std::string what) const;
  // finish() without the leak check: another measurement was abandoned with its descriptors.
  void skip_leak_check() { check_leaks_ = false; }

 protected:
  Measurement(Result base, int repeat, int warmup);
  // One repetition; `timed` is false for a warm-up. Ends the measurement by stop().
  virtual void repetition(bool timed) = 0;
  // What a timed repetition's region took (nullopt: its workers were not counted), recorded
  // beside its time. One repetition not counted leaves the result not counted.
  void record_usage(const std::optional<TimedRegion>& usage);
  // --kernel-trace, from the derived constructor: `in_child` when each repetition runs in a
  // fresh child (this process only waits for it).
  void trace_kernel(const MeasureExtras& extras, bool in_child);
  // The kernel's records up to a repetition (what each thread was doing as it began), and of
  // the repetition, whose clock ran `ns` from `start_ns` (0: not known, no sample).
  void kernel_before();
  void kernel_after(bool timed, std::int64_t start_ns, std::int64_t ns);
  // Whether the kernel is traced (the workers must then note their thread ids), and what it
  // recorded of the last timed repetition for its stalls, given the workers' thread ids
  // (nullopt: nothing to go by).
  [[nodiscard]] bool kernel_traced() const { return kernel_ && kernel_->tracer != nullptr; }
  [[nodiscard]] std::optional<KernelCalls> kernel_calls(
      std::span<const std::int32_t> worker_tids) const;
  // Ends the measurement with `status` (unavailable or failed) and why: no times are kept.
  void stop(Status status, std::string error);
  // What the subclass holds (workers, a trace) is released before the leak check.
  virtual void release() {}

  Result r_;
  Tally total_;
  std::optional<LatencyRecording> latency_;

 private:
  const Result base_;  // the combination's fields, as made before any repetition
  std::optional<std::vector<int>> held_before_;  // descriptors held when the first began
  std::atomic<int> repeat_;                      // read by next_repetition_text() too
  int warmup_;
  bool open_ended_ = false;
  std::atomic<int> next_ = 0;  // read by next_repetition_text() while a repetition runs
  bool stopped_ = false;
  bool check_leaks_ = true;
  bool counted_ = true;  // every timed repetition so far had its timed region counted
  std::optional<KernelTracking> kernel_;
};

// How the strategy's workers live in an in-process measurement.
enum class Workers {
  kept,            // made before the first repetition, joined after the last
  per_repetition,  // made, primed with one untimed repetition, and joined around each
                   // repetition: only one combination's workers exist at a time when
                   // repetitions interleave
};

// measure() one repetition at a time. `work` must outlive the measurement; the overload
// that takes it owns it.
std::unique_ptr<Measurement> in_process_measurement(Workload& work, const StrategyInfo& strategy,
                                                    const StrategyConfig& config, int repeat,
                                                    int warmup, const MeasureExtras& extras,
                                                    Workers workers);
std::unique_ptr<Measurement> in_process_measurement(std::unique_ptr<Workload> work,
                                                    const StrategyInfo& strategy,
                                                    const StrategyConfig& config, int repeat,
                                                    int warmup, const MeasureExtras& extras,
                                                    Workers workers);
// A measurement keeps a reference to its strategy: a temporary one would dangle.
std::unique_ptr<Measurement> in_process_measurement(Workload&, StrategyInfo&&, const StrategyConfig&,
                                                    int, int, const MeasureExtras&,
                                                    Workers) = delete;
std::unique_ptr<Measurement> in_process_measurement(std::unique_ptr<Workload>, StrategyInfo&&,
                                                    const StrategyConfig&, int, int,
                                                    const MeasureExtras&, Workers) = delete;
// measure_in_fresh_child() one repetition at a time; `work` must outlive the measurement.
std::unique_ptr<Measurement> fresh_child_measurement(const WorkloadRecipe& work,
                                                     const StrategyInfo& strategy,
                                                     const StrategyConfig& config,
                                                     const Pregrow& pregrow, int repeat, int warmup,
                                                     const MeasureExtras& extras);
// A combination that is planned but not run: done() from the start, its result unavailable
// with `why` (its descriptors do not fit here, DescriptorReservation::skip_reason).
std::unique_ptr<Measurement> skipped_measurement(const WorkloadFacts& work,
                                                 const StrategyInfo& strategy,
                                                 const StrategyConfig& config,
                                                 const Pregrow& pregrow, int repeat, int warmup,
                                                 std::string why);

// Whether the table a strategy's workers fill is shared while they run: more than one thread
// of this process alive now (the workers made), or, where the OS does not tell, by its count.
bool table_shared_now(const StrategyInfo& strategy, const StrategyConfig& config);

// The fields every result of this combination has, measured or not, `pregrow` the setting
// its repetitions run with.
Result base_result(const WorkloadFacts& work, const StrategyInfo& strategy,
                   const StrategyConfig& config, const Pregrow& pregrow, int repeat, int warmup);
// The failed calls of the timed repetitions, by errno.
void record_failures(Result& r, const Tally& tally);
// A descriptor leak is a bug: says so in the result, and stops a debug build on the spot.
void check_no_leak(Result& r, const std::vector<int>& before);

}  // namespace fdbench
