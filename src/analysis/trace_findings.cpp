// Each sentence states only what the report's numbers hold: a time is a sum the trace made, a
// count is counted, a remedy is named only for a growth that waited while the table was shared
// (a table one thread holds grows without waiting: expand_fdtable() calls synchronize_rcu()
// only when files->count > 1).
#include "analysis/trace_findings.hpp"

#include <fmt/format.h>

#include <map>
#include <utility>

#include "model/format.hpp"

namespace fdbench {

namespace {

Finding trace_finding(std::string kind, std::string text,
                      std::map<std::string, FindingNumber> numbers) {
  Finding f;
  f.kind = std::move(kind);
  f.text = std::move(text);
  f.numbers = std::move(numbers);
  return f;
}

std::int64_t cause_ns(const OffCpuByCause& off, OffCpuCause cause) {
  return off[static_cast<std::size_t>(cause)];
}

Finding time_finding(const TraceReport& r) {
  const TracedCalls& all = r.all_creating;
  Finding f = trace_finding(
      "trace-time", "", {{"calls", all.count}, {"total_ns", all.total_ns}, {"wall_ns", r.wall_ns}});
  const int callers = static_cast<int>(r.threads.size());
  if (callers <= 1 && all.total_ns <= r.wall_ns && r.wall_ns > 0) {
    f.text = fmt::format(
        "It spent {} of its {} inside {} descriptor-creating calls ({}).",
        format_duration(static_cast<double>(all.total_ns)),
        format_duration(static_cast<double>(r.wall_ns)), group_digits(all.count),
        format_percent(static_cast<double>(all.total_ns) / static_cast<double>(r.wall_ns)));
  } else {
    f.text = fmt::format(
        "Its threads spent {} in all inside {} descriptor-creating calls, over {} of wall time "
        "(their times are summed: threads overlap).",
        format_duration(static_cast<double>(all.total_ns)), group_digits(all.count),
        format_duration(static_cast<double>(r.wall_ns)));
  }
  return f;
}

std::string times_text(std::size_t n) {
  return n == 1 ? std::string("once") : fmt::format("{} times", n);
}

std::string table_path(const TraceReport& r) {
  return fmt::format("from {} to {} slots", r.growths.front().from_slots,
                     r.growths.back().to_slots);
}

Finding shared_growth_finding(const TraceReport& r, const std::string& remedy) {
  const std::int64_t grace = cause_ns(r.all_creating.off_cpu, OffCpuCause::fd_table_growth);
  const std::int64_t waiting = cause_ns(r.all_creating.off_cpu, OffCpuCause::waiting_on_growth);
  const int slots = r.growths.back().to_slots;
  Finding f = trace_finding("trace-growth-shared", "",
                            {{"growths", r.growths.size()},
                             {"threads", r.most_threads_sharing()},
                             {"grace_ns", grace},
                             {"waiting_ns", waiting},
                             {"slots", slots}});
  std::string waits;
  if (grace + waiting > 0) {
    const std::string sibling = waiting > 0
                                    ? fmt::format(", {} waiting on another thread's growth",
                                                  format_duration(static_cast<double>(waiting)))
                                    : std::string();
    waits = fmt::format(
        ": {} waiting for RCU grace periods{}{}; starting it through "
        "`fdbench pregrow {} -- {}` removes that",
        format_duration(static_cast<double>(grace)),
        r.grace_period.empty() ? "" : fmt::format(" ({})", r.grace_period), sibling, slots, remedy);
  } else {
    waits = fmt::format(
        ": no wait for a grace period was recorded{}",
        r.rcu_expedited == 1 ? " (rcu_expedited is 1 here: grace periods are short)" : "");
  }
  f.text =
      fmt::format("Its table grew {} ({}) while up to {} threads shared it{}.",
                  times_text(r.growths.size()), table_path(r), r.most_threads_sharing(), waits);
  return f;
}

Finding alone_growth_finding(const TraceReport& r) {
  std::int64_t growing_ns = 0;
  for (const TableGrowth& g : r.growths) growing_ns += g.call_ns;
  return trace_finding("trace-growth-alone",
                       fmt::format("Its table grew {} ({}) with one thread holding it, which waits "
                                   "for no grace period: the growing calls took {} in all.",
                                   times_text(r.growths.size()), table_path(r),
                                   format_duration(static_cast<double>(growing_ns))),
                       {{"growths", r.growths.size()}, {"threads", 1}, {"growing_ns", growing_ns}});
}

void add_thread_finding(const TraceReport& r, std::vector<Finding>& out) {
  if (r.threads.size() < 2 || r.all_creating.count == 0) return;
  const TracedThread& top = r.threads.front();
  const double share = static_cast<double>(top.created) / static_cast<double>(r.all_creating.count);
  if (share < 0.9) return;
  out.push_back(
      trace_finding("trace-one-thread",
                    fmt::format("One thread (tid {}) made {} of the {} descriptor-creating calls.",
                                top.tid, format_percent(share), group_digits(r.all_creating.count)),
                    {{"tid", top.tid}, {"calls", top.created}}));
}

}  // namespace

std::vector<Finding> trace_findings(const TraceReport& r, const std::string& remedy_command) {
  std::vector<Finding> out;
  if (r.all_creating.count == 0 && r.closes.count == 0) {
    out.push_back(trace_finding("trace-nothing",
                                fmt::format("Nothing was seen: no descriptor was created or "
                                            "closed in the {} traced.",
                                            format_duration(static_cast<double>(r.wall_ns))),
                                {{"wall_ns", r.wall_ns}}));
  } else {
    out.push_back(time_finding(r));
  }
  const OffCpuByCause& off = r.all_creating.off_cpu;
  const std::int64_t growth_waits =
      cause_ns(off, OffCpuCause::fd_table_growth) + cause_ns(off, OffCpuCause::waiting_on_growth);
  if (!r.growths.empty() && (r.most_threads_sharing() > 1 || growth_waits > 0)) {
    out.push_back(shared_growth_finding(r, remedy_command));
  } else if (!r.growths.empty()) {
    out.push_back(alone_growth_finding(r));
  } else if (r.all_creating.count > 0 && growth_waits == 0) {
    out.push_back(trace_finding(
        "trace-no-growth", "No growth and no wait for one: the cost is the calls themselves.", {}));
  }
  add_thread_finding(r, out);
  if (r.lost > 0) {
    out.push_back(trace_finding("trace-lost",
                                fmt::format("The kernel dropped {} records: every count here is "
                                            "a lower bound.",
                                            group_digits(r.lost)),
                                {{"lost", r.lost}}));
  }
  return out;
}

}  // namespace fdbench
