// Scheduler: runs a command's plan, its results' repetitions in turns or one after another,
// under the repetition runner's limit, to a repetition count or a time budget.
#include "run/scheduler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "fdbench/error.hpp"
#include "model/statistics.hpp"

namespace fdbench {

namespace {

// Call durations and call records that --latency may keep of interleaved results at once;
// beyond it, the results are measured in groups that fit.
constexpr std::uint64_t kInterleavedLatencyBytes = 512ULL << 20;

// Adds one round's result to a result's pool. A noisy-spread warning is the pool's to judge
// once every round is in.
void pool(std::optional<Result>& pooled, Result part) {
  auto& w = part.warnings;
  // Warnings that follow from the samples are made again from the pooled ones.
  w.erase(std::remove_if(w.begin(), w.end(),
                         [](const Warning& s) {
                           return s.kind == WarningKind::noisy ||
                                  s.kind == WarningKind::page_faults;
                         }),
          w.end());
  if (!pooled) {
    pooled = std::move(part);
    return;
  }
  Result& r = *pooled;
  r.times_ns.insert(r.times_ns.end(), part.times_ns.begin(), part.times_ns.end());
  // A round whose regions were not counted leaves the pool not counted (finalize: the samples
  // no longer match the times).
  r.timed_region_samples.insert(r.timed_region_samples.end(), part.timed_region_samples.begin(),
                                part.timed_region_samples.end());
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

// How many rounds fit in the budget, from the first round's time: a later round has no
// warm-up, and each round reserves its share of the caller's work after the sweep.
int rounds_in_budget(const StopRule& stop, double round_seconds) {
  const double timed_share =
      static_cast<double>(stop.repeat) / static_cast<double>(stop.repeat + stop.warmup);
  const double per_round = round_seconds * (timed_share + stop.reserved_rounds);
  const double left = stop.budget_s - round_seconds * (1 + stop.reserved_rounds);
  if (per_round <= 0) return 1;
  return 1 + std::max(0, static_cast<int>(std::floor(left / per_round)));
}

}  // namespace

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
  } else {
    stop.repeat = repeat.count;
  }
  return stop;
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

std::optional<RepeatStop> Scheduler::enough(const Measurement& m, double spent_s) const {
  if (!automatic_ || m.done()) return std::nullopt;
  const auto times = m.times();
  const std::size_t n = times.size();
  if (n < min_samples_for()) return std::nullopt;  // no 95% interval yet
  // The interval sorts the samples: past 64 of them it is checked each time they have grown
  // by about a sixteenth, which costs a result at most that share of extra repetitions.
  if (n < 64 || n % std::max<std::size_t>(1, n / 16) == 0) {
    const double median = percentile(times, 50);
    if (const auto reached = relative_half_width(median_interval(times), median);
        reached && *reached <= automatic_->precision) {
      return RepeatStop::precision;
    }
  }
  if (spent_s >= automatic_->max_time_s) return RepeatStop::max_time;
  if (m.timed_repetitions_run() >= most_repetitions_) return RepeatStop::max_repetitions;
  return std::nullopt;
}

void Scheduler::stamp(const PlannedResult& planned, Result& r, RepeatStop stopped) const {
  planned.complete(r);
  if (automatic_)
    r.auto_repeat = AutoRepeat{automatic_->precision, automatic_->max_time_s, stopped};
  r.parameters["order"] = order_text_;
  if (runner_.limited()) r.parameters["timeout"] = format_seconds(settings_.timeout_s);
}

Rounds Scheduler::run(std::span<const PlannedResult> plan, const StopRule& stop, const Emit& emit,
                      std::size_t first_result,
                      const std::function<void(int round, int rounds)>& on_round) {
  FDBENCH_ASSERT(!(stop.automatic && stop.budget_s > 0));  // one rule or the other
  size_window(plan.size(), stop);
  first_result_ = first_result;
  automatic_ = stop.automatic;
  if (stop.budget_s <= 0) {
    std::vector<std::size_t> all(plan.size());
    std::iota(all.begin(), all.end(), std::size_t{0});
    run_round(plan, all, stop.automatic ? most_repetitions_ : stop.repeat, stop.warmup, true, emit);
    return {};
  }
  std::vector<std::optional<Result>> pooled(plan.size());
  const Emit into_pool = [&](std::size_t planned, Result r) {
    pool(pooled[planned], std::move(r));
  };
  // Every result still able to run: one that could not is not tried again.
  const auto runnable = [&] {
    std::vector<std::size_t> left;
    for (std::size_t i = 0; i < plan.size(); ++i) {
      if (!pooled[i] || pooled[i]->ran()) left.push_back(i);
    }
    return left;
  };
  Rounds rounds;
  const auto start = std::chrono::steady_clock::now();
  run_round(plan, runnable(), stop.repeat, stop.warmup, false, into_pool);
  rounds.round_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rounds.round_over_budget = rounds.round_seconds > stop.budget_s;
  rounds.rounds = rounds_in_budget(stop, rounds.round_seconds);
  for (int round = 2; round <= rounds.rounds; ++round) {
    if (on_round) on_round(round, rounds.rounds);
    run_round(plan, runnable(), stop.repeat, 0, false, into_pool);
  }
  for (std::size_t i = 0; i < plan.size(); ++i) {
    FDBENCH_ASSERT(pooled[i].has_value());  // the first round measured every result
    finalize(*pooled[i]);
    pooled[i]->parameters["order"] =
        fmt::format("{}, in {} round{} of {} repetitions", order_text_, rounds.rounds,
                    rounds.rounds == 1 ? "" : "s", stop.repeat);
    emit(i, std::move(*pooled[i]));
  }
  return rounds;
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
                           std::vector<RepeatStop>& stopped) {
  std::vector<double> spent(running.size(), 0.0);  // each result's seconds so far
  for (bool more = true; more;) {
    more = false;
    for (std::size_t k = 0; k < running.size(); ++k) {
      Measurement& m = *running[k];
      if (m.done()) continue;
      const std::string& label = plan[window[k]].label;
      if (progress_ != nullptr) {
        progress_->repetition_started(label, started_ + k + 1, m.repetitions_run() + 1);
      }
      const auto start = std::chrono::steady_clock::now();
      runner_.run_next(running, k, label);
      spent[k] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (progress_ != nullptr) progress_->repetition_done();
      if (const auto stop = enough(m, spent[k])) {
        stopped[k] = *stop;
        m.conclude();
      }
      more = true;
    }
  }
}

void Scheduler::run_round(std::span<const PlannedResult> plan, std::span<const std::size_t> which,
                          int repeat, int warmup, bool emit_started, const Emit& emit) {
  for (std::size_t first = 0; first < which.size(); first += window_) {
    const auto window = which.subspan(first, std::min(window_, which.size() - first));
    auto running = start_window(plan, window, repeat, warmup);
    if (automatic_) {
      for (auto& m : running) m->open_ended();
    }
    // --repeat auto: a result that is never concluded ran to the ceiling.
    std::vector<RepeatStop> stopped(running.size(), RepeatStop::max_repetitions);
    const auto emit_from = [&](std::size_t k) {
      Result r = runner_.finish(running, k, plan[window[k]].label);
      stamp(plan[window[k]], r, stopped[k]);
      emit(window[k], std::move(r));
    };
    // After Ctrl-C or a hung repetition: the results with timed repetitions, cut short, and
    // the one that hung, in the plan's order.
    const auto emit_what_ran = [&] {
      std::optional<Result> hung = runner_.take_hung();
      for (std::size_t k = 0; k < running.size(); ++k) {
        if (hung && runner_.hung_index() == k) {
          stamp(plan[window[k]], *hung, RepeatStop::interrupted);
          emit(window[k], std::move(*hung));
        } else if (running[k] && (running[k]->done() || running[k]->timed_repetitions_run() > 0)) {
          if (!running[k]->done()) stopped[k] = RepeatStop::interrupted;
          emit_from(k);
        }
      }
    };
    try {
      run_window(plan, window, running, stopped);
    } catch (const Interrupted&) {
      if (emit_started) emit_what_ran();
      throw;
    } catch (const TimedOut&) {
      if (emit_started) emit_what_ran();
      throw;
    }
    for (std::size_t k = 0; k < running.size(); ++k) emit_from(k);
    started_ += running.size();
  }
}

}  // namespace fdbench
