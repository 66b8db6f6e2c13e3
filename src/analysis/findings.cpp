#include "analysis/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "analysis/finding_parts.hpp"

namespace fdbench {

using namespace findings_parts;  // NOLINT: this file orders the parts' findings

namespace {

// The results a subject names (normally one).
Results rows_of(const FindingSubject& s, std::span<const Result> results) {
  Results rows;
  for (const auto& r : results) {
    if (subject(r, s.role) == s) rows.push_back(&r);
  }
  return rows;
}

// Whether `a` is separated from, and faster than, every result it is ranked with.
bool fastest_of_its_rank(const Result& a, std::span<const Result> results) {
  if (!a.median_ci.reached) return false;
  for (const auto* r : ranked_with(a, results)) {
    if (r == &a) continue;
    if (separation(a.median_ci, r->median_ci) != Separation::separated ||
        r->stats.median <= a.stats.median) {
      return false;
    }
  }
  return true;
}

// Whether `knee` is where its strategy stopped gaining: the same as `best` (or it), and every
// fewer thread count ranked with it slower than both beyond noise.
bool knee_holds(const Result& knee, const Result& best, std::span<const Result> results) {
  if (&knee != &best && separation(knee.median_ci, best.median_ci) != Separation::same) {
    return false;
  }
  for (const auto* r : ranked_with(knee, results)) {
    if (r->config.strategy != knee.config.strategy || r->config.threads >= knee.config.threads)
      continue;
    if (separation(r->median_ci, best.median_ci) != Separation::separated ||
        r->stats.median <= knee.stats.median) {
      return false;
    }
  }
  return true;
}

bool no_growth_seen(const Result& a) {
  return a.fdsize_before && a.fdsize_after && *a.fdsize_after <= *a.fdsize_before;
}

// Whether `claim` holds for rows `a` and `b` (one each side), by the rule it rests on.
bool holds(const FindingClaim& claim, const Result& a, const Result& b,
           std::span<const Result> results) {
  const Separation apart = separation(a.median_ci, b.median_ci);
  switch (claim.kind) {
    case ClaimKind::separated:
      return apart == Separation::separated;
    case ClaimKind::same:
      return apart == Separation::same;
    case ClaimKind::cannot_tell:
      return apart == Separation::cannot_tell;
    case ClaimKind::too_few:
      return apart == Separation::too_few;
    case ClaimKind::fastest:
      return fastest_of_its_rank(a, results);
    case ClaimKind::knee:
      return knee_holds(a, b, results);
    case ClaimKind::grew:
      return growths(a) > 0;
    case ClaimKind::no_growth:
      return no_growth_seen(a);
    case ClaimKind::stalls:
      return a.latency && a.latency->stall_totals.count > 0;
    case ClaimKind::no_stalls:
      return a.latency && a.latency->stall_totals.count == 0;
    case ClaimKind::growth_cost:
      return growth_share(a) >= kLargeGrowthShare;
    case ClaimKind::pregrow_slower:
      return apart == Separation::separated && a.stats.median >= 2 * b.stats.median;
    case ClaimKind::pregrow_little:
      return GrowthPair{&a, &b}.under_twice() && growth_share(a) < kLargeGrowthShare;
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
        if (!holds(claim, *a, *b, results)) return false;
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

// A result the set holds twice (the same run's document read twice, say) is ranked once: a
// duplicate would tie with itself.
std::vector<Result> without_duplicates(std::span<const Result> results) {
  std::vector<Result> out;
  for (const auto& r : results) {
    const bool seen = std::any_of(out.begin(), out.end(), [&r](const Result& o) {
      return subject(o, "") == subject(r, "") && o.config.harness == r.config.harness &&
             o.times_ns == r.times_ns && o.status == r.status;
    });
    if (!seen) out.push_back(r);
  }
  return out;
}

// Answers first, then the findings in the order drafted.
void answers_first(Findings& out) {
  std::stable_partition(out.begin(), out.end(), [](const ClaimedFinding& f) {
    return f.finding.kind.starts_with("answer");
  });
}

}  // namespace

std::string_view to_string(ClaimKind kind) {
  switch (kind) {
    case ClaimKind::separated:
      return "separated";
    case ClaimKind::same:
      return "same";
    case ClaimKind::cannot_tell:
      return "cannot-tell";
    case ClaimKind::too_few:
      return "too-few";
    case ClaimKind::fastest:
      return "fastest";
    case ClaimKind::knee:
      return "knee";
    case ClaimKind::stalls:
      return "stalls";
    case ClaimKind::no_stalls:
      return "no-stalls";
    case ClaimKind::grew:
      return "grew";
    case ClaimKind::no_growth:
      return "no-growth";
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

bool claim_holds(const FindingClaim& claim, const Result& a, const Result& b,
                 std::span<const Result> results) {
  return holds(claim, a, b, results);
}

double kernel_work_share(const KernelEvidence& k) {
  const double thread_time = static_cast<double>(k.window_ns) * std::max(1, k.threads);
  return thread_time > 0 ? static_cast<double>(k.in_work_ns()) / thread_time : 0;
}

bool comparable(const Result& result) {
  return result.ran() && (result.failures == 0 || result.failures_are_work()) &&
         !result.has_warning(WarningKind::setting_changed);
}

std::vector<ClaimedFinding> claimed_findings(std::span<const Result> given,
                                             const Environment& env) {
  const std::vector<Result> results = without_duplicates(given);
  std::vector<std::string> workloads;  // in the order they were measured
  for (const auto& r : results) {
    if (std::find(workloads.begin(), workloads.end(), r.workload) == workloads.end()) {
      workloads.push_back(r.workload);
    }
  }
  const Naming naming(results);
  Findings out;
  answer_findings(results, naming, env, out);
  for (const auto& workload : workloads) {
    comparison_findings(results, workload, naming, out);
    batch_findings(results, workload, out);
    syscall_finding(results, workload, env, out);
    growth_findings(results, workload, naming, out);
    kernel_findings(results, workload, naming, out);
    harness_findings(results, workload, naming, out);
  }
  failure_findings(results, out);
  Findings checked = reconciled(std::move(out), results);
  answers_first(checked);
  return checked;
}

std::vector<Finding> findings(std::span<const Result> results, const Environment& env) {
  std::vector<Finding> out;
  for (auto& f : claimed_findings(results, env)) out.push_back(std::move(f.finding));
  return out;
}

}  // namespace fdbench
