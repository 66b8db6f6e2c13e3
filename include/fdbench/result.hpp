#pragma once
// One measured (workload, strategy, threads, ...) combination: raw samples and statistics.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fdbench/statistics.hpp"

namespace fdbench {

struct Result {
  std::string workload;  // "open" or "socket"
  std::string strategy;  // "threads", "pool", ...
  int threads = 1;
  int batch = 1;         // items per task (pool-batch) or per submission
  std::string kind;      // "file", "tcp", "udp", "unix", ...
  std::string pregrow = "off";  // "off", "auto" or the fd number grown to
  std::uint64_t ops = 0;        // descriptors created per repetition
  int repeat = 0;
  int warmup = 0;
  std::vector<std::int64_t> times_ns;  // one per timed repetition
  Summary stats;
  double ops_per_sec = 0;  // ops / median
  std::optional<int> fdsize_before;
  std::optional<int> fdsize_after;
  std::uint64_t failures = 0;   // failed calls over all repetitions
  std::string first_failure;    // errno text of the first failed call
  std::string error;            // set when the combination could not run here
  std::vector<std::string> warnings;

  [[nodiscard]] bool ok() const { return error.empty() && failures == 0; }
};

// Fills stats and ops_per_sec from times_ns.
void finalize(Result& result);

}  // namespace fdbench
