// fdbench server: the user's own server, started fresh for every repetition, from its starting
// table and through the launcher's grow-then-exec, in turns; the results, statistics and
// reporters are the ones every measuring command uses, and the findings say whether the first
// burst waited on the table's growth and the command that removes it.
#include "application/server_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "application/test_events.hpp"
#include "common/errors.hpp"
#include "engine/capture.hpp"
#include "engine/kernel_attribution.hpp"
#include "fdbench/error.hpp"
#include "model/format.hpp"
#include "model/statistics.hpp"
#include "output/reporter.hpp"
#include "platform/platform.hpp"

namespace fdbench::app {

namespace {

// One --pregrow setting's repetitions.
struct ServerRow {
  Pregrow setting;
  int slots = 0;  // the table the launcher grows (0: the server's starting table)
  std::vector<ServerBurst> bursts;
  std::string error;  // why the row ended early
  // --kernel-trace: each burst's evidence, its threads followed from one burst to the next.
  std::optional<KernelAttribution> attribution;
  std::vector<KernelSample> samples;
};

// --kernel-trace: one tracer for the run, attached before any server starts, so that every
// server and its threads inherit it; nullptr with `why_not` where it cannot be.
struct ServerTrace {
  std::unique_ptr<platform::KernelTracer> tracer;
  std::string why_not;
};

ServerTrace open_trace(const ServerCommand& command) {
  ServerTrace trace;
  if (command.kernel_trace) trace.tracer = platform::KernelTracer::open(trace.why_not);
  return trace;
}

// The server's threads (any process but this one) during the burst, by cause.
void attribute(ServerTrace& trace, ServerRow& row, const ServerBurst& burst) {
  if (trace.tracer == nullptr) return;
  if (!row.attribution) {
    row.attribution.emplace(
        MeasuringThreads{.own_pid = platform::process_id(), .in_child = true, .harness = {}},
        platform::kernel_symbol);
  }
  const platform::KernelRecords records = trace.tracer->drain();
  row.samples.push_back(
      row.attribution->during(records, burst.start_ns, burst.start_ns + burst.drain_ns));
}

void kernel_evidence(const ServerCommand& command, const ServerTrace& trace, const ServerRow& row,
                     Result& result) {
  if (!command.kernel_trace) return;
  KernelEvidence& k = result.kernel.emplace();
  if (trace.tracer == nullptr) {
    k.reason = trace.why_not;
  } else if (row.samples.empty()) {
    k.reason = "no burst was traced";
  } else {
    k = summarize_kernel(row.samples, trace.tracer->punts_not_counted().empty());
  }
}

int next_power_of_two(int n) {
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

std::string program_name(const ServerCommand& command) {
  const std::string& path = command.program.front();
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

ServerBurstPlan plan_of(const ServerCommand& command, int slots) {
  ServerBurstPlan plan;
  plan.port = command.port != 0 ? command.port : free_loopback_port();
  for (std::string arg : command.program) {
    for (auto at = arg.find("{port}"); at != std::string::npos; at = arg.find("{port}")) {
      arg.replace(at, 6, std::to_string(plan.port));
    }
    plan.argv.push_back(arg);
  }
  plan.pregrow_slots = slots;
  plan.connections = command.connections;
  plan.arrival = command.arrival;
  plan.probe = command.probe;
  plan.line = command.line;
  plan.timeout_s = command.timeout_s;
  plan.on_queued = [] { test_event("server-burst-queued"); };
  return plan;
}

// --pregrow auto's table: the burst plus what the server holds once it answers, rounded up as
// the kernel rounds; 0 with `why` set when the server would not start.
int auto_slots(const ServerCommand& command, std::string& why) {
  const int starting = server_starting_descriptors(plan_of(command, 0), why);
  return why.empty() ? next_power_of_two(command.connections + starting + 1) : 0;
}

std::vector<ServerRow> plan_rows(const ServerCommand& command, std::ostream& err) {
  std::vector<ServerRow> rows;
  int automatic = -1;
  for (const Pregrow& setting : command.pregrow) {
    ServerRow row;
    row.setting = setting;
    if (setting.mode == Pregrow::Mode::fd) row.slots = setting.fd + 1;
    if (setting.mode == Pregrow::Mode::automatic) {
      if (automatic < 0) automatic = auto_slots(command, row.error);
      row.slots = automatic;
      if (!row.error.empty()) err << "fdbench: server, pregrow auto: " << row.error << "\n";
    }
    rows.push_back(row);
  }
  return rows;
}

void run_rows(const ServerCommand& command, std::vector<ServerRow>& rows, ServerTrace& trace,
              std::ostream& err) {
  for (int rep = 0; rep < command.repeat; ++rep) {
    for (auto& row : rows) {
      if (!row.error.empty()) continue;
      if (trace.tracer != nullptr) trace.tracer->discard();
      ServerBurst burst = run_server_burst(plan_of(command, row.slots));
      if (burst.error.empty()) attribute(trace, row, burst);
      test_event(fmt::format("server-burst-done {}", row.setting.label()));
      if (!burst.error.empty()) {
        row.error = burst.error;
        err << fmt::format("fdbench: server, pregrow {}: {}\n", row.setting.label(),
                           printable(burst.error));
        continue;
      }
      row.bursts.push_back(std::move(burst));
    }
  }
}

LatencyPercentiles percentiles_of(std::vector<std::int64_t> times) {
  LatencyPercentiles p;
  p.count = times.size();
  if (times.empty()) return p;
  std::sort(times.begin(), times.end());
  p.p50 = whole_ns(percentile(times, 50));
  p.p90 = whole_ns(percentile(times, 90));
  p.p99 = whole_ns(percentile(times, 99));
  p.p999 = whole_ns(percentile(times, 99.9));
  p.max = times.back();
  return p;
}

// What the row's bursts had in common: the most threads, processes and growths of any.
void describe_server(const ServerRow& row, Result& result) {
  int threads = 0;
  int processes = 0;
  int growths = 0;
  int starting = 0;
  std::vector<std::int64_t> replies;
  for (const auto& burst : row.bursts) {
    threads = std::max(threads, burst.threads);
    processes = std::max(processes, burst.processes);
    growths += burst.growths;
    starting = std::max(starting, burst.starting_fds);
    replies.insert(replies.end(), burst.reply_ns.begin(), burst.reply_ns.end());
    result.times_ns.push_back(burst.drain_ns);
    result.failures += burst.unanswered;
  }
  result.config.threads = std::max(threads, 1);
  result.runnable_threads = result.config.threads;
  result.workers = processes > 1 ? WorkerKind::processes : WorkerKind::threads;
  result.fd_table = threads > 1 ? FdTable::shared : FdTable::per_worker;
  result.parameters["processes"] = std::to_string(processes);
  result.parameters["threads_per_process"] = std::to_string(threads);
  result.parameters["starting_descriptors"] = std::to_string(starting);
  result.parameters["table_growths"] = std::to_string(growths);
  if (result.failures > 0) {
    // No errno: a client that got no reply before the bound, or a close without one.
    add_failures(result.failures_by_errno, 0, result.failures);
    result.first_failure = "no reply before the bound, or the connection closed without one";
  }
  Latency latency;
  latency.ns["reply"] = percentiles_of(std::move(replies));
  latency.growth_totals.count = static_cast<std::uint64_t>(growths);
  result.latency = latency;
  if (!row.bursts.empty()) {
    result.fdsize_before = row.bursts.front().fdsize_before;
    result.fdsize_after = row.bursts.front().fdsize_after;
  }
}

Result result_of(const ServerCommand& command, const ServerRow& row, const ServerTrace& trace,
                 bool interrupted) {
  Result result;
  result.workload = "server";
  result.config.strategy = program_name(command);
  result.config.kind = DescriptorKind::tcp;
  result.config.pregrow = row.setting;
  result.workload_kind = WorkloadKind::accept;
  result.holds_descriptors = true;
  result.unit = "conns";
  result.ops = static_cast<std::uint64_t>(command.connections);
  result.repeat = command.repeat;
  result.parameters["command"] = joined(command.program);
  result.parameters["table_slots"] = std::to_string(row.slots);
  result.parameters["arrival"] = command.arrival == ServerArrival::queued ? "queued" : "open";
  describe_server(row, result);
  kernel_evidence(command, trace, row, result);
  if (!row.error.empty()) {
    result.status = row.bursts.empty() ? Status::failed : Status::cut_short;
    result.error = row.error;
  } else if (interrupted) {
    result.status = Status::cut_short;
  }
  finalize(result);
  return result;
}

std::string growths_per_burst(const Result& r) {
  const double per = std::stod(r.parameters.at("table_growths")) / std::max(1, r.repetitions_run());
  return fmt::format("{:g}", std::round(per * 10) / 10);
}

std::string separation_words(const Result& a, const Result& b) {
  switch (separation(a.median_ci, b.median_ci)) {
    case Separation::separated:
      return "their 95% intervals apart";
    case Separation::same:
      return "the same within 10%";
    case Separation::cannot_tell:
      return "within noise: cannot tell them apart";
    case Separation::too_few:
      break;
  }
  return "too few repetitions to separate them (6 each needed)";
}

FindingSubject subject(const Result& r, const char* role) {
  return {role, r.workload, r.config};
}

// Whether the first burst stalled on the growth, in words: the drains' separation decides it.
std::string stall_verdict(const Result& off, const Result& grown) {
  const Separation apart = separation(off.median_ci, grown.median_ci);
  if (apart == Separation::separated && off.stats.median > grown.stats.median) {
    return "its first burst stalled on the table's growth";
  }
  if (apart == Separation::separated) return "pre-growing made the burst no faster";
  return "whether that stalled the burst cannot be told apart from noise here";
}

// The starting table against a pre-grown one: the growths, the drain, and the remedy.
Finding stall_finding(const ServerCommand& command, const Result& off, const Result& grown) {
  Finding f;
  f.kind = "server-stall";
  const std::string slots = grown.parameters.at("table_slots");
  f.numbers = {{"off_ns", off.stats.median},
               {"pregrown_ns", grown.stats.median},
               {"slots", std::stoi(slots)}};
  f.subjects = {subject(off, "from its starting table"), subject(grown, "pre-grown")};
  const std::string drains = fmt::format(
      "the burst of {} drained in {} from its starting table, {} pre-grown to {} slots (medians; "
      "{})",
      command.connections, format_duration(off.stats.median), format_duration(grown.stats.median),
      slots, separation_words(off, grown));
  if (off.parameters.at("table_growths") == "0") {
    f.text = fmt::format(
        "{}'s starting table (FDSize {}) held its first burst: no growth, no "
        "stall on the table to remove; {}.",
        off.config.strategy, off.fdsize_before.value_or(0), drains);
    return f;
  }
  f.text = fmt::format(
      "{} ({} threads sharing one table) grew its table {} times per first burst (FDSize {} -> "
      "{}) and {} times pre-grown: {}; {}. Without changing it: fdbench-pregrow {} -- {}",
      off.config.strategy, off.config.threads, growths_per_burst(off),
      off.fdsize_before.value_or(0), off.fdsize_after.value_or(0), growths_per_burst(grown),
      stall_verdict(off, grown), drains, slots, joined(command.program));
  return f;
}

// A server whose processes have one thread each: no table is shared, nothing waits for RCU.
// The drains are said too, apart or not: whatever separates them, it is not a shared table.
Finding single_threaded_finding(const Result& off, const Result* grown) {
  Finding f;
  f.kind = "server-no-shared-table";
  f.text = fmt::format(
      "{} runs {} processes of one thread each: no descriptor table is shared, so a growth "
      "({} per first burst here) waits for no RCU grace period, and there is no shared-table "
      "stall to find or remove",
      off.config.strategy, off.parameters.at("processes"), growths_per_burst(off));
  f.subjects = {subject(off, "from its starting table")};
  if (grown != nullptr) {
    f.text += fmt::format(" (its burst drained in {} from its starting table, {} pre-grown: {})",
                          format_duration(off.stats.median), format_duration(grown->stats.median),
                          separation_words(off, *grown));
    f.subjects.push_back(subject(*grown, "pre-grown"));
  }
  f.text += ".";
  return f;
}

std::vector<Finding> server_findings(const ServerCommand& command,
                                     const std::vector<Result>& results) {
  std::vector<Finding> findings;
  const auto measured = [](const Result& r) { return r.ran() && !r.times_ns.empty(); };
  const auto off = std::find_if(results.begin(), results.end(), [&](const Result& r) {
    return measured(r) && !r.config.pregrow.grows();
  });
  if (off == results.end()) return findings;
  if (off->config.threads <= 1) {
    const auto grown = std::find_if(results.begin(), results.end(), [&](const Result& r) {
      return measured(r) && r.config.pregrow.grows();
    });
    findings.push_back(single_threaded_finding(*off, grown == results.end() ? nullptr : &*grown));
    return findings;
  }
  for (const auto& r : results) {
    if (measured(r) && r.config.pregrow.grows()) {
      findings.push_back(stall_finding(command, *off, r));
    }
  }
  return findings;
}

Section section_of(const ServerCommand& command) {
  Section section;
  section.workload = "server";
  section.kind = DescriptorKind::tcp;
  section.burst = static_cast<std::uint64_t>(command.connections);
  section.repeat = Repeat::fixed(command.repeat);
  section.held = true;
  section.kernel_trace = command.kernel_trace;
  const bool queued = command.arrival == ServerArrival::queued;
  section.what = fmt::format(
      "`{}`, started fresh each repetition; its first burst of {} loopback clients{}, each "
      "sending the probe and held to the end",
      joined(command.program), group_digits(static_cast<std::uint64_t>(command.connections)),
      queued ? " queued while it was stopped" : " connecting as fast as they can");
  section.clock = queued ? "the clock runs from the server's SIGCONT to the last reply; its "
                           "start-up, the clients' connects and sends are not timed; threads: "
                           "the most one of its processes had"
                         : "the clock runs from the first client's connect to the last reply; "
                           "the server's start-up is not timed; threads: the most one of its "
                           "processes had";
  return section;
}

// The reporter, begun before the server first starts: the environment is this machine's as the
// run found it (fdbench's own table grows for the clients).
std::unique_ptr<Reporter> begin_report(const ServerCommand& command,
                                       const std::vector<std::string>& command_line,
                                       std::ostream& out) {
  auto reporter = make_reporter(command.format, out, {command.details});
  FDBENCH_ASSERT(reporter != nullptr);
  reporter->begin(capture_environment(platform::default_dir()));
  reporter->context(capture_context(command_line));
  reporter->section(section_of(command));
  return reporter;
}

void end_report(Reporter& reporter, const ServerCommand& command,
                const std::vector<Result>& results, bool complete) {
  for (const auto& r : results) reporter.add(r);
  const auto findings = server_findings(command, results);
  reporter.end(results, findings, complete);
}

std::vector<Result> results_of(const ServerCommand& command, const std::vector<ServerRow>& rows,
                               const ServerTrace& trace, bool interrupted = false) {
  std::vector<Result> results;
  for (const auto& row : rows) results.push_back(result_of(command, row, trace, interrupted));
  return results;
}

}  // namespace

int run_server(const ServerCommand& command, const std::vector<std::string>& command_line,
               std::ostream& out, std::ostream& err) {
  const auto reporter = begin_report(command, command_line, out);
  std::vector<ServerRow> rows;
  ServerTrace trace = open_trace(command);
  try {
    rows = plan_rows(command, err);
    run_rows(command, rows, trace, err);
  } catch (const Interrupted& e) {
    // Every server was stopped and reaped as the stack unwound; what was measured is reported.
    end_report(*reporter, command, results_of(command, rows, trace, true), false);
    test_event("run-done");
    err << fmt::format("fdbench: interrupted by signal {}; the server was stopped\n", e.signal());
    return 128 + e.signal();
  } catch (const Error& e) {
    err << "Error: " << printable(e.what()) << "\n";
    return 1;
  }
  const std::vector<Result> results = results_of(command, rows, trace);
  end_report(*reporter, command, results, true);
  test_event("run-done");
  const bool any =
      std::any_of(results.begin(), results.end(), [](const Result& r) { return r.ran(); });
  return any ? 0 : 1;
}

}  // namespace fdbench::app
