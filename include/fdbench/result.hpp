#pragma once
// One measured (workload, strategy, threads, ...) combination: raw samples and statistics.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fdbench/statistics.hpp"

namespace fdbench {

// Where the files of an `open` result came from, with what was left out.
struct InputSummary {
  std::string source = "generated";  // "generated", "tree" or "list"
  std::string origin;                // --dir, --tree DIR or --list FILE
  std::string layout = "flat";       // generated sets: "flat" or "dirs:K"
  std::string flags = "rdonly";      // --flags
  bool keep_open = false;
  std::uint64_t files = 0;                       // files opened per repetition
  std::map<std::string, std::uint64_t> skipped;  // never opened, by kind
  std::map<std::string, std::uint64_t> missing;  // --list entries not found, by errno text
};

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
  MedianInterval median_ci;           // 95% interval of the median of times_ns
  std::vector<std::size_t> outliers;  // indices into times_ns beyond 1.5 × IQR
  double ops_per_sec = 0;  // ops / median
  std::optional<int> fdsize_before;
  std::optional<int> fdsize_after;
  std::uint64_t failures = 0;   // failed calls over all repetitions
  std::string first_failure;    // errno text of the first failed call
  std::map<std::string, std::uint64_t> failures_by_errno;  // errno text -> count
  std::map<std::string, std::string> parameters;           // strategy parameters
  std::optional<InputSummary> input;                       // open results
  std::string error;            // set when the combination could not run here
  std::vector<std::string> warnings;

  [[nodiscard]] bool ok() const { return error.empty() && failures == 0; }
};

// Repetitions spread wider than this share of the median make a result's warning, which
// starts with kNoisyWarning.
inline constexpr double kNoisySpread = 0.20;
inline constexpr std::string_view kNoisyWarning = "noisy: ";

// Fills stats, ops_per_sec, median_ci and outliers from times_ns, and warns (once) when the
// repetitions spread wider than kNoisySpread of the median.
void finalize(Result& result);

}  // namespace fdbench
