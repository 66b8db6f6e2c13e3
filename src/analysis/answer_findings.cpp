// The seeds' questions, answered for this machine before any other finding: the fastest way to
// open the files and from how many threads more stop helping; what a pool with one task per
// file costs and what batching recovers; how much the shared table's growth slows two threads
// creating sockets, and whether pre-growing removes it. Each answer is a claimed finding like
// the others, held against the rows by the same last pass, and says "cannot tell here" where
// the rows cannot separate what it is asked.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "analysis/finding_parts.hpp"
#include "model/format.hpp"

namespace fdbench::findings_parts {

namespace {

// "1.2 M files/s (±3%)".
std::string rate_text(const Result& r) {
  const auto p = r.precision();
  // Past ±100% the figure says nothing a reader can use.
  const std::string noise = !p       ? std::string()
                            : *p > 1 ? std::string(" (an interval wider than the median itself)")
                                     : " (±" + format_percent(*p) + ")";
  return fmt::format("{} {}/s{}", format_rate(r.ops_per_sec), r.unit, noise);
}

// (a), first part: the fastest, or the results it cannot be told from.
std::string fastest_part(const Results& all, const Naming& naming,
                         std::vector<FindingSubject>& subjects, std::vector<FindingClaim>& claims) {
  const Result* best = fastest(all);
  subjects.push_back(subject(*best, "fastest"));
  Results close;
  for (const auto* r : all) {
    if (r != best && overlap(separation(r->median_ci, best->median_ci))) close.push_back(r);
  }
  if (close.empty()) {
    claims.push_back({ClaimKind::fastest, 0, 0});
    return fmt::format("{} at {}", naming(*best), rate_text(*best));
  }
  for (const auto* r : close) {
    claims.push_back(separation_claim(*r, *best, subjects.size(), 0));
    subjects.push_back(subject(*r, "close"));
  }
  return fmt::format("no clear winner: {} at {} and {} more result{} not separated from it",
                     naming(*best), rate_text(*best), close.size(), close.size() == 1 ? "" : "s");
}

// (a), second part: from how many threads the plain loop stopped gaining.
std::string knee_part(const Results& plain, const Naming& naming,
                      std::vector<FindingSubject>& subjects, std::vector<FindingClaim>& claims) {
  if (plain.size() < 2) return {};
  const Result* best = fastest(plain);
  const Result* knee = nullptr;
  for (const auto* r : plain) {
    const bool as_good = r == best || separation(r->median_ci, best->median_ci) == Separation::same;
    if (as_good && (knee == nullptr || r->config.threads < knee->config.threads)) knee = r;
  }
  const std::size_t k = subjects.size();
  subjects.push_back(subject(*knee, "knee"));
  subjects.push_back(subject(*best, "best"));
  const FindingClaim claim{ClaimKind::knee, k, k + 1};
  std::vector<const Result*> fewer;
  for (const auto* r : plain) {
    if (r->config.threads < knee->config.threads) fewer.push_back(r);
  }
  const bool shown = std::all_of(fewer.begin(), fewer.end(), [&](const Result* r) {
    return separation(r->median_ci, best->median_ci) == Separation::separated &&
           r->stats.median > knee->stats.median;
  });
  if (!shown) {
    subjects.resize(k);
    return fmt::format("; from how many threads `{}` stops gaining: cannot tell here ({})",
                       best->config.strategy, settle_text(plain));
  }
  claims.push_back(claim);
  if (knee != best) {
    claims.push_back({ClaimKind::same, k, k + 1});
    return fmt::format("; `{}` stops gaining at {}: {} ms, {} of its best ({} ms with {})",
                       knee->config.strategy, naming.workers(*knee), format_ms(knee->stats.median),
                       same_words(), format_ms(best->stats.median), naming.workers(*best));
  }
  // Fastest at the knee: more threads did not help only where every larger count is shown
  // slower or the same.
  const bool more_known = std::all_of(plain.begin(), plain.end(), [&](const Result* r) {
    return r->config.threads <= knee->config.threads ||
           separation(r->median_ci, best->median_ci) != Separation::cannot_tell;
  });
  if (!more_known) {
    return fmt::format(
        "; `{}` was fastest with {} ({} ms); whether more threads help: cannot "
        "tell here ({})",
        knee->config.strategy, naming.workers(*knee), format_ms(knee->stats.median),
        settle_text(plain));
  }
  return fmt::format("; more threads than {} did not help `{}` ({} ms)", knee->config.threads,
                     knee->config.strategy, format_ms(knee->stats.median));
}

void answer_fastest(std::span<const Result> results, const Naming& naming, Findings& out) {
  const Results listed =
      only(select(results, "open"), [](const Result& r) { return r.input.has_value(); });
  const bool grown =
      !only(listed, [](const Result& r) { return r.config.pregrow.grows(); }).empty();
  const Results all =
      only(listed, [grown](const Result& r) { return r.config.pregrow.grows() == grown; });
  if (all.size() < 2 || fewest_without_interval(all) != nullptr) return;
  std::vector<FindingSubject> subjects;
  std::vector<FindingClaim> claims;
  std::string text =
      fmt::format("Fastest way to open {} files here: {}", group_digits(all.front()->ops),
                  fastest_part(all, naming, subjects, claims));
  text +=
      knee_part(only(all, [](const Result& r) { return r.reference; }), naming, subjects, claims);
  const Result* best = fastest(all);
  out.push_back({{"answer_fastest",
                  text + ".",
                  {{"ops_per_sec", best->ops_per_sec}, {"threads", best->config.threads}},
                  std::move(subjects)},
                 std::move(claims)});
}

// (b): the seed's pool against the plain loop with one thread, and the best batching.
void answer_pool(std::span<const Result> results, Findings& out) {
  const Results all = only(select(results, "open"), [](const Result& r) {
    return r.input.has_value() && !r.config.pregrow.grows();
  });
  const Results plain = only(all, [](const Result& r) { return r.reference; });
  const Result* plain_one = with_threads(plain, 1);
  // The seed's pool is the one measured only to show what it costs (never recommended); its
  // batching sibling hands its workers tasks of --batch items.
  const Result* pool_one =
      with_threads(only(all, [](const Result& r) { return !r.recommendable; }), 1);
  if (plain_one == nullptr || pool_one == nullptr) return;
  if (fewest_without_interval({plain_one, pool_one}) != nullptr) return;
  std::vector<FindingSubject> subjects = {subject(*plain_one, "reference"),
                                          subject(*pool_one, "pool")};
  std::vector<FindingClaim> claims = {separation_claim(*pool_one, *plain_one, 1, 0)};
  std::string text = fmt::format(
      "A thread pool with one task per file (`{}`, 1 thread) took {} the time of a plain loop "
      "({} against {} ms{})",
      pool_one->config.strategy, format_ratio(pool_one->stats.median / plain_one->stats.median),
      format_ms(pool_one->stats.median), format_ms(plain_one->stats.median),
      ratio_qualifier(*pool_one, *plain_one));
  const Results batched = only(all, [](const Result& r) {
    return r.batch_unit == BatchUnit::task && r.config.threads == 1;
  });
  if (const Result* b = fastest(batched); b != nullptr && b->median_ci.reached) {
    claims.push_back(separation_claim(*b, *plain_one, 2, 0));
    subjects.push_back(subject(*b, "batched"));
    text += fmt::format("; batching (`{}`, batch {}) brings it to {}{}", b->config.strategy,
                        b->config.batch, format_ratio(b->stats.median / plain_one->stats.median),
                        ratio_qualifier(*b, *plain_one));
  }
  out.push_back({{"answer_pool",
                  text + ".",
                  {{"ratio", pool_one->stats.median / plain_one->stats.median}},
                  std::move(subjects)},
                 std::move(claims)});
}

// The pair the stall answer is about: two threads where measured, the first pair otherwise.
const GrowthPair* stall_pair(const std::vector<GrowthPair>& pairs) {
  const auto two = std::find_if(pairs.begin(), pairs.end(), [](const GrowthPair& p) {
    return p.off->config.threads == 2 && growths(*p.grown) == 0;
  });
  if (two != pairs.end()) return &*two;
  return pairs.empty() ? nullptr : &pairs.front();
}

// Where every result of `workload` was measured with rcu_expedited=1 (the kernel's own setting,
// or --rcu-expedited 1): what that hides, and the command that measures both ("" elsewhere).
// The README's sample was made on such a kernel and answered "cannot tell" where a kernel that
// waits for full grace periods shows the stall clearly.
std::string expedited_note(std::span<const Result> results, std::string_view workload,
                           const Environment& env) {
  const Results measured = select(results, workload);
  if (measured.empty()) return {};
  for (const Result* r : measured) {
    const std::optional<int> setting =
        r->config.rcu_expedited ? r->config.rcu_expedited : env.rcu_expedited;
    if (setting != 1) return {};
  }
  return fmt::format(
      " This kernel expedites RCU grace periods (rcu_expedited=1), so a growth of the shared "
      "table waits well under a millisecond: that hides most of the stall a kernel waiting for "
      "full grace periods shows (tens of ms for this work); `sudo fdbench {} --rcu-expedited "
      "0,1` measures both.",
      workload);
}

// (c): the seed's stall, from the kernel's starting table against a pre-grown one.
void answer_stall(std::span<const Result> results, const Naming& naming, const Environment& env,
                  Findings& out) {
  const std::vector<GrowthPair> pairs = growth_pairs(select(results, "socket"));
  const GrowthPair* p = stall_pair(pairs);
  if (p == nullptr || p->apart() == Separation::too_few) return;
  const Result& off = *p->off;
  const std::string rcu = naming.unnamed_rcu(off);
  std::vector<FindingSubject> subjects = {subject(off, "not-pregrown"),
                                          subject(*p->grown, "pregrown")};
  std::vector<FindingClaim> claims = {separation_claim(off, *p->grown, 0, 1)};
  std::string text = fmt::format(
      "{} × {} {} descriptors (`{}`{}): {} ms from the kernel's starting table, {} ms with the "
      "table grown first",
      workers_text(off), off.ops / static_cast<std::uint64_t>(std::max(1, off.config.threads)),
      to_string(off.config.kind), off.config.strategy, naming.settings(off, false),
      format_ms(off.stats.median), format_ms(p->grown->stats.median));
  if (p->stalled() && growths(*p->grown) == 0) {
    claims.push_back({ClaimKind::pregrow_slower, 0, 1});
    claims.push_back({ClaimKind::no_growth, 1, 1});
    text += fmt::format(
        ": {} slower{}; pre-growing removes it. The shared table grew {} time{}, each growth "
        "waiting for an RCU grace period",
        format_ratio(p->ratio()), rcu.empty() ? "" : " with rcu_expedited=" + rcu, growths(off),
        growths(off) == 1 ? "" : "s");
    if (kernel_traced(off) && kernel_growth_ns(*off.kernel) > 0 && off.kernel->off_cpu_ns > 0) {
      claims.push_back({ClaimKind::kernel_growth, 0, 0});
      text += fmt::format(
          " (the kernel: {} of the threads' off-CPU time was that growth and the "
          "waits on it)",
          format_percent(static_cast<double>(kernel_growth_ns(*off.kernel)) /
                         static_cast<double>(off.kernel->off_cpu_ns)));
    }
  } else if (p->apart() == Separation::cannot_tell) {
    text += fmt::format(": cannot tell here at {}; {}", noise_text(off, *p->grown),
                        settle_text({&off, p->grown}));
  } else if (p->apart() == Separation::same) {
    text += fmt::format(
        ": {}, no stall worth pre-growing for here (a short RCU grace period, as "
        "rcu_expedited=1 gives, would explain it)",
        same_words());
  } else {
    text += fmt::format(": {} {} without pre-growing",
                        format_ratio(p->ratio() >= 1 ? p->ratio() : 1 / p->ratio()),
                        p->ratio() >= 1 ? "slower" : "faster");
  }
  out.push_back({{"answer_stall",
                  text + "." + expedited_note(results, "socket", env),
                  {{"median_ns", whole_ns(off.stats.median)},
                   {"pregrown_median_ns", whole_ns(p->grown->stats.median)},
                   {"ratio", p->ratio()}},
                  std::move(subjects)},
                 std::move(claims)});
}

// The slowest accept of a result over its repetitions ("" without --latency).
std::string worst_call_text(const Result& r) {
  if (!r.latency || r.latency->ns.empty()) return {};
  std::int64_t worst = 0;
  for (const auto& [op, p] : r.latency->ns) worst = std::max(worst, p.max);
  return format_duration(static_cast<double>(worst));
}

// Stalled accepts per burst: every repetition's, over the repetitions.
double stalls_per_burst(const Result& r) {
  if (!r.latency || r.times_ns.empty()) return 0;
  return static_cast<double>(r.latency->stall_totals.count) /
         static_cast<double>(r.times_ns.size());
}

// What the tail of a fresh server's first burst owes to the table's growth: the pair of the
// first accept strategy measured both ways.
void answer_accept(std::span<const Result> results, const Naming& naming, const Environment& env,
                   Findings& out) {
  const std::vector<GrowthPair> pairs = growth_pairs(select(results, "accept"));
  if (pairs.empty() || pairs.front().apart() == Separation::too_few) return;
  const GrowthPair& p = pairs.front();
  const Result& off = *p.off;
  std::vector<FindingSubject> subjects = {subject(off, "not-pregrown"),
                                          subject(*p.grown, "pregrown")};
  std::vector<FindingClaim> claims = {separation_claim(off, *p.grown, 0, 1)};
  std::string text = fmt::format(
      "A fresh server's first burst ({} accepting {} queued {} connections, `{}`{}): drained in "
      "{} ms from the kernel's starting table, {} ms with the table grown first",
      workers_text(off), group_digits(off.ops), to_string(off.config.kind), off.config.strategy,
      naming.settings(off, false), format_ms(off.stats.median), format_ms(p.grown->stats.median));
  if (const std::string worst = worst_call_text(off); !worst.empty()) {
    text += fmt::format("; its worst accept waited {} against {} pre-grown", worst,
                        worst_call_text(*p.grown));
  }
  if (p.stalled() && growths(*p.grown) == 0) {
    claims.push_back({ClaimKind::pregrow_slower, 0, 1});
    claims.push_back({ClaimKind::no_growth, 1, 1});
    text += fmt::format(
        ". The table grew {} time{} during the burst, each growth waiting for an RCU grace "
        "period while the threads shared it",
        growths(off), growths(off) == 1 ? "" : "s");
    if (off.latency && off.latency->stall_totals.count > 0) {
      claims.push_back({ClaimKind::stalls, 0, 0});
      // A count averaged over bursts is said as an average, with what it averages over.
      text += fmt::format(
          " (on average {} of the {} accepts of a burst stalled, over {} bursts: the tail is the "
          "growth)",
          format_count_average(stalls_per_burst(off)), group_digits(off.ops), off.times_ns.size());
    }
    text += fmt::format(": {} slower; pre-growing removes it", format_ratio(p.ratio()));
  } else if (p.apart() == Separation::cannot_tell) {
    text += fmt::format(": cannot tell here at {}; {}", noise_text(off, *p.grown),
                        settle_text({&off, p.grown}));
  } else if (p.apart() == Separation::same) {
    text += fmt::format(": {}, no stall worth pre-growing for here", same_words());
  } else {
    text += fmt::format(": {} {} without pre-growing",
                        format_ratio(p.ratio() >= 1 ? p.ratio() : 1 / p.ratio()),
                        p.ratio() >= 1 ? "slower" : "faster");
  }
  out.push_back({{"answer_accept",
                  text + "." + expedited_note(results, "accept", env),
                  {{"median_ns", whole_ns(off.stats.median)},
                   {"pregrown_median_ns", whole_ns(p.grown->stats.median)},
                   {"ratio", p.ratio()}},
                  std::move(subjects)},
                 std::move(claims)});
}

}  // namespace

void answer_findings(std::span<const Result> results, const Naming& naming, const Environment& env,
                     Findings& out) {
  answer_fastest(results, naming, out);
  answer_pool(results, out);
  answer_stall(results, naming, env, out);
  answer_accept(results, naming, env, out);
}

}  // namespace fdbench::findings_parts
