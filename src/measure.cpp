// measure(): a set of repetitions in this process, and what every result is filled in with.
#include "fdbench/measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <system_error>

#include "fdbench/error.hpp"
#include "fdbench/interrupt.hpp"
#include "fdbench/platform.hpp"
#include "measurement.hpp"

namespace fdbench {

namespace {

std::string describe_fds(const std::vector<int>& fds) {
  std::string text;
  for (const int fd : fds) text += (text.empty() ? "" : ",") + std::to_string(fd);
  return text;
}

// Points the workload at a trace for the scope's life, and away from it after.
class TraceScope {
 public:
  TraceScope(Workload& work, CallTrace* trace) : work_(work) { work_.set_trace(trace); }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;
  ~TraceScope() { work_.set_trace(nullptr); }

 private:
  Workload& work_;
};

}  // namespace

LatencyRecording::LatencyRecording(const WorkloadFacts& work)
    : collector_(work.name == "open" ? "open" : "create", !work.holds_descriptors) {}

void LatencyRecording::add(std::span<const CallRecord> records, std::int64_t ns,
                           std::optional<int> fdsize_before, bool shared) {
  ++repetitions_;
  const bool any = std::any_of(records.begin(), records.end(),
                               [](const CallRecord& c) { return c.create_ns >= 0; });
  if (!any && !records.empty()) recorded_ = false;
  if (!recorded_) return;
  collector_.add(records, ns, fdsize_before.value_or(0), shared);
}

void LatencyRecording::store(Result& r) const {
  if (repetitions_ == 0) return;
  if (!recorded_) {  // said in the parameters: with --latency on by default it is no warning
    const StrategyInfo* s = find_strategy(r.strategy);
    r.parameters["latency"] =
        "not recorded: " + std::string(s != nullptr && !s->latency_not_recorded.empty()
                                           ? s->latency_not_recorded
                                           : "the strategy makes its calls where none is timed");
    return;
  }
  r.latency = collector_.finish();
  if (per_submission(*r.latency)) r.parameters["latency"] = per_submission_note(r.batch);
}

bool table_shared_now(const StrategyInfo& strategy, const StrategyConfig& config) {
  if (strategy.fd_table != FdTable::shared) return false;
  if (const auto threads = platform::thread_count()) return *threads > 1;
  return strategy.runnable_threads(config) > 1;
}

WorkloadFacts facts_of(const Workload& work) {
  return {std::string(work.name()), work.kind(),          work.ops(),
          work.descriptors_per_item(), std::string(work.unit()), work.holds_descriptors()};
}

Result base_result(const WorkloadFacts& work, const StrategyInfo& strategy,
                   const StrategyConfig& config, int repeat, int warmup) {
  Result r;
  r.workload = work.name;
  r.strategy = std::string(strategy.name);
  r.threads = config.threads;
  r.runnable_threads = strategy.runnable_threads(config);
  r.batch = strategy.uses_batch ? config.batch : 1;
  r.kind = work.kind;
  r.ops = work.ops * static_cast<std::uint64_t>(work.descriptors_per_item);
  r.repeat = repeat;
  r.warmup = warmup;
  r.workers = strategy.workers;
  r.fd_table = strategy.fd_table;
  r.reference = strategy.reference;
  r.holds_descriptors = work.holds_descriptors;
  r.unit = work.unit;
  if (!strategy.dispatch.empty()) r.parameters["dispatch"] = std::string(strategy.dispatch);
  if (strategy.uses_batch) {
    r.parameters["batch"] = std::to_string(config.batch);
    r.parameters["batch_means"] = std::string(strategy.batch_means);
  }
  if (strategy.parameters) r.parameters.merge(strategy.parameters(config, work.holds_descriptors));
  return r;
}

void record_failures(Result& r, const Tally& tally) {
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
  r.warnings.push_back(fmt::format("descriptor leak: held {{{}}} before the run, {{{}}} after",
                                   describe_fds(before), describe_fds(after)));
#ifndef NDEBUG
  std::fprintf(stderr, "fdbench: %s\n", r.warnings.back().c_str());
  FDBENCH_ASSERT(!"descriptor leak");
#endif
}

Result measure(Workload& work, const StrategyInfo& strategy, const StrategyConfig& config,
               int repeat, int warmup, const MeasureExtras& extras) {
  Result r = base_result(facts_of(work), strategy, config, repeat, warmup);
  if (const auto reason = strategy.unavailable_reason(); !reason.empty()) {
    r.error = reason;
    return r;
  }
  const auto held_before = platform::open_descriptors();
  r.fdsize_before = platform::fd_table_size();
  Tally total;
  std::optional<CallTrace> trace;
  std::optional<LatencyRecording> latency;
  if (extras.latency) {
    trace.emplace(work.ops());
    latency.emplace(facts_of(work));
  }
  const TraceScope traced(work, trace ? &*trace : nullptr);
  try {
    auto runner = strategy.make(config);
    const bool shared = trace && table_shared_now(strategy, config);
    for (int i = 0; i < warmup + repeat; ++i) {
      throw_if_interrupted();
      RepetitionScope scope(work);
      std::optional<int> fdsize;
      if (trace) {
        trace->reset();
        fdsize = platform::fd_table_size();
      }
      const Repetition rep = runner->run(work);
      scope.end();
      throw_if_interrupted();  // a repetition cut short by Ctrl-C is no sample
      total.merge(rep.tally);
      if (i >= warmup) {
        r.times_ns.push_back(rep.ns);
        if (latency) latency->add(trace->records(), rep.ns, fdsize, shared);
      }
      if (extras.on_repetition) extras.on_repetition(i + 1);
    }
    if (latency) latency->store(r);
  } catch (const std::system_error& e) {  // e.g. EAGAIN creating the 1,000th thread
    r.error = fmt::format("could not start {} with {} threads: {}", strategy.name, config.threads,
                          e.what());
    r.times_ns.clear();
  } catch (const Error& e) {  // the strategy cannot do this workload here
    throw_if_interrupted();   // ... unless a Ctrl-C killed its workers
    r.error = e.what();
    r.times_ns.clear();
  }
  r.fdsize_after = platform::fd_table_size();
  record_failures(r, total);
  check_no_leak(r, held_before);
  finalize(r);
  return r;
}

}  // namespace fdbench
