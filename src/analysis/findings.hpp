#pragma once
// Plain-words conclusions drawn from a set of results (pure: results in, findings out),
// computed once per run into the results document, so that every format carries the same
// ones and a reader gets the numbers each one rests on.
#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/environment.hpp"
#include "model/finding.hpp"
#include "model/result.hpp"

namespace fdbench {

// What a finding asserts about its subjects, as data rather than words. The findings' last
// pass checks every claim against the rows and against the other findings' claims, and drops
// or rewords a finding whose claim does not hold; the tests check them against the data.
enum class ClaimKind {
  separated,       // subjects a and b: their medians' 95% intervals do not overlap
  same,            // subjects a and b: they overlap, narrow enough to be the same within
                   // kSameMargin (statistics.hpp)
  cannot_tell,     // subjects a and b: they overlap only because they are wide
  too_few,         // subjects a and b: one has no 95% interval, so no difference is claimed
  fastest,         // a: separated from, and faster than, every other result it was ranked with
  knee,            // a (the knee) the same as b (its strategy's best), every fewer thread count of
                   // that strategy separated from b and slower than a
  stalls,          // a: some call (or submission) stalled (--latency)
  no_stalls,       // a: none stalled (--latency)
  grew,            // a: its table grew while timed (FDSize after > before)
  no_growth,       // a: its table did not grow while timed
  growth_cost,     // a: its table's growth took at least kLargeGrowthShare of its time
  pregrow_slower,  // a (not pre-grown) at least 2× slower than b (pre-grown), and separated
  pregrow_little,  // a (not pre-grown): shown less than 2× from b (pre-grown) either way
  kernel_growth,   // a: the kernel saw its threads off-CPU growing the table or waiting on it
  kernel_no_growth,  // a: kernel evidence, and none of that
  kernel_off_cpu,    // a: its threads were off their CPU in the work (waiting to start or done
                     // left out) at least kLargeOffCpuShare of their time
};
std::string_view to_string(ClaimKind kind);

struct FindingClaim {
  ClaimKind kind = ClaimKind::separated;
  std::size_t a = 0;  // an index into the finding's subjects
  std::size_t b = 0;  // the other subject, for the kinds about two

  bool operator==(const FindingClaim&) const = default;
};

// A finding with the claims it makes. In memory only: the results document records the
// sentence, its numbers and its subjects.
struct ClaimedFinding {
  Finding finding;
  std::vector<FindingClaim> claims;
};

// A share of a repetition's time that the table's growth took (--latency) from which no
// finding may say pre-growing made little difference: without it a repetition would be at
// least 1.25× faster.
inline constexpr double kLargeGrowthShare = 0.2;

// A share of a traced result's threads' time (threads × its timed region) off their CPU in the
// work, from which a finding names its largest cause.
inline constexpr double kLargeOffCpuShare = 0.25;

// The share of its threads' time a traced result's threads were off their CPU in the work
// (KernelEvidence::in_work_ns over threads × the region), 0 with no time.
double kernel_work_share(const KernelEvidence& k);

// Whether `claim` holds for the rows its subjects name (`a`, `b`) among `results`, by the one
// rule: what the findings' last pass and the tests hold every claim against.
bool claim_holds(const FindingClaim& claim, const Result& a, const Result& b,
                 std::span<const Result> results);

// Whether `result`'s times are timings, to be compared: it ran, and no call failed, or its
// failed calls are part of the measured work (opens of the user's own files, --tree or
// --list, some of which may be unreadable; such a row is not marked FAILED).
bool comparable(const Result& result);

// The findings and their claims; `env` adds what the machine explains (the measured cost of a
// system call).
std::vector<ClaimedFinding> claimed_findings(std::span<const Result> results,
                                             const Environment& env);
// The findings alone, as every format prints them.
std::vector<Finding> findings(std::span<const Result> results, const Environment& env);

}  // namespace fdbench
