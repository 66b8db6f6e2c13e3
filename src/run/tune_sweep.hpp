#pragma once
// The tune sweep: which strategy, thread count and batch open a program's files fastest on
// this machine, and the descriptor-table and RLIMIT_NOFILE advice that goes with it.
// `fdbench tune` prints it; the library's recommend() (fdbench/tune.hpp, the public part)
// runs it without output.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/recommendation.hpp"
#include "engine/options.hpp"
#include "fdbench/tune.hpp"
#include "model/context.hpp"
#include "model/environment.hpp"
#include "model/result.hpp"

namespace fdbench {

struct TuneOptions {
  // The files (--files, --dir, --tree, --list, --keep-open); `strategies` names the ones to
  // measure besides the recommendable strategies available here (empty: none).
  OpenOptions open;
  // --budget: the whole command, its files made included. A minute: 6 repetitions of each of
  // the 45 combinations of a 2-CPU machine take about 30 s at 10,000 files, and the rest goes to
  // the combinations still measuring.
  double budget_seconds = 60;
  // --precision: each combination repeats until its median's 95% interval is within ± this
  // share of it, or its share of the budget is spent (never below min_samples_for()).
  double precision = Repeat{}.precision;
  // What the recommendation may name besides strategies whose descriptors land in the calling
  // program's own table: --allow-process (worker processes' descriptors), --allow-direct
  // (io_uring's direct descriptors). Either way every strategy is measured.
  Eligibility eligibility;
};

// What the RLIMIT_NOFILE situation is for the workload.
struct NofileAdvice {
  std::uint64_t needed = 0;  // descriptors the workload holds at once, plus the program's
  std::uint64_t soft = 0;
  std::uint64_t hard = 0;
};

struct TuneReport {
  std::vector<Result> sweep;  // one per combination, with what its repetitions aimed for
  std::optional<Recommendation> recommendation;
  int combinations = 0;  // measured
  int skipped = 0;       // not measured: their descriptors do not fit under the hard limit
  double precision = 0;       // what each combination aimed for (TuneOptions::precision)
  double seconds = 0;         // the whole sweep, its files made and the stall check included
  double budget_seconds = 0;  // what it was given (--budget)
  // --kernel-trace: asked for, and (empty) recorded, or why it could not be here.
  bool kernel_trace = false;
  std::string kernel_unavailable;
  bool best_interval_reached = false;  // the best has enough samples for a 95% interval
  // With --keep-open: the recommended setting again with pregrow off, and whether it was
  // significantly slower than pre-grown (the stall seen here).
  std::optional<Result> pregrow_off;
  bool stall_seen = false;
  NofileAdvice nofile;
  Eligibility eligibility;    // TuneOptions::eligibility
  InputSummary input;         // the files the sweep opened
  std::string fs_type;        // the filesystem they are on
};

// The sweep: every recommendable strategy available here (and options.open.strategies), with
// threads 1, 2, 4, ... up to twice the logical CPUs and batch sizes 16, 64 and 256 for the
// strategies that batch, their repetitions in turns (so that drift hits them all alike), each
// until its median's 95% interval is within options.precision or its share of the budget is
// spent (StopRule::within_budget: what is left after the files are made, shared equally by the
// combinations still measuring, so that those precise early give their turns to the others),
// and never fewer than the 6 repetitions such an interval needs. With keep_open every
// repetition runs in a fresh child, pre-grown, and the stall check gets one combination's
// share. Throws Error when the files cannot be prepared or the descriptors cannot be had.
// `progress` (if set) hears what is measured and a line as each turn ends ("turn 5: 38
// combinations measured").
TuneReport run_tune(const TuneOptions& options,
                    const std::function<void(std::string_view)>& progress = {});

// What recommend() measures by default: 2,000 generated files in $TMPDIR, opened and closed,
// within a budget of 3 seconds.
TuneOptions short_tune_options();
// "the sweep took 21.6 s, more than its --budget of 1 s", or "" within the budget (and the 5%
// the combinations' last repetitions may add): every combination gets 6 repetitions at least,
// so a small budget can be overrun, and that is said.
inline constexpr double kBudgetSlack = 1.05;
std::string budget_overrun_text(const TuneReport& report);
// The "Recommendation" block under the sweep's table: the setting to use, the alternatives
// within noise, the knee, the descriptor-table and RLIMIT_NOFILE advice.
std::string tune_text(const TuneReport& report);

// The `tune --format json` document: the sweep (as to_json_document writes it) with a
// top-level "recommendation" (left out when there is none), and the run's context where
// `context` is not nullptr.
std::string tune_json_document(const Environment& env, const TuneReport& report,
                               const RunContext* context = nullptr);

}  // namespace fdbench
