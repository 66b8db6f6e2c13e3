// run_tune: the sweep behind `fdbench tune` and recommend(), a planner of combinations plus a
// recommendation step. Its combinations of strategy, threads and batch are planned as `open`'s
// are (OpenPlan: the files prepared once, the descriptors reserved) and measured by the rule of
// `open`'s --repeat auto, through the same Session and Scheduler: the combinations take turns, a
// repetition each, so that drift on a shared machine (another job, a cooling CPU) lands on every
// combination alike instead of on whichever ran last, and each repeats until its median's 95%
// interval is within --precision or its share of --budget is spent.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "common/errors.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "model/format.hpp"
#include "model/statistics.hpp"
#include "output/tune_text.hpp"
#include "platform/platform.hpp"
#include "run/planner.hpp"
#include "run/progress.hpp"
#include "run/scheduler.hpp"
#include "run/session.hpp"
#include "run/tune_sweep.hpp"

namespace fdbench {

namespace {

constexpr int kBatches[] = {16, 64, 256};
const Pregrow kAutomatic{Pregrow::Mode::automatic, 0};

// 1, 2, 4, ... and twice the logical CPUs: past that only contention grows.
std::vector<int> thread_counts() {
  const int most = 2 * std::max(1, platform::logical_cpus());
  std::vector<int> counts;
  for (int t = 1; t < most; t *= 2) counts.push_back(t);
  counts.push_back(most);
  return counts;
}

// Whether tune measures `info` for `op`'s items: a recommendable strategy that can make them
// here, or one asked for (`asked`) that is one for the workload.
bool tuned(const StrategyInfo& info, ItemSpec::Op op, const std::vector<std::string>& asked) {
  if (info.accepts_only && op != ItemSpec::Op::accept_connection) return false;
  if (std::find(asked.begin(), asked.end(), info.name) != asked.end()) return true;
  return info.recommendable && unavailable_reason(info, StrategyConfig{}, op).empty();
}

// Every recommendable strategy available here and those asked for (`open.strategies`), at
// every thread count, and those that batch at each batch size; pre-grown where a fresh child
// holds the descriptors.
std::vector<Combination> tune_combinations(const OpenOptions& open) {
  std::vector<Combination> combos;
  for (const auto& info : strategy_registry()) {
    if (!tuned(info, ItemSpec::Op::open_file, open.strategies)) continue;
    std::vector<int> batches{1};
    if (info.uses_batch()) batches.assign(std::begin(kBatches), std::end(kBatches));
    for (const int threads : thread_counts()) {
      for (const int batch : batches) {
        combos.push_back({&info,
                          {threads, batch, open.uring},
                          open.keep_open ? kAutomatic : Pregrow{},
                          fmt::format("{}, {}, batch {}", info.name,
                                      worker_count_text(info.workers, threads), batch)});
      }
    }
  }
  return combos;
}

// accept's: every strategy that accepts here (or asked for, `accept.strategies`) at every
// thread count, each pre-grown (a server holds what it accepts); no batch (none applies).
std::vector<Combination> tune_combinations(const AcceptOptions& accept) {
  std::vector<Combination> combos;
  for (const auto& info : strategy_registry()) {
    if (!tuned(info, ItemSpec::Op::accept_connection, accept.strategies)) continue;
    for (const int threads : thread_counts()) {
      combos.push_back({&info, {threads, 1, accept.uring}, kAutomatic, ""});
    }
  }
  return combos;
}

// The sweep's plan: accept's burst, or open's files prepared once (what `report` says of them).
std::unique_ptr<SweepPlan> tune_plan(Session& session, const TuneOptions& options,
                                     TuneSummary& report) {
  if (options.workload == WorkloadKind::accept) {
    return session.plan_accept(options.accept, tune_combinations(options.accept));
  }
  auto plan = session.plan_open(options.open, tune_combinations(options.open),
                                "--files (use --list with fewer paths)");
  report.input = plan->input().summary;
  return plan;
}

// What tune says on stderr as the sweep goes: a line as each turn of it ends (every
// combination still measuring has run one more repetition), how many took part; and once the
// first timed turn says how long a turn takes here, whether the least every combination runs
// will overrun the budget, so that the user hears it then rather than after the sweep.
class TurnProgress final : public Progress {
 public:
  explicit TurnProgress(std::function<void(const std::string&)> say) : say_(std::move(say)) {}
  // The sweep starts, with `budget_s` seconds for it and `warmup` untimed turns first;
  // `sizing` is the option that makes its repetitions shorter (--files, --connections).
  void sweep_begins(double budget_s, int warmup, std::string_view sizing) {
    budget_s_ = budget_s;
    warmup_ = warmup;
    sizing_ = sizing;
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
  void repetition_done(const SoFar& /*so_far*/, bool /*stopped*/) override {}
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
          "of --budget left: the sweep will overrun it (raise --budget, or lower {} for "
          "shorter repetitions)",
          min_samples_for(), least, budget_s_, sizing_));
    }
  }
  std::function<void(const std::string&)> say_;
  double budget_s_ = 0;
  std::string_view sizing_;
  int warmup_ = 1;
  std::int64_t began_ns_ = 0;
  std::int64_t turn_began_ns_ = 0;
  int turn_ = 0;
  std::size_t in_turn_ = 0;
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

// Where a Session's progress goes while the sweep runs: to the sweep's turn lines, and back to
// none however the sweep ends.
class TurnsHeard {
 public:
  TurnsHeard(Session& session, Progress& turns) : session_(session) {
    session_.set_progress(&turns);
  }
  TurnsHeard(const TurnsHeard&) = delete;
  TurnsHeard& operator=(const TurnsHeard&) = delete;
  ~TurnsHeard() { session_.set_progress(nullptr); }

 private:
  Session& session_;
};

// The sweep's section: the plan's, with the budget the combinations share and (where it tries
// batch sizes, so that rows differ by them too) a batch column.
Section sweep_section(const SweepPlan& plan, double precision, double budget_s, int warmup) {
  Section section = plan.section();
  section.repeat = Repeat{};
  section.repeat.precision = precision;  // auto, each within its share of the budget
  section.budget_s = budget_s;
  section.warmup = warmup;
  section.batch_column = section.workload == to_string(WorkloadKind::open);
  return section;
}

// The plan's settings, in turns whatever the options say (so that drift hits every combination
// alike), without --latency.
SchedulerSettings sweep_settings(const SweepPlan& plan) {
  SchedulerSettings settings = plan.settings();
  settings.order = Order::interleaved;
  settings.latency = false;
  settings.latency_bytes = {};
  return settings;
}

// Measures `plan` to `stop` through `session`, each result in its combination's place.
std::vector<Result> measured(Session& session, std::span<const PlannedResult> plan,
                             const StopRule& stop, SchedulerSettings settings) {
  std::vector<Result> results(plan.size());
  session.measure(plan, stop, std::move(settings), {},
                  [&](std::size_t i, Result r) { results[i] = std::move(r); });
  return results;
}

// Where in the sweep a recommended setting was measured.
std::size_t index_of(std::span<const Result> sweep, const TunedSetting& s) {
  const auto it = std::find_if(sweep.begin(), sweep.end(), [&](const Result& r) {
    return r.config.strategy == s.strategy && r.config.threads == s.threads &&
           r.config.batch == s.batch;
  });
  FDBENCH_ASSERT(it != sweep.end());  // the recommendation came from these results
  return static_cast<std::size_t>(it - sweep.begin());
}

// With held descriptors: the recommended setting again without pre-growing, by the sweep's
// rule within what is left of the budget, to tell whether the table's growth stalled it here.
void check_stall(Session& session, const SweepPlan& plan, const Combination& best,
                 const Result& pregrown, const StopRule& stop, TuneSummary& report) {
  Combination off_setting = best;
  off_setting.pregrow = Pregrow{};
  off_setting.label.clear();
  const PlannedResult again[] = {plan.planned(off_setting)};
  Result off = std::move(measured(session, again, stop, sweep_settings(plan)).front());
  report.stall_seen = off.ok() &&
                      separation(off.median_ci, pregrown.median_ci) == Separation::separated &&
                      off.stats.median > pregrown.stats.median;
  session.add(off);
  report.pregrow_off = std::move(off);
}

// "45 combinations in turns, each until its median is within ±3% or its share of 58.1 s is
// spent (6 repetitions at least)": what the sweep's progress says first.
std::string sweep_begins_text(const TuneSummary& report, double sweep_budget) {
  return fmt::format(
      "{} combinations in turns, each until its median is within ±{} or its share of {:.1f} s "
      "is spent ({} repetitions at least){}",
      report.combinations, format_percent(report.precision), sweep_budget, min_samples_for(),
      report.skipped == 0
          ? ""
          : fmt::format(" ({} skipped: too many descriptors for the hard limit)", report.skipped));
}

}  // namespace

TuneSummary run_tune(Session& session, const TuneOptions& options,
                     const std::function<void(std::string_view)>& progress) {
  const auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  TuneSummary report;
  report.budget_seconds = options.budget_seconds;
  report.precision = options.precision;
  report.eligibility = options.eligibility;
  report.workload = options.workload;
  const std::int64_t start_ns = platform::now_ns();
  TurnProgress turns(say);
  const TurnsHeard heard(session, turns);
  const std::unique_ptr<SweepPlan> plan = tune_plan(session, options, report);
  report.nofile = nofile_advice_for(plan->held());
  report.holds = plan->section().held;
  for (const auto& c : plan->combinations()) {
    ++(plan->fits(c) ? report.combinations : report.skipped);
  }

  // --budget is the whole command's: the files were made in it, and with held descriptors the
  // stall check gets as much of it as a combination does.
  const auto budget_left = [&] {
    return std::max(
        0.0, options.budget_seconds - static_cast<double>(platform::now_ns() - start_ns) / 1e9);
  };
  const double n = report.combinations;
  const double sweep_budget = budget_left() * (report.holds ? n / (n + 1) : 1.0);
  say(sweep_begins_text(report, sweep_budget));
  // Taking turns, every repetition's workers are made for it and primed by an untimed pass
  // (Scheduler::start_window): a warm-up turn would only do that again. Alone, a combination
  // keeps its workers, and the warm-up primes them.
  const int warmup = report.combinations > 1 ? 0 : 1;
  session.announce(sweep_section(*plan, options.precision, options.budget_seconds, warmup),
                   options.open.kernel_trace);
  turns.sweep_begins(sweep_budget, warmup, sizing_option(options.workload));
  report.sweep = measured(session, plan->planned(),
                          StopRule::within_budget(options.precision, sweep_budget, warmup),
                          sweep_settings(*plan));
  turns.sweep_done();
  for (const auto& r : report.sweep) session.add(r);  // in the combinations' order
  report.recommendation = recommend_from(report.sweep, options.eligibility);
  if (report.recommendation) {
    const std::size_t best = index_of(report.sweep, report.recommendation->best);
    const Result& pregrown = report.sweep[best];
    report.best_interval_reached = pregrown.median_ci.reached;
    // Only a table the workload grows can stall: not one whose descriptors live in a ring.
    if (report.holds && report.recommendation->pregrow_to) {
      say("the recommended setting again, without pre-growing the table");
      check_stall(session, *plan, plan->combinations()[best], pregrown,
                  StopRule::within_budget(options.precision, budget_left(), 1), report);
    }
  }
  report.seconds = static_cast<double>(platform::now_ns() - start_ns) / 1e9;
  session.recommend(report);
  return report;
}

TuneSummary run_tune(const TuneOptions& options,
                     const std::function<void(std::string_view)>& progress) {
  // Only what the measurement reads: whether rcu_expedited changes while it runs.
  Environment env;
  env.rcu_expedited = platform::rcu_expedited();
  Session session(std::move(env), {});
  return run_tune(session, options, progress);
}

TuneOptions short_tune_options() {
  TuneOptions options;
  options.open.files = 2000;
  options.open.dir = platform::default_dir();
  options.budget_seconds = 3;
  return options;
}

}  // namespace fdbench
