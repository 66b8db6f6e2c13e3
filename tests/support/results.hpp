#pragma once
// Hand-built Results and Environments for the unit tests (findings, reporters, the results
// reader): a fluent builder that starts from a workload, a strategy and a thread count, sets
// only what a test relies on, and fills the properties and statistics as the runner does.
//
//   const Result r = ResultBuilder::socket("threads", 2).pregrow("off").ops(512)
//                        .each_took(20'000'000, 3).fdsize(64, 512);
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "model/context.hpp"
#include "model/environment.hpp"
#include "model/result.hpp"

namespace fdbench::testing {

class ResultBuilder {
 public:
  // `open`: files opened (and closed) by `strategy` with `threads`; kind "file".
  static ResultBuilder open(std::string strategy, int threads) {
    return ResultBuilder("open", std::move(strategy), threads, "file");
  }
  // `socket`: descriptors of `kind` created and held by `strategy` with `threads`.
  static ResultBuilder socket(std::string strategy, int threads, std::string kind = "tcp") {
    return ResultBuilder("socket", std::move(strategy), threads, std::move(kind));
  }

  ResultBuilder& batch(int items) {
    r_.batch = items;
    return *this;
  }
  // "off", "auto" or a descriptor number, as --pregrow takes it.
  ResultBuilder& pregrow(std::string_view label) {
    if (!parse_pregrow(label, r_.pregrow)) throw std::invalid_argument("pregrow: bad label");
    return *this;
  }
  ResultBuilder& rcu_expedited(int value) {
    r_.rcu_expedited = value;
    return *this;
  }
  ResultBuilder& harness(Harness measured_with) {
    r_.harness = measured_with;
    return *this;
  }
  ResultBuilder& ops(std::uint64_t per_repetition) {
    r_.ops = per_repetition;
    return *this;
  }
  ResultBuilder& warmup(int repetitions) {
    r_.warmup = repetitions;
    return *this;
  }
  // The timed repetitions, in the order they ran; `repeat` is their number.
  ResultBuilder& times(std::vector<std::int64_t> ns) {
    r_.repeat = static_cast<int>(ns.size());
    r_.times_ns = std::move(ns);
    return *this;
  }
  // `repeat` repetitions that took `ns` each.
  ResultBuilder& each_took(std::int64_t ns, int repeat) {
    return times(std::vector<std::int64_t>(static_cast<std::size_t>(repeat), ns));
  }
  // Measured with --repeat auto aiming for ±`precision`, its repetitions stopped by `stopped`.
  ResultBuilder& auto_repeat(double precision, double max_time_s, RepeatStop stopped) {
    r_.auto_repeat = AutoRepeat{precision, max_time_s, stopped};
    return *this;
  }
  ResultBuilder& fdsize(std::optional<int> before, std::optional<int> after) {
    r_.fdsize_before = before;
    r_.fdsize_after = after;
    return *this;
  }
  // `count` failed calls, all with errno `err`.
  ResultBuilder& failed(std::uint64_t count, int err) { return failed({{err, count}}, err); }
  // Failed calls by errno value (-1: not counted one by one); `first` is the first one's.
  ResultBuilder& failed(const std::map<int, std::uint64_t>& by_errno, int first) {
    r_.failures = 0;
    r_.failures_by_errno.clear();
    for (const auto& [err, n] : by_errno) {
      add_failures(r_.failures_by_errno, err, n);
      r_.failures += n;
    }
    r_.first_failure = errno_text(first);
    return *this;
  }
  ResultBuilder& parameters(std::map<std::string, std::string> values) {
    r_.parameters = std::move(values);
    return *this;
  }
  ResultBuilder& input(InputSummary summary) {
    r_.input = std::move(summary);
    return *this;
  }
  // What the strategy and the workload are (a registered strategy's are filled in already).
  ResultBuilder& workers(WorkerKind kind) {
    r_.workers = kind;
    return *this;
  }
  ResultBuilder& fd_table(FdTable table) {
    r_.fd_table = table;
    return *this;
  }
  ResultBuilder& reference(bool is_reference) {
    r_.reference = is_reference;
    return *this;
  }
  ResultBuilder& holds_descriptors(bool holds) {
    r_.holds_descriptors = holds;
    return *this;
  }
  ResultBuilder& warnings(std::vector<Warning> list) {
    r_.warnings = std::move(list);
    return *this;
  }
  // Ctrl-C came after these repetitions, of `repeat` asked for.
  ResultBuilder& cut_short(int repeat) {
    r_.status = Status::cut_short;
    r_.warn(WarningKind::cut_short, std::to_string(r_.times_ns.size()) + " of " +
                                        std::to_string(repeat) + " timed repetitions ran");
    r_.repeat = repeat;
    return *this;
  }
  // What each timed repetition's region took, as a measurement records it (finalize() makes
  // the medians).
  ResultBuilder& timed_regions(std::vector<TimedRegion> per_repetition) {
    r_.timed_region_samples = std::move(per_repetition);
    return *this;
  }
  // The medians alone, as a document read back has them.
  ResultBuilder& kernel(KernelEvidence evidence) {
    r_.kernel = std::move(evidence);
    return *this;
  }
  ResultBuilder& timed_region(TimedRegion medians) {
    r_.timed_region = medians;
    return *this;
  }
  // Stalls by cause left out read as a document before schema 9 does: the listed ones'.
  ResultBuilder& latency(Latency measured) {
    if (measured.stall_causes.empty()) measured.stall_causes = causes_of(measured.stalls);
    r_.latency = std::move(measured);
    return *this;
  }
  // The combination could not run here: `repeat` repetitions were asked for, none ran.
  ResultBuilder& unavailable(std::string error, int repeat) {
    return ended(Status::unavailable, std::move(error), repeat);
  }
  // It ended with `status` (failed, timed_out, hung) and why: no repetition kept.
  ResultBuilder& ended(Status status, std::string error, int repeat) {
    r_.status = status;
    r_.error = std::move(error);
    r_.repeat = repeat;
    r_.times_ns.clear();
    return *this;
  }

  // The Result, its statistics and rate filled from the samples.
  [[nodiscard]] Result build() const {
    Result r = r_;
    if (r.workload == "open" && !r.input) {  // the runner records every open result's input
      r.input = InputSummary{};
      r.input->files = r.ops;
    }
    finalize(r);
    return r;
  }
  operator Result() const { return build(); }  // NOLINT(google-explicit-constructor)

 private:
  ResultBuilder(std::string workload, std::string strategy, int threads, std::string kind) {
    r_.workload = std::move(workload);
    r_.strategy = std::move(strategy);
    r_.threads = threads;
    r_.runnable_threads = threads;
    r_.kind = std::move(kind);
    // What the runner records of the workload and, for a registered strategy, of the
    // strategy; an unknown name keeps the defaults (a strategy added later, or another build's).
    r_.unit = r_.workload == "open" ? "files" : "fds";
    r_.holds_descriptors = r_.workload == "socket";
    r_.workload_kind = r_.workload == "open" ? WorkloadKind::open : WorkloadKind::create;
    if (const StrategyInfo* info = find_strategy(r_.strategy)) {
      r_.workers = info->workers;
      r_.fd_table = info->fd_table;
      r_.reference = info->reference;
      r_.batch_unit = info->batch_unit;
      r_.recommendable = info->recommendable;
      r_.runnable_threads = info->runnable_threads({threads, r_.batch});
    }
  }
  Result r_;
};

// Nine repetitions around `ns` (±1%, in steps of a quarter percent): a 95% median interval of
// about ±1% of it, so that results 2% apart are separated and results 0.5% apart are not.
inline ResultBuilder around(ResultBuilder b, std::int64_t ns) {
  std::vector<std::int64_t> times;
  for (int i = -4; i <= 4; ++i) times.push_back(ns + ns / 400 * i);
  return std::move(b.ops(10000).times(times));
}

// A Linux host with every field set, the Linux-only ones included.
inline Environment linux_environment() {
  Environment env;
  env.os = "Linux";
  env.kernel = "6.1.0-test";
  env.cpu_model = "Test CPU @ 1.00GHz";
  env.logical_cpus = 8;
  env.fs_type = "tmpfs";
  env.rlimit_nofile = {1024, 524288};
  env.fdsize_at_start = 64;
  env.io_uring_disabled = 0;
  env.rcu_expedited = 1;
  return env;
}

// A run's context as a Linux machine with PSI records it, fixed for tests.
inline RunContext run_context() {
  RunContext c;
  c.date = "2026-12-05T09:14:03Z";
  c.host = "testhost";
  c.command_line = {"fdbench", "open", "--dir", "/tmp/a b", "--format", "json"};
  c.user = 1000;
  c.load_before = LoadSnapshot{LoadAverages{0.5, 0.25, 0.125},
                               CpuPressure{1.5, 0.75, 123456}};
  c.load_after = LoadSnapshot{LoadAverages{1.5, 0.5, 0.25},
                              CpuPressure{12.25, 3.5, 234567}};
  return c;
}

// --kernel-trace's medians for one result: `threads` over `window_ns`, off their CPU as given
// by cause (the total their sum), `at_edges` of it waiting to start or done.
inline KernelEvidence traced_kernel(
    int threads, std::int64_t window_ns,
    const std::vector<std::pair<OffCpuCause, std::int64_t>>& off_cpu,
    const std::vector<std::pair<OffCpuCause, std::int64_t>>& at_edges = {}) {
  KernelEvidence k;
  k.available = true;
  k.repetitions = 5;
  k.threads = threads;
  k.window_ns = window_ns;
  for (const auto& [cause, ns] : off_cpu) {
    k.off_cpu[static_cast<std::size_t>(cause)] = ns;
    k.off_cpu_ns += ns;
  }
  for (const auto& [cause, ns] : at_edges) {
    k.at_edges[static_cast<std::size_t>(cause)] = ns;
    k.at_edges_ns += ns;
  }
  k.switches = 40;
  return k;
}

}  // namespace fdbench::testing
