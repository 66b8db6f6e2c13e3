#pragma once
// What the findings' files share (internal to analysis/): which results a finding ranks, how a
// result is named in a sentence, and what one rule (statistics.hpp's separation()) says of two
// results, as a claim and in words. Each *_findings.cpp drafts one subject's findings from
// these; findings.cpp orders them and holds every claim against the rows.
#include <cstddef>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/findings.hpp"
#include "model/result.hpp"

namespace fdbench::findings_parts {

using Results = std::vector<const Result*>;
using Findings = std::vector<ClaimedFinding>;

// Results of `workload` that are valid timings, measured with fdbench's minimal harness: a
// published harness's result has its own finding, against its minimal twin.
Results select(std::span<const Result> results, std::string_view workload);

// The results `r` is ranked with (fastest, tied, knee, league): those of select() over one list
// of files (so every strategy and thread count did the same work), pre-grown where `r` is and
// plain where it is not.
Results ranked_with(const Result& r, std::span<const Result> results);

// Those of `rs` that `keep` accepts.
template <class Keep>
Results only(const Results& rs, Keep keep) {
  Results out;
  for (const auto* r : rs) {
    if (keep(*r)) out.push_back(r);
  }
  return out;
}

// The one with the lowest median (the highest rate), or nullptr.
const Result* fastest(const Results& rs);
const Result* with_threads(const Results& rs, int threads);

// Of `rs` without a 95% interval of its median, the one with the fewest repetitions, or
// nullptr: while there is one, no comparison among `rs` is settled.
const Result* fewest_without_interval(const Results& rs);

// What would settle a comparison among `rs` that their intervals leave open, from why their
// repetitions stopped: the limit that ended them (a larger --budget, more time a result with
// --max-time, more --repeat), then a quieter machine. "a larger --budget or a quieter machine
// would settle it" (`it`: "it" or "them").
std::string settle_text(const Results& rs, std::string_view it = "it");

// A part of `r`'s repetitions (`part_ns` per repetition, summed over its workers' calls) as a
// sentence may say it: "47.28 ms of the 48.32 ms a repetition took on average" (`brief`:
// "47.28 of 48.32 ms") only where the part is within the whole; calls of several workers
// overlap, and a larger sum is said as one: "73.59 ms summed over 4 threads' calls, which
// overlap (a repetition took 68.21 ms on average)". Never a part larger than its whole.
std::string part_of_repetition(const Result& r, double part_ns, bool brief = false);

// "2 threads", or "2 processes" where the workers are processes.
std::string workers_text(const Result& r);

// How a sentence names a result: its strategy and workers, and whichever of its settings
// (batch, pregrow, paths, descriptor kind, rcu_expedited) another result of the same strategy
// and workload has otherwise, so that no two subjects read alike.
class Naming {
 public:
  explicit Naming(std::span<const Result> results);
  // "`pool-batch` with 4 threads, batch 64"
  [[nodiscard]] std::string operator()(const Result& r) const;
  // "4 threads, batch 64": the workers and the settings that tell `r` apart.
  [[nodiscard]] std::string workers(const Result& r) const;
  // ", batch 64": the settings alone ("" where none varies); without the pregrow setting
  // where the sentence says it itself.
  [[nodiscard]] std::string settings(const Result& r, bool pregrow = true) const;
  [[nodiscard]] std::string workers_but_pregrow(const Result& r) const {
    return workers_text(r) + settings(r, false);
  }
  // Whether the name of `r` already says this setting ("rcu", "batch", ...): a sentence that
  // states it for itself must not say it twice.
  [[nodiscard]] bool names(const Result& r, std::string_view setting) const;
  // `r`'s rcu_expedited ("0", "1") for a sentence to state, where its name does not already
  // say it; "" where it does, or where it was not recorded.
  [[nodiscard]] std::string unnamed_rcu(const Result& r) const {
    return names(r, "rcu") ? std::string() : r.rcu_setting();
  }

 private:
  // Per workload and strategy, the values each setting took: more than one names it.
  std::map<std::string, std::map<std::string, std::set<std::string>>> values_;
};

// What a finding says of `r`, for a script to match against the results without reading the
// sentence.
FindingSubject subject(const Result& r, std::string role);

// What the one rule says of `a` and `b`, as a claim about subjects `ia` and `ib`.
FindingClaim separation_claim(const Result& a, const Result& b, std::size_t ia, std::size_t ib);

// "too few repetitions to separate these (use --repeat ≥ 6)".
std::string too_few_to_separate();

// The wider of two results' precisions (±), as "±17%"; past ±100%, in words: "an interval
// wider than the median itself (6 repetitions from 2.90 to 49.50 ms)"; "" where neither has one.
std::string noise_text(const Result& a, const Result& b);

// What a ratio of `r` to `base` adds in words: ", the same within 10%", ", cannot tell apart:
// too noisy (±17%)", ", medians alone"; nothing where they separate.
std::string ratio_qualifier(const Result& r, const Result& base);

// "the same within 10%" (kSameMargin), as every sentence says it.
std::string same_words();

// The descriptor table's growths in a repetition of `r` (FDSize before and after), 0 unknown.
int growths(const Result& r);

// The share of `r`'s repetitions its table's growth took, where --latency measured it.
double growth_share(const Result& r);

// A result from the kernel's starting table and its twin pre-grown (the same measurement as
// compare pairs it, but for the pregrow setting).
struct GrowthPair {
  const Result* off;
  const Result* grown;
  [[nodiscard]] double ratio() const { return off->stats.median / grown->stats.median; }
  [[nodiscard]] Separation apart() const { return separation(off->median_ci, grown->median_ci); }
  // At least 2× slower without pre-growing, by the one rule: a difference the two medians'
  // 95% intervals do not settle is no stall, however far apart the medians are.
  [[nodiscard]] bool stalled() const { return apart() == Separation::separated && ratio() >= 2; }
  // Shown less than 2× apart either way: every value one interval allows is within 2× of every
  // value the other allows.
  [[nodiscard]] bool under_twice() const;
};
// Every pregrow=off result of `all` with each pre-grown one of the same shape, in order.
std::vector<GrowthPair> growth_pairs(const Results& all);

// --kernel-trace's time in the table's growth and the waits on it, per repetition.
std::int64_t kernel_growth_ns(const KernelEvidence& k);
bool kernel_traced(const Result& r);

// "64, 128, 256 and 512".
std::string listed(const std::vector<std::string>& values);

// Findings about one workload's results, each drafted from its own file.
void comparison_findings(std::span<const Result> results, std::string_view workload,
                         const Naming& naming, Findings& out);
void batch_findings(std::span<const Result> results, std::string_view workload, Findings& out);
void syscall_finding(std::span<const Result> results, std::string_view workload,
                     const Environment& env, Findings& out);
void growth_findings(std::span<const Result> results, std::string_view workload,
                     const Naming& naming, Findings& out);
void kernel_findings(std::span<const Result> results, std::string_view workload,
                     const Naming& naming, Findings& out);
void harness_findings(std::span<const Result> results, std::string_view workload,
                      const Naming& naming, Findings& out);
void failure_findings(std::span<const Result> results, Findings& out);
// The seeds' questions answered for this machine, from all results (kinds "answer_…").
// `env`: the kernel's own rcu_expedited, for results measured without --rcu-expedited.
void answer_findings(std::span<const Result> results, const Naming& naming, const Environment& env,
                     Findings& out);

}  // namespace fdbench::findings_parts
