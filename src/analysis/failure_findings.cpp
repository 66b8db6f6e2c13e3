// What went wrong: failed calls, broken, hung and unavailable results, and results measured
// while another program changed rcu_expedited.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "analysis/finding_parts.hpp"
#include "model/format.hpp"

namespace fdbench::findings_parts {

namespace {

// A finding about `subjects` results that each say what went wrong; none when there are none.
void failure_finding(const char* kind, std::string text, std::vector<FindingSubject> subjects,
                     Findings& out) {
  if (subjects.empty()) return;
  const std::size_t results = subjects.size();
  out.push_back({{kind, std::move(text), {{"results", results}}, std::move(subjects)}, {}});
}

// The results that went wrong, by what went wrong; each result in one group at most, besides
// `changed`.
struct WentWrong {
  std::vector<FindingSubject> failed;        // failed calls where a failure voids the times
  std::vector<FindingSubject> input_failed;  // failed opens of the user's own files
  std::vector<FindingSubject> broke;
  std::vector<FindingSubject> unavailable;
  std::vector<FindingSubject> stuck;
  std::vector<FindingSubject> changed;  // rcu_expedited changed while measured
};

WentWrong went_wrong(std::span<const Result> results) {
  WentWrong w;
  for (const auto& r : results) {
    if (r.ran() && r.has_warning(WarningKind::setting_changed)) {
      w.changed.push_back(subject(r, "setting-changed"));
    }
    if (r.hung()) {
      w.stuck.push_back(subject(r, "hung"));
    } else if (r.status == Status::unavailable) {
      w.unavailable.push_back(subject(r, "unavailable"));
    } else if (r.status == Status::failed) {
      w.broke.push_back(subject(r, "failed"));
    } else if (r.failures != 0 && r.failures_are_work()) {
      w.input_failed.push_back(subject(r, "failed-opens"));
    } else if (r.failures != 0) {
      w.failed.push_back(subject(r, "failed-calls"));
    }
  }
  return w;
}

}  // namespace

void failure_findings(std::span<const Result> results, Findings& out) {
  auto [failed, input_failed, broke, unavailable, stuck, changed] = went_wrong(results);
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

}  // namespace fdbench::findings_parts
