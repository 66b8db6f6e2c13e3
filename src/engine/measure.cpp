// measure(): a set of repetitions in this process, and what every result is filled in with.
#include "engine/measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <new>
#include <optional>
#include <system_error>

#include "common/errors.hpp"
#include "engine/measurement.hpp"
#include "model/format.hpp"
#include "fdbench/error.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"
#include "platform/unavailable.hpp"

namespace fdbench {

namespace {

std::string describe_fds(const std::vector<int>& fds) {
  std::string text;
  for (const int fd : fds) text += (text.empty() ? "" : ",") + std::to_string(fd);
  return text;
}

}  // namespace

LatencyRecording::LatencyRecording(const WorkloadFacts& work, const StrategyInfo& strategy,
                                   CallsDone on_calls)
    : collector_(std::string(to_string(work.workload_kind)), !work.holds_descriptors),
      on_calls_(std::move(on_calls)),
      not_recorded_(strategy.latency_not_recorded) {}

void LatencyRecording::add(std::span<const CallRecord> records, std::int64_t ns,
                           std::optional<int> fdsize_before, bool shared,
                           const KernelCalls* kernel) {
  ++repetitions_;
  const bool any = std::any_of(records.begin(), records.end(),
                               [](const CallRecord& c) { return c.create_ns >= 0; });
  if (!any && !records.empty()) recorded_ = false;
  if (!recorded_) return;
  collector_.add(records, ns, fdsize_before.value_or(0), shared, kernel);
  if (on_calls_) on_calls_(repetitions_ - 1, records);
}

void LatencyRecording::store(Result& r) const {
  if (repetitions_ == 0) return;
  if (!recorded_) {  // said in the parameters: with --latency on by default it is no warning
    r.parameters["latency"] =
        "not recorded: " + std::string(!not_recorded_.empty()
                                           ? not_recorded_
                                           : "the strategy makes its calls where none is timed");
    return;
  }
  r.latency = collector_.finish();
  if (per_submission(*r.latency)) r.parameters["latency"] = per_submission_note(r.config.batch);
}

bool table_shared_now(const StrategyInfo& strategy, const StrategyConfig& config) {
  if (strategy.fd_table != FdTable::shared) return false;
  if (const auto threads = platform::thread_count()) return *threads > 1;
  return strategy.runnable_threads(config) > 1;
}

WorkloadKind workload_kind_of(ItemSpec::Op op) {
  switch (op) {
    case ItemSpec::Op::open_file:
      return WorkloadKind::open;
    case ItemSpec::Op::accept_connection:
      return WorkloadKind::accept;
    default:
      return WorkloadKind::create;
  }
}

WorkloadFacts facts_of(const Workload& work) {
  const ItemSpec::Op op = work.spec().op;
  return {std::string(work.name()),
          work.kind(),
          work.ops(),
          work.descriptors_per_item(),
          std::string(work.unit()),
          work.holds_descriptors(),
          workload_kind_of(op),
          op};
}

Result base_result(const WorkloadFacts& work, const StrategyInfo& strategy,
                   const StrategyConfig& config, const Pregrow& pregrow, int repeat, int warmup) {
  Result r;
  r.workload = work.name;
  r.config.strategy = std::string(strategy.name);
  r.config.threads = config.threads;
  r.runnable_threads = strategy.runnable_threads(config);
  r.config.batch = strategy.uses_batch() ? config.batch : 1;
  r.batch_unit = strategy.batch_unit;
  r.config.kind = work.kind;
  r.config.pregrow = pregrow;
  r.ops = work.ops * static_cast<std::uint64_t>(work.descriptors_per_item);
  r.repeat = repeat;
  r.warmup = warmup;
  r.workers = strategy.workers;
  r.fd_table = strategy.fd_table;
  r.reference = strategy.reference;
  r.holds_descriptors = work.holds_descriptors;
  r.unit = work.unit;
  r.workload_kind = work.workload_kind;
  r.recommendable = strategy.recommendable;
  r.config.harness = config.harness;
  if (!strategy.dispatch.empty()) r.parameters["dispatch"] = std::string(strategy.dispatch);
  if (strategy.uses_batch()) {
    r.parameters["batch"] = std::to_string(config.batch);
    r.parameters["batch_means"] = std::string(strategy.batch_means);
  }
  if (strategy.parameters) r.parameters.merge(strategy.parameters(config, work.holds_descriptors));
  return r;
}

void record_failures(Result& r, const Tally& tally) {
  if (tally.not_regular > 0) {
    r.warn(WarningKind::other,
           fmt::format("{} {} no regular file where the scan had found one (a FIFO, socket or "
                       "device put there since): each closed at once, unused; the files changed "
                       "during the run",
                       group_digits(tally.not_regular),
                       tally.not_regular == 1 ? "open found" : "opens found"));
  }
  r.failures = tally.failures;
  if (tally.failures == 0) return;
  r.first_failure = errno_text(tally.first_errno);
  for (int err = 0; err < Tally::kErrnoSlots; ++err) {
    if (const auto n = tally.by_errno[static_cast<std::size_t>(err)]; n != 0) {
      add_failures(r.failures_by_errno, err == Tally::kErrnoSlots - 1 ? -1 : err, n);
    }
  }
}

void check_no_leak(Result& r, const std::vector<int>& before) {
  const auto after = platform::open_descriptors();
  if (after == before) return;
  r.warn(WarningKind::leak, fmt::format("descriptor leak: held {{{}}} before the run, {{{}}} after",
                                        describe_fds(before), describe_fds(after)));
#ifndef NDEBUG
  std::fprintf(stderr, "fdbench: %s\n", r.warnings.back().text.c_str());
  FDBENCH_ASSERT(!"descriptor leak");
#endif
}

Measurement::Measurement(Result base, int repeat, int warmup)
    : r_(base), base_(std::move(base)), repeat_(repeat), warmup_(warmup) {}

std::string Measurement::next_repetition_text() const {
  const int next = next_.load();
  if (next < warmup_) return fmt::format("warm-up repetition {} of {}", next + 1, warmup_);
  if (open_ended_) return fmt::format("repetition {}", next - warmup_ + 1);
  return fmt::format("repetition {} of {}", next - warmup_ + 1, repeat_.load());
}

void Measurement::conclude() {
  FDBENCH_ASSERT(timed_repetitions_run() > 0);
  repeat_ = timed_repetitions_run();
  r_.repeat = repeat_;
}

Result Measurement::so_far() const {
  Result r = r_;
  finalize(r);
  return r;
}

Result Measurement::hung(Status status, std::string what) const {
  Result r = base_;
  r.status = status;
  r.error = std::move(what);
  finalize(r);
  return r;
}

void Measurement::run_next() {
  FDBENCH_ASSERT(!done());
  throw_if_interrupted();
  // Taken at the first repetition, when every measurement a Session interleaves with this
  // one exists: what they hold (an open workload's directory) is no leak of this one.
  if (!held_before_) held_before_ = platform::open_descriptors();
  repetition(next_ >= warmup_);
  if (stopped_) return;
  ++next_;
}

void Measurement::record_usage(const std::optional<TimedRegion>& usage) {
  if (!usage) counted_ = false;
  if (counted_) {
    r_.timed_region_samples.push_back(*usage);
  } else {
    r_.timed_region_samples.clear();  // some repetitions alone would make a misleading median
  }
}

void Measurement::trace_kernel(const MeasureExtras& extras, bool in_child) {
  if (!extras.kernel.asked) return;
  kernel_.emplace();
  kernel_->tracer = extras.kernel.tracer;
  kernel_->unavailable = extras.kernel.unavailable;
  kernel_->in_child = in_child;
}

void Measurement::kernel_before() {
  if (!kernel_ || kernel_->tracer == nullptr) return;
  if (!kernel_->attribution) {
    // The harness's threads, bar this one: it runs the repetitions (worker 0 of `threads`).
    MeasuringThreads who{.own_pid = platform::process_id(),
                         .in_child = kernel_->in_child,
                         .harness = kernel_->tracer->threads_at_start()};
    std::erase(who.harness, platform::thread_id());
    kernel_->attribution.emplace(std::move(who), platform::kernel_symbol);
    kernel_->attribution->keep_spans(latency_.has_value());
  }
  kernel_->attribution->before(kernel_->tracer->drain());
  kernel_->steal_before = platform::steal_time_ns();
}

void Measurement::kernel_after(bool timed, std::int64_t start_ns, std::int64_t ns) {
  if (!kernel_ || kernel_->tracer == nullptr || !kernel_->attribution) return;
  platform::KernelRecords records = kernel_->tracer->drain();
  kernel_->spans.reset();
  if (!timed) return kernel_->attribution->before(records);
  if (start_ns <= 0) {
    kernel_->every_repetition = false;
    return kernel_->attribution->before(records);
  }
  KernelSample sample = kernel_->attribution->during(records, start_ns, start_ns + ns);
  const auto steal_after = platform::steal_time_ns();
  if (kernel_->steal_before && steal_after) sample.steal_ns = *steal_after - *kernel_->steal_before;
  if (sample.complete && latency_) kernel_->spans = std::move(sample.spans);
  sample.spans = {};
  kernel_->samples.push_back(std::move(sample));
}

std::optional<KernelCalls> Measurement::kernel_calls(
    std::span<const std::int32_t> worker_tids) const {
  if (!kernel_traced() || !kernel_->spans || worker_tids.empty()) return std::nullopt;
  return KernelCalls{&*kernel_->spans, worker_tids};
}

void Measurement::stop(Status status, std::string error) {
  r_.status = status;
  r_.error = std::move(error);
  r_.times_ns.clear();
  r_.timed_region_samples.clear();
  stopped_ = true;
}

Result Measurement::run_all() {
  while (!done()) run_next();
  return finish();
}

Result Measurement::finish() {
  release();
  if (!done()) {
    r_.status = Status::cut_short;
    // A fixed count keeps the planned one, which the warning compares with; auto has none.
    if (open_ended_) r_.repeat = static_cast<int>(r_.times_ns.size());
    r_.warn(WarningKind::cut_short,
            open_ended_ ? fmt::format("interrupted after {} timed repetitions (--repeat auto)",
                                      r_.times_ns.size())
                        : fmt::format("interrupted: {} of {} timed repetitions ran",
                                      r_.times_ns.size(), repeat_.load()));
  }
  if (latency_ && r_.ran()) latency_->store(r_);
  if (kernel_ && (r_.ran() || !kernel_->tracer)) {
    KernelEvidence& k = r_.kernel.emplace();
    if (!kernel_->tracer) {
      k.reason = kernel_->unavailable;
    } else if (!kernel_->every_repetition) {
      k.reason = "a repetition's clock could not be placed among the kernel's records";
    } else if (!kernel_->samples.empty()) {
      k = summarize_kernel(kernel_->samples, kernel_->tracer->punts_not_counted().empty());
      k.steal_reported = platform::steal_time_ns().value_or(0) > 0;
    } else {
      k.reason = "no timed repetition was traced";
    }
  }
  record_failures(r_, total_);
  if (held_before_ && check_leaks_) check_no_leak(r_, *held_before_);
  finalize(r_);
  return std::move(r_);
}

namespace {

// The workload's repetitions in this process, its workers kept or made per repetition.
class InProcessMeasurement final : public Measurement {
 public:
  InProcessMeasurement(Workload& work, std::unique_ptr<Workload> owned,
                       const StrategyInfo& strategy, const StrategyConfig& config, int repeat,
                       int warmup, const MeasureExtras& extras, Workers workers)
      // In-process repetitions never pre-grow: the table they grew stays grown for the next.
      : Measurement(base_result(facts_of(work), strategy, config, Pregrow{}, repeat, warmup),
                    repeat, warmup),
        owned_(std::move(owned)),
        work_(work),
        strategy_(strategy),
        config_(config),
        workers_(workers) {
    if (const auto reason = unavailable_reason(strategy, config, facts_of(work).op);
        !reason.empty()) {
      stop(Status::unavailable, std::string(reason));
      return;
    }
    r_.fdsize_before = platform::fd_table_size();
    trace_kernel(extras, false);
    if (extras.latency) {
      trace_.emplace(work.ops());
      trace_->name_threads(kernel_traced());
      latency_.emplace(facts_of(work), strategy, extras.on_calls);
      work_.set_trace(&*trace_);
    }
  }
  InProcessMeasurement(const InProcessMeasurement&) = delete;
  InProcessMeasurement& operator=(const InProcessMeasurement&) = delete;
  ~InProcessMeasurement() override {
    runner_.reset();
    work_.set_trace(nullptr);
  }

 private:
  void repetition(bool timed) override {
    try {
      if (!runner_) {
        runner_ = make_strategy(strategy_, config_, facts_of(work_).workload_kind);
        shared_ = trace_ && table_shared_now(strategy_, config_);
        // Workers made for this repetition alone first do the work once untimed, as a
        // sequential run's warm-up does for the workers it keeps: a new io_uring ring's first
        // submissions, say, are not what the repetition measures.
        if (workers_ == Workers::per_repetition) run_once(false);
      }
      run_once(timed);
      if (workers_ == Workers::per_repetition) runner_.reset();
    } catch (const Interrupted&) {
      // Workers made for this repetition alone go with it however it ends: the results it
      // interleaves with are finished, their descriptors checked, while this one waits to be
      // (or, with no timed repetition yet, is never finished at all).
      if (workers_ == Workers::per_repetition) runner_.reset();
      throw;
    } catch (const std::system_error& e) {  // e.g. EAGAIN creating the 1,000th thread
      runner_.reset();
      stop(Status::failed, fmt::format("could not start {} with {} threads: {}", strategy_.name,
                                       config_.threads, e.what()));
    } catch (const std::bad_alloc&) {  // ulimit -v: this result fails, the run goes on
      runner_.reset();
      stop(Status::failed, platform::out_of_memory_text("while measuring"));
    } catch (const Unavailable& e) {  // the strategy cannot do this workload here
      runner_.reset();
      stop(Status::unavailable, e.what());
    } catch (const Error& e) {  // it started and broke: a worker died, a ring failed
      runner_.reset();
      throw_if_interrupted();  // ... unless a Ctrl-C killed its workers
      stop(Status::failed, e.what());
    }
  }

  // One repetition on the workers there are; its failures count, its time only if `timed`.
  void run_once(bool timed) {
    RepetitionScope scope(work_);
    std::optional<int> fdsize;
    if (trace_) {
      trace_->reset();
      fdsize = platform::fd_table_size();
    }
    kernel_before();
    const Repetition rep = runner_->run(work_);
    scope.end();
    throw_if_interrupted();  // a repetition cut short by Ctrl-C is no sample
    kernel_after(timed, rep.start_ns, rep.ns);
    if (!timed) return;      // failures are counted where times are: an untimed pass is neither
    total_.merge(rep.tally);
    r_.times_ns.push_back(rep.ns);
    record_usage(rep.usage);
    if (latency_) {
      const auto kernel = kernel_calls(trace_->worker_tids());
      latency_->add(trace_->records(), rep.ns, fdsize, shared_, kernel ? &*kernel : nullptr);
    }
  }

  void release() override {
    runner_.reset();
    work_.set_trace(nullptr);
    r_.fdsize_after = platform::fd_table_size();
  }

  std::unique_ptr<Workload> owned_;  // declared first: destroyed after what uses it
  Workload& work_;
  const StrategyInfo& strategy_;
  StrategyConfig config_;
  Workers workers_;
  std::optional<CallTrace> trace_;
  std::unique_ptr<Strategy> runner_;
  bool shared_ = false;  // --latency: the table was shared while the workers ran
};

// A combination planned but never run (its descriptors do not fit under the hard limit): its
// result is unavailable and says why, so that its row and the findings tell what was left out.
class SkippedMeasurement final : public Measurement {
 public:
  SkippedMeasurement(Result base, int repeat, int warmup, std::string why)
      : Measurement(std::move(base), repeat, warmup) {
    stop(Status::unavailable, std::move(why));
  }

 private:
  void repetition(bool /*timed*/) override { FDBENCH_ASSERT(!"a skipped combination never runs"); }
};

}  // namespace

std::unique_ptr<Measurement> skipped_measurement(const WorkloadFacts& work,
                                                 const StrategyInfo& strategy,
                                                 const StrategyConfig& config,
                                                 const Pregrow& pregrow, int repeat, int warmup,
                                                 std::string why) {
  return std::make_unique<SkippedMeasurement>(
      base_result(work, strategy, config, pregrow, repeat, warmup), repeat, warmup, std::move(why));
}

std::unique_ptr<Measurement> in_process_measurement(Workload& work, const StrategyInfo& strategy,
                                                    const StrategyConfig& config, int repeat,
                                                    int warmup, const MeasureExtras& extras,
                                                    Workers workers) {
  return std::make_unique<InProcessMeasurement>(work, nullptr, strategy, config, repeat, warmup,
                                                extras, workers);
}

std::unique_ptr<Measurement> in_process_measurement(std::unique_ptr<Workload> work,
                                                    const StrategyInfo& strategy,
                                                    const StrategyConfig& config, int repeat,
                                                    int warmup, const MeasureExtras& extras,
                                                    Workers workers) {
  Workload& made = *work;
  return std::make_unique<InProcessMeasurement>(made, std::move(work), strategy, config, repeat,
                                                warmup, extras, workers);
}

Result measure(Workload& work, const StrategyInfo& strategy, const StrategyConfig& config,
               int repeat, int warmup, const MeasureExtras& extras) {
  return in_process_measurement(work, strategy, config, repeat, warmup, extras, Workers::kept)
      ->run_all();
}

}  // namespace fdbench
