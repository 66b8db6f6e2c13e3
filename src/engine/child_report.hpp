#pragma once
// The fixed-size report a fresh child sends its parent after one repetition, and the parent's
// check that it is plausible before any of it becomes a sample: a child is another process,
// and a corrupt or misread message must never turn into a number in a result.
#include <cstdint>
#include <string>

#include "engine/workload.hpp"
#include "model/result.hpp"

namespace fdbench {

struct ChildReport {
  std::int64_t ns = 0;
  std::int64_t start_ns = 0;  // when its clock started (CLOCK_MONOTONIC: the parent's clock too)
  std::int32_t fdsize_before = -1;
  std::int32_t fdsize_after = -1;
  Tally tally;
  std::uint64_t traced = 0;      // --latency: that many CallRecords follow the report
  std::int32_t worker_tids = 0;  // --kernel-trace: then that many workers' thread ids
  std::int32_t shared = 0;       // --latency: more than one thread was alive while timed
  std::int32_t signal = 0;       // SIGINT or SIGTERM stopped the repetition: it is no sample
  std::int32_t unavailable = 0;  // 1: `error` says why this cannot run here (else it failed)
  std::int32_t counted = 0;      // 1: `usage` is what the timed region took (0: not counted)
  TimedRegion usage;
  char error[240] = {};
};

// What is implausible in `report` of a repetition of `ops` items (descriptors made by
// `descriptors` per item) that the parent saw live for `lived_ns` from fork to report, or ""
// when nothing is: a time that is not positive or longer than the child lived, more failures
// than calls, errno counts that do not add up, a table that shrank, a flag that is neither 0
// nor 1 (shared, unavailable, counted), a signal fdbench does not stop on, more call records
// than items, or thread ids for more workers than a trace numbers (or without records).
// The error text is made NUL-terminated first.
std::string implausible(ChildReport& report, std::uint64_t ops, std::int64_t lived_ns);

}  // namespace fdbench
