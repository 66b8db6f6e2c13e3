#pragma once
// What a tune sweep found, as data: its results, the recommendation they support, and the
// descriptor-table and RLIMIT_NOFILE advice that goes with it. Reporters word it
// (Reporter::recommendation); the library's recommend() reads the recommendation only.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/recommendation.hpp"
#include "model/result.hpp"

namespace fdbench {

// What the RLIMIT_NOFILE situation is for the workload.
struct NofileAdvice {
  std::uint64_t needed = 0;  // descriptors the workload holds at once, plus the program's
  std::uint64_t soft = 0;
  std::uint64_t hard = 0;
};

struct TuneSummary {
  std::vector<Result> sweep;  // one per combination, with what its repetitions aimed for
  std::optional<Recommendation> recommendation;
  int combinations = 0;       // measured
  int skipped = 0;            // not measured: their descriptors do not fit under the hard limit
  double precision = 0;       // what each combination aimed for (TuneOptions::precision)
  double seconds = 0;         // the whole sweep, its files made and the stall check included
  double budget_seconds = 0;  // what it was given (--budget)
  bool best_interval_reached = false;  // the best has enough samples for a 95% interval
  // With --keep-open: the recommended setting again with pregrow off, and whether it was
  // significantly slower than pre-grown (the stall seen here).
  std::optional<Result> pregrow_off;
  bool stall_seen = false;
  NofileAdvice nofile;
  Eligibility eligibility;                     // TuneOptions::eligibility
  WorkloadKind workload = WorkloadKind::open;  // TuneOptions::workload: what was measured
  // Whether the workload holds its descriptors (--keep-open, accept), so that the table grows.
  bool holds = false;
  InputSummary input;  // the files the sweep opened (workload open)
};

}  // namespace fdbench
