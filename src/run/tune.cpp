// run_tune: the sweep behind `fdbench tune` and recommend(). Every combination of strategy,
// threads and batch is measured a few repetitions at a time, round after round, and each
// combination's samples are pooled: drift on a shared machine (another job, a cooling CPU)
// then lands on every combination alike instead of on whichever ran last.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "analysis/findings.hpp"
#include "engine/descriptor_budget.hpp"
#include "engine/measure.hpp"
#include "engine/measurement.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "inputs/open_input.hpp"
#include "model/format.hpp"
#include "output/reporter.hpp"
#include "platform/platform.hpp"
#include "run/scheduler.hpp"
#include "run/tune_sweep.hpp"

namespace fdbench {

namespace {

// Few per round, so that many rounds fit: the rounds make the sample count.
constexpr int kRepetitionsPerRound = 2;
constexpr int kBatches[] = {16, 64, 256};
const Pregrow kAutomatic{Pregrow::Mode::automatic, 0};

struct Combination {
  const StrategyInfo* strategy = nullptr;
  StrategyConfig config;
  Result pooled;  // every round's repetitions together
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

// The files, prepared once, and how to measure combinations on them: each repetition as
// `open` runs it, one combination after another, under --timeout's limit when there is one.
class Bench {
 public:
  explicit Bench(const OpenOptions& options)
      : options_(options),
        input_(prepare_input(options)),
        spec_(open_spec(options, input_)),
        recipe_(open_workload_recipe(spec_)),
        scheduler_({Order::sequential,
                    false,
                    {},
                    options.timeout_s,
                    "opening files under " + input_.dir_path},
                   nullptr, nullptr) {}

  // Held descriptors are measured from the kernel's smallest table in a fresh child.
  [[nodiscard]] PlannedResult planned(const Combination& combo, const Pregrow& pregrow) const {
    const StrategyInfo& strategy = *combo.strategy;
    const StrategyConfig config = combo.config;
    MeasurementStarter start = [this, &strategy, config, pregrow](const MeasurementStart& how) {
      return options_.keep_open
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
    return {{0, std::string(strategy.name), config.threads, pregrow.label(),
             std::string(to_string(recipe_.facts.workload_kind))},
            fmt::format("{}, {}, batch {}", strategy.name, thread_count_text(config.threads),
                        config.batch),
            std::move(start),
            [this](Result& r) { r.input = input_.summary; }};
  }

  // Every combination's result, pre-grown, in rounds to the stop rule's budget.
  Rounds sweep(std::vector<Combination>& combos, const StopRule& stop,
               const std::function<void(int, int)>& on_round) {
    std::vector<PlannedResult> plan;
    for (const auto& combo : combos) plan.push_back(planned(combo, kAutomatic));
    return scheduler_.run(
        plan, stop, [&](std::size_t i, Result r) { combos[i].pooled = std::move(r); }, 0, on_round);
  }

  // One combination, `repeat` repetitions after `warmup`.
  Result measure_one(const Combination& combo, const Pregrow& pregrow, int repeat, int warmup) {
    const PlannedResult plan[] = {planned(combo, pregrow)};
    Result result;
    scheduler_.run(plan, StopRule::of(Repeat::fixed(repeat), warmup),
                   [&](std::size_t, Result r) { result = std::move(r); });
    return result;
  }

  [[nodiscard]] const OpenInput& input() const { return input_; }

 private:
  const OpenOptions& options_;
  OpenInput input_;
  OpenSpec spec_;
  WorkloadRecipe recipe_;
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
    return c.pooled.strategy == s.strategy && c.pooled.threads == s.threads &&
           c.pooled.batch == s.batch;
  });
  FDBENCH_ASSERT(it != combos.end());  // the recommendation came from these results
  return *it;
}

// With held descriptors: the recommended setting again without pre-growing, as many
// repetitions as it had, to tell whether the table's growth stalled it here.
void check_stall(Bench& bench, const Combination& best, TuneReport& report) {
  const Result& pregrown = best.pooled;
  Result off = bench.measure_one(best, Pregrow{}, pregrown.repeat, 1);
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
  Bench bench(open);
  const std::uint64_t held = open.keep_open ? bench.input().summary.files : 0;
  if (open.keep_open && !generated) ensure_sweep_fits(combos, held);  // known only now
  report.nofile = nofile_advice_for(held);
  report.input = bench.input().summary;
  report.fs_type = bench.input().fs_type();
  const auto measured = static_cast<std::size_t>(std::count_if(
      combos.begin(), combos.end(), [](const Combination& c) { return c.skipped.empty(); }));
  report.combinations = static_cast<int>(measured);
  report.skipped = static_cast<int>(combos.size() - measured);

  say(fmt::format(
      "round 1: {} combinations, {} repetitions each{}", measured, kRepetitionsPerRound,
      report.skipped == 0
          ? ""
          : fmt::format(" ({} skipped: too many descriptors for the hard limit)", report.skipped)));
  // The stall check repeats one combination as often as the sweep did: one more share of
  // each round.
  const double check_share = open.keep_open ? 1.0 / static_cast<double>(measured) : 0.0;
  StopRule stop = StopRule::of(Repeat::fixed(kRepetitionsPerRound), 1);
  stop.budget_s = options.budget_seconds;
  stop.reserved_rounds = check_share;
  const Rounds rounds = bench.sweep(
      combos, stop, [&](int round, int of) { say(fmt::format("round {} of {}", round, of)); });
  report.rounds = rounds.rounds;
  report.round_seconds = rounds.round_seconds;
  report.round_over_budget = rounds.round_over_budget;
  for (const auto& combo : combos) report.sweep.push_back(combo.pooled);
  report.allow_direct = options.allow_direct;
  report.recommendation = recommend_from(report.sweep, options.allow_direct);
  if (!report.recommendation) {
    took();
    return report;
  }
  const Combination& best = combination_of(combos, report.recommendation->best);
  report.best_interval_reached = best.pooled.median_ci.reached;
  // Only a table the workload grows can stall: not one whose descriptors live in a ring.
  if (open.keep_open && report.recommendation->pregrow_to) {
    say("the recommended setting again, without pre-growing the table");
    check_stall(bench, best, report);
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
