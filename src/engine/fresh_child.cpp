// measure_in_fresh_child(): every repetition in a fresh child process that starts from the
// kernel's smallest descriptor table, so no repetition inherits a table grown before it.
// The parent only forks, collects each child's report and builds the result.
#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "engine/child_process.hpp"
#include "engine/child_report.hpp"
#include "engine/measure.hpp"
#include "engine/measurement.hpp"
#include "engine/strategies/worker_group.hpp"
#include "fdbench/error.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"
#include "platform/unavailable.hpp"

namespace fdbench {

namespace {

// Unlike a `process` worker, this child has children of its own (`process` workers, libuv's
// helper): dying on Ctrl-C at once would orphan them. So it keeps fdbench's handlers, which
// only record the signal: the workload stops early (it polls), every child is reaped on the
// way out, and the report says that the signal came. It starts from the smallest table.
constexpr ChildOptions kRepetitionChild{.keeps_interrupt_handlers = true, .smallest_table = true};

// The workload the recipe makes, if it has the facts the parent was given.
std::unique_ptr<Workload> make_as_described(const WorkloadRecipe& recipe) {
  auto work = recipe.make();
  if (const WorkloadFacts made = facts_of(*work); made != recipe.facts) {
    throw Error(
        fmt::format("the child made a {} workload of {} {} items, not the {} of {} {} "
                    "items the parent reports",
                    made.name, made.ops, to_string(made.kind), recipe.facts.name, recipe.facts.ops,
                    to_string(recipe.facts.kind)));
  }
  return work;
}

// The highest descriptor `pregrow` asks for in a child holding fds 0-2 and `channel`, or 0.
int pregrow_target(const Pregrow& pregrow, const Workload& work, int channel) {
  switch (pregrow.mode) {
    case Pregrow::Mode::automatic:  // +1 for reading FDSize afterwards
      return channel + work.fixed_descriptors() +
             static_cast<int>(work.ops()) * work.descriptors_per_item() + 2;
    case Pregrow::Mode::fd:
      return pregrow.fd;
    case Pregrow::Mode::off:
      break;
  }
  return 0;
}

// `latency`: the calls are timed; `name_threads`: their workers' thread ids are sent too
// (--kernel-trace).
void child_repetition(Channel& channel, const WorkloadRecipe& recipe, const StrategyInfo& strategy,
                      const StrategyConfig& config, const Pregrow& pregrow, bool latency,
                      bool name_threads) noexcept {
  quiet_standard_streams();
  ChildReport report;
  std::optional<CallTrace> trace;
  try {
    auto work = make_as_described(recipe);
    if (latency) {
      trace.emplace(work->ops());
      trace->name_threads(name_threads);
      work->set_trace(&*trace);
    }
    if (const int highest = pregrow_target(pregrow, *work, channel.fd()); highest > 0) {
      if (const int err = platform::grow_fd_table(highest)) {
        throw Error(fmt::format("pregrow to fd {} failed: {}", highest, errno_text(err)));
      }
    }
    report.fdsize_before = platform::fd_table_size().value_or(-1);
    Repetition rep;
    {
      StrategyConfig once = config;
      once.one_repetition = true;
      auto runner = make_strategy(strategy, once, recipe.facts.workload_kind);  // worker threads exist only from here on
      if (trace) report.shared = table_shared_now(strategy, config) ? 1 : 0;
      // A signal that came already ends the repetition before it starts; the check also
      // runs interrupted() once off the clock, so the workload's first call to it is not
      // this fresh process's first touch of its code page (a page fault, ~10 µs on a VM).
      throw_if_interrupted();
      RepetitionScope scope(*work);
      rep = runner->run(*work);
      scope.end();
    }
    report.ns = rep.ns;
    report.start_ns = rep.start_ns;
    report.tally = rep.tally;
    if (rep.usage) {
      report.counted = 1;
      report.usage = *rep.usage;
    }
    report.fdsize_after = platform::fd_table_size().value_or(-1);
    work->set_trace(nullptr);
    if (trace) {
      report.traced = trace->records().size();
      report.worker_tids = static_cast<std::int32_t>(trace->worker_tids().size());
    }
  } catch (const Interrupted& e) {  // a `process` worker or libuv's helper died of it
    report.signal = e.signal();
  } catch (const Unavailable& e) {
    report.unavailable = 1;
    std::snprintf(report.error, sizeof report.error, "%s", e.what());
  } catch (const std::exception& e) {
    std::snprintf(report.error, sizeof report.error, "%s", e.what());
  }
  if (report.signal == 0) report.signal = interrupted();
  if (report.signal != 0 || report.error[0] != '\0') report.traced = report.worker_tids = 0;
  if (channel.send(report) && report.traced != 0 &&
      channel.send_all(std::span<const CallRecord>(trace->records())) && report.worker_tids != 0) {
    channel.send_all(trace->worker_tids());
  }
}

struct ChildRun {
  ChildReport report;
  std::int64_t forked_ns = 0;    // just before the fork
  std::int64_t reported_ns = 0;  // once its report came
  std::vector<CallRecord> records;  // --latency
  std::vector<std::int32_t> worker_tids;  // --kernel-trace with --latency
};

// Runs one repetition in a fresh child and returns its report (and its call records).
ChildRun run_in_child(const WorkloadRecipe& recipe, const StrategyInfo& strategy,
                      const StrategyConfig& config, const Pregrow& pregrow, bool latency,
                      bool name_threads) {
  // The previous repetition's child closed what it held as it ended, and RCU has a grace
  // period under way or about to be for it, then callbacks to run. Waited for here, before the
  // fork (whose copying of this process gives the callbacks time to run), so the child's first
  // table growth starts from RCU at rest, as a program run alone does, and the callbacks do
  // not run inside its clock.
  if (recipe.facts.holds_descriptors) platform::settle_rcu();
  const std::int64_t forked_ns = platform::now_ns();
  ChildProcess child(
      [&](Channel& channel) {
        child_repetition(channel, recipe, strategy, config, pregrow, latency, name_threads);
      },
      kRepetitionChild);
  ChildRun run;
  run.forked_ns = forked_ns;
  ChildReport& report = run.report;
  bool reported = child.receive(report);  // passes a Ctrl-C for fdbench alone on
  run.reported_ns = platform::now_ns();
  std::string wrong;
  if (reported) wrong = implausible(report, recipe.facts.ops, platform::now_ns() - forked_ns);
  if (reported && wrong.empty() && report.traced != 0) {
    // Sized by the recipe, not by the message: a report never makes the parent allocate more.
    reported = report.traced == recipe.facts.ops;
    if (reported) {
      run.records.resize(report.traced);
      reported = child.channel().receive_all(std::span<CallRecord>(run.records));
    }
    if (reported && report.worker_tids != 0) {
      run.worker_tids.resize(static_cast<std::size_t>(report.worker_tids));
      reported = child.channel().receive_all(std::span<std::int32_t>(run.worker_tids));
    }
  }
  const ChildExit end = child.wait();
  if (end.signal == SIGINT || end.signal == SIGTERM) throw Interrupted(end.signal);
  if (end.signal != 0) {
    throw Error(fmt::format("a worker process was killed by signal {} ({})", end.signal,
                            strsignal(end.signal)));
  }
  throw_if_interrupted();  // the report, if any, is of a repetition cut short
  if (!reported) {
    throw Error(fmt::format("a worker process exited (status {}) without reporting", end.code));
  }
  if (!wrong.empty()) {
    throw Error("a repetition's child process sent an implausible report (" + wrong +
                "); nothing of it was kept");
  }
  if (report.signal != 0) throw Interrupted(report.signal);  // the child alone got one
  return run;
}

}  // namespace

std::string implausible(ChildReport& report, std::uint64_t ops, std::int64_t lived_ns) {
  report.error[sizeof report.error - 1] = '\0';
  if (report.signal != 0 && report.signal != SIGINT && report.signal != SIGTERM) {
    return fmt::format("signal {}", report.signal);
  }
  if (report.shared != 0 && report.shared != 1) return fmt::format("shared {}", report.shared);
  if (report.unavailable != 0 && report.unavailable != 1) {
    return fmt::format("unavailable {}", report.unavailable);
  }
  if (report.counted != 0 && report.counted != 1) return fmt::format("counted {}", report.counted);
  if (report.traced > ops) return fmt::format("{} call records for {} items", report.traced, ops);
  if (report.worker_tids < 0 || static_cast<std::size_t>(report.worker_tids) > kMaxCallWorkers ||
      (report.worker_tids != 0 && report.traced == 0)) {
    return fmt::format("{} workers' thread ids with {} call records", report.worker_tids,
                       report.traced);
  }
  if (report.error[0] != '\0' || report.signal != 0) return {};  // no sample to check
  if (report.ns <= 0 || report.ns > lived_ns) {
    return fmt::format("a repetition of {} ns in a child that lived {} ns", report.ns, lived_ns);
  }
  const Tally& t = report.tally;
  if (t.failures > ops) return fmt::format("{} failed calls of {}", t.failures, ops);
  std::uint64_t counted = 0;
  for (const auto n : t.by_errno) counted += n;
  if (counted != t.failures || (t.failures != 0 && t.first_errno <= 0)) {
    return fmt::format("{} failed calls, {} counted by errno", t.failures, counted);
  }
  if (report.fdsize_before < -1 || report.fdsize_after < -1 ||
      (report.fdsize_before > 0 && report.fdsize_after >= 0 &&
       report.fdsize_after < report.fdsize_before)) {
    return fmt::format("descriptor table {} → {}", report.fdsize_before, report.fdsize_after);
  }
  return {};
}

WorkloadRecipe open_workload_recipe(OpenSpec spec) {
  FDBENCH_ASSERT(spec.paths != nullptr);
  spec.dir_fd = -1;  // the child holds only fds 0-2: it opens the directory itself
  const std::uint64_t files = spec.paths->size();
  return {{"open", DescriptorKind::file, files, 1, "files", spec.keep_open, WorkloadKind::open,
           ItemSpec::Op::open_file},
          [spec] { return make_open_workload(spec); }};
}

WorkloadRecipe socket_workload_recipe(SocketKind kind, std::size_t count) {
  return {{"socket", kind, count, kind == SocketKind::pipe ? 2 : 1, "fds", true,
           WorkloadKind::create, item_op(kind)},
          [kind, count] { return make_socket_workload(kind, count); }};
}

WorkloadRecipe accept_workload_recipe(AcceptKind kind, std::size_t connections, int listeners) {
  return {{"accept", kind, connections, 1, "connections", true, WorkloadKind::accept,
           ItemSpec::Op::accept_connection},
          [kind, connections, listeners] {
            return make_accept_workload(kind, connections, listeners);
          }};
}

namespace {

// Each repetition in a fresh child; the parent keeps what the children report.
class FreshChildMeasurement final : public Measurement {
 public:
  FreshChildMeasurement(const WorkloadRecipe& work, const StrategyInfo& strategy,
                        const StrategyConfig& config, const Pregrow& pregrow, int repeat,
                        int warmup, const MeasureExtras& extras)
      : Measurement(base_result(work.facts, strategy, config, pregrow, repeat, warmup), repeat,
                    warmup),
        work_(work),
        strategy_(strategy),
        config_(config),
        pregrow_(pregrow),
        traced_(extras.latency) {
    if (const auto reason = unavailable_reason(strategy, config, work.facts.op); !reason.empty()) {
      stop(Status::unavailable, std::string(reason));
      return;
    }
    if (traced_) latency_.emplace(work.facts, strategy, extras.on_calls);
    trace_kernel(extras, true);
  }

 private:
  void repetition(bool timed) override {
    ChildRun run;
    kernel_before();
    try {
      run = run_in_child(work_, strategy_, config_, pregrow_, traced_, kernel_traced());
    } catch (const ForkFailed& e) {  // EAGAIN at a limit on processes: not here
      return stop(Status::unavailable,
                  cannot_create("the repetition's fresh child process", e.err()).what());
    } catch (const Error& e) {  // the child died, or sent what cannot be a sample
      return stop(Status::failed, e.what());
    }
    const ChildReport& report = run.report;
    if (report.error[0] != '\0') {
      return stop(report.unavailable != 0 ? Status::unavailable : Status::failed, report.error);
    }
    // A clock that did not start while the child lived is not placed among the records.
    const bool placed = report.start_ns >= run.forked_ns && report.start_ns <= run.reported_ns;
    kernel_after(timed, placed ? report.start_ns : 0, report.ns);
    if (!timed) return;  // failures are counted where times are
    total_.merge(report.tally);
    r_.times_ns.push_back(report.ns);
    record_usage(report.counted != 0 ? std::optional<TimedRegion>(report.usage) : std::nullopt);
    if (latency_) {
      const std::optional<int> before =
          report.fdsize_before >= 0 ? std::optional<int>(report.fdsize_before) : std::nullopt;
      const auto kernel = kernel_calls(run.worker_tids);
      latency_->add(run.records, report.ns, before, report.shared != 0,
                    kernel ? &*kernel : nullptr);
    }
    if (!r_.fdsize_before) {  // every child starts alike; keep the first timed one's sizes
      if (report.fdsize_before >= 0) r_.fdsize_before = report.fdsize_before;
      if (report.fdsize_after >= 0) r_.fdsize_after = report.fdsize_after;
    }
  }

  const WorkloadRecipe& work_;
  const StrategyInfo& strategy_;
  StrategyConfig config_;
  Pregrow pregrow_;
  bool traced_;
};

}  // namespace

std::unique_ptr<Measurement> fresh_child_measurement(const WorkloadRecipe& work,
                                                     const StrategyInfo& strategy,
                                                     const StrategyConfig& config,
                                                     const Pregrow& pregrow, int repeat, int warmup,
                                                     const MeasureExtras& extras) {
  return std::make_unique<FreshChildMeasurement>(work, strategy, config, pregrow, repeat, warmup,
                                                 extras);
}

Result measure_in_fresh_child(const WorkloadRecipe& work, const StrategyInfo& strategy,
                              const StrategyConfig& config, const Pregrow& pregrow, int repeat,
                              int warmup, const MeasureExtras& extras) {
  return fresh_child_measurement(work, strategy, config, pregrow, repeat, warmup, extras)
      ->run_all();
}

}  // namespace fdbench
