#pragma once
// The one planner of the measuring commands: what `open`, `socket` and `tune` measure becomes a
// list of PlannedResults the one Scheduler runs, built from the same parts: the descriptors
// each combination holds (RLIMIT_NOFILE reserved once for the sweep, those that cannot fit
// planned as skipped results that say why), the files prepared once (OpenPlan), and a result
// started in this process or in a fresh child per repetition.
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/descriptor_budget.hpp"
#include "engine/measure.hpp"
#include "engine/measurement.hpp"
#include "engine/strategy.hpp"
#include "inputs/file_set.hpp"
#include "inputs/open_input.hpp"
#include "output/reporter.hpp"
#include "output/trace_out.hpp"
#include "run/options.hpp"
#include "run/scheduler.hpp"

namespace fdbench {

// One result to measure: a strategy with its configuration (threads, batch, io_uring settings,
// harness) and, for a repetition in a fresh child, the table's pregrow there.
struct Combination {
  const StrategyInfo* strategy = nullptr;
  StrategyConfig config;
  Pregrow pregrow;
  // Its name on the progress line and in a hang's message; "" for the usual "uring, 2
  // threads, pregrow auto".
  std::string label;
};

// The descriptors of a sweep's combinations: each one's budget beside fdbench's own (measured
// once, when the sweep starts), and the RLIMIT_NOFILE reserved for those that fit.
class SweepDescriptors {
 public:
  SweepDescriptors();
  [[nodiscard]] DescriptorBudget budget(const Combination& c, std::uint64_t workload) const;
  // Raises the limit for `combinations`, each holding `workload` descriptors besides its
  // workers' (reserve_descriptors: Error naming `what_to_lower` when none fits).
  void reserve(std::span<const Combination> combinations, std::uint64_t workload,
               std::string_view what_to_lower);
  void reserve(std::span<const DescriptorBudget> budgets, std::string_view what_to_lower);
  // Whether `c` fits, or is unavailable here (a higher limit would not help it).
  [[nodiscard]] bool fits(const Combination& c, std::uint64_t workload) const;
  // `measured`, or, for a combination that does not fit, a result that says why.
  [[nodiscard]] MeasurementStarter or_skipped(MeasurementStarter measured,
                                              const WorkloadFacts& facts, const Combination& c,
                                              std::uint64_t workload) const;

 private:
  std::vector<int> held_;
  DescriptorReservation reserved_;
};

// How a result measured a repetition per fresh child starts; `recipe` and `strategy` must
// outlive its measurement.
MeasurementStarter in_fresh_children(const WorkloadRecipe& recipe, const Combination& c);
// A planned result, named on the progress line (and in a hang's message) by `c.label` or else
// by its key.
PlannedResult planned_result(
    const Combination& c, TraceKey key, MeasurementStarter start,
    std::function<void(Result&)> complete = [](Result&) {});
// What --latency keeps of one result while it is measured: measured in this process, a record
// per item, and each timed repetition's call durations (two per item where it closes at once).
LatencyBytes latency_bytes_of(bool latency, std::uint64_t items, bool in_process);
// A section's workload, repetitions and warm-ups.
Section section_of(const WorkloadRecipe& work, const Repeat& repeat, int warmup);

// open's combinations: every strategy at every thread count, each harness (--keep-open: each
// pregrow setting instead, in a fresh child).
std::vector<Combination> open_combinations(const OpenOptions& options);
// socket's: every strategy, thread count, pregrow setting and harness, each in a fresh child.
std::vector<Combination> socket_combinations(const SocketOptions& options);
// accept's: every strategy, thread count, pregrow setting and harness (the published one is
// unavailable: no seed accepted connections), each in a fresh child.
std::vector<Combination> accept_combinations(const AcceptOptions& options);

// A sweep's plan, whatever its workload: what `tune` measures and recommends from, and what a
// command hands the Scheduler. Its planned results refer to it: it outlives their measurement.
class SweepPlan {
 public:
  SweepPlan() = default;
  SweepPlan(const SweepPlan&) = delete;
  SweepPlan& operator=(const SweepPlan&) = delete;
  virtual ~SweepPlan() = default;

  [[nodiscard]] virtual const std::vector<Combination>& combinations() const = 0;
  // The most descriptors the workload holds at once, besides its workers' and fdbench's own.
  [[nodiscard]] virtual std::uint64_t held() const = 0;
  // Whether `c`'s descriptors fit under the limit reserved (or `c` is unavailable here).
  [[nodiscard]] virtual bool fits(const Combination& c) const = 0;
  // What the results measure.
  [[nodiscard]] virtual Section section() const = 0;
  [[nodiscard]] virtual SchedulerSettings settings() const = 0;
  // `c`'s result (one skipped with the reason where it does not fit); `c` need not be one of
  // combinations() but must differ from one only in its pregrow.
  [[nodiscard]] virtual PlannedResult planned(const Combination& c) const = 0;
  [[nodiscard]] std::vector<PlannedResult> planned() const;  // every combination's
};

// The plan of a command that opens files (`open`, `tune`): its combinations, measured on one
// set of files prepared once.
class OpenPlan final : public SweepPlan {
 public:
  // Reserves RLIMIT_NOFILE for the combinations (Error naming `what_to_lower` when none fits),
  // prepares the files (`progress` hears a generated set being made), and reserves again for
  // a tree's or a reused set's size, known only then.
  OpenPlan(const OpenOptions& options, std::vector<Combination> combinations,
           std::string_view what_to_lower, const FileSet::CreationProgress& progress);

  [[nodiscard]] const OpenInput& input() const { return in_; }
  [[nodiscard]] const std::vector<Combination>& combinations() const override {
    return combinations_;
  }
  // The descriptors each combination holds at once (--keep-open: every file).
  // With the user's files, the descriptors of their directories too, held through each
  // repetition (DirectoryTable).
  [[nodiscard]] std::uint64_t held() const override {
    return (options_.keep_open ? in_.summary.files : 0) + in_.existing.by_directory.dirs.size();
  }
  [[nodiscard]] bool fits(const Combination& c) const override {
    return descriptors_.fits(c, held());
  }
  // The files, their filesystem, how they are named and opened.
  [[nodiscard]] Section section() const override;
  [[nodiscard]] SchedulerSettings settings() const override;
  [[nodiscard]] PlannedResult planned(const Combination& c) const override;
  using SweepPlan::planned;

 private:
  const OpenOptions& options_;
  std::vector<Combination> combinations_;
  SweepDescriptors descriptors_;
  OpenInput in_;
  OpenSpec spec_;
  WorkloadRecipe recipe_;
};

// The plan of a command that accepts connections (`accept`, `tune --workload accept`): each
// combination in a fresh server process per repetition, every one accepting the same burst
// (a listener per worker where its strategy asks for one). Reserves RLIMIT_NOFILE for the
// combinations (Error naming what to lower when none fits).
class AcceptPlan final : public SweepPlan {
 public:
  AcceptPlan(const AcceptOptions& options, std::vector<Combination> combinations);

  [[nodiscard]] const std::vector<Combination>& combinations() const override {
    return combinations_;
  }
  [[nodiscard]] std::uint64_t held() const override { return options_.connections; }
  [[nodiscard]] bool fits(const Combination& c) const override;
  // The burst and its kind.
  [[nodiscard]] Section section() const override;
  [[nodiscard]] SchedulerSettings settings() const override;
  [[nodiscard]] PlannedResult planned(const Combination& c) const override;
  using SweepPlan::planned;

 private:
  // `c`'s workload: the burst on as many listeners as its strategy makes.
  [[nodiscard]] const WorkloadRecipe& recipe_of(const Combination& c) const;
  // What `c`'s server holds: the burst, its listeners and its client's channel.
  [[nodiscard]] std::uint64_t held_by(const Combination& c) const;
  const AcceptOptions& options_;
  std::vector<Combination> combinations_;
  std::map<int, WorkloadRecipe> recipes_;  // by listener count: stable while measured
  SweepDescriptors descriptors_;
};

}  // namespace fdbench
