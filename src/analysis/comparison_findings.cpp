// Which way of spreading the work was fastest, from how many threads more stopped helping, and
// what each strategy costs against the plain loop: every comparison by the one rule
// (separation()), and sameness said only where the intervals are narrow enough to show it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <utility>

#include "analysis/finding_parts.hpp"
#include "model/format.hpp"

namespace fdbench::findings_parts {

namespace {

// Instead of the fastest or a tie, when some result has too few repetitions for a 95%
// interval: less data makes no firmer claim.
ClaimedFinding too_few_finding(const Result& fewest, const Naming& naming) {
  const auto reps = fewest.times_ns.size();
  return {{"too_few",
           fmt::format("Opening files: {}: {} has {} repetition{}, too few for a 95% interval of "
                       "its median, so none is called fastest or tied here.",
                       too_few_to_separate(), naming(fewest), reps, reps == 1 ? "" : "s"),
           {{"repetitions", static_cast<std::int64_t>(reps)},
            {"repetitions_needed", static_cast<std::int64_t>(min_samples_for())}},
           {subject(fewest, "too_few")}},
          {}};
}

// "`threads` with 2, 4 or 8 threads, `uring` with 1 thread": every one of `rs`, grouped by
// strategy and settings, in the order given.
std::string grouped(const Results& rs, const Naming& naming) {
  std::vector<std::pair<std::string, std::vector<const Result*>>> groups;
  for (const auto* r : rs) {
    const std::string key = r->config.strategy + "\n" + naming.settings(*r);
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) it = groups.insert(groups.end(), {key, {}});
    it->second.push_back(r);
  }
  std::vector<std::string> parts;
  for (auto& [key, members] : groups) {
    std::sort(members.begin(), members.end(), [](const Result* a, const Result* b) {
      return a->config.threads < b->config.threads;
    });
    std::string counts;
    for (std::size_t i = 0; i < members.size(); ++i) {
      counts += (i == 0                    ? ""
                 : i + 1 == members.size() ? " or "
                                           : ", ") +
                std::to_string(members[i]->config.threads);
    }
    const bool one = members.size() == 1 && members[0]->config.threads == 1;
    const bool processes = members[0]->workers == WorkerKind::processes;
    const auto cut = key.find('\n');
    parts.push_back(
        fmt::format("`{}` with {} {}{}", key.substr(0, cut), counts,
                    processes ? (one ? "process" : "processes") : (one ? "thread" : "threads"),
                    key.substr(cut + 1)));
  }
  std::string text;
  for (std::size_t i = 0; i < parts.size(); ++i) text += (i == 0 ? "" : "; ") + parts[i];
  return text;
}

ClaimedFinding clear_fastest(const Result& best, const Naming& naming) {
  return {{"fastest",
           fmt::format("Opening files: the fastest way here was {}: {} files/s ({} ms for {} "
                       "file{}), ahead of every other result beyond noise.",
                       naming(best), format_rate(best.ops_per_sec), format_ms(best.stats.median),
                       group_digits(best.ops), best.ops == 1 ? "" : "s"),
           {{"threads", best.config.threads},
            {"ops_per_sec", best.ops_per_sec},
            {"median_ns", whole_ns(best.stats.median)},
            {"files", best.ops}},
           {subject(best, "fastest")}},
          {{ClaimKind::fastest, 0, 0}}};
}

// The fastest median and every result not separated from it, each named: those shown the same
// within the margin ("tied"), and those whose intervals are too wide to tell apart from it.
ClaimedFinding contenders_finding(const Result& best, const Results& same, const Results& unclear,
                                  std::size_t ranked, const Naming& naming) {
  std::vector<FindingSubject> subjects = {subject(best, "fastest")};
  std::vector<FindingClaim> claims;
  for (const auto* r : same) {
    claims.push_back({ClaimKind::same, 0, subjects.size()});
    subjects.push_back(subject(*r, "tied"));
  }
  for (const auto* r : unclear) {
    claims.push_back({ClaimKind::cannot_tell, 0, subjects.size()});
    subjects.push_back(subject(*r, "cannot-tell"));
  }
  std::string text = fmt::format("Opening files: the fastest median was {} ({} files/s)",
                                 naming(best), format_rate(best.ops_per_sec));
  if (!same.empty()) text += fmt::format("; {} as fast: {}", same_words(), grouped(same, naming));
  if (!unclear.empty()) {
    const Result* widest = unclear.front();
    for (const auto* r : unclear) {
      if (r->precision().value_or(0) > widest->precision().value_or(0)) widest = r;
    }
    const std::string noise = noise_text(*widest, best);
    Results involved = unclear;
    involved.push_back(&best);
    std::string settle = settle_text(involved, unclear.size() == 1 ? "it" : "them");
    settle[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(settle[0])));
    text += fmt::format("; cannot tell apart from it at {}{}: {}. {}",
                        noise.starts_with("±") ? "up to " : "", noise, grouped(unclear, naming),
                        settle);
  }
  const std::size_t n = same.size() + unclear.size();
  // The others it was ranked with: the fastest is never counted as not separated from itself.
  const std::size_t others = ranked - 1;
  return {{unclear.empty() ? "tied" : "no_clear_winner",
           fmt::format("{} ({} of the {} other result{} not separated from it).", text, n, others,
                       others == 1 ? "" : "s"),
           {{"threads", best.config.threads},
            {"ops_per_sec", best.ops_per_sec},
            {"median_ns", whole_ns(best.stats.median)},
            {"tied_with", same.size()},
            {"cannot_tell", unclear.size()},
            {"results", ranked}},
           std::move(subjects)},
          std::move(claims)};
}

// The fastest of `all`, in words, by the one rule: called fastest only when separated from
// every other result; otherwise every result not separated from it is named with it.
void fastest_finding(const Results& all, const Naming& naming, Findings& out) {
  const Result* best = fastest(all);
  if (all.size() < 2) return;  // one result is fastest of nothing
  if (const Result* fewest = fewest_without_interval(all); fewest != nullptr) {
    out.push_back(too_few_finding(*fewest, naming));
    return;
  }
  Results others = only(all, [best](const Result& r) { return &r != best; });
  std::sort(others.begin(), others.end(),
            [](const Result* a, const Result* b) { return a->ops_per_sec > b->ops_per_sec; });
  const auto apart = [best](const Result& r) { return separation(r.median_ci, best->median_ci); };
  const Results same = only(others, [&](const Result& r) { return apart(r) == Separation::same; });
  const Results unclear =
      only(others, [&](const Result& r) { return apart(r) == Separation::cannot_tell; });
  if (same.empty() && unclear.empty()) {
    out.push_back(clear_fastest(*best, naming));
  } else {
    out.push_back(contenders_finding(*best, same, unclear, all.size(), naming));
  }
}

// "1.4× slower", "1.04× slower": `r` against `base`, where the rule separates them.
std::string slower_text(const Result& r, const Result& base) {
  const double ratio = r.stats.median / base.stats.median;
  return (ratio < 1.1 ? fmt::format("{:.2f}×", ratio) : format_ratio(ratio)) + " slower";
}

// What `r` was against `base` in words, by the rule: "1.4× slower", "the same within 10%",
// "cannot tell apart (±17%)".
std::string compared_text(const Result& r, const Result& base) {
  switch (separation(r.median_ci, base.median_ci)) {
    case Separation::separated:
      return r.stats.median >= base.stats.median
                 ? slower_text(r, base)
                 : format_ratio(base.stats.median / r.stats.median) + " faster";
    case Separation::same:
      return same_words();
    case Separation::cannot_tell:
      return fmt::format("cannot tell apart at {}", noise_text(r, base));
    case Separation::too_few:
      break;
  }
  return too_few_to_separate();
}

struct Knee {
  const Result* best = nullptr;     // the fastest median of the strategy
  const Result* knee = nullptr;     // the fewest threads shown the same as best (or best)
  const Result* most = nullptr;     // the most threads measured
  const Result* blocker = nullptr;  // a fewer count that keeps the knee from being told
};

Knee find_knee(const Results& plain) {
  Knee k;
  k.best = fastest(plain);
  for (const auto* r : plain) {
    const bool as_good =
        r == k.best || separation(r->median_ci, k.best->median_ci) == Separation::same;
    if (as_good && (k.knee == nullptr || r->config.threads < k.knee->config.threads)) k.knee = r;
    if (k.most == nullptr || r->config.threads > k.most->config.threads) k.most = r;
  }
  // Every count below the knee must be slower beyond noise than the best, and slower than the
  // knee itself: else where more threads stop helping is not shown by these rows.
  for (const auto* r : plain) {
    if (r->config.threads >= k.knee->config.threads) continue;
    const bool slower = separation(r->median_ci, k.best->median_ci) == Separation::separated &&
                        r->stats.median > k.knee->stats.median;
    if (!slower && (k.blocker == nullptr || r->config.threads < k.blocker->config.threads))
      k.blocker = r;
  }
  return k;
}

ClaimedFinding unclear_knee(const Knee& k, const Naming& naming) {
  const Result& b = *k.blocker;
  const Separation apart = separation(b.median_ci, k.best->median_ci);
  // Below the knee, a count is either separated from the best yet faster than the knee, or too
  // wide to tell from the best (one shown the same would be the knee).
  const std::string why =
      apart == Separation::separated
          ? fmt::format(
                "{} ms with {} is slower than its best ({} ms with {}) yet faster than {} "
                "({} ms), which is {} of the best",
                format_ms(b.stats.median), naming.workers(b), format_ms(k.best->stats.median),
                naming.workers(*k.best), naming.workers(*k.knee), format_ms(k.knee->stats.median),
                same_words())
          : fmt::format("{} ({} ms) cannot be told from its best, {} ({} ms), at {}; {}",
                        naming.workers(b), format_ms(b.stats.median), naming.workers(*k.best),
                        format_ms(k.best->stats.median), noise_text(b, *k.best),
                        settle_text({&b, k.best}));
  return {{"knee_unclear",
           fmt::format("`{}`: cannot tell here from how many threads more stop helping: {}.",
                       b.config.strategy, why),
           {{"best_threads", k.best->config.threads}, {"threads", b.config.threads}},
           {subject(b, "unclear"), subject(*k.best, "best")}},
          {separation_claim(b, *k.best, 0, 1)}};
}

// The knee of the reference strategy: the fewest threads shown the same as its best, every
// fewer count slower (the seed found two threads often fastest).
void knee_finding(const Results& plain, const Naming& naming, Findings& out) {
  if (plain.size() < 2 || fewest_without_interval(plain) != nullptr) return;
  const Knee k = find_knee(plain);
  if (k.blocker != nullptr) {
    out.push_back(unclear_knee(k, naming));
    return;
  }
  if (k.most->config.threads <= k.knee->config.threads) return;  // nothing measured past it
  std::map<std::string, FindingNumber> numbers = {
      {"best_threads", k.best->config.threads}, {"best_median_ns", whole_ns(k.best->stats.median)},
      {"knee_threads", k.knee->config.threads}, {"knee_median_ns", whole_ns(k.knee->stats.median)},
      {"most_threads", k.most->config.threads}, {"most_median_ns", whole_ns(k.most->stats.median)}};
  std::vector<FindingSubject> subjects = {subject(*k.knee, "knee"), subject(*k.best, "best")};
  std::vector<FindingClaim> claims = {{ClaimKind::knee, 0, 1}};
  if (k.knee != k.best) claims.push_back({ClaimKind::same, 0, 1});
  std::string line =
      k.knee == k.best
          ? fmt::format("`{}` reached its best with {} ({} ms)", k.knee->config.strategy,
                        naming.workers(*k.knee), format_ms(k.knee->stats.median))
          : fmt::format("`{}` with {} ({} ms) was {} of its best ({} ms, with {})",
                        k.knee->config.strategy, naming.workers(*k.knee),
                        format_ms(k.knee->stats.median), same_words(),
                        format_ms(k.best->stats.median), naming.workers(*k.best));
  int least = k.knee->config.threads;
  for (const auto* r : plain) least = std::min(least, r->config.threads);
  const bool fewer = k.knee->config.threads > least;
  line += fewer ? ", and fewer threads were slower beyond noise" : "";
  if (k.most != k.best && k.most != k.knee) {
    line += fmt::format("; with {}: {}", naming.workers(*k.most), compared_text(*k.most, *k.best));
    claims.push_back(separation_claim(*k.most, *k.best, 2, 1));
    subjects.push_back(subject(*k.most, "most"));
  }
  out.push_back({{"knee", line + ".", std::move(numbers), std::move(subjects)}, std::move(claims)});
}

// What a sentence of ratios says last: "; ratios of medians alone: too few repetitions to
// separate these (use --repeat ≥ 6)" when some result has no 95% interval, else "".
std::string league_caveat(const Results& all) {
  if (fewest_without_interval(all) == nullptr) return "";
  return "; ratios of medians alone: " + too_few_to_separate();
}

// "(2 threads, the same within 10%)": what a league entry adds after its ratio.
std::string league_note(const Result& r, const Result& base, const Naming& naming) {
  std::string q = ratio_qualifier(r, base);
  if (q == ", medians alone") q.clear();  // said once for the sentence, by league_caveat()
  return fmt::format("({}{})", naming.workers(r), q);
}

// "`uring` 0.7× (batch 16, the same within 10%)": a one-thread entry.
std::string one_entry(const Result& one, const Result& plain_one, const Naming& naming) {
  std::vector<std::string> notes;
  if (const std::string set = naming.settings(one); !set.empty()) notes.push_back(set.substr(2));
  if (std::string q = ratio_qualifier(one, plain_one); !q.empty() && q != ", medians alone") {
    notes.push_back(q.substr(2));
  }
  return fmt::format("`{}` {}{}", one.config.strategy,
                     format_ratio(one.stats.median / plain_one.stats.median),
                     notes.empty() ? "" : fmt::format(" ({})", fmt::join(notes, ", ")));
}

struct League {
  std::string text;
  std::map<std::string, FindingNumber> numbers;
  std::vector<FindingSubject> subjects;
  std::vector<FindingClaim> claims;

  void add(const std::string& name, const Result& r, const Result& base, std::string entry) {
    text += (text.empty() ? "" : ", ") + std::move(entry);
    numbers[name + ".ratio"] = r.stats.median / base.stats.median;
    numbers[name + ".threads"] = r.config.threads;
    claims.push_back(separation_claim(r, base, subjects.size(), 0));
    subjects.push_back(subject(r, "compared"));
  }
};

// Every other strategy at its own best thread count against the reference at its best (the
// fastest strategy where the reference was not measured), and at one thread against the
// reference at one thread.
void league_findings(const Results& all, const Results& plain, const Naming& naming,
                     Findings& out) {
  const Result* plain_best = plain.empty() ? fastest(all) : fastest(plain);
  if (plain_best == nullptr) return;
  std::vector<std::string> names;
  for (const auto* r : all) {
    if (r->config.strategy != plain_best->config.strategy &&
        std::find(names.begin(), names.end(), r->config.strategy) == names.end()) {
      names.push_back(r->config.strategy);
    }
  }
  League league{{},
                {{"reference_median_ns", whole_ns(plain_best->stats.median)}},
                {subject(*plain_best, "reference")},
                {}};
  const Result* plain_one = with_threads(plain, 1);
  League single;  // the seed's observation: dispatch cost shows most with one thread
  if (plain_one != nullptr) single.subjects.push_back(subject(*plain_one, "reference"));
  for (const auto& name : names) {
    const Results mine = only(all, [&](const Result& r) { return r.config.strategy == name; });
    const Result* best_of = fastest(mine);
    league.add(name, *best_of, *plain_best,
               fmt::format("`{}` {} {}", name,
                           format_ratio(best_of->stats.median / plain_best->stats.median),
                           league_note(*best_of, *plain_best, naming)));
    const Result* one = fastest(only(mine, [](const Result& r) { return r.config.threads == 1; }));
    if (one != nullptr && plain_one != nullptr)
      single.add(name, *one, *plain_one, one_entry(*one, *plain_one, naming));
  }
  if (!league.text.empty()) {
    out.push_back(
        {{"league",
          fmt::format("Time of each strategy at its best, as a multiple of {} at its "
                      "best ({} ms; below 1× is faster): {}{}.",
                      "`" + plain_best->config.strategy + "`", format_ms(plain_best->stats.median),
                      league.text, league_caveat(all)),
          std::move(league.numbers), std::move(league.subjects)},
         std::move(league.claims)});
  }
  if (!single.text.empty()) {
    single.numbers["reference_median_ns"] = whole_ns(plain_one->stats.median);
    out.push_back({{"one_thread",
                    fmt::format("With one thread, as a multiple of plain open+close in a loop "
                                "(the cost of handing out work): {}{}.",
                                single.text, league_caveat(all)),
                    std::move(single.numbers), std::move(single.subjects)},
                   std::move(single.claims)});
  }
}

// Per-item time in µs, as text ("3.4 µs").
std::string micros(double ns) {
  return fmt::format("{:.{}f} µs", ns / 1000, ns < 10'000 ? 1 : 0);
}

}  // namespace

void comparison_findings(std::span<const Result> results, std::string_view workload,
                         const Naming& naming, Findings& out) {
  const Results listed =
      only(select(results, workload), [](const Result& r) { return r.input.has_value(); });
  // Compare strategies on one footing: pre-grown tables where there are any (the stall has
  // its own finding), plain runs otherwise.
  const bool grown =
      !only(listed, [](const Result& r) { return r.config.pregrow.grows(); }).empty();
  const Results all =
      only(listed, [grown](const Result& r) { return r.config.pregrow.grows() == grown; });
  if (all.empty()) return;
  const Results plain = only(all, [](const Result& r) { return r.reference; });
  fastest_finding(all, naming, out);
  knee_finding(plain, naming, out);
  league_findings(all, plain, naming, out);
}

// A strategy measured with more than one --batch: its best at each batch, against its best.
void batch_findings(std::span<const Result> results, std::string_view workload, Findings& out) {
  const Results all = select(results, workload);
  std::map<std::string, std::map<int, const Result*>> best;  // strategy → batch → fastest
  for (const auto* r : all) {
    if (r->batch_unit == BatchUnit::none) continue;
    const Result*& b = best[r->config.strategy][r->config.batch];
    if (b == nullptr || r->ops_per_sec > b->ops_per_sec) b = r;
  }
  for (const auto& [strategy, by_batch] : best) {
    if (by_batch.size() < 2) continue;
    Results rs;
    for (const auto& entry : by_batch) rs.push_back(entry.second);
    const Result* top = fastest(rs);
    League line{{}, {{"best_batch", top->config.batch}}, {subject(*top, "best")}, {}};
    for (const auto* r : rs) {
      if (r == top) continue;
      line.add(fmt::format("batch{}", r->config.batch), *r, *top,
               fmt::format("batch {} ({}): {} ms, {}", r->config.batch, workers_text(*r),
                           format_ms(r->stats.median), compared_text(*r, *top)));
    }
    out.push_back({{"batch",
                    fmt::format("`{}` by batch size: fastest with batch {} ({} ms, {}); {}.",
                                strategy, top->config.batch, format_ms(top->stats.median),
                                workers_text(*top), line.text),
                    std::move(line.numbers), std::move(line.subjects)},
                   std::move(line.claims)});
  }
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
    if (r->config.threads != 1 || r->config.pregrow.grows() ||
        r->workload_kind != WorkloadKind::open)
      continue;
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
      micros(syscall * calls), micros(per_file), plain->config.strategy);
  if (batched != nullptr && batched->ops != 0) {
    const double batched_per_file = batched->stats.median / static_cast<double>(batched->ops);
    numbers["batched_ns_per_file"] = batched_per_file;
    numbers["batch"] = batched->config.batch;
    numbers["ratio"] = batched->stats.median / plain->stats.median;
    claims.push_back(separation_claim(*batched, *plain, 1, 0));
    subjects.push_back(subject(*batched, "batched"));
    text += fmt::format(
        ". `{}` submits up to {} operations per system call and took {} per file with 1 thread "
        "({} the time{})",
        batched->config.strategy, batched->config.batch, micros(batched_per_file),
        format_ratio(batched->stats.median / plain->stats.median),
        ratio_qualifier(*batched, *plain));
  }
  out.push_back(
      {{"syscall_cost", text + ".", std::move(numbers), std::move(subjects)}, std::move(claims)});
}

}  // namespace fdbench::findings_parts
