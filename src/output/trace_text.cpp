#include "output/trace_text.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fdbench/version.hpp"
#include "model/format.hpp"

namespace fdbench {

namespace {

std::string ns_text(std::int64_t ns) {
  return format_duration(static_cast<double>(ns));
}

std::string failures_text(const TracedCalls& c) {
  std::string text;
  for (const auto& [name, count] : c.failures_by_errno) {
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", group_digits(count), name);
  }
  return text.empty() ? "-" : text;
}

std::string share_text(const TracedCalls& c, std::int64_t wall_ns) {
  if (wall_ns <= 0) return "-";
  return format_percent(static_cast<double>(c.total_ns) / static_cast<double>(wall_ns));
}

std::string calls_row(const TracedCalls& c, std::int64_t wall_ns) {
  return fmt::format("  {:<14} {:>9}  {:<16} {:>10} {:>9} {:>9} {:>9} {:>9} {:>7}\n", c.call,
                     group_digits(c.count), failures_text(c), ns_text(c.total_ns),
                     ns_text(c.p50_ns), ns_text(c.p99_ns), ns_text(c.p999_ns), ns_text(c.max_ns),
                     share_text(c, wall_ns));
}

std::string off_cpu_text(const OffCpuByCause& off) {
  std::string text;
  for (const OffCpuCause cause : kEveryOffCpuCause) {
    const std::int64_t ns = off[static_cast<std::size_t>(cause)];
    if (ns > 0)
      text += fmt::format("{}{} {}", text.empty() ? "" : ", ", cause_name(cause), ns_text(ns));
  }
  return text.empty() ? "none" : text;
}

std::string trace_heading(const TraceReport& r) {
  const std::string what = r.command.empty()
                               ? fmt::format("pid {}", r.pid)
                               : fmt::format("{} (pid {})", shell_quoted(r.command), r.pid);
  std::string text =
      fmt::format("fdbench trace: {}, {} traced, {}", what, ns_text(r.wall_ns), r.ended);
  if (r.exit_code) text += fmt::format(" (exit {})", *r.exit_code);
  return text + "\n";
}

std::string trace_calls_text(const TraceReport& r) {
  std::string text =
      fmt::format("\n  {:<14} {:>9}  {:<16} {:>10} {:>9} {:>9} {:>9} {:>9} {:>7}\n", "call",
                  "count", "failed", "total", "p50", "p99", "p99.9", "max", "of wall");
  for (const TracedCalls& c : r.creating) text += calls_row(c, r.wall_ns);
  text += calls_row(r.all_creating, r.wall_ns);
  text += calls_row(r.closes, r.wall_ns);
  text += fmt::format("  off-CPU inside the creating calls: {}\n",
                      off_cpu_text(r.all_creating.off_cpu));
  if (r.closes.count > 0) {
    text += fmt::format("  off-CPU inside close: {}\n", off_cpu_text(r.closes.off_cpu));
  }
  return text;
}

std::string trace_threads_text(const TraceReport& r) {
  std::string text = fmt::format("\nthreads that made calls: {} in {} process{}\n",
                                 r.threads.size(), r.processes, r.processes == 1 ? "" : "es");
  const std::size_t shown = std::min<std::size_t>(r.threads.size(), 8);
  for (std::size_t i = 0; i < shown; ++i) {
    const TracedThread& t = r.threads[i];
    text +=
        fmt::format("  tid {:<8} pid {:<8} {:>9} created {:>9} closed  {} creating\n", t.tid, t.pid,
                    group_digits(t.created), group_digits(t.closed), ns_text(t.creating_ns));
  }
  if (shown < r.threads.size())
    text += fmt::format("  ... and {} more\n", r.threads.size() - shown);
  return text;
}

std::string slots_text(const std::optional<int>& slots) {
  return slots ? fmt::format("{} slots", *slots) : std::string("unknown");
}

std::string trace_table_text(const TraceReport& r) {
  std::string text = fmt::format(
      "\ndescriptor table of pid {}: {} at start, {} at the end; {} growth{}\n", r.pid,
      slots_text(r.table_at_start), r.table_at_end ? slots_text(r.table_at_end) : "gone",
      r.growths.size(), r.growths.size() == 1 ? "" : "s");
  for (const TableGrowth& g : r.growths) {
    text +=
        fmt::format("  at {:>9}  {} fd {} ({} → {} slots) took {}, {} sharing; off-CPU: {}\n",
                    ns_text(g.at_ns), g.call, g.fd, g.from_slots, g.to_slots, ns_text(g.call_ns),
                    thread_count_text(g.threads_sharing), off_cpu_text(g.off_cpu));
  }
  return text;
}

nlohmann::ordered_json calls_json(const TracedCalls& c, std::int64_t wall_ns) {
  nlohmann::ordered_json off = nlohmann::ordered_json::object();
  for (const OffCpuCause cause : kEveryOffCpuCause) {
    off[std::string(cause_name(cause))] = c.off_cpu[static_cast<std::size_t>(cause)];
  }
  return {{"call", c.call},
          {"count", c.count},
          {"failed", c.failed()},
          {"failures_by_errno", c.failures_by_errno},
          {"total_ns", c.total_ns},
          {"p50_ns", c.p50_ns},
          {"p99_ns", c.p99_ns},
          {"p99_9_ns", c.p999_ns},
          {"max_ns", c.max_ns},
          {"share_of_wall",
           wall_ns > 0 ? static_cast<double>(c.total_ns) / static_cast<double>(wall_ns) : 0.0},
          {"off_cpu_ns", off}};
}

nlohmann::ordered_json trace_optional_json(const std::optional<int>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json growths_json(const TraceReport& r) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const TableGrowth& g : r.growths) {
    TracedCalls inside;
    inside.off_cpu = g.off_cpu;
    list.push_back({{"at_ns", g.at_ns},
                    {"pid", g.pid},
                    {"tid", g.tid},
                    {"call", g.call},
                    {"fd", g.fd},
                    {"from_slots", g.from_slots},
                    {"to_slots", g.to_slots},
                    {"call_ns", g.call_ns},
                    {"threads_sharing", g.threads_sharing},
                    {"off_cpu_ns", calls_json(inside, 0)["off_cpu_ns"]}});
  }
  return list;
}

nlohmann::ordered_json threads_json(const TraceReport& r) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const TracedThread& t : r.threads) {
    list.push_back({{"pid", t.pid},
                    {"tid", t.tid},
                    {"created", t.created},
                    {"closed", t.closed},
                    {"creating_ns", t.creating_ns}});
  }
  return list;
}

nlohmann::ordered_json findings_json(const std::vector<Finding>& findings) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Finding& f : findings) {
    nlohmann::ordered_json numbers = nlohmann::ordered_json::object();
    for (const auto& [name, n] : f.numbers) {
      numbers[name] = n.is_integer() ? nlohmann::ordered_json(n.integer())
                                     : nlohmann::ordered_json(static_cast<double>(n));
    }
    list.push_back({{"kind", f.kind}, {"text", f.text}, {"numbers", numbers}});
  }
  return list;
}

}  // namespace

std::string trace_table(const TraceReport& r, const std::vector<Finding>& findings) {
  std::string text =
      trace_heading(r) + trace_calls_text(r) + trace_threads_text(r) + trace_table_text(r);
  text += fmt::format("\nrecords lost: {}; calls unfinished when tracing ended: {}\n",
                      group_digits(r.lost), group_digits(r.unfinished));
  if (!findings.empty()) text += "\nFindings:\n";
  for (const Finding& f : findings) text += fmt::format("  - {}\n", f.text);
  return text;
}

std::string trace_json(const TraceReport& r, const std::vector<Finding>& findings) {
  nlohmann::ordered_json calls = nlohmann::ordered_json::array();
  for (const TracedCalls& c : r.creating) calls.push_back(calls_json(c, r.wall_ns));
  const nlohmann::ordered_json doc = {{"schema_version", kTraceSchemaVersion},
                                      {"fdbench_version", std::string(version())},
                                      {"command", r.command},
                                      {"pid", r.pid},
                                      {"follow", r.follow},
                                      {"wall_ns", r.wall_ns},
                                      {"ended", r.ended},
                                      {"exit_code", trace_optional_json(r.exit_code)},
                                      {"table_at_start", trace_optional_json(r.table_at_start)},
                                      {"table_at_end", trace_optional_json(r.table_at_end)},
                                      {"rcu_expedited", trace_optional_json(r.rcu_expedited)},
                                      {"calls", calls},
                                      {"all_creating", calls_json(r.all_creating, r.wall_ns)},
                                      {"close", calls_json(r.closes, r.wall_ns)},
                                      {"threads", threads_json(r)},
                                      {"processes", r.processes},
                                      {"growths", growths_json(r)},
                                      {"grace_period", r.grace_period},
                                      {"unfinished", r.unfinished},
                                      {"lost", r.lost},
                                      {"findings", findings_json(findings)}};
  return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace fdbench
