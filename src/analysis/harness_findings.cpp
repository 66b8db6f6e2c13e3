#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "analysis/finding_parts.hpp"
#include "model/format.hpp"

namespace fdbench::findings_parts {

namespace {

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
    if (p.workload != workload || p.config.harness != Harness::published || !comparable(p) ||
        p.stats.count == 0) {
      continue;
    }
    for (const auto& m : results) {
      if (m.config.harness == Harness::minimal && comparable(m) && m.stats.count > 0 &&
          m.stats.median > 0 && m.workload == p.workload && m.config.kind == p.config.kind &&
          m.config.strategy == p.config.strategy && m.config.threads == p.config.threads &&
          m.config.batch == p.config.batch && m.config.pregrow == p.config.pregrow &&
          m.config.rcu_expedited == p.config.rcu_expedited && m.ops == p.ops) {
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

ClaimedFinding harness_line(const HarnessPair& pair, const Naming& naming) {
  const Result& p = *pair.published;
  const Result& m = *pair.minimal;
  const double share = 1 - m.stats.median / p.stats.median;
  const std::string what = fmt::format(
      "With the published harness, `{}` with {} took {} ms for {} {} against {} ms with the "
      "minimal harness",
      p.config.strategy, naming.workers(p), format_ms(p.stats.median), group_digits(p.ops),
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
    case Separation::same:
      verdict = ", " + same_words() + ": the harness costs nothing measurable here";
      break;
    case Separation::cannot_tell:
      verdict = fmt::format(", cannot tell how much of it is harness at {}", noise_text(p, m));
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
}  // namespace

void harness_findings(std::span<const Result> results, std::string_view workload,
                      const Naming& naming, Findings& out) {
  const std::vector<HarnessPair> pairs = harness_pairs(results, workload);
  if (pairs.size() <= 4) {
    for (const auto& pair : pairs) out.push_back(harness_line(pair, naming));
    return;
  }
  const auto most = std::max_element(
      pairs.begin(), pairs.end(),
      [](const HarnessPair& a, const HarnessPair& b) { return a.ratio() < b.ratio(); });
  ClaimedFinding line = harness_line(*most, naming);
  line.finding.kind = "harness_most";
  line.finding.numbers["pairs"] = pairs.size();
  line.finding.text = fmt::format(
      "{} {} results were measured with both harnesses. The one whose published figure is most "
      "harness: {}",
      pairs.size(), workload, line.finding.text);
  out.push_back(std::move(line));
}

}  // namespace fdbench::findings_parts
