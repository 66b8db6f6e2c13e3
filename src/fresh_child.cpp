// measure_in_fresh_child(): every repetition in a fresh child process that starts from the
// kernel's smallest descriptor table, so no repetition inherits a table grown before it.
// The parent only forks, collects each child's report and builds the result.
#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <utility>

#include "child_process.hpp"
#include "fdbench/error.hpp"
#include "fdbench/interrupt.hpp"
#include "fdbench/measure.hpp"
#include "fdbench/platform.hpp"
#include "measurement.hpp"

namespace fdbench {

namespace {

// Fixed-size message from a child repetition to the parent.
struct ChildReport {
  std::int64_t ns = 0;
  std::int32_t fdsize_before = -1;
  std::int32_t fdsize_after = -1;
  Tally tally;
  std::int32_t signal = 0;  // SIGINT or SIGTERM stopped the repetition: it is no sample
  char error[240] = {};
};

// Unlike a `process` worker, this child has children of its own (`process` workers, libuv's
// helper): dying on Ctrl-C at once would orphan them. So it keeps fdbench's handlers, which
// only record the signal: the workload stops early (it polls), every child is reaped on the
// way out, and the report says that the signal came. It starts from the smallest table.
constexpr ChildOptions kRepetitionChild{.keeps_interrupt_handlers = true, .smallest_table = true};

// The workload the recipe makes, if it has the facts the parent was given.
std::unique_ptr<Workload> make_as_described(const WorkloadRecipe& recipe) {
  auto work = recipe.make();
  if (const WorkloadFacts made = facts_of(*work); made != recipe.facts) {
    throw Error(fmt::format(
        "the child made a {} workload of {} {} items, not the {} of {} {} "
        "items the parent reports",
        made.name, made.ops, made.kind, recipe.facts.name, recipe.facts.ops, recipe.facts.kind));
  }
  return work;
}

// The highest descriptor `pregrow` asks for in a child holding fds 0-2 and `channel`, or 0.
int pregrow_target(const Pregrow& pregrow, const Workload& work, int channel) {
  switch (pregrow.mode) {
    case Pregrow::Mode::automatic:  // +1 for reading FDSize afterwards
      return channel + static_cast<int>(work.ops()) * work.descriptors_per_item() + 2;
    case Pregrow::Mode::fd:
      return pregrow.fd;
    case Pregrow::Mode::off:
      break;
  }
  return 0;
}

void child_repetition(Channel& channel, const WorkloadRecipe& recipe, const StrategyInfo& strategy,
                      const StrategyConfig& config, const Pregrow& pregrow) noexcept {
  ChildReport report;
  try {
    auto work = make_as_described(recipe);
    if (const int highest = pregrow_target(pregrow, *work, channel.fd()); highest > 0) {
      if (const int err = platform::grow_fd_table(highest)) {
        throw Error(fmt::format("pregrow to fd {} failed: {}", highest, errno_text(err)));
      }
    }
    report.fdsize_before = platform::fd_table_size().value_or(-1);
    Repetition rep;
    {
      auto runner = strategy.make(config);  // worker threads exist only from here on
      RepetitionScope scope(*work);
      rep = runner->run(*work);
      scope.end();
    }
    report.ns = rep.ns;
    report.tally = rep.tally;
    report.fdsize_after = platform::fd_table_size().value_or(-1);
  } catch (const Interrupted& e) {  // a `process` worker or libuv's helper died of it
    report.signal = e.signal();
  } catch (const std::exception& e) {
    std::snprintf(report.error, sizeof report.error, "%s", e.what());
  }
  if (report.signal == 0) report.signal = interrupted();
  channel.send(report);
}

// Runs one repetition in a fresh child and returns its report.
ChildReport run_in_child(const WorkloadRecipe& recipe, const StrategyInfo& strategy,
                         const StrategyConfig& config, const Pregrow& pregrow) {
  ChildProcess child(
      [&](Channel& channel) { child_repetition(channel, recipe, strategy, config, pregrow); },
      kRepetitionChild);
  ChildReport report;
  const bool reported = child.receive(report);  // passes a Ctrl-C for fdbench alone on
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
  if (report.signal != 0) throw Interrupted(report.signal);  // the child alone got one
  return report;
}

}  // namespace

WorkloadRecipe open_workload_recipe(OpenSpec spec) {
  FDBENCH_ASSERT(spec.paths != nullptr);
  spec.dir_fd = -1;  // the child holds only fds 0-2: it opens the directory itself
  const std::uint64_t files = spec.paths->size();
  return {{"open", "file", files, 1, "files", spec.keep_open},
          [spec] { return make_open_workload(spec); }};
}

WorkloadRecipe socket_workload_recipe(SocketKind kind, std::size_t count) {
  return {{"socket", std::string(to_string(kind)), count, kind == SocketKind::pipe ? 2 : 1, "fds",
           true},
          [kind, count] { return make_socket_workload(kind, count); }};
}

Result measure_in_fresh_child(const WorkloadRecipe& work, const StrategyInfo& strategy,
                              const StrategyConfig& config, const Pregrow& pregrow, int repeat,
                              int warmup, const RepetitionDone& on_repetition) {
  Result r = base_result(work.facts, strategy, config, repeat, warmup);
  r.pregrow = pregrow.label();
  if (const auto reason = strategy.unavailable_reason(); !reason.empty()) {
    r.error = reason;
    return r;
  }
  const auto held_before = platform::open_descriptors();
  Tally total;
  for (int i = 0; i < warmup + repeat; ++i) {
    throw_if_interrupted();
    const ChildReport report = run_in_child(work, strategy, config, pregrow);
    if (report.error[0] != '\0') {
      r.error = report.error;
      r.times_ns.clear();
      break;
    }
    total.merge(report.tally);
    if (on_repetition) on_repetition(i + 1);
    if (i < warmup) continue;
    r.times_ns.push_back(report.ns);
    if (!r.fdsize_before) {  // every child starts alike; keep the first timed one's sizes
      if (report.fdsize_before >= 0) r.fdsize_before = report.fdsize_before;
      if (report.fdsize_after >= 0) r.fdsize_after = report.fdsize_after;
    }
  }
  record_failures(r, total);
  check_no_leak(r, held_before);
  finalize(r);
  return r;
}

}  // namespace fdbench
