// Scheduler: runs a command's plan, its results' repetitions in turns or one after another,
// under the repetition runner's limit, to a repetition count or --repeat auto's precision.
#include "run/scheduler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "fdbench/error.hpp"
#include "model/statistics.hpp"

namespace fdbench {

namespace {

// Call durations and call records that --latency may keep of interleaved results at once;
// beyond it, the results are measured in groups that fit.
constexpr std::uint64_t kInterleavedLatencyBytes = 512ULL << 20;

}  // namespace

std::string rcu_expedited_changed(std::optional<int> meant, bool set_for_them) {
  if (!meant) return {};
  const std::optional<int> now = platform::rcu_expedited();
  if (!now || *now == *meant) return {};
  return fmt::format(
      "rcu_expedited changed: it read {} after a repetition, not the {} {}; another program "
      "wrote /sys/kernel/rcu_expedited while this result was measured, so its times mix both "
      "kinds of grace period: measure it again",
      *now, *meant, set_for_them ? "--rcu-expedited set for it" : "it was when the run began");
}

bool contenders(const Contest& a, const Contest& b) {
  const bool same_strategy = a.strategy == b.strategy;
  // A batch belongs to its strategy (pool-batch's tasks, io_uring's submissions): between
  // strategies it tells nothing apart.
  const int differ = static_cast<int>(!same_strategy) + static_cast<int>(a.threads != b.threads) +
                     static_cast<int>(same_strategy && a.batch != b.batch) +
                     static_cast<int>(a.pregrow != b.pregrow) +
                     static_cast<int>(a.harness != b.harness);
  return differ == 1;
}

Scheduler::Scheduler(SchedulerSettings settings, Progress* progress, TraceOut* trace_out)
    : settings_(std::move(settings)),
      progress_(progress),
      trace_out_(trace_out),
      runner_(settings_.timeout_s, settings_.doing) {}

StopRule StopRule::of(const Repeat& repeat, int warmup) {
  StopRule stop;
  stop.warmup = warmup;
  if (repeat.automatic()) {
    stop.automatic = repeat;
    if (repeat.budget_s > 0) stop.budget_s = repeat.budget_s;
  } else {
    stop.repeat = repeat.count;
  }
  return stop;
}

StopRule StopRule::within_budget(double precision, double budget_s, int warmup) {
  Repeat repeat;
  repeat.precision = precision;
  repeat.max_time_s = budget_s;  // the most one result could have, were it alone
  repeat.budget_s = budget_s;
  return of(repeat, warmup);
}

void Scheduler::size_window(std::size_t planned, const StopRule& stop) {
  window_ = 1;
  most_repetitions_ = kMaxAutoRepetitions;
  order_text_ = std::string(to_string(settings_.order));
  const LatencyBytes& bytes = settings_.latency_bytes;
  // What one result keeps: with --repeat auto, at least the repetitions it needs.
  const auto repetitions = static_cast<std::uint64_t>(
      stop.automatic ? static_cast<int>(min_samples_for()) : std::max(stop.repeat, 1));
  const std::uint64_t each =
      std::max<std::uint64_t>(1, bytes.fixed + bytes.per_repetition * repetitions);
  if (settings_.order == Order::interleaved && planned > 0) {
    window_ = static_cast<std::size_t>(
        std::clamp<std::uint64_t>(kInterleavedLatencyBytes / each, 1, planned));
  }
  if (stop.automatic && bytes.per_repetition > 0) {
    // The window's results share the memory: each may keep this many repetitions' calls.
    const std::uint64_t share = kInterleavedLatencyBytes / window_;
    const std::uint64_t fit =
        share > bytes.fixed ? (share - bytes.fixed) / bytes.per_repetition : 0;
    most_repetitions_ = static_cast<int>(std::clamp<std::uint64_t>(
        fit, min_samples_for(), static_cast<std::uint64_t>(kMaxAutoRepetitions)));
  }
  if (settings_.order == Order::interleaved && planned > 0 && window_ < planned) {
    order_text_ = fmt::format(
        "interleaved in groups of {} (what --latency keeps of more would exceed {} MiB)", window_,
        kInterleavedLatencyBytes >> 20);
  }
}

double Scheduler::time_allowed(std::span<const std::unique_ptr<Measurement>> running,
                               std::span<const double> spent) const {
  if (!budget_s_) return automatic_->max_time_s;
  // What the run spent on anything but the results still measuring is theirs no more; the
  // rest is shared among them and the results still to start.
  double theirs = 0;
  std::size_t measuring = waiting_;
  for (std::size_t k = 0; k < running.size(); ++k) {
    if (!running[k] || running[k]->done()) continue;
    theirs += spent[k];
    ++measuring;
  }
  const double elapsed = static_cast<double>(settings_.now_ns() - began_ns_) / 1e9;
  // Past the budget (what the least repetitions took overran it) nothing is left: zero.
  const double share = std::max(0.0, *budget_s_ - (elapsed - theirs)) /
                       static_cast<double>(std::max<std::size_t>(measuring, 1));
  return std::min(share, automatic_->max_time_s);
}

void Scheduler::find_contenders(std::span<const PlannedResult> plan) {
  contenders_.assign(plan.size(), {});
  standings_.assign(plan.size(), Standing{});
  for (std::size_t i = 0; i < plan.size(); ++i) {
    for (std::size_t j = 0; j < plan.size(); ++j) {
      if (plan[i].contest && plan[j].contest && contenders(*plan[i].contest, *plan[j].contest)) {
        contenders_[i].push_back(j);
      }
    }
  }
}

bool Scheduler::decided(std::size_t i) const {
  if (contenders_[i].empty() || !standings_[i].interval.reached) return false;
  return std::all_of(contenders_[i].begin(), contenders_[i].end(), [&](std::size_t j) {
    if (standings_[j].out) return true;
    const Separation s = separation(standings_[i].interval, standings_[j].interval);
    return s == Separation::separated || s == Separation::same;
  });
}

bool Scheduler::conclude(std::size_t i, const Measurement& m, double spent_s, AutoRepeat& goal) {
  const auto times = m.times();
  const std::size_t n = times.size();
  // The interval sorts the samples: past 64 of them it is taken again each time they have
  // grown by about a sixteenth, which costs a result at most that share of extra repetitions.
  if (n >= min_samples_for() && (n < 64 || n % std::max<std::size_t>(1, n / 16) == 0)) {
    Standing& now = standings_[i];
    now.interval = median_interval(times);
    now.half_width = relative_half_width(now.interval, percentile(times, 50));
    now.decided_in_a_row = decided(i) ? now.decided_in_a_row + 1 : 0;
  }
  const auto stop = enough(i, m, spent_s, goal.max_time_s);
  if (stop) goal.stopped = *stop;
  return stop.has_value();
}

std::optional<RepeatStop> Scheduler::enough(std::size_t i, const Measurement& m, double spent_s,
                                            double allowed_s) const {
  if (!automatic_ || m.done()) return std::nullopt;
  if (m.times().size() < min_samples_for()) return std::nullopt;  // no 95% interval yet
  const Standing& now = standings_[i];
  if (now.half_width && *now.half_width <= automatic_->precision) return RepeatStop::precision;
  // Twice in a row: one look at a stream of samples that happens to separate is not enough.
  if (now.decided_in_a_row >= 2) return RepeatStop::decided;
  if (spent_s >= allowed_s) {
    // Its share of the budget, unless --max-time was the smaller (tune's is the budget).
    const bool share = budget_s_ && (allowed_s < automatic_->max_time_s ||
                                     *budget_s_ <= automatic_->max_time_s);
    return share ? RepeatStop::budget : RepeatStop::max_time;
  }
  if (m.timed_repetitions_run() >= most_repetitions_) return RepeatStop::max_repetitions;
  return std::nullopt;
}

void Scheduler::stamp(const PlannedResult& planned, Result& r, const AutoRepeat& goal,
                      const std::string& changed) const {
  planned.complete(r);
  if (!changed.empty()) r.warn(WarningKind::setting_changed, changed);
  if (automatic_) r.auto_repeat = goal;
  r.parameters["order"] = order_text_;
  if (runner_.limited()) r.parameters["timeout"] = format_seconds(settings_.timeout_s);
}

void Scheduler::run(std::span<const PlannedResult> plan, const StopRule& stop, const Emit& emit,
                    std::size_t first_result) {
  FDBENCH_ASSERT(!stop.budget_s || stop.automatic);  // a budget shares --repeat auto's time
  size_window(plan.size(), stop);
  first_result_ = first_result;
  automatic_ = stop.automatic;
  budget_s_ = stop.budget_s;
  find_contenders(plan);
  began_ns_ = settings_.now_ns();
  run_windows(plan, stop.automatic ? most_repetitions_ : stop.repeat, stop.warmup, emit);
}

std::vector<std::unique_ptr<Measurement>> Scheduler::start_window(
    std::span<const PlannedResult> plan, std::span<const std::size_t> window, int repeat,
    int warmup) const {
  // Results that take turns make their workers per repetition, so that only one result's
  // workers exist at a time; a result measured alone keeps its workers throughout.
  const Workers workers = window.size() > 1 ? Workers::per_repetition : Workers::kept;
  std::vector<std::unique_ptr<Measurement>> running;
  for (const std::size_t i : window) {
    MeasurementStart how{{settings_.latency, {}, kernel_}, workers, repeat, warmup};
    if (trace_out_ != nullptr && settings_.latency) {
      TraceKey key = plan[i].key;
      key.result = first_result_ + i;  // results are emitted in plan order
      how.extras.on_calls = [out = trace_out_, key](int repetition,
                                                    std::span<const CallRecord> calls) {
        out->add(key, repetition, calls);
      };
    }
    running.push_back(plan[i].start(how));
  }
  return running;
}

void Scheduler::run_window(std::span<const PlannedResult> plan, std::span<const std::size_t> window,
                           std::vector<std::unique_ptr<Measurement>>& running,
                           std::vector<AutoRepeat>& goals, std::vector<std::string>& changed,
                           const std::function<void()>& ready) {
  std::vector<double> spent(running.size(), 0.0);  // each result's seconds so far
  const auto seconds_since = [this](std::int64_t start_ns) {
    return static_cast<double>(settings_.now_ns() - start_ns) / 1e9;
  };
  for (bool more = true; more;) {
    more = false;
    for (std::size_t k = 0; k < running.size(); ++k) {
      if (running[k]->done()) continue;
      Measurement& m = *running[k];
      const std::string& label = plan[window[k]].label;
      if (progress_ != nullptr) {
        progress_->repetition_started(label, started_ + k + 1, m.repetitions_run() + 1);
      }
      const std::int64_t start_ns = settings_.now_ns();
      runner_.run_next(running, k, label);
      spent[k] += seconds_since(start_ns);
      if (settings_.changed_setting && changed[k].empty()) changed[k] = settings_.changed_setting();
      if (automatic_) {
        goals[k].max_time_s = time_allowed(running, spent);
        if (conclude(window[k], m, spent[k], goals[k])) m.conclude();
        standings_[window[k]].out = m.done() && m.times().size() < min_samples_for();
      }
      if (progress_ != nullptr) progress_->repetition_done([&m] { return m.so_far(); }, m.done());
      ready();
      more = true;
    }
  }
}

void Scheduler::run_windows(std::span<const PlannedResult> plan, int repeat, int warmup,
                            const Emit& emit) {
  std::vector<std::size_t> which(plan.size());
  std::iota(which.begin(), which.end(), std::size_t{0});
  for (std::size_t first = 0; first < which.size(); first += window_) {
    const auto window =
        std::span<const std::size_t>(which).subspan(first, std::min(window_, which.size() - first));
    waiting_ = which.size() - first - window.size();
    auto running = start_window(plan, window, repeat, warmup);
    if (automatic_) {
      for (std::size_t k = 0; k < running.size(); ++k) {
        running[k]->open_ended();
        standings_[window[k]].out = running[k]->done();  // skipped: nothing will run
      }
    }
    // --repeat auto: a result that is never concluded ran to the ceiling.
    const Repeat goal = automatic_.value_or(Repeat{});
    std::vector<AutoRepeat> goals(
        running.size(), AutoRepeat{goal.precision, goal.max_time_s, RepeatStop::max_repetitions});
    std::vector<std::string> changed(running.size());
    const auto emit_from = [&](std::size_t k) {
      Result r = runner_.finish(running, k, plan[window[k]].label);
      stamp(plan[window[k]], r, goals[k], changed[k]);
      emitted_[k] = true;
      emit(window[k], std::move(r));
    };
    // Results are emitted in the plan's order, each as soon as it and those before it are done:
    // a result that stopped early is shown while the others still race. Its measurement lives
    // on to the window's end: what it holds (an open workload's directory) is part of what the
    // others' leak checks found before their first repetition.
    emitted_.assign(running.size(), false);
    std::size_t next = 0;
    const auto ready = [&] {
      for (; next < running.size() && running[next]->done(); ++next) emit_from(next);
    };
    try {
      run_window(plan, window, running, goals, changed, ready);
    } catch (const Interrupted&) {
      emit_what_ran(plan, window, running, goals, changed, emit, emit_from);
      throw;
    } catch (const TimedOut&) {
      emit_what_ran(plan, window, running, goals, changed, emit, emit_from);
      throw;
    }
    ready();
    started_ += running.size();
  }
}

void Scheduler::emit_what_ran(std::span<const PlannedResult> plan,
                              std::span<const std::size_t> window,
                              std::vector<std::unique_ptr<Measurement>>& running,
                              std::vector<AutoRepeat>& goals,
                              const std::vector<std::string>& changed, const Emit& emit,
                              const std::function<void(std::size_t)>& emit_from) {
  std::optional<Result> hung = runner_.take_hung();
  for (std::size_t k = 0; k < running.size(); ++k) {
    if (hung && runner_.hung_index() == k) {
      goals[k].stopped = RepeatStop::interrupted;
      stamp(plan[window[k]], *hung, goals[k], changed[k]);
      emit(window[k], std::move(*hung));
    } else if (running[k] && !emitted_[k] &&
               (running[k]->done() || running[k]->timed_repetitions_run() > 0)) {
      if (!running[k]->done()) goals[k].stopped = RepeatStop::interrupted;
      emit_from(k);
    }
  }
}

}  // namespace fdbench
