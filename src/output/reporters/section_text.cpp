// The words for a Section, shared by the human-readable reporters.
#include "output/reporters/section_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "model/format.hpp"
#include "model/statistics.hpp"

namespace fdbench {

namespace {

// "socket: 256 tcp descriptors per thread, held to the end; 10 repetitions (+1 warm-up), ..."
std::string per_thread_title(const Section& s, const std::string& runs) {
  const std::string what =
      s.descriptors_per_item > 1
          ? fmt::format("{}s ({} descriptors each)", to_string(s.kind), s.descriptors_per_item)
          : fmt::format("{} descriptors", to_string(s.kind));
  return fmt::format("{}: {} {} per thread{}; {}{}", s.workload, group_digits(s.per_thread), what,
                     s.held ? ", held to the end" : "", runs,
                     s.fresh_child ? ", each in a fresh process" : "");
}

// "accept: a burst of 1,000 tcp connections queued before the clock, each accepted and held;
// ..., each in a fresh process"
std::string burst_title(const Section& s, const std::string& runs) {
  if (!s.what.empty()) return fmt::format("{}: {}; {}", s.workload, s.what, runs);
  return fmt::format("{}: a burst of {} {} connections queued before the clock, each accepted "
                     "and held to the end; {}{}",
                     s.workload, group_digits(s.burst), to_string(s.kind), runs,
                     s.fresh_child ? ", each in a fresh server process" : "");
}

// "in /tmp", "kept in /x/set", "reused from /x/set": where a generated set is.
std::string_view set_place(InputSource source) {
  switch (source) {
    case InputSource::kept:
      return "kept in";
    case InputSource::reused:
      return "reused from";
    default:
      return "in";
  }
}

// "; 10,000 files created beforehand in 45 ms, not timed": the set-up before the repetitions.
std::string setup_text(const InputSummary& in) {
  if (!in.setup_ns) return {};
  const std::string took = format_duration(static_cast<double>(*in.setup_ns));
  if (!generated(in.source)) {
    return fmt::format("; --{} {} beforehand in {}, not timed", source_name(in.source),
                       in.source == InputSource::tree ? "scanned" : "read", took);
  }
  return fmt::format("; {} files {} beforehand in {}, not timed", group_digits(in.files),
                     in.source == InputSource::reused ? "checked (none created)" : "created", took);
}

}  // namespace

// "10 repetitions (+1 warm-up)"; with --repeat auto, "repetitions until each median is
// decided against its contenders or within ±3% (95%), at most 3 s a result (+1 warm-up)"; with
// the suite's budget "..., at most 3 s a result and a share of 35 s"; with tune's, "..., at
// most a share of the 20 s --budget each (+1 warm-up)".
std::string repetitions_text(const Section& s) {
  const std::string warmup =
      s.warmup > 0 ? fmt::format(" (+{} warm-up)", s.warmup) : std::string(", no warm-up");
  if (s.repetitions_range) {
    return fmt::format("{}–{} repetitions a result{}", s.repetitions_range->first,
                       s.repetitions_range->second, warmup);
  }
  if (!s.repeat.automatic()) {
    return fmt::format("{} repetition{}{}", s.repeat.count, s.repeat.count == 1 ? "" : "s", warmup);
  }
  std::string most = s.budget_s
                         ? fmt::format("a share of the {:g} s --budget each", *s.budget_s)
                         : fmt::format("{:g} s a result", s.repeat.max_time_s);
  if (!s.budget_s && s.repeat.budget_s > 0) {
    most += fmt::format(" and a share of {:.3g} s", s.repeat.budget_s);
  }
  return fmt::format(
      "repetitions until each median is decided against its contenders or within ±{} (95%), at "
      "most {}{}",
      format_percent(s.repeat.precision), most, warmup);
}

// "open: 10,000 empty files in /tmp (ext4), rdonly, 10 repetitions (+1 warm-up)"
std::string section_title(const Section& s) {
  const std::string runs = repetitions_text(s);
  if (s.burst != 0) return burst_title(s, runs);
  if (!s.input) return per_thread_title(s, runs);
  const InputSummary& in = *s.input;
  const std::string files = group_digits(in.files);
  const std::string where =
      generated(in.source)
          ? fmt::format("{} empty files {} {} ({}{})", files, set_place(in.source), in.origin,
                        s.fs_type,
                        s.subdirs == 0 ? "" : fmt::format(", {} subdirectories", s.subdirs))
          : fmt::format("{} regular files{} from --{} {} ({})", files,
                        in.distinct ? fmt::format(" ({} distinct)", group_digits(*in.distinct))
                                    : "",
                        source_name(in.source), in.origin, s.fs_type);
  return fmt::format("{}: {}, {}{}{}, {}", s.workload, where, in.flags, s.held ? ", kept open" : "",
                     s.paths == PathMode::absolute ? ", opened by absolute path" : "", runs);
}

namespace {

// "; 5 entries skipped (3 not regular files, 1 without read permission, 1 on another
// filesystem, 1 changed during the walk)", or nothing when none was. A directory the walk could not read counts as
// without read permission: it is one.
std::string skipped_text(const std::map<std::string, std::uint64_t>& skipped) {
  std::uint64_t total = 0;
  std::uint64_t unreadable = 0;
  std::uint64_t elsewhere = 0;
  std::uint64_t changed = 0;
  for (const auto& [what, n] : skipped) {
    total += n;
    if (what == "no read permission" || what == "unreadable directory") unreadable += n;
    if (what == "other filesystem") elsewhere += n;
    if (what == "changed during the scan") changed += n;
  }
  if (total == 0) return {};
  const std::uint64_t irregular = total - unreadable - elsewhere - changed;
  if (irregular == total) return fmt::format("; {} entries skipped (not regular files)", total);
  std::string parts;
  const auto part = [&](std::uint64_t n, std::string_view what) {
    if (n != 0) parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", n, what);
  };
  part(irregular, "not regular files");
  part(unreadable, "without read permission");
  part(elsewhere, "on another filesystem (see --cross-mounts)");
  part(changed, "changed during the walk");
  return fmt::format("; {} entries skipped ({})", total, parts);
}

}  // namespace

std::string kernel_note(const Section& s) {
  if (!s.kernel_trace) return {};
  if (!s.kernel_unavailable.empty()) return "; no kernel evidence: " + s.kernel_unavailable;
  return "; kernel evidence from perf events (each switch off a CPU, with its call chain)";
}

std::string section_note(const Section& s) {
  // --harness published: its rows time what the seeds' programs timed.
  const std::string published =
      s.harness_column ? "; with the published harness, thread creation is timed, as the seeds' "
                         "programs timed it"
                       : "";
  if (!s.clock.empty()) return s.clock + kernel_note(s);
  if (s.burst != 0) {
    return "the clock runs from the release of the server's workers to its last accept; a "
           "client process connects the whole burst before it; for `threads` the calling "
           "thread is one of the threads; worker creation is not timed" +
           kernel_note(s);
  }
  if (!s.input) {
    return "for `threads` the calling thread is one of the threads; worker creation is not "
           "timed" +
           published + kernel_note(s);
  }
  std::string note = s.held
                         ? fmt::format("descriptors are held to the end of each repetition{}",
                                       s.fresh_child ? ", each in a fresh process" : "")
                         : fmt::format("each file opened and closed again{}",
                                       s.fresh_child ? ", each repetition in a fresh process" : "");
  note += s.harness_column
              ? "; with the minimal harness, thread and pool creation are not timed; with the "
                "published harness, the seed's threads are created inside the clock and its pool "
                "just before it, and each file is opened by std::ifstream"
              : "; thread and pool creation are not timed";
  if (!s.by_full_path.empty()) {
    std::string names;
    for (const auto& n : s.by_full_path) names += (names.empty() ? "`" : ", `") + n + "`";
    note += fmt::format("; {} open{} each file by its absolute path (no openat())", names,
                        s.by_full_path.size() == 1 ? "s" : "");
  }
  std::uint64_t missing = 0;
  for (const auto& [what, n] : s.input->missing) missing += n;
  note += skipped_text(s.input->skipped);
  if (missing != 0) note += fmt::format("; {} listed paths not found", missing);
  return note + setup_text(*s.input) + kernel_note(s);
}

std::string findings_heading(bool complete) {
  return complete ? "Findings" : "Findings (from the results finished before the stop)";
}

SplitFindings split_answers(std::span<const Finding> findings) {
  SplitFindings out;
  for (const auto& f : findings) {
    (f.kind.starts_with("answer") ? out.answers : out.rest).push_back(f);
  }
  return out;
}

std::string noisy_legend() {
  return fmt::format(
      "{} noisy: the median's 95% interval reaches beyond ±{} of it (the ±95% column; fewer "
      "than {} repetitions give no such interval, shown as -, and are not judged): compare "
      "such rows loosely, or measure again on a quieter machine",
      kNoisyMark, format_percent(kNoisyHalfWidth), min_samples_for());
}

std::string precision_cell(const Result& r) {
  const auto reached = r.precision();
  if (!reached) return "-";
  return fmt::format("±{}{}", format_percent(*reached), r.missed_precision() ? kMissedMark : "");
}

std::string missed_legend(const Result& missed) {
  const AutoRepeat goal = missed.auto_repeat.value_or(AutoRepeat{});
  const bool budget = goal.stopped == RepeatStop::budget;
  const std::string why = goal.stopped == RepeatStop::max_time
                              ? fmt::format("before --max-time ({:g} s) ran out", goal.max_time_s)
                          : budget ? std::string("before its share of --budget ran out")
                          : goal.stopped == RepeatStop::interrupted
                              ? std::string("before the run was stopped")
                              : fmt::format("within the most repetitions a result may take");
  return fmt::format(
      "{} imprecise: the median's 95% interval did not reach ±{} {}{}: compare such rows "
      "loosely, raise {}, or measure on a quieter machine",
      kMissedMark, format_percent(goal.precision), why, budget ? "" : " (--repeat auto)",
      budget ? "--budget" : "--max-time");
}

std::string latency_text(const Result& r) {
  if (!r.latency) return {};
  const Latency& l = *r.latency;
  // io_uring's calls happen inside the kernel: its records time whole submissions, and its
  // growth events and stalls are submissions too.
  const bool submissions = per_submission(l);
  std::string text = submissions ? "per submission: " : "per call: ";
  const std::size_t lead = text.size();
  for (const auto& [op, p] : l.ns) {
    if (p.count == 0) continue;
    text += fmt::format("{}{} p50 {}, p99 {}, max {}", text.size() == lead ? "" : "; ", op,
                        format_duration(static_cast<double>(p.p50)),
                        format_duration(static_cast<double>(p.p99)),
                        format_duration(static_cast<double>(p.max)));
  }
  const double reps = std::max(1, r.repetitions_run());
  const auto per_rep = [reps](std::uint64_t n) {
    const double v = static_cast<double>(n) / reps;
    return v == std::floor(v) ? fmt::format("{:.0f}", v) : fmt::format("{:.1f}", v);
  };
  const char* whole = submissions ? ", each a whole submission" : "";
  if (!l.growth_known) {
    return text + fmt::format("; per repetition {} stall{} ({}){}", per_rep(l.stall_totals.count),
                              l.stall_totals.count == static_cast<std::uint64_t>(reps) ? "" : "s",
                              format_duration(static_cast<double>(l.stall_totals.total_ns) / reps),
                              whole);
  }
  return text + fmt::format("; per repetition {} growth event{} ({}), {} stall{} ({}){}",
                            per_rep(l.growth_totals.count),
                            l.growth_totals.count == static_cast<std::uint64_t>(reps) ? "" : "s",
                            format_duration(static_cast<double>(l.growth_totals.total_ns) / reps),
                            per_rep(l.stall_totals.count),
                            l.stall_totals.count == static_cast<std::uint64_t>(reps) ? "" : "s",
                            format_duration(static_cast<double>(l.stall_totals.total_ns) / reps),
                            whole);
}

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string timed_region_text(const Result& r) {
  if (!r.timed_region) return {};
  const TimedRegion& t = *r.timed_region;
  const std::pair<std::uint64_t, std::string_view> counts[] = {
      {t.minor_faults, "minor fault"},
      {t.major_faults, "major fault"},
      {t.voluntary_switches, "voluntary switch"},
      {t.involuntary_switches, "involuntary switch"}};
  std::string text;
  for (const auto& [n, what] : counts) {
    if (n == 0) continue;
    const std::string_view plural = n == 1 ? "" : what.ends_with("switch") ? "es" : "s";
    text += fmt::format("{}{} {}{}", text.empty() ? "" : ", ", group_digits(n), what, plural);
  }
  return text.empty() ? text : "while timed, per repetition: " + text;
}

std::string kernel_legend() {
  return "kernel: where the measuring threads were off their CPU while timed, by the kernel's "
         "call chain at each switch (--kernel-trace), in the median repetition (the one whose "
         "time is the median), so the causes add up to the total, which never exceeds the "
         "threads' time. \"Waiting to start or done\" "
         "is the part before a thread first ran in the repetition (its release, then a CPU) "
         "or after it last ran (its share done while others worked): no cost of the work, "
         "whatever its call chain";
}

std::string steal_text(const KernelEvidence& k) {
  if (!k.steal_reported) return "steal time not reported here";
  return fmt::format("the hypervisor's steal time, seen as on-CPU time: {}",
                     format_duration(static_cast<double>(k.steal_ns.value_or(0))));
}

std::string kernel_text(const Result& r) {
  if (!r.kernel || !r.kernel->available) return {};
  const KernelEvidence& k = *r.kernel;
  if (k.off_cpu_ns == 0) {
    return fmt::format("kernel: {} never left {} CPU while timed",
                       k.threads == 1 ? "the thread" : fmt::format("the {} threads", k.threads),
                       k.threads == 1 ? "its" : "their");
  }
  std::vector<std::pair<std::int64_t, OffCpuCause>> causes;
  for (const OffCpuCause c : kEveryOffCpuCause) {
    if (const auto ns = k.off_cpu[static_cast<std::size_t>(c)]; ns > 0) causes.emplace_back(ns, c);
  }
  std::stable_sort(causes.begin(), causes.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string parts;
  std::int64_t named = 0;
  for (const auto& [ns, c] : causes) {
    named += ns;
    parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", cause_name(c),
                         format_duration(static_cast<double>(ns)));
    if (c == OffCpuCause::fd_table_growth && !k.grace_period.empty()) {
      parts += fmt::format(" ({} RCU grace period)", k.grace_period);
    }
    if (c == OffCpuCause::preempted && k.steal_ns) parts += " (" + steal_text(k) + ")";
  }
  // A document before schema 9 held each cause's median apart: off-CPU time spread over causes
  // that each took none in most repetitions left no cause to name, or less than half of it.
  if (!parts.empty() && 2 * named < k.off_cpu_ns) {
    parts += ", the rest in no one cause in most repetitions";
  }
  std::string text =
      fmt::format("kernel: off-CPU {} of {} × {} per repetition{}",
                  format_duration(static_cast<double>(k.off_cpu_ns)),
                  k.threads == 1 ? std::string("1 thread") : fmt::format("{} threads", k.threads),
                  format_duration(static_cast<double>(k.window_ns)),
                  parts.empty() ? ", no one cause in most repetitions" : ": " + parts);
  if (k.at_edges_ns != 0) {
    text += fmt::format("; {} of it waiting to start or done",
                        k.at_edges_ns >= k.off_cpu_ns
                            ? std::string("all")
                            : format_duration(static_cast<double>(k.at_edges_ns)));
  }
  if (k.page_faults != 0) {
    text += fmt::format("; {} page fault{}", group_digits(k.page_faults),
                        k.page_faults == 1 ? "" : "s");
  }
  if (k.io_uring_punts && *k.io_uring_punts != 0) {
    text += fmt::format("; {} io_uring request{} punted to io-wq", group_digits(*k.io_uring_punts),
                        *k.io_uring_punts == 1 ? "" : "s");
  }
  if (k.incomplete != 0) {
    text +=
        fmt::format(" (records lost in {} repetitions: figures are lower bounds)", k.incomplete);
  }
  return text;
}

std::string detail_text(const Result& r) {
  const std::string latency = latency_text(r);
  const std::string region = timed_region_text(r);
  if (latency.empty() || region.empty()) return latency + region;
  return latency + "; " + region;
}

namespace {

// "1,287 voluntary and 1,285 involuntary switches", "1 involuntary switch": empty for none.
std::string switches_text(std::uint64_t voluntary, std::uint64_t involuntary) {
  const std::uint64_t n = voluntary + involuntary;
  if (n == 0) return {};
  const std::string_view noun = n == 1 ? "switch" : "switches";
  if (voluntary == 0) return fmt::format("{} involuntary {}", group_digits(involuntary), noun);
  if (involuntary == 0) return fmt::format("{} voluntary {}", group_digits(voluntary), noun);
  return fmt::format("{} voluntary and {} involuntary {}", group_digits(voluntary),
                     group_digits(involuntary), noun);
}

// "3 minor faults, 1 major fault": empty for none.
std::string faults_text(std::uint64_t minor, std::uint64_t major) {
  std::string text;
  if (minor != 0) text = fmt::format("{} minor fault{}", group_digits(minor), minor == 1 ? "" : "s");
  if (major != 0) {
    text += fmt::format("{}{} major fault{}", text.empty() ? "" : ", ", group_digits(major),
                        major == 1 ? "" : "s");
  }
  return text;
}

}  // namespace

std::string material_region_text(const Result& r) {
  if (!r.timed_region || !r.ran() || r.stats.median <= 0) return {};
  const TimedRegion& t = *r.timed_region;
  const double faults_ns = static_cast<double>(t.minor_faults) * kMinorFaultNs +
                           static_cast<double>(t.major_faults) * kMajorFaultNs;
  const double switches_ns =
      static_cast<double>(t.voluntary_switches + t.involuntary_switches) * kSwitchNs;
  const double share = (faults_ns + switches_ns) / r.stats.median;
  if (share < kMaterialShare) return {};
  std::string events = switches_text(t.voluntary_switches, t.involuntary_switches);
  const std::string faults = faults_text(t.minor_faults, t.major_faults);
  if (!faults.empty()) events += (events.empty() ? "" : ", ") + faults;
  return fmt::format("! per repetition: {} ≈ {}, {} of the median", events,
                     format_duration(faults_ns + switches_ns), format_percent(share));
}

std::string region_legend() {
  return fmt::format(
      "! per repetition: the page faults and context switches of a row's timed region, where "
      "they cost {} or more of its median at {} a switch, {} a minor and {} a major fault (low "
      "estimates: they are counted, not timed)",
      format_percent(kMaterialShare), format_duration(kSwitchNs), format_duration(kMinorFaultNs),
      format_duration(kMajorFaultNs));
}

std::string details_legend() {
  return "--details shows each row's page faults and switches, per-call times and kernel "
         "evidence; JSON always has them";
}

}  // namespace fdbench
