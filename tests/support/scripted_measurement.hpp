#pragma once
// A Measurement whose repetitions record scripted times, for following the Scheduler's stop
// rules (--repeat auto, tune's budget) repetition by repetition without measuring anything;
// with a ScriptedClock, each repetition also takes its time on that clock, which the
// Scheduler reads instead of the machine's (SchedulerSettings::now_ns).
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/measurement.hpp"
#include "run/scheduler.hpp"

namespace fdbench::testing {

// Moved on only by the scripted repetitions. Atomic: they run on the repetition runner's
// thread, and the Scheduler reads it on its own.
struct ScriptedClock {
  std::atomic<std::int64_t> ns = 0;

  [[nodiscard]] std::function<std::int64_t()> reader() {
    return [this] { return ns.load(); };
  }
};

class ScriptedMeasurement final : public Measurement {
 public:
  // `cycle`: what the timed repetitions record, in turn; a warm-up takes as long as the next
  // timed one. `clock` (if set) moves on by each repetition's time.
  ScriptedMeasurement(std::vector<std::int64_t> cycle, const MeasurementStart& how,
                      ScriptedClock* clock = nullptr)
      : Measurement(base(how.repeat), how.repeat, how.warmup),
        cycle_(std::move(cycle)),
        clock_(clock) {}

 private:
  // As base_result() makes it: the repetitions planned.
  static Result base(int repeat) {
    Result r;
    r.repeat = repeat;
    r.workload = "socket";
    r.config.strategy = "threads";
    r.ops = 1;
    return r;
  }
  void repetition(bool timed) override {
    const std::int64_t ns = cycle_[next_ % cycle_.size()];
    if (clock_ != nullptr) clock_->ns += ns;
    if (!timed) return;
    r_.times_ns.push_back(ns);
    ++next_;
  }
  std::vector<std::int64_t> cycle_;
  std::size_t next_ = 0;
  ScriptedClock* clock_;
};

// A planned result measured by a ScriptedMeasurement; `starts` collects how it was started.
inline PlannedResult scripted(std::vector<std::int64_t> cycle,
                              std::vector<MeasurementStart>& starts, ScriptedClock* clock = nullptr,
                              std::string label = "scripted") {
  return {{0, "threads", 1, std::nullopt, "create"},
          std::move(label),
          [cycle = std::move(cycle), &starts, clock](const MeasurementStart& how) {
            starts.push_back(how);
            return std::make_unique<ScriptedMeasurement>(cycle, how, clock);
          }};
}

}  // namespace fdbench::testing
