// The descriptor table's growth: each plain result against its pre-grown twin (every pregrow
// value asked for), what --latency measured of the growth and the stalls, and why a shared
// table stalls.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "analysis/compare.hpp"
#include "analysis/finding_parts.hpp"
#include "model/format.hpp"

namespace fdbench::findings_parts {

namespace {

// "`threads` with 2 threads × 256 tcp descriptors", "`threads` with 2 threads, 10,000 files kept
// open": what a pair measured.
std::string pair_what(const Result& off, const Naming& naming) {
  const std::uint64_t per_thread =
      off.ops / static_cast<std::uint64_t>(std::max(1, off.config.threads));
  // A list of files is described by its size; descriptors made per thread, per thread.
  if (off.input) {
    return fmt::format("`{}` with {}, {} files kept open", off.config.strategy,
                       naming.workers_but_pregrow(off), group_digits(off.ops));
  }
  return fmt::format("`{}` with {} × {} {} descriptors{}", off.config.strategy, workers_text(off),
                     per_thread, to_string(off.config.kind), naming.settings(off, false));
}

// The pair's verdict by the one rule: "2.5× slower without pre-growing", "the same within
// 10%", "cannot tell apart at ±31%".
std::string pair_verdict(const GrowthPair& p) {
  const std::string ratio = p.ratio() >= 1
                                ? format_ratio(p.ratio()) + " slower without pre-growing"
                                : format_ratio(1 / p.ratio()) + " faster without pre-growing";
  switch (p.apart()) {
    case Separation::same:
      return same_words();
    case Separation::cannot_tell:
      return fmt::format("cannot tell apart at {}", noise_text(*p.off, *p.grown));
    case Separation::too_few:
      return ratio + " by the medians alone; " + too_few_to_separate();
    case Separation::separated:
      break;
  }
  return ratio;
}

ClaimedFinding pair_line(const GrowthPair& p, const Naming& naming) {
  const Result& off = *p.off;
  const std::string rcu = naming.unnamed_rcu(off);
  std::map<std::string, FindingNumber> numbers = {
      {"threads", off.config.threads},
      {"median_ns", whole_ns(off.stats.median)},
      {"pregrown_median_ns", whole_ns(p.grown->stats.median)},
      {"ratio", p.ratio()}};
  if (off.fdsize_before) numbers["fdsize_before"] = *off.fdsize_before;
  if (off.fdsize_after) numbers["fdsize_after"] = *off.fdsize_after;
  if (off.config.rcu_expedited) numbers["rcu_expedited"] = *off.config.rcu_expedited;
  std::vector<FindingClaim> claims = {separation_claim(off, *p.grown, 0, 1)};
  if (p.stalled()) claims.push_back({ClaimKind::pregrow_slower, 0, 1});
  // A pre-grown table that still grew (a pregrow number too small) says so.
  std::string still;
  if (growths(*p.grown) > 0) {
    still = fmt::format(", where it still grew {} → {}", p.grown->fdsize_before.value_or(-1),
                        p.grown->fdsize_after.value_or(-1));
    claims.push_back({ClaimKind::grew, 1, 1});
  }
  return {{"pregrow",
           fmt::format("{}{}: {} ms from the kernel's starting table (FDSize {} → {}), {} ms with "
                       "the table grown first (pregrow {}{}): {}.",
                       pair_what(off, naming),
                       rcu.empty() ? std::string() : fmt::format(" with rcu_expedited={}", rcu),
                       format_ms(off.stats.median), off.fdsize_before.value_or(-1),
                       off.fdsize_after.value_or(-1), format_ms(p.grown->stats.median),
                       p.grown->config.pregrow.label(), still, pair_verdict(p)),
           std::move(numbers),
           {subject(off, "not-pregrown"), subject(*p.grown, "pregrown")}},
          std::move(claims)};
}

// "64, 128, 256 and 512".
std::string listed_fds(const std::vector<int>& values) {
  std::vector<std::string> texts;
  for (const int v : values) texts.push_back(std::to_string(v));
  return listed(texts);
}

// What --latency measured of a result's table growth, per repetition on average; `per` is
// what one record is ("call", or "submission" where `batches`).
std::string growth_text(const Result& r, const Latency& latency, const std::string& per,
                        bool batches) {
  const double reps = std::max(1, r.repetitions_run());
  std::vector<int> fds;
  bool shared = true;
  for (const auto& g : latency.growth_events) {
    if (std::find(fds.begin(), fds.end(), g.fd) == fds.end()) fds.push_back(g.fd);
    shared = shared && g.shared;
  }
  std::sort(fds.begin(), fds.end());
  if (!latency.growth_known) {
    return fmt::format(
        "Measured per {}: this system does not show the descriptor table's size, so the "
        "{}s that grew it cannot be told apart",
        per, per);
  }
  if (fds.empty()) return fmt::format("Measured per {0}: no {0} grew the descriptor table", per);
  const double per_rep = static_cast<double>(latency.growth_totals.count) / reps;
  return fmt::format(
      "Measured per {}: {} growth event{} per repetition{}, at fd{} {}, took {} ({}{})", per,
      format_count_average(per_rep), per_rep == 1 ? "" : "s",
      per_rep == std::floor(per_rep) ? "" : " on average", fds.size() == 1 ? "" : "s",
      listed_fds(fds),
      part_of_repetition(r, static_cast<double>(latency.growth_totals.total_ns) / reps),
      shared ? fmt::format("{} sharing the table", workers_text(r))
             : std::string("the table was not shared"),
      batches ? "; whole submissions, which overlap across workers" : "");
}

// What --latency measured of a result's stalls: how many, over how many repetitions, and
// their causes, over every repetition ("no call stalled"); `per` as for growth_text.
std::string stalls_text(const Result& r, const Latency& latency, const std::string& per) {
  std::uint64_t caused = 0;  // fewer than all only in a document before schema 9
  std::uint64_t from_kernel = 0;
  for (const auto& [cause, c] : latency.stall_causes) {
    caused += c.count;
    from_kernel += c.from_kernel;
  }
  const std::uint64_t stalls = latency.stall_totals.count;
  if (stalls == 0) return fmt::format("no {} stalled", per);
  std::string why;
  for (const auto& [cause, label] :
       {std::pair<const char*, const char*>{"fd-table-growth", "growing the shared table"},
        {"waiting-on-growth", "waiting on another worker's growth"},
        {"io_uring-wait", "waiting for io_uring completions"},
        {"io-wq", "waiting on io-wq"},
        {"page-fault", "in page faults"},
        {"lock", "waiting on a lock or for work"},
        {"preempted", "preempted"},
        {"other", "off their CPU elsewhere in the kernel"},
        {kOnCpuCause, "on-CPU for most of the call"},
        {"unexplained", "unexplained"}}) {
    const auto c = latency.stall_causes.find(cause);
    if (c != latency.stall_causes.end() && c->second.count > 0)
      why += fmt::format("{}{} {}", why.empty() ? "" : ", ", c->second.count, label);
  }
  // Where --kernel-trace named the causes, say so: they are the kernel's, not inferred.
  if (from_kernel > 0 && from_kernel == caused) {
    why += " (as the kernel recorded each call's thread)";
  } else if (from_kernel > 0) {
    why += fmt::format(
        " ({} as the kernel recorded each call's thread, the rest inferred from the timing)",
        from_kernel);
  }
  return fmt::format(
      "{} {}{} stalled (slower than 20 × the median and 200 µs) over {} repetition{}{}: {}", stalls,
      per, stalls == 1 ? "" : "s", r.repetitions_run(), r.repetitions_run() == 1 ? "" : "s",
      caused < stalls ? fmt::format(" (the causes of the first {} listed)", caused) : std::string(),
      why);
}

// Whether --latency found a stall in `latency`.
FindingClaim stall_claim(const Latency& latency, std::size_t subject_at) {
  return {latency.stall_totals.count == 0 ? ClaimKind::no_stalls : ClaimKind::stalls, subject_at,
          subject_at};
}

// What --latency measured of a result's table growth and stalls, per repetition on average,
// and of the stalls of its pre-grown pair where that was measured too: a sentence about one
// setting is never read as one about the other.
ClaimedFinding events_line(const Result& r, const Latency& latency, const Results& grown) {
  const double reps = std::max(1, r.repetitions_run());
  std::map<std::string, FindingNumber> numbers = {
      {"threads", r.config.threads},
      {"mean_ns", whole_ns(r.stats.mean)},
      {"growth_events_per_repetition", static_cast<double>(latency.growth_totals.count) / reps},
      {"growth_ns_per_repetition",
       whole_ns(static_cast<double>(latency.growth_totals.total_ns) / reps)},
      {"stalls", latency.stall_totals.count}};
  // io_uring's records are whole submissions (a batch), which overlap across workers.
  const bool batches = per_submission(latency);
  const std::string per = batches ? "submission" : "call";
  std::string text = growth_text(r, latency, per, batches) + "; " + stalls_text(r, latency, per);
  std::vector<FindingSubject> subjects = {subject(r, "measured")};
  std::vector<FindingClaim> claims = {stall_claim(latency, 0)};
  if (growth_share(r) >= kLargeGrowthShare) claims.push_back({ClaimKind::growth_cost, 0, 0});
  for (const Result* g : grown) {
    if (!g->latency) continue;
    const Latency& grown_latency = *g->latency;
    const std::string grown_per = per_submission(grown_latency) ? "submission" : "call";
    text += fmt::format(". With the table grown first (pregrow {}): {}", g->config.pregrow.label(),
                        stalls_text(*g, grown_latency, grown_per));
    numbers[grown.size() == 1 ? std::string("pregrown_stalls")
                              : "pregrown_stalls." + g->config.pregrow.label()] =
        grown_latency.stall_totals.count;
    claims.push_back(stall_claim(grown_latency, subjects.size()));
    subjects.push_back(subject(*g, "pregrown"));
  }
  return {{"events", text + ".", std::move(numbers), std::move(subjects)}, std::move(claims)};
}

// How a strategy's workers keep clear of a shared table: "separate processes".
std::string_view unshared_by(FdTable table) {
  switch (table) {
    case FdTable::per_worker:
      return "separate processes";
    case FdTable::none:
      return "io_uring direct descriptors";
    case FdTable::shared:
      break;
  }
  return {};
}

// "separate processes (`process`) and io_uring direct descriptors (`uring-direct`)": the
// strategies of the run whose workers never share a descriptor table (recorded in each
// result), each named once.
std::string unshared_strategies(std::span<const Result> results) {
  std::vector<std::string> parts;
  for (const Result& r : results) {
    if (r.fd_table == FdTable::shared || !comparable(r)) continue;
    std::string part = fmt::format("{} (`{}`)", unshared_by(r.fd_table), r.config.strategy);
    if (std::find(parts.begin(), parts.end(), part) == parts.end())
      parts.push_back(std::move(part));
  }
  std::string text;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  }
  return text;
}

// Why the table stalled the `stalled` pairs, and what avoids it. Pre-growing is said to remove
// every stall only where --latency counted none in every pre-grown twin; otherwise it removes
// the growths' waits, which is what the pairs show.
ClaimedFinding why_line(std::span<const GrowthPair* const> stalled,
                        std::span<const Result> results) {
  int fewest = 0;
  int most = 0;
  bool none_stalled = true;
  std::vector<FindingSubject> subjects;
  std::vector<FindingClaim> claims;
  for (const GrowthPair* p : stalled) {
    const int g = growths(*p->off);
    fewest = subjects.empty() ? g : std::min(fewest, g);
    most = std::max(most, g);
    const bool counted = p->grown->latency && p->grown->latency->stall_totals.count == 0;
    none_stalled = none_stalled && counted;
    if (counted) claims.push_back({ClaimKind::no_stalls, subjects.size() + 1, subjects.size() + 1});
    claims.push_back({ClaimKind::no_growth, subjects.size() + 1, subjects.size() + 1});
    subjects.push_back(subject(*p->off, "stalled"));
    subjects.push_back(subject(*p->grown, "pregrown"));
  }
  const std::string times = most == 0 ? std::string(" (in the process that held the descriptors)")
                            : fewest == most ? fmt::format(" {} time{}", most, most == 1 ? "" : "s")
                                             : fmt::format(" {} to {} times", fewest, most);
  const std::string avoid = unshared_strategies(results);
  return {{"why_stall",
           fmt::format(
               "Why: the descriptor table grew{} while shared by more than one thread, and each "
               "growth of a shared table waits for an RCU grace period (expand_fdtable → "
               "synchronize_rcu in fs/file.c), stalling every thread that needs a descriptor "
               "meanwhile. Growing it once before the second thread exists (dup2(0, N); close(N)) "
               "{}{}.",
               times,
               none_stalled ? "removes every stall: --latency counted none pre-grown"
                            : "removes those waits",
               avoid.empty() ? std::string() : fmt::format("; {} never share the table", avoid)),
           {{"growths", most}, {"fewest_growths", fewest}},
           std::move(subjects)},
          std::move(claims)};
}

// A pregrow value too small for what a run held: its table still grew.
void pregrow_short_finding(const Results& all, const Naming& naming, Findings& out) {
  for (const auto* r : all) {
    if (!r->config.pregrow.grows() || growths(*r) == 0) continue;
    out.push_back({{"pregrow_short",
                    fmt::format("pregrow {} was too small for {}: its table still grew from {} to "
                                "{} slots ({} growth{}) while timed.",
                                r->config.pregrow.label(), pair_what(*r, naming),
                                r->fdsize_before.value_or(-1), r->fdsize_after.value_or(-1),
                                growths(*r), growths(*r) == 1 ? "" : "s"),
                    {{"fdsize_before", r->fdsize_before.value_or(-1)},
                     {"fdsize_after", r->fdsize_after.value_or(-1)},
                     {"growths", growths(*r)}},
                    {subject(*r, "pregrown")}},
                   {{ClaimKind::grew, 0, 0}}});
  }
}

// A growth cost pre-growing did not save, as measured: "1.59 ms of the 2.62 ms a repetition
// took on average, yet with the table grown first (pregrow auto) the two were the same within
// 10%", or `brief`ly, one of several: "1.59 of 2.62 ms, the same within 10%".
std::string unsaved_text(const GrowthPair& p, bool brief) {
  const double reps = std::max(1, p.off->repetitions_run());
  const double growth_ns = static_cast<double>(p.off->latency->growth_totals.total_ns) / reps;
  // io_uring's records are whole submissions, which overlap across workers: their sum may
  // exceed the repetition.
  const std::string overlap =
      per_submission(*p.off->latency) ? " (whole submissions, which overlap)" : "";
  const std::string relation = p.apart() == Separation::same ? same_words()
                               : p.apart() == Separation::cannot_tell
                                   ? fmt::format("less than 2× apart, cannot tell closer at {}",
                                                 noise_text(*p.off, *p.grown))
                                   : "";
  if (brief) {
    return fmt::format("{}{}, {}", part_of_repetition(*p.off, growth_ns, true), overlap,
                       !relation.empty()
                           ? relation
                           : fmt::format("pre-grown {} the time", format_ratio(1 / p.ratio())));
  }
  return fmt::format(
      "{}{}, yet with the table grown first (pregrow {}) {}", part_of_repetition(*p.off, growth_ns),
      overlap, p.grown->config.pregrow.label(),
      !relation.empty()
          ? "the two were " + relation
          : fmt::format("it took {} the time, less than 2× apart", format_ratio(1 / p.ratio())));
}

// The pairs whose measured growth took a large share of a repetition without pre-growing that
// pre-growing did not save: said as measured, in one finding.
void unsaved_finding(std::span<const GrowthPair* const> unsaved, Findings& out) {
  if (unsaved.empty()) return;
  std::vector<FindingSubject> subjects;
  std::vector<FindingClaim> claims;
  std::map<std::string, FindingNumber> numbers;
  std::string text;
  for (const GrowthPair* p : unsaved) {
    const std::size_t at = subjects.size();
    claims.push_back({ClaimKind::growth_cost, at, at});
    claims.push_back(separation_claim(*p->off, *p->grown, at, at + 1));
    subjects.push_back(subject(*p->off, "not-pregrown"));
    subjects.push_back(subject(*p->grown, "pregrown"));
    const std::string name = p->off->config.strategy + "." + std::to_string(p->off->config.threads);
    numbers[name + ".growth_share"] = p->off->latency->growth_totals.share_of_repetition;
    numbers[name + ".ratio"] = p->ratio();
    const bool brief = unsaved.size() > 1;  // one of several: which twin, said briefly
    text +=
        fmt::format("{}`{}` with {}{}: {}", text.empty() ? "" : "; ", p->off->config.strategy,
                    workers_text(*p->off),
                    brief ? " against pregrow " + p->grown->config.pregrow.label() : std::string(),
                    unsaved_text(*p, brief));
  }
  out.push_back({{"pregrow_growth_unsaved",
                  fmt::format("Without pre-growing, the table's growth took at least a fifth of "
                              "a repetition, and pre-growing did not save it: {}.",
                              text),
                  std::move(numbers), std::move(subjects)},
                 std::move(claims)});
}

// Where a table grew but pre-growing changed little: only of pairs the one rule can tell
// apart, and never of a result whose measured growth took a large share of its time (that is
// said as measured instead: the growth cost was not saved).
void little_difference_finding(std::span<const GrowthPair> pairs, Findings& out) {
  std::vector<FindingSubject> grew;
  std::vector<FindingClaim> claims;
  std::vector<const GrowthPair*> unsaved;
  for (const auto& p : pairs) {
    // A twin whose table still grew says nothing of pre-growing; a result 2× slower than
    // another twin is no little difference.
    const bool stalled_elsewhere =
        std::any_of(pairs.begin(), pairs.end(),
                    [&p](const GrowthPair& o) { return o.off == p.off && o.stalled(); });
    if (growths(*p.off) == 0 || growths(*p.grown) > 0 || stalled_elsewhere || !p.under_twice()) {
      continue;
    }
    if (growth_share(*p.off) >= kLargeGrowthShare) {
      unsaved.push_back(&p);
      continue;
    }
    claims.push_back({ClaimKind::pregrow_little, grew.size(), grew.size() + 1});
    grew.push_back(subject(*p.off, "not-pregrown"));
    grew.push_back(subject(*p.grown, "pregrown"));
  }
  if (!grew.empty()) {
    out.push_back({{"pregrow_little_difference",
                    "Pre-growing made little difference for multi-threaded runs on this "
                    "kernel (an expedited RCU, rcu_expedited=1, or a kernel without the "
                    "stall would explain it).",
                    {},
                    std::move(grew)},
                   std::move(claims)});
  }
  unsaved_finding(unsaved, out);
}

// More pairs than fit a line each, none 2× slower without pre-growing by the one rule.
ClaimedFinding no_effect_finding(std::span<const GrowthPair> pairs, std::string_view workload) {
  std::vector<FindingSubject> subjects;
  std::vector<FindingClaim> claims;
  std::size_t too_few = 0;
  for (const auto& p : pairs) {
    claims.push_back(separation_claim(*p.off, *p.grown, subjects.size(), subjects.size() + 1));
    subjects.push_back(subject(*p.off, "not-pregrown"));
    subjects.push_back(subject(*p.grown, "pregrown"));
    if (p.apart() == Separation::too_few) ++too_few;
  }
  return {{"pregrow_no_effect",
           too_few == pairs.size()
               ? fmt::format("Pre-growing the table: {} {} results, each with too few repetitions "
                             "to separate it from its pre-grown pair (use --repeat ≥ {}).",
                             pairs.size(), workload, min_samples_for())
               : fmt::format("Pre-growing the table made none of the {} {} results 2× faster "
                             "beyond noise{}.",
                             pairs.size(), workload,
                             too_few == 0 ? std::string()
                                          : fmt::format("; {} of them had {}", too_few,
                                                        too_few_to_separate())),
           {{"results", pairs.size()}},
           std::move(subjects)},
          std::move(claims)};
}

// The pre-grown twins of `off` among `pairs`.
Results twins_of(const Result* off, std::span<const GrowthPair> pairs) {
  Results grown;
  for (const auto& p : pairs) {
    if (p.off == off) grown.push_back(p.grown);
  }
  return grown;
}

// Beyond three results, per pregrow value: the worst pair, or that none was 2× slower.
void summarised_pairs(std::span<const GrowthPair> pairs, std::string_view workload,
                      const Naming& naming, Findings& out) {
  std::vector<std::string> values;  // the pregrow values, in the order measured
  for (const auto& p : pairs) {
    const std::string v = p.grown->config.pregrow.label();
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
  }
  for (const auto& value : values) {
    std::vector<GrowthPair> mine;
    for (const auto& p : pairs) {
      if (p.grown->config.pregrow.label() == value) mine.push_back(p);
    }
    const GrowthPair* worst = nullptr;
    int stalls = 0;
    std::vector<std::string> stalled;  // "N of M" names its N
    for (const auto& p : mine) {
      if (!p.stalled()) continue;
      ++stalls;
      stalled.push_back(
          fmt::format("`{}` with {}", p.off->config.strategy, naming.workers_but_pregrow(*p.off)));
      if (worst == nullptr || p.ratio() > worst->ratio()) worst = &p;
    }
    if (worst == nullptr) {
      out.push_back(no_effect_finding(mine, workload));
      continue;
    }
    ClaimedFinding worst_line = pair_line(*worst, naming);
    Finding& line = worst_line.finding;
    line.kind = "pregrow_worst";
    line.numbers["stalled_results"] = stalls;
    line.numbers["results"] = mine.size();
    line.text = fmt::format(
        "{} of {} {} results {} at least 2× slower without pre-growing the table (pregrow {}; "
        "their 95% intervals apart): {}. The worst: {}",
        stalls, mine.size(), workload, stalls == 1 ? "was" : "were", value, listed(stalled),
        line.text);
    out.push_back(std::move(worst_line));
    if (value == values.front() && worst->off->latency) {
      out.push_back(events_line(*worst->off, *worst->off->latency, twins_of(worst->off, pairs)));
    }
  }
}

}  // namespace

// Pairs every pregrow=off result with each pre-grown one of the same shape and explains the
// difference: the RCU grace period a shared table waits for on each growth.
void growth_findings(std::span<const Result> results, std::string_view workload,
                     const Naming& naming, Findings& out) {
  const Results all = select(results, workload);
  const std::vector<GrowthPair> pairs = growth_pairs(all);
  Results offs;
  for (const auto& p : pairs) {
    if (std::find(offs.begin(), offs.end(), p.off) == offs.end()) offs.push_back(p.off);
  }
  if (offs.size() <= 3) {
    for (const Result* off : offs) {
      for (const auto& p : pairs) {
        if (p.off == off) out.push_back(pair_line(p, naming));
      }
      if (off->latency) out.push_back(events_line(*off, *off->latency, twins_of(off, pairs)));
    }
  } else {
    summarised_pairs(pairs, workload, naming, out);
  }
  // Growth may happen where FDSize is not read (libuv's helper process), so the ratio decides
  // (GrowthPair::stalled); the measured growth only explains it. A twin whose table still
  // grew explains nothing about pre-growing.
  std::vector<const GrowthPair*> stalled;
  for (const auto& p : pairs) {
    if (p.stalled() && growths(*p.grown) == 0) stalled.push_back(&p);
  }
  if (!stalled.empty()) {
    out.push_back(why_line(stalled, results));
  } else if (!pairs.empty()) {
    little_difference_finding(pairs, out);
  }
  pregrow_short_finding(all, naming, out);
}

}  // namespace fdbench::findings_parts
