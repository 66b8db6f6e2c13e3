#pragma once
// tune: which strategy, thread count and batch open a program's files fastest on this machine,
// measured rather than guessed, and the descriptor-table and RLIMIT_NOFILE advice that goes
// with it. `fdbench tune` prints it; a program asks recommend() or reads what
// `fdbench tune --save FILE` wrote with load_recommendation().
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fdbench/environment.hpp"
#include "fdbench/options.hpp"
#include "fdbench/result.hpp"

namespace fdbench {

// One measured setting.
struct TunedSetting {
  std::string strategy;  // as fdbench names it: "threads", "fast-pool", "uring", ...
  int threads = 1;
  int batch = 1;  // items per task or submission; 1 where the strategy does not batch
  double ops_per_sec = 0;

  bool operator==(const TunedSetting&) const = default;
};

struct Recommendation {
  TunedSetting best;  // the highest median rate among strategies a program can adopt
  // The other settings within noise of it (their medians' 95% intervals overlap), fastest
  // first: any of them is as good on this machine.
  std::vector<TunedSetting> within_noise;
  int knee_threads = 1;  // the fewest threads of the best strategy (same batch) within noise
  // The descriptor the table must hold when the workload holds its descriptors (grow it with
  // pregrow_fd_table before starting threads); none when they are closed as they go.
  std::optional<int> pregrow_to;

  bool operator==(const Recommendation&) const = default;
};

// Descriptors a program holds besides the workload's (stdio, logs, sockets): room left above
// them when sizing pregrow_to.
inline constexpr int kProgramDescriptors = 64;

// The recommendation a sweep supports: only results that ran without failure, of strategies
// the registry marks recommendable (a strategy measured for comparison only, such as the
// seed's naive pool, never is). nullopt when no such result is left. Ties go to the earlier
// result of the sweep.
std::optional<Recommendation> recommend_from(std::span<const Result> sweep);

// The recommendation as the JSON object `tune` writes ("recommendation" in its output, the
// whole of a --save file): {strategy, threads, batch, ops_per_sec, within_noise [...],
// knee_threads, pregrow_to}.
std::string recommendation_json(const Recommendation& recommendation);
// Parses that object (also a whole `tune --format json` document holding it); throws Error
// naming what is wrong ("recommendation.threads: expected a whole number of at least 1").
Recommendation parse_recommendation(std::string_view text);
// Reads a file written by `fdbench tune --save FILE`; Error names the file.
Recommendation load_recommendation(const std::string& path);

struct TuneOptions {
  // The files (--files, --dir, --tree, --list, --keep-open); `strategies` names the ones to
  // measure besides the recommendable strategies available here (empty: none).
  OpenOptions open;
  double budget_seconds = 20;  // the whole sweep
};

// What the RLIMIT_NOFILE situation is for the workload.
struct NofileAdvice {
  std::uint64_t needed = 0;  // descriptors the workload holds at once, plus the program's
  std::uint64_t soft = 0;
  std::uint64_t hard = 0;
};

struct TuneReport {
  std::vector<Result> sweep;  // one per combination, the repetitions of every round together
  std::optional<Recommendation> recommendation;
  int rounds = 0;
  int combinations = 0;
  double round_seconds = 0;            // the first round's time
  bool round_over_budget = false;      // one round took longer than the whole budget
  bool best_interval_reached = false;  // the best has enough samples for a 95% interval
  // With --keep-open: the recommended setting again with pregrow off, and whether it was
  // significantly slower than pre-grown (the stall seen here).
  std::optional<Result> pregrow_off;
  bool stall_seen = false;
  NofileAdvice nofile;
  InputSummary input;   // the files the sweep opened
  std::string fs_type;  // the filesystem they are on
};

// The sweep: every recommendable strategy available here (and options.open.strategies), with
// threads 1, 2, 4, ... up to twice the logical CPUs and batch sizes 16, 64 and 256 for the
// strategies that batch, in interleaved rounds (each round a few repetitions of every
// combination, so that drift hits them all alike) for as many rounds as the budget allows
// (at least one). With keep_open every repetition runs in a fresh child, pre-grown.
// Throws Error when the files cannot be prepared or the descriptors cannot be had.
// `progress` (if set) hears "round 2 of 9" lines.
TuneReport run_tune(const TuneOptions& options,
                    const std::function<void(std::string_view)>& progress = {});

// What recommend() measures by default: 2,000 generated files in $TMPDIR, opened and closed,
// within a budget of 3 seconds.
TuneOptions short_tune_options();
// A short tune for a program that has no saved recommendation: run_tune without any output.
// Throws Error when nothing could be measured (or the files cannot be prepared).
Recommendation recommend(const TuneOptions& options = short_tune_options());

// The "Recommendation" block under the sweep's table: the setting to use, the alternatives
// within noise, the knee, the descriptor-table and RLIMIT_NOFILE advice.
std::string tune_text(const TuneReport& report);

// The `tune --format json` document: the sweep (as to_json_document writes it) with a
// top-level "recommendation" (left out when there is none).
std::string tune_json_document(const Environment& env, const TuneReport& report);

}  // namespace fdbench
