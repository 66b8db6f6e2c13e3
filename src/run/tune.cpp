// run_tune: the sweep behind `fdbench tune` and recommend(). Every combination of strategy,
// threads and batch is measured by the rule of `open`'s --repeat auto, through the same
// Scheduler: the combinations take turns, a repetition each, so that drift on a shared machine
// (another job, a cooling CPU) lands on every combination alike instead of on whichever ran
// last, and each repeats until its median's 95% interval is within --precision or its share of
// --budget is spent.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "analysis/findings.hpp"
#include "common/errors.hpp"
#include "engine/descriptor_budget.hpp"
#include "engine/measure.hpp"
#include "engine/measurement.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "inputs/open_input.hpp"
#include "model/format.hpp"
#include "model/statistics.hpp"
#include "output/reporter.hpp"
#include "platform/platform.hpp"
#include "run/progress.hpp"
#include "run/scheduler.hpp"
#include "run/tune_sweep.hpp"

namespace fdbench {

namespace {

constexpr int kBatches[] = {16, 64, 256};
const Pregrow kAutomatic{Pregrow::Mode::automatic, 0};

struct Combination {
  const StrategyInfo* strategy = nullptr;
  StrategyConfig config;
  Result result;        // its repetitions, once the sweep is done
  std::string skipped;  // why it is not measured (its descriptors do not fit), or ""
};

// 1, 2, 4, ... and twice the logical CPUs: past that only contention grows.
std::vector<int> thread_counts() {
  const int most = 2 * std::max(1, platform::logical_cpus());
  std::vector<int> counts;
  for (int t = 1; t < most; t *= 2) counts.push_back(t);
  counts.push_back(most);
  return counts;
}

std::vector<Combination> combinations_of(const std::vector<std::string>& extra) {
  std::vector<Combination> combos;
  for (const auto& info : strategy_registry()) {
    const bool asked = std::find(extra.begin(), extra.end(), info.name) != extra.end();
    if (!asked && (!info.recommendable || !info.unavailable_reason().empty())) continue;
    std::vector<int> batches{1};
    if (info.uses_batch()) batches.assign(std::begin(kBatches), std::end(kBatches));
    for (const int threads : thread_counts()) {
      for (const int batch : batches) combos.push_back({&info, {threads, batch}, {}, {}});
    }
  }
  return combos;
}

// What tune says on stderr as the sweep goes: a line as each turn of it ends (every
// combination still measuring has run one more repetition), how many took part; and once the
// first timed turn says how long a turn takes here, whether the least every combination runs
// will overrun the budget, so that the user hears it then rather than after the sweep.
class TurnProgress final : public Progress {
 public:
  explicit TurnProgress(std::function<void(const std::string&)> say) : say_(std::move(say)) {}
  // The sweep starts, with `budget_s` seconds for it and `warmup` untimed turns first.
  void sweep_begins(double budget_s, int warmup) {
    budget_s_ = budget_s;
    warmup_ = warmup;
    began_ns_ = platform::now_ns();
  }
  void plan(std::size_t /*results*/, int /*repetitions*/, double /*max_seconds_each*/) override {}
  void creating_files(std::size_t /*made*/, std::size_t /*total*/) override {}
  void repetition_started(std::string_view /*what*/, std::size_t /*result*/,
                          int repetition) override {
    if (repetition != turn_) {
      turn_ended();
      turn_began_ns_ = platform::now_ns();
    }
    turn_ = repetition;
    ++in_turn_;
  }
  void repetition_done() override {}
  void result_done() override {}
  void clear() override {}
  // The last turn's line; nothing after it (the stall check is announced on its own).
  void sweep_done() {
    turn_ended();
    say_ = nullptr;
  }

 private:
  void turn_ended() {
    if (in_turn_ == 0 || !say_) return;
    say_(fmt::format("turn {}{}: {} combination{} measured", turn_,
                     turn_ <= warmup_ ? " (warm-up)" : "", in_turn_, in_turn_ == 1 ? "" : "s"));
    in_turn_ = 0;
    if (turn_ != warmup_ + 1) return;  // the first timed one
    const std::int64_t now = platform::now_ns();
    const double least = static_cast<double>(now - began_ns_) / 1e9 +
                         static_cast<double>(min_samples_for() - 1) *
                             static_cast<double>(now - turn_began_ns_) / 1e9;
    if (least > budget_s_) {
      say_(fmt::format(
          "{} repetitions of every combination take about {:.0f} s here, more than the {:.1f} s "
          "of --budget left: the sweep will overrun it (raise --budget, or lower --files for "
          "shorter repetitions)",
          min_samples_for(), least, budget_s_));
    }
  }
  std::function<void(const std::string&)> say_;
  double budget_s_ = 0;
  int warmup_ = 1;
  std::int64_t began_ns_ = 0;
  std::int64_t turn_began_ns_ = 0;
  int turn_ = 0;
  std::size_t in_turn_ = 0;
};

// The files, prepared once, and how to measure combinations on them: each repetition as
// `open` runs it, the combinations in turns, under --timeout's limit when there is one.
class Bench {
 public:
  Bench(const OpenOptions& options, Progress* progress)
      : options_(options),
        input_(prepare_input(options)),
        spec_(open_spec(options, input_)),
        recipe_(open_workload_recipe(spec_)),
        scheduler_(
            {Order::interleaved,
             false,
             {},
             options.timeout_s,
             opening_text(options, input_),
             platform::now_ns,
             [meant = platform::rcu_expedited()] { return rcu_expedited_changed(meant, false); }},
            progress, nullptr) {
    // After the files are made and before any worker exists: every one inherits it.
    if (options.kernel_trace) {
      kernel_ = platform::KernelTracer::open(kernel_unavailable_);
      scheduler_.trace_kernel({true, kernel_.get(), kernel_unavailable_});
    }
  }
  // --kernel-trace: why kernel evidence cannot be recorded here, or "".
  [[nodiscard]] const std::string& kernel_unavailable() const { return kernel_unavailable_; }

  // Held descriptors are measured from the kernel's smallest table in a fresh child, and so
  // are the user's files, in a child fdbench can abandon (measured_in_fresh_children).
  [[nodiscard]] PlannedResult planned(const Combination& combo, const Pregrow& pregrow) const {
    const StrategyInfo& strategy = *combo.strategy;
    const StrategyConfig config = combo.config;
    MeasurementStarter start = [this, &strategy, config, pregrow](const MeasurementStart& how) {
      return measured_in_fresh_children(options_, input_)
                 ? fresh_child_measurement(recipe_, strategy, config, pregrow, how.repeat,
                                           how.warmup, how.extras)
                 : in_process_measurement(make_open_workload(spec_), strategy, config, how.repeat,
                                          how.warmup, how.extras, how.workers);
    };
    if (!combo.skipped.empty()) {
      start = [this, &strategy, config, pregrow, why = combo.skipped](const MeasurementStart& how) {
        return skipped_measurement(recipe_.facts, strategy, config, pregrow, how.repeat, how.warmup,
                                   why);
      };
    }
    return {{0, std::string(strategy.name), config.threads, pregrow,
             std::string(to_string(recipe_.facts.workload_kind))},
            fmt::format("{}, {}, batch {}", strategy.name,
                        worker_count_text(strategy.workers, config.threads), config.batch),
            std::move(start),
            [this](Result& r) { r.input = input_.summary; }};
  }

  // Every combination's result, pre-grown, to the stop rule.
  void sweep(std::vector<Combination>& combos, const StopRule& stop) {
    std::vector<PlannedResult> plan;
    for (const auto& combo : combos) plan.push_back(planned(combo, kAutomatic));
    scheduler_.run(plan, stop, [&](std::size_t i, Result r) { combos[i].result = std::move(r); });
  }

  // One combination, to the stop rule.
  Result measure_one(const Combination& combo, const Pregrow& pregrow, const StopRule& stop) {
    const PlannedResult plan[] = {planned(combo, pregrow)};
    Result result;
    scheduler_.run(plan, stop, [&](std::size_t, Result r) { result = std::move(r); });
    return result;
  }

  [[nodiscard]] const OpenInput& input() const { return input_; }

 private:
  const OpenOptions& options_;
  OpenInput input_;
  OpenSpec spec_;
  WorkloadRecipe recipe_;
  std::unique_ptr<platform::KernelTracer> kernel_;
  std::string kernel_unavailable_;
  Scheduler scheduler_;
};

// What a program adopting the recommendation needs: every descriptor the workload holds at
// once, a worker's each and the program's own (kProgramDescriptors).
NofileAdvice nofile_advice_for(std::uint64_t held) {
  NofileAdvice advice;
  advice.needed = held + static_cast<std::uint64_t>(thread_counts().back()) + kProgramDescriptors;
  const auto limit = platform::nofile_limit();
  advice.soft = limit.soft;
  advice.hard = limit.hard;
  return advice;
}

// What each combination holds at once: RLIMIT_NOFILE raised to fit, those that cannot fit
// under the hard limit skipped (each says why), or refused up front when none fits.
void ensure_sweep_fits(std::vector<Combination>& combos, std::uint64_t held) {
  const std::vector<int> own = platform::open_descriptors();
  std::vector<DescriptorBudget> budgets;
  for (const auto& combo : combos) {
    budgets.push_back(budget_of(*combo.strategy, combo.config, kAutomatic, held, own));
  }
  const DescriptorReservation reserved =
      reserve_descriptors(budgets, "--files (use --list with fewer paths)");
  for (std::size_t i = 0; i < combos.size(); ++i) {
    // A strategy unavailable here (asked for by name) says that instead.
    const bool fits =
        reserved.fits(budgets[i]) || !combos[i].strategy->unavailable_reason().empty();
    combos[i].skipped = fits ? "" : reserved.skip_reason(budgets[i]);
  }
}

const Combination& combination_of(const std::vector<Combination>& combos, const TunedSetting& s) {
  const auto it = std::find_if(combos.begin(), combos.end(), [&](const Combination& c) {
    return c.result.config.strategy == s.strategy && c.result.config.threads == s.threads &&
           c.result.config.batch == s.batch;
  });
  FDBENCH_ASSERT(it != combos.end());  // the recommendation came from these results
  return *it;
}

// With held descriptors: the recommended setting again without pre-growing, by the sweep's
// rule within what is left of the budget, to tell whether the table's growth stalled it here.
void check_stall(Bench& bench, const Combination& best, const StopRule& stop, TuneReport& report) {
  const Result& pregrown = best.result;
  Result off = bench.measure_one(best, Pregrow{}, stop);
  report.stall_seen = off.ok() &&
                      separation(off.median_ci, pregrown.median_ci) == Separation::separated &&
                      off.stats.median > pregrown.stats.median;
  report.pregrow_off = std::move(off);
}

}  // namespace

TuneReport run_tune(const TuneOptions& options,
                    const std::function<void(std::string_view)>& progress) {
  const auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  TuneReport report;
  report.budget_seconds = options.budget_seconds;
  const std::int64_t start_ns = platform::now_ns();
  const auto took = [&] {
    report.seconds = static_cast<double>(platform::now_ns() - start_ns) / 1e9;
  };
  const OpenOptions& open = options.open;
  const bool generated = open.tree.empty() && open.list.empty();
  std::vector<Combination> combos = combinations_of(open.strategies);
  ensure_sweep_fits(combos, open.keep_open && generated ? open.files.value_or(0) : 0);
  TurnProgress turns(say);
  Bench bench(open, &turns);
  report.kernel_trace = open.kernel_trace;
  report.kernel_unavailable = bench.kernel_unavailable();
  const std::uint64_t held = open.keep_open ? bench.input().summary.files : 0;
  if (open.keep_open && !generated) ensure_sweep_fits(combos, held);  // known only now
  report.nofile = nofile_advice_for(held);
  report.input = bench.input().summary;
  report.fs_type = bench.input().fs_type();
  const auto measured = static_cast<std::size_t>(std::count_if(
      combos.begin(), combos.end(), [](const Combination& c) { return c.skipped.empty(); }));
  report.combinations = static_cast<int>(measured);
  report.skipped = static_cast<int>(combos.size() - measured);
  report.precision = options.precision;

  // --budget is the whole command's: the files were made in it, and with held descriptors the
  // stall check gets as much of it as a combination does.
  const auto budget_left = [&] {
    return std::max(
        0.0, options.budget_seconds - static_cast<double>(platform::now_ns() - start_ns) / 1e9);
  };
  const double n = static_cast<double>(measured);
  const double sweep_budget = budget_left() * (open.keep_open ? n / (n + 1) : 1.0);
  say(fmt::format(
      "{} combinations in turns, each until its median is within ±{} or its share of {:.1f} s "
      "is spent ({} repetitions at least){}",
      measured, format_percent(options.precision), sweep_budget, min_samples_for(),
      report.skipped == 0
          ? ""
          : fmt::format(" ({} skipped: too many descriptors for the hard limit)", report.skipped)));
  // Taking turns, every repetition's workers are made for it and primed by an untimed pass
  // (Scheduler::start_window): a warm-up turn would only do that again. Alone, a combination
  // keeps its workers, and the warm-up primes them.
  const int warmup = measured > 1 ? 0 : 1;
  turns.sweep_begins(sweep_budget, warmup);
  bench.sweep(combos, StopRule::within_budget(options.precision, sweep_budget, warmup));
  turns.sweep_done();
  for (const auto& combo : combos) report.sweep.push_back(combo.result);
  report.eligibility = options.eligibility;
  report.recommendation = recommend_from(report.sweep, options.eligibility);
  if (!report.recommendation) {
    took();
    return report;
  }
  const Combination& best = combination_of(combos, report.recommendation->best);
  report.best_interval_reached = best.result.median_ci.reached;
  // Only a table the workload grows can stall: not one whose descriptors live in a ring.
  if (open.keep_open && report.recommendation->pregrow_to) {
    say("the recommended setting again, without pre-growing the table");
    check_stall(bench, best, StopRule::within_budget(options.precision, budget_left(), 1), report);
  }
  took();
  return report;
}

TuneOptions short_tune_options() {
  TuneOptions options;
  options.open.files = 2000;
  options.open.dir = default_dir();
  options.budget_seconds = 3;
  return options;
}

std::string tune_json_document(const Environment& env, const TuneReport& report,
                               const RunContext* context) {
  std::vector<Result> results = report.sweep;
  if (report.pregrow_off) results.push_back(*report.pregrow_off);
  auto document =
      nlohmann::json::parse(to_json_document(env, results, findings(results, env), context));
  if (report.recommendation) {
    document["recommendation"] = nlohmann::json::parse(recommendation_json(*report.recommendation));
  }
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace fdbench
