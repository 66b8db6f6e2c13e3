#include "analysis/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <utility>

#include "analysis/compare.hpp"
#include "engine/strategy.hpp"
#include "model/format.hpp"

namespace fdbench {

namespace {

using Results = std::vector<const Result*>;
using Findings = std::vector<ClaimedFinding>;

// Results of `workload` that are valid timings, measured with fdbench's minimal harness: a
// published harness's result has its own finding (harness_findings), against its minimal twin.
Results select(std::span<const Result> results, std::string_view workload) {
  Results out;
  for (const auto& r : results) {
    if (r.workload == workload && comparable(r) && r.stats.count > 0 &&
        r.harness == Harness::minimal) {
      out.push_back(&r);
    }
  }
  return out;
}

// What the one rule says of `a` and `b`, as a claim about subjects `ia` and `ib`.
FindingClaim separation_claim(const Result& a, const Result& b, std::size_t ia, std::size_t ib) {
  switch (separation(a.median_ci, b.median_ci)) {
    case Separation::separated:
      return {ClaimKind::separated, ia, ib};
    case Separation::within_noise:
      return {ClaimKind::within_noise, ia, ib};
    case Separation::too_few:
      break;
  }
  return {ClaimKind::too_few, ia, ib};
}

// What a ratio of `r` to `base` adds in words: ", within noise" where the intervals overlap,
// ", medians alone" where there are too few repetitions to tell; nothing where they separate.
std::string ratio_qualifier(const Result& r, const Result& base) {
  switch (separation(r.median_ci, base.median_ci)) {
    case Separation::within_noise:
      return ", within noise";
    case Separation::too_few:
      return ", medians alone";
    case Separation::separated:
      break;
  }
  return "";
}

// Those of `rs` that `keep` accepts.
template <class Keep>
Results only(const Results& rs, Keep keep) {
  Results out;
  for (const auto* r : rs) {
    if (keep(*r)) out.push_back(r);
  }
  return out;
}

const Result* fastest(const Results& rs) {
  const Result* best = nullptr;
  for (const auto* r : rs) {
    if (best == nullptr || r->ops_per_sec > best->ops_per_sec) best = r;
  }
  return best;
}

const Result* with_threads(const Results& rs, int threads) {
  for (const auto* r : rs) {
    if (r->threads == threads) return r;
  }
  return nullptr;
}

// "2 threads", or "2 processes" where the workers are processes.
std::string workers_text(const Result& r) {
  switch (r.workers) {
    case WorkerKind::processes:
      return fmt::format("{} process{}", r.threads, r.threads == 1 ? "" : "es");
    case WorkerKind::threads:
      break;
  }
  return thread_count_text(r.threads);
}

// What a finding says of `r`, for a script to match against the results without reading the
// sentence.
FindingSubject subject(const Result& r, std::string role) {
  return {std::move(role),   r.workload,      r.kind,
          r.strategy,        r.threads,       r.batch,
          r.pregrow.label(), r.rcu_expedited, std::string(to_string(r.harness))};
}

// "too few repetitions to separate these (use --repeat ≥ 6)": what is said instead of a
// comparison when a result has no real 95% interval of its median (Separation::too_few).
std::string too_few_to_separate() {
  return fmt::format("too few repetitions to separate these (use --repeat ≥ {})",
                     min_samples_for());
}

// Of `rs` without a 95% interval of its median, the one with the fewest repetitions, or
// nullptr: while there is one, no comparison among `rs` is settled.
const Result* fewest_without_interval(const Results& rs) {
  const Result* fewest = nullptr;
  for (const auto* r : rs) {
    if (r->median_ci.reached) continue;
    if (fewest == nullptr || r->times_ns.size() < fewest->times_ns.size()) fewest = r;
  }
  return fewest;
}

// Instead of the fastest or a tie, when some result has too few repetitions for a 95%
// interval: less data makes no firmer claim.
ClaimedFinding too_few_finding(const Result& fewest) {
  const auto reps = fewest.times_ns.size();
  return {{"too_few",
           fmt::format("Opening files: {}: with {} repetition{} a result has no 95% interval of "
                       "its median, so none is called fastest or tied here.",
                       too_few_to_separate(), reps, reps == 1 ? "" : "s"),
           {{"repetitions", static_cast<std::int64_t>(reps)},
            {"repetitions_needed", static_cast<std::int64_t>(min_samples_for())}},
           {subject(fewest, "too_few")}},
          {}};
}

// The fastest of `all`, in words, by the one rule (separation()): called fastest only when its
// median's 95% interval overlaps no other result's; otherwise the results whose intervals
// overlap its own are named with it, tied.
void fastest_finding(const Results& all, Findings& out) {
  const Result* best = fastest(all);
  if (best == nullptr) return;
  if (const Result* fewest = fewest_without_interval(all); fewest != nullptr && all.size() > 1) {
    out.push_back(too_few_finding(*fewest));
    return;
  }
  Results tied;
  for (const auto* r : all) {
    if (r != best && separation(r->median_ci, best->median_ci) == Separation::within_noise) {
      tied.push_back(r);
    }
  }
  if (tied.empty()) {
    out.push_back({{"fastest",
                    fmt::format("Opening files: the fastest way here was `{}` with {}: {} files/s "
                                "({} ms for {} file{}).",
                                best->strategy, workers_text(*best), format_rate(best->ops_per_sec),
                                format_ms(best->stats.median), group_digits(best->ops),
                                best->ops == 1 ? "" : "s"),
                    {{"threads", best->threads},
                     {"ops_per_sec", best->ops_per_sec},
                     {"median_ns", whole_ns(best->stats.median)},
                     {"files", best->ops}},
                    {subject(*best, "fastest")}},
                   {{ClaimKind::fastest, 0, 0}}});
    return;
  }
  std::sort(tied.begin(), tied.end(),
            [](const Result* a, const Result* b) { return a->ops_per_sec > b->ops_per_sec; });
  constexpr std::size_t kNamed = 4;
  std::string others;
  for (std::size_t i = 0; i < tied.size() && i < kNamed; ++i) {
    others += fmt::format(", `{}` with {} ({} files/s)", tied[i]->strategy, workers_text(*tied[i]),
                          format_rate(tied[i]->ops_per_sec));
  }
  if (tied.size() > kNamed) others += fmt::format(" and {} more", tied.size() - kNamed);
  std::vector<FindingSubject> subjects = {subject(*best, "fastest")};
  std::vector<FindingClaim> claims;
  for (const auto* r : tied) {
    claims.push_back({ClaimKind::within_noise, 0, subjects.size()});
    subjects.push_back(subject(*r, "tied"));
  }
  out.push_back(
      {{"tied",
        fmt::format("Opening files: fastest here, tied within noise (the 95% intervals "
                    "of their medians overlap): `{}` with {} ({} files/s){}.",
                    best->strategy, workers_text(*best), format_rate(best->ops_per_sec), others),
        {{"threads", best->threads},
         {"ops_per_sec", best->ops_per_sec},
         {"median_ns", whole_ns(best->stats.median)},
         {"tied_with", tied.size()}},
        std::move(subjects)},
       std::move(claims)});
}

// The knee of the reference strategy: the fewest threads within noise of its best (their
// medians' 95% intervals overlap). Past it, threads only add contention (the seed found two
// threads often fastest).
void knee_finding(const Results& plain, Findings& out) {
  if (fewest_without_interval(plain) != nullptr) return;  // too few: fastest_finding says so
  const Result* plain_best = fastest(plain);
  const Result* knee = nullptr;
  const Result* most = nullptr;
  for (const auto* r : plain) {
    const bool as_good = r == plain_best || separation(r->median_ci, plain_best->median_ci) ==
                                                Separation::within_noise;
    if (as_good && (knee == nullptr || r->threads < knee->threads)) knee = r;
    if (most == nullptr || r->threads > most->threads) most = r;
  }
  if (knee == nullptr || most == nullptr || most->threads <= knee->threads) return;
  const auto compared_with = [](const Result& r, const Result& base) {
    const double ratio = r.stats.median / base.stats.median;
    if (separation(r.median_ci, base.median_ci) == Separation::within_noise) {
      return std::string("within noise of it");
    }
    return ratio < 1.1 ? fmt::format("{:.2f}× slower", ratio) : format_ratio(ratio) + " slower";
  };
  std::map<std::string, FindingNumber> numbers = {
      {"best_threads", plain_best->threads}, {"best_median_ns", whole_ns(plain_best->stats.median)},
      {"knee_threads", knee->threads},       {"knee_median_ns", whole_ns(knee->stats.median)},
      {"most_threads", most->threads},       {"most_median_ns", whole_ns(most->stats.median)}};
  std::vector<FindingSubject> subjects = {subject(*knee, "knee")};
  if (plain_best != knee) subjects.push_back(subject(*plain_best, "best"));
  subjects.push_back(subject(*most, "most"));
  const std::size_t most_at = subjects.size() - 1;
  if (knee == plain_best) {
    out.push_back(
        {{"knee",
          fmt::format(
              "`{}` reached its best with {} ({} ms); more threads did not help: with {} it was "
              "{}.",
              knee->strategy, workers_text(*knee), format_ms(knee->stats.median), most->threads,
              compared_with(*most, *knee)),
          std::move(numbers), std::move(subjects)},
         {separation_claim(*most, *knee, most_at, 0)}});
    return;
  }
  std::vector<FindingClaim> claims = {{ClaimKind::within_noise, 0, 1}};
  std::string line = fmt::format(
      "`{}` was within noise of its best ({} ms, with {}) from {} on ({} ms): more threads "
      "bought nothing measurable",
      knee->strategy, format_ms(plain_best->stats.median), workers_text(*plain_best),
      workers_text(*knee), format_ms(knee->stats.median));
  if (most != plain_best &&
      separation(most->median_ci, plain_best->median_ci) == Separation::separated) {
    line += fmt::format("; with {} it was {}", most->threads, compared_with(*most, *plain_best));
    claims.push_back({ClaimKind::separated, most_at, 1});
  }
  out.push_back({{"knee", line + ".", std::move(numbers), std::move(subjects)}, std::move(claims)});
}

// What a sentence of ratios says last: "; ratios of medians alone: too few repetitions to
// separate these (use --repeat ≥ 6)" when some result has no 95% interval, else "".
std::string league_caveat(const Results& all) {
  if (fewest_without_interval(all) == nullptr) return "";
  return "; ratios of medians alone: " + too_few_to_separate();
}

// Every other strategy at its own best thread count against the reference at its best, and
// at one thread against the reference at one thread; a ratio within noise says so.
void league_findings(const Results& all, const Results& plain, Findings& out) {
  const Result* plain_best = fastest(plain);
  if (plain_best == nullptr) return;
  std::vector<std::string> names;
  for (const auto* r : all) {
    if (!r->reference && std::find(names.begin(), names.end(), r->strategy) == names.end()) {
      names.push_back(r->strategy);
    }
  }
  std::string league;
  std::string single;  // the seed's observation: dispatch cost shows most with one thread
  std::map<std::string, FindingNumber> league_numbers = {
      {"reference_median_ns", whole_ns(plain_best->stats.median)}};
  std::map<std::string, FindingNumber> single_numbers;
  std::vector<FindingSubject> league_subjects = {subject(*plain_best, "reference")};
  std::vector<FindingSubject> single_subjects;
  std::vector<FindingClaim> league_claims;
  std::vector<FindingClaim> single_claims;
  // A ratio too few repetitions leave open is said once for the sentence, by league_caveat().
  const auto within_noise = [](const Result& r, const Result& base) {
    return separation(r.median_ci, base.median_ci) == Separation::within_noise;
  };
  const Result* plain_one = with_threads(plain, 1);
  if (plain_one != nullptr) single_subjects.push_back(subject(*plain_one, "reference"));
  for (const auto& name : names) {
    const Results mine = only(all, [&](const Result& r) { return r.strategy == name; });
    const Result* best_of = fastest(mine);
    const double ratio = best_of->stats.median / plain_best->stats.median;
    league += fmt::format("{}`{}` {} ({}{})", league.empty() ? "" : ", ", name, format_ratio(ratio),
                          workers_text(*best_of),
                          within_noise(*best_of, *plain_best) ? ", within noise" : "");
    league_numbers[name + ".ratio"] = ratio;
    league_numbers[name + ".threads"] = best_of->threads;
    league_claims.push_back(separation_claim(*best_of, *plain_best, league_subjects.size(), 0));
    league_subjects.push_back(subject(*best_of, "compared"));
    const Result* one = with_threads(mine, 1);
    if (one != nullptr && plain_one != nullptr) {
      const double one_ratio = one->stats.median / plain_one->stats.median;
      single +=
          fmt::format("{}`{}` {}{}", single.empty() ? "" : ", ", name, format_ratio(one_ratio),
                      within_noise(*one, *plain_one) ? " (within noise)" : "");
      single_numbers[name + ".ratio"] = one_ratio;
      single_claims.push_back(separation_claim(*one, *plain_one, single_subjects.size(), 0));
      single_subjects.push_back(subject(*one, "compared"));
    }
  }
  if (!league.empty()) {
    out.push_back({{"league",
                    fmt::format("Time of each strategy at its best, as a multiple of `{}` at "
                                "its best ({} ms; below 1× is faster): {}{}.",
                                plain_best->strategy, format_ms(plain_best->stats.median), league,
                                league_caveat(all)),
                    std::move(league_numbers), std::move(league_subjects)},
                   std::move(league_claims)});
  }
  if (!single.empty()) {
    single_numbers["reference_median_ns"] = whole_ns(plain_one->stats.median);
    out.push_back({{"one_thread",
                    fmt::format("With one thread, as a multiple of plain open+close in a loop "
                                "(the cost of handing out work): {}{}.",
                                single, league_caveat(all)),
                    std::move(single_numbers), std::move(single_subjects)},
                   std::move(single_claims)});
  }
}

// Which way of spreading the work was fastest. Only results over one list of files (`input`)
// compare: every strategy and thread count did the same work. (Descriptors made per thread,
// as `socket` makes them, grow with the thread count.)
void comparison_findings(std::span<const Result> results, std::string_view workload,
                         Findings& out) {
  const Results listed =
      only(select(results, workload), [](const Result& r) { return r.input.has_value(); });
  // Compare strategies on one footing: pre-grown tables where there are any (the stall has
  // its own finding), plain runs otherwise.
  const bool grown = !only(listed, [](const Result& r) { return r.pregrow.grows(); }).empty();
  const Results all = only(listed, [grown](const Result& r) { return r.pregrow.grows() == grown; });
  if (all.empty()) return;
  const Results plain = only(all, [](const Result& r) { return r.reference; });
  fastest_finding(all, out);
  knee_finding(plain, out);
  league_findings(all, plain, out);
}

// Per-item time in µs, as text ("3.4 µs").
std::string micros(double ns) {
  return fmt::format("{:.{}f} µs", ns / 1000, ns < 10'000 ? 1 : 0);
}

// What a system call costs here explains io_uring's lead: the plain loop pays one per open
// and one per close; a strategy that submits a batch per system call pays one per batch.
void syscall_finding(std::span<const Result> results, std::string_view workload,
                     const Environment& env, Findings& out) {
  if (!env.syscall_ns || *env.syscall_ns <= 0) return;
  const Results all = select(results, workload);
  const Result* plain = nullptr;
  const Result* batched = nullptr;
  for (const auto* r : all) {
    if (r->threads != 1 || r->pregrow.grows() || r->workload_kind != WorkloadKind::open) continue;
    if (r->reference && (plain == nullptr || r->stats.median < plain->stats.median)) plain = r;
    const bool per_submission = r->batch_unit == BatchUnit::submission;
    if (per_submission && (batched == nullptr || r->stats.median < batched->stats.median)) {
      batched = r;
    }
  }
  if (plain == nullptr || plain->ops == 0) return;
  const double syscall = *env.syscall_ns;
  const int calls = plain->holds_descriptors ? 1 : 2;
  const double per_file = plain->stats.median / static_cast<double>(plain->ops);
  std::map<std::string, FindingNumber> numbers = {
      {"syscall_ns", syscall}, {"syscalls_per_file", calls}, {"reference_ns_per_file", per_file}};
  std::vector<FindingSubject> subjects = {subject(*plain, "reference")};
  std::vector<FindingClaim> claims;
  const auto pti = env.cpu_mitigations.find("meltdown");
  std::string text = fmt::format(
      "A trivial system call took {} here (getppid, measured{}). {} a file is {} of them: {} of "
      "the {} per file `{}` took with 1 thread",
      micros(syscall),
      pti == env.cpu_mitigations.end() ? std::string() : "; meltdown: " + pti->second,
      calls == 2 ? "Opening and closing" : "Opening", calls == 2 ? "two" : "one",
      micros(syscall * calls), micros(per_file), plain->strategy);
  if (batched != nullptr && batched->ops != 0) {
    const double batched_per_file = batched->stats.median / static_cast<double>(batched->ops);
    numbers["batched_ns_per_file"] = batched_per_file;
    numbers["batch"] = batched->batch;
    numbers["ratio"] = batched->stats.median / plain->stats.median;
    claims.push_back(separation_claim(*batched, *plain, 1, 0));
    subjects.push_back(subject(*batched, "batched"));
    text += fmt::format(
        ". `{}` submits up to {} operations per system call and took {} per file with 1 thread "
        "({} the time{})",
        batched->strategy, batched->batch, micros(batched_per_file),
        format_ratio(batched->stats.median / plain->stats.median),
        ratio_qualifier(*batched, *plain));
  }
  out.push_back(
      {{"syscall_cost", text + ".", std::move(numbers), std::move(subjects)}, std::move(claims)});
}

int growths(const Result& r) {
  if (!r.fdsize_before || !r.fdsize_after || *r.fdsize_before <= 0) return 0;
  const auto ratio = static_cast<unsigned>(*r.fdsize_after / *r.fdsize_before);
  return ratio <= 1 ? 0 : std::bit_width(ratio) - 1;
}

// The same measurement as compare pairs it (strategy, threads, kind, size and the parameters
// that configure it, --rcu-expedited's included) but for the pregrow setting.
bool same_but_pregrow(const Result& a, const Result& b) {
  ResultKey ka = key_of(a);
  ResultKey kb = key_of(b);
  ka.pregrow = kb.pregrow;
  return ka == kb;
}

struct GrowthPair {
  const Result* off;
  const Result* grown;
  [[nodiscard]] double ratio() const { return off->stats.median / grown->stats.median; }
  [[nodiscard]] Separation apart() const { return separation(off->median_ci, grown->median_ci); }
  // At least 2× slower without pre-growing, by the one rule: a difference the two medians'
  // 95% intervals do not settle is no stall, however far apart the medians are.
  [[nodiscard]] bool stalled() const { return apart() == Separation::separated && ratio() >= 2; }
};

// The share of `r`'s repetitions its table's growth took, where --latency measured it.
double growth_share(const Result& r) {
  return r.latency ? r.latency->growth_totals.share_of_repetition : 0;
}

ClaimedFinding pair_line(const GrowthPair& p) {
  const Result& off = *p.off;
  const std::uint64_t per_thread = off.ops / static_cast<std::uint64_t>(off.threads);
  // A list of files is described by its size; descriptors made per thread, per thread.
  const std::string what = off.input ? fmt::format("`{}` with {}, {} files kept open", off.strategy,
                                                   workers_text(off), group_digits(off.ops))
                                     : fmt::format("`{}` with {} × {} {} descriptors", off.strategy,
                                                   workers_text(off), per_thread, off.kind);
  // Noise-aware: a difference the two medians' 95% intervals do not settle is not claimed.
  const Separation apart = p.apart();
  const std::string ratio = p.ratio() >= 1
                                ? format_ratio(p.ratio()) + " slower without pre-growing"
                                : format_ratio(1 / p.ratio()) + " faster without pre-growing";
  const std::string verdict =
      apart == Separation::within_noise ? std::string("within noise of each other")
      : apart == Separation::too_few    ? ratio + " by the medians alone; " + too_few_to_separate()
                                        : ratio;
  const std::string rcu = off.rcu_setting();
  std::map<std::string, FindingNumber> numbers = {
      {"threads", off.threads},
      {"median_ns", whole_ns(off.stats.median)},
      {"pregrown_median_ns", whole_ns(p.grown->stats.median)},
      {"ratio", p.ratio()}};
  if (off.fdsize_before) numbers["fdsize_before"] = *off.fdsize_before;
  if (off.fdsize_after) numbers["fdsize_after"] = *off.fdsize_after;
  if (off.rcu_expedited) numbers["rcu_expedited"] = *off.rcu_expedited;
  std::vector<FindingClaim> claims = {separation_claim(off, *p.grown, 0, 1)};
  if (p.stalled()) claims.push_back({ClaimKind::pregrow_slower, 0, 1});
  return {
      {"pregrow",
       fmt::format("{}{}: {} ms from the kernel's starting table (FDSize {} → {}), {} ms with "
                   "the table grown first (pregrow {}): {}.",
                   what, rcu.empty() ? std::string() : fmt::format(" with rcu_expedited={}", rcu),
                   format_ms(off.stats.median), off.fdsize_before.value_or(-1),
                   off.fdsize_after.value_or(-1), format_ms(p.grown->stats.median),
                   p.grown->pregrow.label(), verdict),
       std::move(numbers),
       {subject(off, "not-pregrown"), subject(*p.grown, "pregrown")}},
      std::move(claims)};
}

// "64, 128, 256 and 512".
std::string listed(const std::vector<int>& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == values.size() ? " and " : ", ") + std::to_string(values[i]);
  }
  return text;
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
      "Measured per {}: {} growth event{} per repetition, at fd{} {}, took {} of the {} ms a "
      "repetition took on average ({}{})",
      per,
      per_rep == std::floor(per_rep) ? fmt::format("{}", per_rep) : fmt::format("{:.1f}", per_rep),
      per_rep == 1 ? "" : "s", fds.size() == 1 ? "" : "s", listed(fds),
      format_ms(static_cast<double>(latency.growth_totals.total_ns) / reps) + " ms",
      format_ms(r.stats.mean),
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
ClaimedFinding events_line(const Result& r, const Latency& latency, const Result* grown) {
  const double reps = std::max(1, r.repetitions_run());
  std::map<std::string, FindingNumber> numbers = {
      {"threads", r.threads},
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
  if (grown != nullptr && grown->latency) {
    const Latency& grown_latency = *grown->latency;
    const std::string grown_per = per_submission(grown_latency) ? "submission" : "call";
    text += fmt::format(". With the table grown first (pregrow {}): {}", grown->pregrow.label(),
                        stalls_text(*grown, grown_latency, grown_per));
    numbers["pregrown_stalls"] = grown_latency.stall_totals.count;
    claims.push_back(stall_claim(grown_latency, 1));
    subjects.push_back(subject(*grown, "pregrown"));
  }
  return {{"events", text + ".", std::move(numbers), std::move(subjects)}, std::move(claims)};
}

// "separate processes (`process`) and io_uring direct descriptors (`uring-direct`)": every
// registered strategy whose workers never share a descriptor table, whatever was measured.
std::string unshared_strategies() {
  std::vector<std::string> parts;
  for (const auto& info : strategy_registry()) {
    if (info.fd_table != FdTable::shared) {
      parts.push_back(fmt::format("{} (`{}`)", info.unshared_by, info.name));
    }
  }
  std::string text;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  }
  return text;
}

// Why the table stalled `stalled`, and what avoids it.
ClaimedFinding why_line(const Result& stalled) {
  const int grew = growths(stalled);
  const std::string avoid = unshared_strategies();
  return {{"why_stall",
           fmt::format(
               "Why: the descriptor table grew{} while shared by more than one thread, and each "
               "growth of a shared table waits for an RCU grace period (expand_fdtable → "
               "synchronize_rcu in fs/file.c), stalling every thread that needs a descriptor "
               "meanwhile. Growing it once before the second thread exists (dup2(0, N); close(N)) "
               "removes every stall{}.",
               grew > 0 ? fmt::format(" {} time{}", grew, grew == 1 ? "" : "s")
                        : std::string(" (in the process that held the descriptors)"),
               avoid.empty() ? std::string() : fmt::format("; {} never share the table", avoid)),
           {{"growths", grew}},
           {subject(stalled, "stalled")}},
          {}};
}

// Every pregrow=off result of `all` with the first pre-grown one of the same shape.
std::vector<GrowthPair> growth_pairs(const Results& all) {
  std::vector<GrowthPair> pairs;
  for (const auto* off : all) {
    if (off->pregrow.grows()) continue;
    for (const auto* r : all) {
      if (r->pregrow.grows() && same_but_pregrow(*r, *off)) {
        pairs.push_back({off, r});
        break;
      }
    }
  }
  return pairs;
}

// A growth cost pre-growing did not save, as measured: "1.59 ms of the 2.62 ms a repetition
// took on average, yet with the table grown first (pregrow auto) the two were within noise of
// each other", or `brief`ly, one of several: "1.59 of 2.62 ms, within noise".
std::string unsaved_text(const GrowthPair& p, bool brief) {
  const double reps = std::max(1, p.off->repetitions_run());
  const std::string growth =
      format_ms(static_cast<double>(p.off->latency->growth_totals.total_ns) / reps);
  // io_uring's records are whole submissions, which overlap across workers: their sum may
  // exceed the repetition.
  const std::string overlap =
      per_submission(*p.off->latency) ? " (whole submissions, which overlap)" : "";
  const bool noise = p.apart() == Separation::within_noise;
  if (brief) {
    return fmt::format("{} of {} ms{}, {}", growth, format_ms(p.off->stats.mean), overlap,
                       noise ? std::string("within noise")
                             : fmt::format("pre-grown {} the time", format_ratio(1 / p.ratio())));
  }
  return fmt::format(
      "{} ms of the {} ms a repetition took on average{}, yet with the table grown first (pregrow "
      "{}) {}",
      growth, format_ms(p.off->stats.mean), overlap, p.grown->pregrow.label(),
      noise ? std::string("the two were within noise of each other")
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
    const std::string name = p->off->strategy + "." + std::to_string(p->off->threads);
    numbers[name + ".growth_share"] = p->off->latency->growth_totals.share_of_repetition;
    numbers[name + ".ratio"] = p->ratio();
    text += fmt::format("{}`{}` with {}: {}", text.empty() ? "" : "; ", p->off->strategy,
                        workers_text(*p->off), unsaved_text(*p, unsaved.size() > 1));
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
    if (growths(*p.off) == 0 || p.apart() == Separation::too_few || p.stalled()) continue;
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

// Pairs every pregrow=off result with a pre-grown one of the same shape and explains the
// difference: the RCU grace period a shared table waits for on each growth.
void growth_findings(std::span<const Result> results, std::string_view workload, Findings& out) {
  const std::vector<GrowthPair> pairs = growth_pairs(select(results, workload));
  if (pairs.empty()) return;
  // Growth may happen where FDSize is not read (libuv's helper process), so the ratio
  // decides (GrowthPair::stalled); the measured growth only explains it.
  const GrowthPair* worst = nullptr;
  int stalls = 0;
  for (const auto& p : pairs) {
    if (!p.stalled()) continue;
    ++stalls;
    if (worst == nullptr || p.ratio() > worst->ratio()) worst = &p;
  }
  if (pairs.size() <= 3) {
    for (const auto& p : pairs) {
      out.push_back(pair_line(p));
      if (p.off->latency) out.push_back(events_line(*p.off, *p.off->latency, p.grown));
    }
  } else if (worst != nullptr) {
    ClaimedFinding worst_line = pair_line(*worst);
    Finding& line = worst_line.finding;
    line.kind = "pregrow_worst";
    line.numbers["stalled_results"] = stalls;
    line.numbers["results"] = pairs.size();
    line.text = fmt::format(
        "{} of {} {} results {} at least 2× slower without pre-growing the table (their 95% "
        "intervals apart). The worst: {}",
        stalls, pairs.size(), workload, stalls == 1 ? "was" : "were", line.text);
    out.push_back(std::move(worst_line));
    if (worst->off->latency) {
      out.push_back(events_line(*worst->off, *worst->off->latency, worst->grown));
    }
  } else {
    out.push_back(no_effect_finding(pairs, workload));
  }
  if (worst != nullptr) {
    out.push_back(why_line(*worst->off));
  } else {
    little_difference_finding(pairs, out);
  }
}

// --kernel-trace's time in the table's growth and the waits on it, per repetition.
std::int64_t kernel_growth_ns(const KernelEvidence& k) {
  return k.off_cpu[static_cast<std::size_t>(OffCpuCause::fd_table_growth)] +
         k.off_cpu[static_cast<std::size_t>(OffCpuCause::waiting_on_growth)];
}

bool kernel_traced(const Result& r) {
  return r.ran() && r.kernel && r.kernel->available;
}

std::string kernel_thread_words(int threads) {
  return threads == 1 ? std::string("the thread") : fmt::format("the {} threads", threads);
}

std::string kernel_off_cpu_text(const KernelEvidence& k) {
  return fmt::format("{} {} off their CPU {} of {} × {} per repetition",
                     kernel_thread_words(k.threads), k.threads == 1 ? "was" : "were",
                     format_duration(static_cast<double>(k.off_cpu_ns)), k.threads,
                     format_duration(static_cast<double>(k.window_ns)));
}

std::string kernel_cause_text(const KernelEvidence& k, OffCpuCause c) {
  return fmt::format("{} {}",
                     format_duration(static_cast<double>(k.off_cpu[static_cast<std::size_t>(c)])),
                     cause_words(c));
}

// The stall as the kernel saw it, where a pregrow=off result was traced: its time growing the
// table and waiting on that, and none once the table was grown first.
ClaimedFinding kernel_growth_line(const Result& off, const Result* grown) {
  const KernelEvidence& k = *off.kernel;
  const auto growth = static_cast<std::size_t>(OffCpuCause::fd_table_growth);
  const auto waiting = static_cast<std::size_t>(OffCpuCause::waiting_on_growth);
  const std::string rcu = off.rcu_setting();
  std::string text = fmt::format(
      "Kernel evidence, `{}` with {} (pregrow {}{}): {}: {} in {} RCU grace period growing the "
      "descriptor table (synchronize_rcu{} from expand_files), {}.",
      off.strategy, workers_text(off), off.pregrow.label(),
      rcu.empty() ? std::string() : ", rcu_expedited=" + rcu, kernel_off_cpu_text(k),
      format_duration(static_cast<double>(k.off_cpu[growth])),
      k.grace_period.empty() ? std::string("an")
                             : (k.grace_period == "expedited" ? "an " : "a ") + k.grace_period,
      k.grace_period == "expedited" ? "_expedited" : "",
      kernel_cause_text(k, OffCpuCause::waiting_on_growth));
  std::map<std::string, FindingNumber> numbers = {{"off_cpu_ns", k.off_cpu_ns},
                                                  {"window_ns", k.window_ns},
                                                  {"threads", k.threads},
                                                  {"fd_table_growth_ns", k.off_cpu[growth]},
                                                  {"waiting_on_growth_ns", k.off_cpu[waiting]}};
  std::vector<FindingSubject> subjects = {subject(off, "not-pregrown")};
  std::vector<FindingClaim> claims = {{ClaimKind::kernel_growth, 0, 0}};
  if (grown != nullptr && kernel_traced(*grown) && kernel_growth_ns(*grown->kernel) == 0) {
    text.pop_back();
    text += fmt::format("; with the table grown first (pregrow {}), none.", grown->pregrow.label());
    subjects.push_back(subject(*grown, "pregrown"));
    claims.push_back({ClaimKind::kernel_no_growth, 1, 1});
  }
  return {{"kernel_growth", std::move(text), std::move(numbers), std::move(subjects)},
          std::move(claims)};
}

// A traced result whose threads were off their CPU for a large share of their time, by its
// largest cause: the one with the largest share, of those the growth line does not explain.

void kernel_findings(std::span<const Result> results, std::string_view workload, Findings& out) {
  const Results all = select(results, workload);
  std::vector<const Result*> explained;
  for (const auto& p : growth_pairs(all)) {
    if (kernel_traced(*p.off) && kernel_growth_ns(*p.off->kernel) > 0) {
      out.push_back(kernel_growth_line(*p.off, p.grown));
      explained.push_back(p.off);
    }
  }
  const Result* most = nullptr;
  double most_share = 0;
  for (const Result* r : all) {
    if (!kernel_traced(*r) || std::find(explained.begin(), explained.end(), r) != explained.end()) {
      continue;
    }
    // What the work waited for: the time waiting to start or done is left out.
    const double share = kernel_work_share(*r->kernel);
    if (share >= kLargeOffCpuShare && share > most_share) {
      most = r;
      most_share = share;
    }
  }
  if (most != nullptr) {
    const KernelEvidence& k = *most->kernel;
    OffCpuCause top = OffCpuCause::other;
    for (const OffCpuCause c : kEveryOffCpuCause) {
      if (k.in_work(c) > k.in_work(top)) top = c;
    }
    const std::string cause = fmt::format(
        "{} {}", format_duration(static_cast<double>(k.in_work(top))), cause_words(top));
    std::string text =
        k.at_edges_ns == 0
            ? fmt::format("Kernel evidence, `{}` with {}: {} ({} of their time), most of it {}",
                          most->strategy, workers_text(*most), kernel_off_cpu_text(k),
                          format_percent(most_share), cause)
            : fmt::format(
                  "Kernel evidence, `{}` with {}: {}, {} of it waiting to start or done; of the "
                  "other {} ({} of their time), most was {}",
                  most->strategy, workers_text(*most), kernel_off_cpu_text(k),
                  format_duration(static_cast<double>(k.at_edges_ns)),
                  format_duration(static_cast<double>(k.in_work_ns())), format_percent(most_share),
                  cause);
    if (top == OffCpuCause::other && !k.other_stacks.empty()) {
      text += fmt::format(" (mostly {})", k.other_stacks.front().stack);
    }
    std::map<std::string, FindingNumber> numbers = {{"off_cpu_ns", k.off_cpu_ns},
                                                    {"window_ns", k.window_ns},
                                                    {"threads", k.threads},
                                                    {"share", most_share},
                                                    {"cause_ns", k.in_work(top)}};
    if (k.at_edges_ns != 0) numbers["at_edges_ns"] = k.at_edges_ns;
    // Preempted is the guest's scheduler; what a hypervisor takes switches no thread out and
    // counts as time on the CPU: its steal time says how much, where the machine reports it.
    if (top == OffCpuCause::preempted && k.steal_ns) {
      if (k.steal_reported) {
        text += fmt::format(
            "; besides, the hypervisor took {} per repetition from the machine's "
            "CPUs (steal time), which the threads see as time on their CPU",
            format_duration(static_cast<double>(*k.steal_ns)));
        numbers["steal_ns"] = *k.steal_ns;
      } else {
        text +=
            "; this machine reports no steal time, so whatever the hypervisor took counts "
            "as time on their CPU";
      }
    }
    out.push_back({{"kernel_off_cpu", text + ".", std::move(numbers), {subject(*most, "off-cpu")}},
                   {{ClaimKind::kernel_off_cpu, 0, 0}}});
  }
  // io_uring: whether its requests ran inline or were handed to io-wq's threads, said once
  // for the results that punted none and once for each that punted some.
  std::vector<FindingSubject> inline_only;
  for (const Result* r : all) {
    if (!kernel_traced(*r) || !r->kernel->io_uring_punts || !r->parameters.contains("ring_setup")) {
      continue;
    }
    const std::uint64_t punts = *r->kernel->io_uring_punts;
    if (punts == 0) {
      inline_only.push_back(subject(*r, "io_uring"));
      continue;
    }
    out.push_back(
        {{"kernel_io_wq",
          fmt::format("Kernel evidence, `{}` with {}: {} of its {} io_uring requests "
                      "per repetition were punted to io-wq's threads.",
                      r->strategy, workers_text(*r), group_digits(punts), group_digits(r->ops)),
          {{"io_uring_punts", punts}, {"ops", r->ops}},
          {subject(*r, "io_uring")}},
         {}});
  }
  if (!inline_only.empty()) {
    const std::size_t n = inline_only.size();
    std::vector<std::string> names;
    for (const auto& s : inline_only) {
      const std::string name = "`" + s.strategy + "`";
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    out.push_back({{"kernel_io_wq",
                    fmt::format("Kernel evidence: no io_uring request was punted to io-wq in {} "
                                "({}): every one ran inline, in the thread that submitted it.",
                                n == 1 ? std::string("the io_uring result")
                                       : fmt::format("any of the {} io_uring results", n),
                                fmt::join(names, ", ")),
                    {{"io_uring_punts", 0}, {"results", n}},
                    std::move(inline_only)},
                   {}});
  }
}

// A finding about `subjects` results that each say what went wrong; none when there are none.
// --harness minimal,published: how much of a published-harness figure is the harness, against
// the same setting measured with the minimal one. The published rows are left out of every
// other finding (select()), so this is the only place they are compared.
struct HarnessPair {
  const Result* published;
  const Result* minimal;
  [[nodiscard]] double ratio() const { return published->stats.median / minimal->stats.median; }
};

std::vector<HarnessPair> harness_pairs(std::span<const Result> results, std::string_view workload) {
  std::vector<HarnessPair> pairs;
  for (const auto& p : results) {
    if (p.workload != workload || p.harness != Harness::published || !comparable(p) ||
        p.stats.count == 0) {
      continue;
    }
    for (const auto& m : results) {
      if (m.harness == Harness::minimal && comparable(m) && m.stats.count > 0 &&
          m.stats.median > 0 && m.workload == p.workload && m.kind == p.kind &&
          m.strategy == p.strategy && m.threads == p.threads && m.batch == p.batch &&
          m.pregrow == p.pregrow && m.rcu_expedited == p.rcu_expedited && m.ops == p.ops) {
        pairs.push_back({&p, &m});
        break;
      }
    }
  }
  return pairs;
}

// What the published harness puts on the clock for `r`, in a few words.
std::string harness_costs(const Result& r) {
  const std::string made = r.reference ? "thread creation" : "a pool made per repetition";
  if (r.workload_kind == WorkloadKind::open) {
    return made + ", std::ifstream, a std::string per name";
  }
  return made;
}

ClaimedFinding harness_line(const HarnessPair& pair) {
  const Result& p = *pair.published;
  const Result& m = *pair.minimal;
  const double share = 1 - m.stats.median / p.stats.median;
  const std::string what = fmt::format(
      "With the published harness, `{}` with {} took {} ms for {} {} against {} ms with the "
      "minimal harness",
      p.strategy, workers_text(p), format_ms(p.stats.median), group_digits(p.ops),
      p.unit == "files" ? "files" : "descriptors", format_ms(m.stats.median));
  std::string verdict;
  switch (separation(p.median_ci, m.median_ci)) {
    case Separation::separated:
      verdict = share > 0 ? fmt::format(
                                ": {:.0f}% of the published figure is harness on this "
                                "machine ({})",
                                share * 100, harness_costs(p))
                          : fmt::format(": the published harness was faster here ({} the time)",
                                        format_ratio(pair.ratio()));
      break;
    case Separation::within_noise:
      verdict = ", within noise: no share of it can be told apart as harness here";
      break;
    case Separation::too_few:
      verdict = "; " + too_few_to_separate();
      break;
  }
  return {{"harness",
           what + verdict + ".",
           {{"published_median_ns", p.stats.median},
            {"minimal_median_ns", m.stats.median},
            {"ratio", pair.ratio()},
            {"harness_share", share}},
           {subject(p, "published"), subject(m, "minimal")}},
          {separation_claim(p, m, 0, 1)}};
}

// One line per pair; beyond four, the pair whose harness weighs most, with how many there are.
void harness_findings(std::span<const Result> results, std::string_view workload, Findings& out) {
  const std::vector<HarnessPair> pairs = harness_pairs(results, workload);
  if (pairs.size() <= 4) {
    for (const auto& pair : pairs) out.push_back(harness_line(pair));
    return;
  }
  const auto most = std::max_element(
      pairs.begin(), pairs.end(),
      [](const HarnessPair& a, const HarnessPair& b) { return a.ratio() < b.ratio(); });
  ClaimedFinding line = harness_line(*most);
  line.finding.kind = "harness_most";
  line.finding.numbers["pairs"] = pairs.size();
  line.finding.text = fmt::format(
      "{} {} results were measured with both harnesses. The one whose published figure is most "
      "harness: {}",
      pairs.size(), workload, line.finding.text);
  out.push_back(std::move(line));
}

void failure_finding(const char* kind, std::string text, std::vector<FindingSubject> subjects,
                     Findings& out) {
  if (subjects.empty()) return;
  const std::size_t results = subjects.size();
  out.push_back({{kind, std::move(text), {{"results", results}}, std::move(subjects)}, {}});
}

void failure_findings(std::span<const Result> results, Findings& out) {
  std::vector<FindingSubject> failed;
  std::vector<FindingSubject> input_failed;
  std::vector<FindingSubject> broke;
  std::vector<FindingSubject> unavailable;
  std::vector<FindingSubject> stuck;
  std::vector<FindingSubject> changed;
  for (const auto& r : results) {
    if (r.ran() && r.has_warning(WarningKind::setting_changed)) {
      changed.push_back(subject(r, "setting-changed"));
    }
    if (r.hung()) {
      stuck.push_back(subject(r, "hung"));
    } else if (r.status == Status::unavailable) {
      unavailable.push_back(subject(r, "unavailable"));
    } else if (r.status == Status::failed) {
      broke.push_back(subject(r, "failed"));
    } else if (r.failures != 0 && r.failures_are_work()) {
      input_failed.push_back(subject(r, "failed-opens"));
    } else if (r.failures != 0) {
      failed.push_back(subject(r, "failed-calls"));
    }
  }
  const std::size_t n_failed = failed.size();
  const std::size_t n_input = input_failed.size();
  const std::size_t n_broke = broke.size();
  const std::size_t n_unavailable = unavailable.size();
  failure_finding("failures",
                  fmt::format("{} result{} had failed calls and must not be read as timings "
                              "(see the rows marked FAILED).",
                              n_failed, n_failed == 1 ? "" : "s"),
                  std::move(failed), out);
  failure_finding(
      "input_failures",
      fmt::format("{} result{} could not open some of the given files (each row "
                  "says how many, and why): those opens are part of the measured "
                  "work, so {} still compared.",
                  n_input, n_input == 1 ? "" : "s", n_input == 1 ? "it is" : "they are"),
      std::move(input_failed), out);
  failure_finding(
      "failed",
      fmt::format("{} result{} broke off while running (a worker died, or the "
                  "kernel refused a call the strategy needs): {} no timings, and "
                  "the row says why.",
                  n_broke, n_broke == 1 ? "" : "s", n_broke == 1 ? "it has" : "they have"),
      std::move(broke), out);
  failure_finding("hung",
                  "A repetition did not finish in time and was abandoned, so the run stopped "
                  "there (its row says which, and what it was opening): an open() on a mount "
                  "that does not answer, such as a dead NFS or FUSE server, waits for ever, and "
                  "a --timeout shorter than a repetition stops it too.",
                  std::move(stuck), out);
  const std::size_t n_changed = changed.size();
  failure_finding(
      "setting_changed",
      fmt::format("Another program changed /sys/kernel/rcu_expedited while {} result{} {} "
                  "measured (each row says from what to what): {} times mix both kinds of RCU "
                  "grace period, so no finding here rests on {}; measure {} again.",
                  n_changed, n_changed == 1 ? "" : "s", n_changed == 1 ? "was" : "were",
                  n_changed == 1 ? "its" : "their", n_changed == 1 ? "it" : "them",
                  n_changed == 1 ? "it" : "them"),
      std::move(changed), out);
  failure_finding("unavailable",
                  fmt::format("{} combination{} could not run here (marked unavailable).",
                              n_unavailable, n_unavailable == 1 ? "" : "s"),
                  std::move(unavailable), out);
}

// The results a subject names (normally one).
Results rows_of(const FindingSubject& s, std::span<const Result> results) {
  Results rows;
  for (const auto& r : results) {
    if (subject(r, s.role) == s) rows.push_back(&r);
  }
  return rows;
}

// Whether `claim` holds for rows `a` and `b` (one each side), by the rule it rests on.
bool claim_holds(const FindingClaim& claim, const Result& a, const Result& b) {
  const Separation apart = separation(a.median_ci, b.median_ci);
  switch (claim.kind) {
    case ClaimKind::separated:
      return apart == Separation::separated;
    case ClaimKind::within_noise:
      return apart == Separation::within_noise;
    case ClaimKind::too_few:
      return apart == Separation::too_few;
    case ClaimKind::fastest:
      return a.median_ci.reached;
    case ClaimKind::stalls:
      return a.latency && a.latency->stall_totals.count > 0;
    case ClaimKind::no_stalls:
      return a.latency && a.latency->stall_totals.count == 0;
    case ClaimKind::growth_cost:
      return growth_share(a) >= kLargeGrowthShare;
    case ClaimKind::pregrow_slower:
      return apart == Separation::separated && a.stats.median >= 2 * b.stats.median;
    case ClaimKind::pregrow_little:
      return apart != Separation::too_few && growth_share(a) < kLargeGrowthShare &&
             !(apart == Separation::separated && a.stats.median >= 2 * b.stats.median);
    case ClaimKind::kernel_growth:
      return kernel_traced(a) && kernel_growth_ns(*a.kernel) > 0;
    case ClaimKind::kernel_no_growth:
      return kernel_traced(a) && kernel_growth_ns(*a.kernel) == 0;
    case ClaimKind::kernel_off_cpu:
      return kernel_traced(a) && kernel_work_share(*a.kernel) >= kLargeOffCpuShare;
  }
  return false;
}

// Whether every claim of `f` holds for the rows its subjects name, and no subject of a
// comparison names a result that is not a timing (a row marked FAILED).
bool consistent(const ClaimedFinding& f, std::span<const Result> results) {
  std::vector<Results> rows;
  for (const auto& s : f.finding.subjects) rows.push_back(rows_of(s, results));
  if (!f.claims.empty()) {
    for (const auto& side : rows) {
      for (const auto* r : side) {
        if (!comparable(*r)) return false;
      }
    }
  }
  for (const auto& claim : f.claims) {
    if (claim.a >= rows.size() || claim.b >= rows.size()) return false;
    for (const auto* a : rows[claim.a]) {
      for (const auto* b : rows[claim.b]) {
        if (!claim_holds(claim, *a, *b)) return false;
      }
    }
  }
  return true;
}

// The last pass: a finding one of whose claims the rows contradict is dropped, so that no two
// findings can claim contradicting things (each claim is held against the same rows by the
// same rule). Each finding is built not to need it.
Findings reconciled(Findings drafted, std::span<const Result> results) {
  Findings out;
  for (auto& f : drafted) {
    if (consistent(f, results)) out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

std::string_view to_string(ClaimKind kind) {
  switch (kind) {
    case ClaimKind::separated:
      return "separated";
    case ClaimKind::within_noise:
      return "within-noise";
    case ClaimKind::too_few:
      return "too-few";
    case ClaimKind::fastest:
      return "fastest";
    case ClaimKind::stalls:
      return "stalls";
    case ClaimKind::no_stalls:
      return "no-stalls";
    case ClaimKind::growth_cost:
      return "growth-cost";
    case ClaimKind::pregrow_slower:
      return "pregrow-slower";
    case ClaimKind::pregrow_little:
      return "pregrow-little";
    case ClaimKind::kernel_growth:
      return "kernel-growth";
    case ClaimKind::kernel_no_growth:
      return "kernel-no-growth";
    case ClaimKind::kernel_off_cpu:
      return "kernel-off-cpu";
  }
  return "?";
}

double kernel_work_share(const KernelEvidence& k) {
  const double thread_time = static_cast<double>(k.window_ns) * std::max(1, k.threads);
  return thread_time > 0 ? static_cast<double>(k.in_work_ns()) / thread_time : 0;
}

bool comparable(const Result& result) {
  return result.ran() && (result.failures == 0 || result.failures_are_work()) &&
         !result.has_warning(WarningKind::setting_changed);
}

std::vector<ClaimedFinding> claimed_findings(std::span<const Result> results,
                                             const Environment& env) {
  std::vector<std::string> workloads;  // in the order they were measured
  for (const auto& r : results) {
    if (std::find(workloads.begin(), workloads.end(), r.workload) == workloads.end()) {
      workloads.push_back(r.workload);
    }
  }
  Findings out;
  for (const auto& workload : workloads) {
    comparison_findings(results, workload, out);
    syscall_finding(results, workload, env, out);
    growth_findings(results, workload, out);
    kernel_findings(results, workload, out);
    harness_findings(results, workload, out);
  }
  failure_findings(results, out);
  return reconciled(std::move(out), results);
}

std::vector<Finding> findings(std::span<const Result> results, const Environment& env) {
  std::vector<Finding> out;
  for (auto& f : claimed_findings(results, env)) out.push_back(std::move(f.finding));
  return out;
}

}  // namespace fdbench
