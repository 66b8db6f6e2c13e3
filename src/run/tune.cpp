// run_tune: the sweep behind `fdbench tune` and recommend(). Every combination of strategy,
// threads and batch is measured a few repetitions at a time, round after round, and each
// combination's samples are pooled: drift on a shared machine (another job, a cooling CPU)
// then lands on every combination alike instead of on whichever ran last.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

#include "analysis/findings.hpp"
#include "engine/descriptor_budget.hpp"
#include "engine/measure.hpp"
#include "engine/measurement.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "inputs/open_input.hpp"
#include "output/reporter.hpp"
#include "platform/platform.hpp"
#include "run/repetition_runner.hpp"
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
  bool measured = false;
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
      for (const int batch : batches) combos.push_back({&info, {threads, batch}, {}, false});
    }
  }
  return combos;
}

// Adds one round's result to the combination's pool. A noisy-spread warning is the pool's
// to judge once every round is in.
void pool(Combination& combo, Result part) {
  auto& w = part.warnings;
  w.erase(std::remove_if(w.begin(), w.end(),
                         [](const Warning& s) { return s.kind == WarningKind::noisy; }),
          w.end());
  if (!combo.measured) {
    combo.pooled = std::move(part);
    combo.measured = true;
    return;
  }
  Result& r = combo.pooled;
  r.times_ns.insert(r.times_ns.end(), part.times_ns.begin(), part.times_ns.end());
  r.repeat += part.repeat;
  r.failures += part.failures;
  if (r.first_failure.empty()) r.first_failure = part.first_failure;
  for (const auto& [name, count] : part.failures_by_errno) {
    r.failures_by_errno[name].count += count.count;
    r.failures_by_errno[name].message = count.message;
  }
  if (r.ran() && !part.ran()) {  // a round that could not run makes the pool say why
    r.status = part.status;
    r.error = part.error;
  }
  for (auto& warning : w) r.warn(warning.kind, std::move(warning.text));
  r.fdsize_after = part.fdsize_after;
}

// The files, prepared once, and how to measure one combination on them: each repetition as
// `open` runs it, under --timeout's limit when there is one.
class Bench {
 public:
  explicit Bench(const OpenOptions& options)
      : options_(options),
        input_(prepare_input(options)),
        spec_(open_spec(options, input_)),
        recipe_(open_workload_recipe(spec_)),
        runner_(options.timeout_s, "opening files under " + input_.dir_path) {}

  // Held descriptors are measured from the kernel's smallest table in a fresh child.
  Result measure_one(const Combination& combo, const Pregrow& pregrow, int repeat, int warmup) {
    std::unique_ptr<Measurement> m =
        options_.keep_open
            ? fresh_child_measurement(recipe_, *combo.strategy, combo.config, pregrow, repeat,
                                      warmup, {})
            : in_process_measurement(make_open_workload(spec_), *combo.strategy, combo.config,
                                     repeat, warmup, {}, Workers::kept);
    const std::string label =
        fmt::format("{}, {} thread{}, batch {}", combo.strategy->name, combo.config.threads,
                    combo.config.threads == 1 ? "" : "s", combo.config.batch);
    Result r = runner_.run_all(std::move(m), label);
    r.input = input_.summary;
    if (runner_.limited()) r.parameters["timeout"] = format_seconds(runner_.timeout_s());
    return r;
  }

  [[nodiscard]] const OpenInput& input() const { return input_; }

 private:
  const OpenOptions& options_;
  OpenInput input_;
  OpenSpec spec_;
  WorkloadRecipe recipe_;
  RepetitionRunner runner_;
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

// What the sweep itself holds at once: RLIMIT_NOFILE raised to fit, or refused up front.
void ensure_sweep_fits(const std::vector<Combination>& combos, std::uint64_t held) {
  std::vector<std::string> names;
  for (const auto& combo : combos) {
    const std::string name(combo.strategy->name);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  DescriptorBudget budget = budget_of(names, thread_counts(), std::end(kBatches)[-1], {kAutomatic});
  budget.workload = held;
  ensure_descriptor_budget(budget, "--files (use --list with fewer paths)");
}

void run_round(Bench& bench, std::vector<Combination>& combos, int warmup) {
  for (auto& combo : combos) {
    if (combo.measured && !combo.pooled.ran()) continue;  // it cannot run here
    pool(combo, bench.measure_one(combo, kAutomatic, kRepetitionsPerRound, warmup));
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
  report.stall_seen = off.ok() && !within_noise(off.median_ci, pregrown.median_ci) &&
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
  const OpenOptions& open = options.open;
  const bool generated = open.tree.empty() && open.list.empty();
  std::vector<Combination> combos = combinations_of(open.strategies);
  ensure_sweep_fits(combos, open.keep_open && generated ? open.files : 0);
  Bench bench(open);
  const std::uint64_t held = open.keep_open ? bench.input().summary.files : 0;
  if (open.keep_open && !generated) ensure_sweep_fits(combos, held);  // known only now
  report.nofile = nofile_advice_for(held);
  report.input = bench.input().summary;
  report.fs_type = bench.input().fs_type();
  report.combinations = static_cast<int>(combos.size());

  say(fmt::format("round 1: {} combinations, {} repetitions each", combos.size(),
                  kRepetitionsPerRound));
  const auto start = std::chrono::steady_clock::now();
  run_round(bench, combos, 1);
  report.round_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // A later round has no warm-up; the stall check repeats one combination as often as the
  // sweep did: one more share of each round.
  const double warm_share = static_cast<double>(kRepetitionsPerRound) / (kRepetitionsPerRound + 1);
  const double check_share = open.keep_open ? 1.0 / static_cast<double>(combos.size()) : 0.0;
  const double per_round = report.round_seconds * (warm_share + check_share);
  report.round_over_budget = report.round_seconds > options.budget_seconds;
  const double left = options.budget_seconds - report.round_seconds * (1 + check_share);
  report.rounds = 1 + std::max(0, static_cast<int>(std::floor(left / per_round)));
  for (int round = 2; round <= report.rounds; ++round) {
    say(fmt::format("round {} of {}", round, report.rounds));
    run_round(bench, combos, 0);
  }
  for (auto& combo : combos) {
    finalize(combo.pooled);
    report.sweep.push_back(combo.pooled);
  }
  report.recommendation = recommend_from(report.sweep);
  if (!report.recommendation) return report;
  const Combination& best = combination_of(combos, report.recommendation->best);
  report.best_interval_reached = best.pooled.median_ci.reached;
  if (open.keep_open) {
    say("the recommended setting again, without pre-growing the table");
    check_stall(bench, best, report);
  }
  return report;
}

TuneOptions short_tune_options() {
  TuneOptions options;
  options.open.files = 2000;
  options.open.dir = default_dir();
  options.budget_seconds = 3;
  return options;
}

std::string tune_json_document(const Environment& env, const TuneReport& report) {
  std::vector<Result> results = report.sweep;
  if (report.pregrow_off) results.push_back(*report.pregrow_off);
  auto document = nlohmann::json::parse(to_json_document(env, results, findings(results, env)));
  if (report.recommendation) {
    document["recommendation"] = nlohmann::json::parse(recommendation_json(*report.recommendation));
  }
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace fdbench
