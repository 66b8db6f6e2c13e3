#pragma once
// The tune sweep: which strategy, thread count and batch open a program's files fastest on
// this machine, and the descriptor-table and RLIMIT_NOFILE advice that goes with it.
// `fdbench tune` runs it through a Session, whose reporters word what it found (TuneSummary,
// Reporter::recommendation); the library's recommend() (fdbench/tune.hpp, the public part)
// runs it without output.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/recommendation.hpp"
#include "analysis/tune_summary.hpp"
#include "fdbench/tune.hpp"
#include "model/context.hpp"
#include "model/environment.hpp"
#include "model/result.hpp"
#include "run/options.hpp"

namespace fdbench {

class Session;  // run/session.hpp: the command's reporters, for `fdbench tune`

struct TuneOptions {
  // --workload: what the sweep measures: opening `open`'s files, or a fresh server accepting
  // `accept`'s burst (--connections, --kind; `accept.strategies` names the ones to measure
  // besides the recommendable strategies that accept here).
  WorkloadKind workload = WorkloadKind::open;
  AcceptOptions accept;
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
// Through `session`: the sweep's section and every result go to its reporters (the sweep's in
// the order of its combinations, once it is over), then the summary (Session::recommend); the
// caller finishes the session.
TuneSummary run_tune(Session& session, const TuneOptions& options,
                     const std::function<void(std::string_view)>& progress = {});
// Without any output (recommend()): a session of its own, without reporters.
TuneSummary run_tune(const TuneOptions& options,
                     const std::function<void(std::string_view)>& progress = {});

// What recommend() measures by default: 2,000 generated files in $TMPDIR, opened and closed,
// within a budget of 3 seconds.
TuneOptions short_tune_options();

}  // namespace fdbench
