#pragma once
// The words for a Section (what the next results measure), shared by the human-readable
// reporters, so each says it the same way.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "output/reporter.hpp"

namespace fdbench {

// "open: 10,000 empty files in /tmp (ext4), rdonly, 10 repetitions (+1 warm-up)"
std::string section_title(const Section& section);
// "each file opened and closed again; thread and pool creation are not timed"
std::string section_note(const Section& section);
// "Findings", and when the run was stopped, that they rest on the results it finished.
std::string findings_heading(bool complete);

// The seeds' questions answered (findings of kind "answer_…", first in a run's findings), and
// the other findings: each format prints the first under "Answers", the rest under Findings.
struct SplitFindings {
  std::vector<Finding> answers;
  std::vector<Finding> rest;
};
SplitFindings split_answers(std::span<const Finding> findings);
inline constexpr const char* kAnswersHeading = "Answers for this machine";
// The mark after a noisy result's median (its noisy warning, is_noisy()), so the warning is
// one mark in the row, not a line of its own; the legend says once what it means.
inline constexpr std::string_view kNoisyMark = "~";
// "~ noisy: the median's 95% interval reaches beyond ±10% of it (the ±95% column; ...": the
// one line under the tables that explains kNoisyMark, by the rule precision_cell() shows.
std::string noisy_legend();
// How precisely a row's median is known, as the tables show it: "±1.2%" (the larger half of
// its 95% interval), followed by kMissedMark where --repeat auto did not reach its precision;
// "-" with fewer repetitions than such an interval needs.
std::string precision_cell(const Result& r);
inline constexpr std::string_view kMissedMark = "*";
// "* the 95% interval did not reach ±3% within --max-time (3 s) ...": the one line under the
// tables that explains kMissedMark, from a result that carries it.
std::string missed_legend(const Result& missed);
// With --latency, one line under the result: "per call: open p50 2.9 µs, p99 12 µs, max
// 301 µs; close ...; per repetition 4 growth events (...), 1.2 stalls (...)", or "per
// submission: submit p50 ..." where a strategy timed its io_uring submissions. Empty without
// latency.
std::string latency_text(const Result& r);
// A Markdown table cell: a pipe escaped (it would end the cell), a newline made a space (it
// would end the row).
std::string markdown_cell(std::string_view text);
// What the timed region took besides the calls, the counts that are not zero, each the median
// per repetition: "while timed, per repetition: 3 minor faults, 2 involuntary switches". Empty
// when none is above zero or they were not counted.
std::string timed_region_text(const Result& r);
// What one event inside the timed region is taken to cost when the table judges whether the
// events matter (page faults and context switches are counted, not timed). Low, so that a
// line is printed only where the events surely matter: a minor fault is ~0.1-0.5 µs on bare
// metal and ~1 µs in a VM with PTI; a major fault waits for storage (~100 µs for an SSD); a
// switch's own cost (saving and restoring a thread, ~2-5 µs with cold caches), not the time
// the thread then waited, which --kernel-trace measures.
inline constexpr double kMinorFaultNs = 1'000;
inline constexpr double kMajorFaultNs = 100'000;
inline constexpr double kSwitchNs = 5'000;
// A timed region's events matter when their estimated cost is this share of the median or more.
inline constexpr double kMaterialShare = 0.05;
// The table's one line for a result whose timed region's faults and switches cost, at the
// costs above, at least kMaterialShare of its median: "! per repetition: 1,287 voluntary and
// 1,285 involuntary switches ≈ 12.9 ms, 12% of the median". Empty
// when they do not (or were not counted).
std::string material_region_text(const Result& r);
// The line under the tables that explains the "! per repetition" lines, when one was printed.
std::string region_legend();
// The line under the tables that says what --details adds, when a row had some it hid.
std::string details_legend();
// The line under a result: latency_text() and timed_region_text(), those that say something,
// joined by "; ". Empty when neither does.
std::string detail_text(const Result& r);
// With --kernel-trace, one line under the result: "kernel: off-CPU 11.9 ms of 2 threads ×
// 7.7 ms per repetition: fd-table-growth 2.9 ms (expedited grace period), waiting-on-growth
// 2.4 ms, ...", each figure the median repetition's; preempted with the machine's steal
// time beside it (steal_text). Empty without kernel evidence.
std::string kernel_text(const Result& r);
// What the hypervisor took meanwhile, which no thread switch shows: "the hypervisor's steal
// time, seen as on-CPU time: 1.2 ms", or "steal time not reported here".
std::string steal_text(const KernelEvidence& k);
// The one line under a table with kernel lines: what they are, and that their figures are the
// median repetition's.
std::string kernel_legend();

}  // namespace fdbench
