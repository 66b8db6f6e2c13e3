// Session: runs a command's sweep (strategies x thread counts x pregrow settings), tells the
// reporters what the next results measure, and hands each result to them as it finishes.
#include "run/session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/findings.hpp"
#include "common/errors.hpp"
#include "engine/capture.hpp"
#include "engine/child_process.hpp"
#include "engine/descriptor_budget.hpp"
#include "engine/measure.hpp"
#include "engine/measurement.hpp"
#include "fdbench/error.hpp"
#include "inputs/open_input.hpp"
#include "engine/call_trace.hpp"
#include "model/format.hpp"
#include "output/trace_out.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"
#include "run/repetition_runner.hpp"
#include "run/scheduler.hpp"

namespace fdbench {

namespace {

// How long a run waits for another's hold on rcu_expedited when no --timeout is given.
constexpr std::chrono::milliseconds kRcuLockWait = std::chrono::seconds(60);

const StrategyInfo& strategy_named(const std::string& name) {
  const StrategyInfo* strategy = find_strategy(name);
  FDBENCH_ASSERT(strategy != nullptr);  // the CLI validated the names
  return *strategy;
}

// "uring, 2 threads, pregrow auto": the progress line's name for a result (", published
// harness" after it with --harness published).
std::string progress_label(const TraceKey& key, Harness harness) {
  std::string label = fmt::format("{}, {}", key.strategy, thread_count_text(key.threads));
  if (key.pregrow) label += ", pregrow " + key.pregrow->label();
  if (harness == Harness::published) label += ", published harness";
  return label;
}

bool asks_published(const std::vector<Harness>& harnesses) {
  return std::find(harnesses.begin(), harnesses.end(), Harness::published) != harnesses.end();
}

// What --latency keeps of one result while it is measured: measured in this process, a record
// per item, and each timed repetition's call durations (two per item where it closes at once).
LatencyBytes latency_bytes_of(bool latency, std::uint64_t items, bool in_process) {
  if (!latency) return {};
  return {in_process ? items * sizeof(CallRecord) : 0, items * 2 * sizeof(std::int64_t)};
}

Section section_of(const WorkloadRecipe& work, const Repeat& repeat, int warmup) {
  Section s;
  s.workload = work.facts.name;
  s.kind = work.facts.kind;
  s.descriptors_per_item = work.facts.descriptors_per_item;
  s.repeat = repeat;
  s.warmup = warmup;
  return s;
}

// --rcu-expedited: sets /sys/kernel/rcu_expedited for the results that ask for it, and puts
// the original value back on every way out: the normal end, an Error, Ctrl-C and SIGTERM
// (their handlers only record the signal; the run unwinds through this destructor). For the
// ways out that run no destructor (SIGKILL, a crash) a watcher process, started before the
// first change, writes it back (platform::RcuExpeditedWatcher); without one nothing is changed.
class RcuSetting {
 public:
  // `waiting`: told the pid of another run that has the setting changed, once, if this one
  // must wait for it to end.
  // `wait_limit`: how long to wait for another run's lock at most.
  RcuSetting(std::function<void(long)> waiting, std::chrono::milliseconds wait_limit)
      : waiting_(std::move(waiting)), wait_limit_(wait_limit) {}
  RcuSetting(const RcuSetting&) = delete;
  RcuSetting& operator=(const RcuSetting&) = delete;
  ~RcuSetting() {
    // Put back here, the watcher is told so; otherwise it tries once more as it is dropped.
    if (watcher_ && platform::set_rcu_expedited(watcher_->original()) == 0) watcher_->restored();
  }

  void set(int value) {
    if (!watcher_) {
      std::string why_not;
      watcher_ = platform::RcuExpeditedWatcher::start(why_not, waiting_, wait_limit_);
      if (!watcher_) {
        const std::optional<int> now = platform::rcu_expedited();
        throw Error(fmt::format("--rcu-expedited: {}; rcu_expedited was left {}", why_not,
                                now ? fmt::format("at {}", *now) : "as it was"));
      }
    }
    if (const int err = platform::set_rcu_expedited(value)) {
      throw Error(
          fmt::format("cannot set /sys/kernel/rcu_expedited to {}: {}", value, errno_text(err)));
    }
  }

 private:
  std::function<void(long)> waiting_;
  std::chrono::milliseconds wait_limit_;
  std::unique_ptr<platform::RcuExpeditedWatcher> watcher_;  // set once the lock is held
};

// How a result measured a repetition per fresh child starts; the arguments by reference must
// outlive its measurement.
auto in_fresh_children(const WorkloadRecipe& recipe, const StrategyInfo& strategy,
                       const StrategyConfig& config, const Pregrow& pregrow) {
  return [&recipe, &strategy, config, pregrow](const MeasurementStart& how) {
    return fresh_child_measurement(recipe, strategy, config, pregrow, how.repeat, how.warmup,
                                   how.extras);
  };
}

// A planned result, named on the progress line (and in a hang's message) by its key.
PlannedResult planned(
    TraceKey key, Harness harness, MeasurementStarter start,
    std::function<void(Result&)> complete = [](Result&) {}) {
  std::string label = progress_label(key, harness);
  return {std::move(key), std::move(label), std::move(start), std::move(complete)};
}

// The descriptors of a sweep's combinations: each one's budget beside fdbench's own (measured
// once, when the sweep starts), and the RLIMIT_NOFILE reserved for those that fit.
class SweepDescriptors {
 public:
  SweepDescriptors() : held_(platform::open_descriptors()) {}

  [[nodiscard]] DescriptorBudget budget(const StrategyInfo& strategy, const StrategyConfig& config,
                                        const Pregrow& pregrow, std::uint64_t workload) const {
    return budget_of(strategy, config, pregrow, workload, held_);
  }
  // Raises the limit for `combinations` (reserve_descriptors: Error when none fits).
  void reserve(std::span<const DescriptorBudget> combinations, std::string_view what_to_lower) {
    reserved_ = reserve_descriptors(combinations, what_to_lower);
  }
  // `measured`, or, for a combination whose budget does not fit, a result that says why (a
  // strategy unavailable here says that instead: a higher limit would not help it).
  [[nodiscard]] MeasurementStarter or_skipped(MeasurementStarter measured,
                                              const WorkloadFacts& facts,
                                              const StrategyInfo& strategy,
                                              const StrategyConfig& config, const Pregrow& pregrow,
                                              std::uint64_t workload) const {
    const DescriptorBudget b = budget(strategy, config, pregrow, workload);
    if (reserved_.fits(b) || !strategy.unavailable_reason().empty()) return measured;
    return [&facts, &strategy, config, pregrow,
            why = reserved_.skip_reason(b)](const MeasurementStart& how) {
      return skipped_measurement(facts, strategy, config, pregrow, how.repeat, how.warmup, why);
    };
  }

 private:
  std::vector<int> held_;
  DescriptorReservation reserved_;
};

// open's combinations: every strategy at every thread count, with --keep-open once per
// pregrow setting; `workload`: the descriptors each holds (--keep-open: every file).
std::vector<DescriptorBudget> open_budgets(const OpenOptions& options,
                                           const std::vector<std::string>& strategies,
                                           const SweepDescriptors& descriptors,
                                           std::uint64_t workload) {
  const std::vector<Pregrow> pregrows =
      options.keep_open ? options.pregrow : std::vector<Pregrow>{Pregrow{}};
  std::vector<DescriptorBudget> budgets;
  for (const auto& name : strategies) {
    for (const int threads : options.threads) {
      for (const auto& pregrow : pregrows) {
        budgets.push_back(descriptors.budget(
            strategy_named(name), {threads, options.batch, options.uring}, pregrow, workload));
      }
    }
  }
  return budgets;
}

// socket's combinations: every strategy, thread count and pregrow setting, each thread
// holding `per_thread` descriptors.
std::vector<DescriptorBudget> socket_budgets(const SocketOptions& options,
                                             const SweepDescriptors& descriptors,
                                             std::uint64_t per_thread) {
  std::vector<DescriptorBudget> budgets;
  for (const auto& name : options.strategies) {
    for (const int threads : options.threads) {
      for (const auto& pregrow : options.pregrow) {
        budgets.push_back(descriptors.budget(strategy_named(name),
                                             {threads, options.batch, options.uring}, pregrow,
                                             static_cast<std::uint64_t>(threads) * per_thread));
      }
    }
  }
  return budgets;
}

Section open_section(const OpenOptions& options, const OpenInput& in,
                     const WorkloadRecipe& recipe, const std::vector<std::string>& strategies) {
  Section section = section_of(recipe, options.repeat, options.warmup);
  section.paths = options.paths;
  if (options.paths == PathMode::relative) {
    for (const auto& name : strategies) {
      const StrategyInfo* info = find_strategy(name);
      if (info != nullptr && info->full_paths_only) section.by_full_path.push_back(name);
    }
  }
  section.input = in.summary;
  section.fs_type = in.fs_type();
  section.subdirs = in.generated ? in.generated->subdirs() : 0;
  section.held = options.keep_open;
  // Only a fresh process shows a held table's growth; the user's files are opened in one too,
  // which fdbench can abandon when an open never returns (measured_in_fresh_children).
  section.fresh_child = measured_in_fresh_children(options, in);
  section.harness_column = asks_published(options.harness);
  return section;
}

// open's results: every strategy at every thread count, measured in this process, or in a fresh
// child per repetition (--keep-open, once per pregrow setting; the user's files). The arguments
// must outlive the plan's measurements.
std::vector<PlannedResult> open_plan(const OpenOptions& options,
                                     const std::vector<std::string>& strategies,
                                     const OpenInput& in, const OpenSpec& spec,
                                     const WorkloadRecipe& recipe,
                                     const SweepDescriptors& descriptors) {
  const std::uint64_t held = options.keep_open ? in.summary.files : 0;
  const std::string op(to_string(recipe.facts.workload_kind));
  std::vector<PlannedResult> plan;
  for (const auto& name : strategies) {
    const StrategyInfo& strategy = strategy_named(name);
    const auto complete = [&in, &options, &strategy](Result& r) {
      r.input = in.summary;
      record_paths(r, options.paths, strategy);
    };
    for (const int threads : options.threads) {
      StrategyConfig config{threads, options.batch, options.uring};
      for (const Harness harness : options.keep_open ? std::vector<Harness>{} : options.harness) {
        config.harness = harness;
        MeasurementStarter start = [&spec, &in, &strategy, config](const MeasurementStart& how) {
          auto work = config.harness == Harness::published
                          ? make_published_open_workload(in.dir_path, in.paths())
                          : make_open_workload(spec);
          return in_process_measurement(std::move(work), strategy, config, how.repeat, how.warmup,
                                        how.extras, how.workers);
        };
        if (measured_in_fresh_children(options, in)) {
          start = in_fresh_children(recipe, strategy, config, Pregrow{});
        }
        start = descriptors.or_skipped(std::move(start), recipe.facts, strategy, config, {}, held);
        plan.push_back(
            planned({0, name, threads, std::nullopt, op}, harness, std::move(start), complete));
      }
      if (!options.keep_open) continue;
      for (const auto& pregrow : options.pregrow) {
        auto start = descriptors.or_skipped(in_fresh_children(recipe, strategy, config, pregrow),
                                            recipe.facts, strategy, config, pregrow, held);
        plan.push_back(
            planned({0, name, threads, pregrow, op}, Harness::minimal, std::move(start), complete));
      }
    }
  }
  return plan;
}

// socket's results: every strategy at every thread count and pregrow setting, each in a
// fresh child per repetition; recipes[t] is the workload of options.threads[t] threads.
std::vector<PlannedResult> socket_plan(const SocketOptions& options,
                                       const std::vector<WorkloadRecipe>& recipes,
                                       const SweepDescriptors& descriptors) {
  const std::string op(to_string(WorkloadKind::create));
  std::vector<PlannedResult> plan;
  for (const auto& name : options.strategies) {
    const StrategyInfo& strategy = strategy_named(name);
    for (std::size_t t = 0; t < options.threads.size(); ++t) {
      const WorkloadRecipe& recipe = recipes[t];
      const std::uint64_t held =
          recipe.facts.ops * static_cast<std::uint64_t>(recipe.facts.descriptors_per_item);
      for (const auto& pregrow : options.pregrow) {
        for (const Harness harness : options.harness) {
          StrategyConfig config{options.threads[t], options.batch, options.uring};
          config.harness = harness;
          auto start = descriptors.or_skipped(in_fresh_children(recipe, strategy, config, pregrow),
                                              recipe.facts, strategy, config, pregrow, held);
          plan.push_back(
              planned({0, name, config.threads, pregrow, op}, harness, std::move(start)));
        }
      }
    }
  }
  return plan;
}

}  // namespace

Session::Session(Environment env, std::vector<std::unique_ptr<Reporter>> reporters,
                 std::optional<RunContext> context)
    : env_(std::move(env)), context_(std::move(context)), reporters_(std::move(reporters)) {
  for (auto& reporter : reporters_) {
    reporter->begin(env_);
    if (context_) reporter->context(*context_);
  }
}

void Session::emit(Result result) {
  if (progress_ != nullptr) progress_->result_done();
  if (rcu_block_) result.config.rcu_expedited = *rcu_block_;
  results_.push_back(std::move(result));
  for (auto& reporter : reporters_) reporter->add(results_.back());
}

void Session::plan_progress(std::size_t results, const Repeat& repeat, int warmup) {
  if (progress_ == nullptr) return;
  if (repeat.automatic()) {
    progress_->plan(results, 0, repeat.max_time_s);
  } else {
    progress_->plan(results, repeat.count + warmup, 0);
  }
}

void Session::announce(const Section& section) {
  for (auto& reporter : reporters_) reporter->section(section);
}

void Session::finish(bool complete) {
  if (progress_ != nullptr) progress_->clear();
  if (finished_) return;
  finished_ = true;
  const auto concluded = findings(results_, env_);
  if (context_) context_->load_after = capture_load();
  for (auto& reporter : reporters_) {
    if (context_) reporter->context(*context_);
    reporter->end(results_, concluded, complete);
  }
}

void Session::each_rcu_setting(const std::vector<int>& values, double timeout_s,
                               const std::function<void()>& block) {
  if (values.empty()) return block();
  // Another run may hold the setting for hours: the wait for it is bounded by --timeout where
  // given, else kRcuLockWait.
  const auto limit = timeout_s > 0 ? std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::duration<double>(timeout_s))
                                   : kRcuLockWait;
  RcuSetting setting(
      [this, limit](long holder) {
        if (!say_) return;
        say_(fmt::format(
            "waiting for another fdbench run{} to put /sys/kernel/rcu_expedited back (one run at "
            "a time may change it; at most {:g} s, --timeout sets it; Ctrl-C to stop waiting)",
            holder > 0 ? fmt::format(" (pid {})", holder) : "",
            std::chrono::duration<double>(limit).count()));
      },
      limit);
  for (const int value : values) {
    setting.set(value);
    rcu_block_ = value;
    block();
  }
  rcu_block_.reset();
}

void Session::attach_kernel(bool asked) {
  if (!asked || kernel_tried_) return;
  kernel_tried_ = true;
  kernel_ = platform::KernelTracer::open(kernel_unavailable_);
}

void Session::trace_kernel(bool asked, Section& section) {
  kernel_request_ = {};
  if (!asked) return;
  attach_kernel(asked);
  kernel_request_ = {true, kernel_.get(), kernel_unavailable_};
  section.kernel_trace = true;
  section.kernel_unavailable = kernel_unavailable_;
}

void Session::run_open(const OpenOptions& options) {
  const auto strategies = options.strategies.empty() ? strategy_names() : options.strategies;
  const bool generated = options.tree.empty() && options.list.empty();
  attach_kernel(options.kernel_trace);
  SweepDescriptors descriptors;
  const std::uint64_t expected = options.keep_open && generated ? options.files.value_or(0) : 0;
  descriptors.reserve(open_budgets(options, strategies, descriptors, expected),
                      "--batch, --threads, --files or --pregrow");
  const std::size_t per_strategy =
      options.threads.size() *
      (options.keep_open ? options.pregrow.size() : options.harness.size());
  const std::size_t blocks = std::max<std::size_t>(1, options.rcu_expedited.size());
  plan_progress(blocks * strategies.size() * per_strategy, options.repeat, options.warmup);
  const OpenInput in = prepare_input(options, creation_progress());
  // A tree's size, or a reused set's, is known only now.
  if (options.keep_open && expected != in.summary.files) {
    descriptors.reserve(open_budgets(options, strategies, descriptors, in.summary.files),
                        "the number of files (use --list with fewer paths)");
  }
  const OpenSpec spec = open_spec(options, in);
  const WorkloadRecipe recipe = open_workload_recipe(spec);
  Section section = open_section(options, in, recipe, strategies);
  const SchedulerSettings settings{
      options.order, options.latency,
      latency_bytes_of(options.latency, recipe.facts.ops, !measured_in_fresh_children(options, in)),
      options.timeout_s, opening_text(options, in)};
  trace_kernel(options.kernel_trace, section);
  announce(section);
  measure(open_plan(options, strategies, in, spec, recipe, descriptors),
          StopRule::of(options.repeat, options.warmup), settings, options.rcu_expedited);
}

void Session::run_socket(const SocketOptions& options) {
  attach_kernel(options.kernel_trace);
  const int most_threads = *std::max_element(options.threads.begin(), options.threads.end());
  const WorkloadRecipe one_thread = socket_workload_recipe(options.kind, options.per_thread);
  const std::uint64_t per_thread =
      one_thread.facts.ops * static_cast<std::uint64_t>(one_thread.facts.descriptors_per_item);
  SweepDescriptors descriptors;
  descriptors.reserve(socket_budgets(options, descriptors, per_thread),
                      "--threads, --per-thread, --batch or --pregrow");
  plan_progress(std::max<std::size_t>(1, options.rcu_expedited.size()) * options.strategies.size() *
                    options.threads.size() * options.pregrow.size() * options.harness.size(),
                options.repeat, options.warmup);
  Section section = section_of(one_thread, options.repeat, options.warmup);
  section.per_thread = options.per_thread;
  section.held = true;
  section.fresh_child = true;
  section.harness_column = asks_published(options.harness);
  std::vector<WorkloadRecipe> recipes;  // one per thread count, alive while measured
  for (const int threads : options.threads) {
    recipes.push_back(socket_workload_recipe(
        options.kind, static_cast<std::size_t>(threads) * options.per_thread));
  }
  // The most --latency keeps of one result: the most threads' calls.
  const SchedulerSettings settings{
      options.order, options.latency,
      latency_bytes_of(options.latency,
                       static_cast<std::uint64_t>(most_threads) * options.per_thread, false),
      options.timeout_s, fmt::format("creating {} descriptors", to_string(options.kind))};
  trace_kernel(options.kernel_trace, section);
  announce(section);
  measure(socket_plan(options, recipes, descriptors), StopRule::of(options.repeat, options.warmup),
          settings, options.rcu_expedited);
}

FileSet::CreationProgress Session::creation_progress() const {
  if (progress_ == nullptr) return {};
  return [progress = progress_](std::size_t made, std::size_t total) {
    progress->creating_files(made, total);
  };
}

void Session::measure(std::span<const PlannedResult> plan, const StopRule& stop,
                      SchedulerSettings settings, const std::vector<int>& rcu_expedited) {
  const double timeout_s = settings.timeout_s;  // --timeout also bounds the wait for the lock
  settings.changed_setting = [this] {
    return rcu_expedited_changed(rcu_block_ ? rcu_block_ : env_.rcu_expedited,
                                 rcu_block_.has_value());
  };
  Scheduler scheduler(std::move(settings), progress_, trace_out_);
  scheduler.trace_kernel(kernel_request_);
  each_rcu_setting(rcu_expedited, timeout_s, [&] {
    scheduler.run(
        plan, stop, [this](std::size_t /*planned*/, Result r) { emit(std::move(r)); },
        results_.size());
  });
}

}  // namespace fdbench
