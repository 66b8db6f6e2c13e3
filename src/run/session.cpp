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
#include "run/planner.hpp"
#include "run/repetition_runner.hpp"
#include "run/scheduler.hpp"

namespace fdbench {

namespace {

// How long a run waits for another's hold on rcu_expedited when no --timeout is given.
constexpr std::chrono::milliseconds kRcuLockWait = std::chrono::seconds(60);

// --rcu-expedited: sets /sys/kernel/rcu_expedited for the results that ask for it, and puts
// the original value back on every way out: the normal end, an Error, Ctrl-C and SIGTERM
// (their handlers only record the signal; the run unwinds through this destructor). For the
// ways out that run no destructor (SIGKILL, a crash) a watcher process, started before the
// first change, writes it back (platform::RcuExpeditedWatcher); without one nothing is changed.
class RcuSetting {
 public:
  // `wait`: the values to set, who is told of a wait or a setting put back, the longest wait.
  explicit RcuSetting(platform::RcuLockWait wait) : wait_(std::move(wait)) {}
  RcuSetting(const RcuSetting&) = delete;
  RcuSetting& operator=(const RcuSetting&) = delete;
  ~RcuSetting() {
    // Put back here, the watcher is told so; otherwise it tries once more as it is dropped.
    if (watcher_ && platform::set_rcu_expedited(watcher_->original()) == 0) watcher_->restored();
  }

  void set(int value) {
    if (!watcher_ && kept_by_another(value)) return;
    if (!watcher_) {
      std::string why_not;
      watcher_ = platform::RcuExpeditedWatcher::start(why_not, wait_);
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
  // One value asked for, which another run holds the setting at and the machine has of its
  // own: nothing to wait for or change; said once. The per-repetition check still says a
  // change by anyone.
  bool kept_by_another(int value) {
    if (keeper_ < 0) {
      const bool one_value = std::ranges::all_of(wait_.values, [value](int v) { return v == value; });
      keeper_ = one_value ? platform::rcu_expedited_kept_at(value) : 0;
      if (keeper_ > 0 && wait_.say) {
        wait_.say(fmt::format(
            "rcu_expedited is already {0} and stays {0}: another fdbench run (pid {1}) holds it "
            "at {0}, the machine's own value, so this run measures at {0} without waiting for it",
            value, keeper_));
      }
    }
    return keeper_ > 0;
  }
  platform::RcuLockWait wait_;
  long keeper_ = -1;  // the run that keeps the value asked for; 0: none; -1: not looked yet
  std::unique_ptr<platform::RcuExpeditedWatcher> watcher_;  // set once the lock is held
};

// socket's results, each in a fresh child per repetition, each thread holding `per_thread`
// descriptors; recipes[t] is the workload of options.threads[t] threads.
std::vector<PlannedResult> socket_plan(const SocketOptions& options,
                                       std::span<const Combination> combinations,
                                       const std::vector<WorkloadRecipe>& recipes,
                                       const SweepDescriptors& descriptors) {
  const std::string op(to_string(WorkloadKind::create));
  std::vector<PlannedResult> plan;
  for (const auto& c : combinations) {
    const auto t = static_cast<std::size_t>(
        std::find(options.threads.begin(), options.threads.end(), c.config.threads) -
        options.threads.begin());
    const WorkloadRecipe& recipe = recipes[t];
    const std::uint64_t held =
        recipe.facts.ops * static_cast<std::uint64_t>(recipe.facts.descriptors_per_item);
    auto start = descriptors.or_skipped(in_fresh_children(recipe, c), recipe.facts, c, held);
    plan.push_back(planned_result(
        c, {0, std::string(c.strategy->name), c.config.threads, c.pregrow, op},
        std::move(start)));
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
  const auto say = [this](const std::string& line) {
    if (say_) say_(line);
  };
  RcuSetting setting({
      .values = values,
      .waiting =
          [say, limit](long holder) {
            say(fmt::format(
                "waiting for another fdbench run{} to put /sys/kernel/rcu_expedited back (one "
                "run at a time may change it; at most {:g} s, --timeout sets it; Ctrl-C to "
                "stop waiting)",
                holder > 0 ? fmt::format(" (pid {})", holder) : "",
                std::chrono::duration<double>(limit).count()));
          },
      .say = say,
      .limit = limit,
  });
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

std::unique_ptr<OpenPlan> Session::plan_open(const OpenOptions& options,
                                             std::vector<Combination> combinations,
                                             std::string_view what_to_lower) {
  // First: the descriptor budget counts the tracer's descriptors, and every worker inherits it.
  attach_kernel(options.kernel_trace);
  return std::make_unique<OpenPlan>(options, std::move(combinations), what_to_lower,
                                    creation_progress());
}

void Session::announce(Section section, bool kernel_trace) {
  trace_kernel(kernel_trace, section);
  layout_ = {section.batch_column, section.harness_column};
  for (auto& reporter : reporters_) reporter->section(section);
}

void Session::recommend(const TuneSummary& summary) {
  for (auto& reporter : reporters_) reporter->recommendation(summary);
}

void Session::run_open(const OpenOptions& options) {
  std::vector<Combination> combinations = open_combinations(options);
  const std::size_t blocks = std::max<std::size_t>(1, options.rcu_expedited.size());
  plan_progress(blocks * combinations.size(), options.repeat, options.warmup);
  const auto plan =
      plan_open(options, std::move(combinations), "--batch, --threads, --files or --pregrow");
  announce(plan->section(), options.kernel_trace);
  measure(plan->planned(), StopRule::of(options.repeat, options.warmup), plan->settings(),
          options.rcu_expedited);
}

void Session::run_socket(const SocketOptions& options) {
  attach_kernel(options.kernel_trace);
  const int most_threads = *std::max_element(options.threads.begin(), options.threads.end());
  const WorkloadRecipe one_thread = socket_workload_recipe(options.kind, options.per_thread);
  const std::uint64_t per_thread =
      one_thread.facts.ops * static_cast<std::uint64_t>(one_thread.facts.descriptors_per_item);
  const std::vector<Combination> combinations = socket_combinations(options);
  SweepDescriptors descriptors;
  std::vector<DescriptorBudget> budgets;
  for (const auto& c : combinations) {
    budgets.push_back(
        descriptors.budget(c, static_cast<std::uint64_t>(c.config.threads) * per_thread));
  }
  descriptors.reserve(budgets, "--threads, --per-thread, --batch or --pregrow");
  plan_progress(std::max<std::size_t>(1, options.rcu_expedited.size()) * combinations.size(),
                options.repeat, options.warmup);
  Section section = section_of(one_thread, options.repeat, options.warmup);
  section.per_thread = options.per_thread;
  section.held = true;
  section.fresh_child = true;
  section.harness_column = std::find(options.harness.begin(), options.harness.end(),
                                     Harness::published) != options.harness.end();
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
  announce(section, options.kernel_trace);
  measure(socket_plan(options, combinations, recipes, descriptors),
          StopRule::of(options.repeat, options.warmup), settings, options.rcu_expedited);
}

std::unique_ptr<AcceptPlan> Session::plan_accept(const AcceptOptions& options,
                                                 std::vector<Combination> combinations) {
  // First: the descriptor budget counts the tracer's descriptors, and every worker inherits it.
  attach_kernel(options.kernel_trace);
  return std::make_unique<AcceptPlan>(options, std::move(combinations));
}

void Session::run_accept(const AcceptOptions& options) {
  const auto plan = plan_accept(options, accept_combinations(options));
  plan_progress(
      std::max<std::size_t>(1, options.rcu_expedited.size()) * plan->combinations().size(),
      options.repeat, options.warmup);
  announce(plan->section(), options.kernel_trace);
  measure(plan->planned(), StopRule::of(options.repeat, options.warmup), plan->settings(),
          options.rcu_expedited);
}

FileSet::CreationProgress Session::creation_progress() const {
  if (progress_ == nullptr) return {};
  return [progress = progress_](std::size_t made, std::size_t total) {
    progress->creating_files(made, total);
  };
}

void Session::measure(std::span<const PlannedResult> plan, const StopRule& stop,
                      SchedulerSettings settings, const std::vector<int>& rcu_expedited,
                      const Scheduler::Emit& done) {
  const double timeout_s = settings.timeout_s;  // --timeout also bounds the wait for the lock
  settings.changed_setting = [this] {
    return rcu_expedited_changed(rcu_block_ ? rcu_block_ : env_.rcu_expedited,
                                 rcu_block_.has_value());
  };
  const Scheduler::Emit emit_each = [this](std::size_t /*planned*/, Result r) {
    emit(std::move(r));
  };
  if (progress_ != nullptr) {
    // Each --rcu-expedited value measures the whole plan again, its rows after the last's.
    std::vector<TraceKey> rows;
    for (std::size_t b = 0; b < std::max<std::size_t>(1, rcu_expedited.size()); ++b) {
      for (const auto& p : plan) rows.push_back(p.key);
    }
    progress_->rows(rows, layout_);
  }
  Scheduler scheduler(std::move(settings), progress_, trace_out_);
  scheduler.trace_kernel(kernel_request_);
  each_rcu_setting(rcu_expedited, timeout_s,
                   [&] { scheduler.run(plan, stop, done ? done : emit_each, results_.size()); });
}

}  // namespace fdbench
