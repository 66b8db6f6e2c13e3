// fdbench trace: where a program's time goes creating descriptors. The command is started held
// before its exec (platform::HeldCommand) or a running process is named (--pid); perf events
// are attached to every thread (platform::KernelTracer with descriptor_calls, inherited by the
// threads and processes they start), drained every few milliseconds into a DescriptorTrace,
// and detached when the command exits, the process ends, --duration ends or Ctrl-C comes. The
// traced program is never ptraced, signalled or changed: only the kernel's records are read.
#include "application/trace.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "analysis/trace_findings.hpp"
#include "application/test_events.hpp"
#include "engine/descriptor_trace.hpp"
#include "model/format.hpp"
#include "output/atomic_file.hpp"
#include "output/trace_text.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"

namespace fdbench::app {

namespace {

constexpr auto kDrainEvery = std::chrono::milliseconds(10);
// Records of one CPU may be drained after later ones of another: read only those this much
// older than the drain, the rest with the next.
constexpr std::int64_t kSettleNs = 50'000'000;

// What ends the trace, checked between drains; "" while it goes on.
struct Watch {
  platform::HeldCommand* command = nullptr;
  int pid = 0;
  std::int64_t until_ns = 0;  // --duration's end, or 0
  std::optional<int> exit_code;
  std::optional<int> last_table;  // FDSize as last read while it ran

  std::string ended() {
    if (command != nullptr) {
      exit_code = command->wait_for(0);
      if (exit_code) return "the command exited";
    } else if (!platform::process_running(pid)) {
      return "the process exited";
    }
    if (const auto table = platform::fd_table_size_of(pid)) last_table = table;
    if (interrupted() != 0) return "stopped by Ctrl-C";
    if (until_ns != 0 && platform::now_ns() >= until_ns) return "--duration ended";
    return {};
  }
};

TraceReport trace_until_end(platform::KernelTracer& tracer, Watch& watch, const TraceStart& start) {
  DescriptorTrace trace(start, platform::kernel_symbol);
  test_event("trace-attached");
  std::string ended;
  while ((ended = watch.ended()).empty()) {
    std::this_thread::sleep_for(kDrainEvery);
    trace.add(tracer.drain(), platform::now_ns() - kSettleNs);
  }
  const std::int64_t end_ns = platform::now_ns();
  trace.add(tracer.drain(), end_ns);
  TraceReport report = trace.finish(end_ns);
  report.ended = ended;
  report.exit_code = watch.exit_code;
  report.table_at_end = watch.last_table;
  if (!report.growths.empty() && report.growths.back().to_slots > report.table_at_end.value_or(0)) {
    report.table_at_end = report.growths.back().to_slots;
  }
  return report;
}

// The one line fdbench trace says when it cannot trace here.
std::string cannot_trace(const std::string& why) {
  if (!platform::uses_linux_interfaces()) {
    return "fdbench trace needs Linux (perf events); this build has only the portable interfaces";
  }
  return fmt::format("fdbench trace needs root or CAP_PERFMON: {}", why);
}

void write_report(const TraceCommand& c, const TraceReport& report, std::ostream& out,
                  std::ostream& err) {
  const std::string remedy = c.program.empty() ? std::string("CMD") : shell_quoted(c.program);
  const std::vector<Finding> findings = trace_findings(report, remedy);
  const std::string text =
      c.format == "json" ? trace_json(report, findings) : trace_table(report, findings);
  if (!c.output.empty()) {
    write_file_atomically(c.output, text, "the trace's report");
    return;
  }
  // The command's standard output is its own: the report goes to standard error beside it.
  (c.program.empty() ? out : err) << text;
}

TraceStart start_of(int pid) {
  TraceStart start;
  start.pid = pid;
  start.time_ns = platform::now_ns();
  start.table_slots = platform::fd_table_size_of(pid);
  start.threads = platform::thread_count_of(pid).value_or(1);
  return start;
}

int trace_command_run(const TraceCommand& c, std::ostream& out, std::ostream& err) {
  std::string why;
  auto held = platform::HeldCommand::start(c.program, why);
  if (!held) {
    err << "Error: " << printable(why) << "\n";
    return 1;
  }
  auto tracer = platform::KernelTracer::open(why, {held->pid(), true});
  if (!tracer) {
    err << "Error: " << printable(cannot_trace(why)) << "\n";
    return 1;  // the held fork is ended unreleased: the command never ran
  }
  TraceStart start = start_of(held->pid());
  start.threads = 1;
  start.follow = c.follow;
  if (const std::string failed = held->release(); !failed.empty()) {
    err << "Error: " << printable(failed) << "\n";
    return held->exec_error() == ENOENT ? 127 : 126;  // as env, nice and timeout say it
  }
  Watch watch;
  watch.command = held.get();
  watch.pid = held->pid();
  if (c.duration_s > 0)
    watch.until_ns = start.time_ns + static_cast<std::int64_t>(c.duration_s * 1e9);
  TraceReport report = trace_until_end(*tracer, watch, start);
  tracer.reset();  // detached before the report is written
  report.command = c.program;
  report.follow = c.follow;
  report.rcu_expedited = platform::rcu_expedited();
  write_report(c, report, out, err);
  // A traced command outlives the trace (--duration, Ctrl-C): its exit code is still the
  // answer. A second Ctrl-C stops waiting for it.
  while (!watch.exit_code && interrupt_count() < 2) watch.exit_code = held->wait_for(100);
  if (watch.exit_code && interrupt_count() < 2) clear_interrupt();
  return watch.exit_code.value_or(128 + interrupted());
}

int trace_pid_run(const TraceCommand& c, std::ostream& out, std::ostream& err) {
  if (!platform::process_running(c.pid)) {
    err << fmt::format("Error: there is no process {} to trace\n", c.pid);
    return 1;
  }
  std::string why;
  TraceStart start = start_of(c.pid);
  start.follow = c.follow;
  auto tracer = platform::KernelTracer::open(why, {c.pid, true});
  if (!tracer) {
    err << "Error: " << printable(cannot_trace(why)) << "\n";
    return 1;
  }
  Watch watch;
  watch.pid = c.pid;
  if (c.duration_s > 0)
    watch.until_ns = start.time_ns + static_cast<std::int64_t>(c.duration_s * 1e9);
  TraceReport report = trace_until_end(*tracer, watch, start);
  tracer.reset();
  report.follow = c.follow;
  report.rcu_expedited = platform::rcu_expedited();
  write_report(c, report, out, err);
  clear_interrupt();  // Ctrl-C is how a trace of a running process is ended: it worked
  return 0;
}

}  // namespace

int run_trace(const TraceCommand& command, std::ostream& out, std::ostream& err) {
  if (!platform::uses_linux_interfaces()) {
    err << "Error: " << cannot_trace("") << "\n";
    return 1;
  }
  if (const std::string why = platform::kernel_trace_unavailable(); !why.empty()) {
    err << "Error: " << printable(cannot_trace(why)) << "\n";
    return 1;
  }
  return command.program.empty() ? trace_pid_run(command, out, err)
                                 : trace_command_run(command, out, err);
}

}  // namespace fdbench::app
