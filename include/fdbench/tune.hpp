#pragma once
// What to use on this machine: which strategy, thread count and batch open a program's files
// fastest, measured rather than guessed, and the descriptor-table size that goes with it. A
// program reads what `fdbench tune --save FILE` measured with load_recommendation(), or
// measures it itself with recommend(), and turns it into open_many's options with
// open_many_options().
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fdbench/export.hpp"
#include "fdbench/open_many.hpp"

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
  // The setting to use: of the fastest and the settings the sweep could not tell from it, the
  // simplest (no io_uring, then the fewest threads, then the plain loop, then descriptors in
  // the program's own table before others, then the smallest batch): where the measurement
  // cannot separate them, the simplest costs least to adopt. Only strategies whose
  // descriptors land in the calling program's table are named (not worker processes', not
  // io_uring's direct ones) unless tune was run with --allow-process or --allow-direct.
  TunedSetting best;
  // The highest median rate among strategies a program can adopt; best when nothing ties it.
  TunedSetting fastest;
  // The other settings within noise of the fastest (their medians' 95% intervals overlap, or
  // too few repetitions for such intervals to tell them apart), the fastest among them first
  // when it is not best: any of them is as good on this machine as the sweep could tell.
  std::vector<TunedSetting> within_noise;
  int compared = 1;      // the settings a program could adopt that ran without failures
  int knee_threads = 1;  // the fewest threads of the fastest strategy (same batch) within noise
  // The descriptor the table must hold when the workload holds its descriptors (grow it with
  // pregrow_fd_table before starting threads); none when they are closed as they go, or live
  // in an io_uring's table (uring-direct).
  std::optional<int> pregrow_to;

  // Nothing the sweep measured was separated from the fastest: it cannot name a winner, only
  // the simplest of equals.
  [[nodiscard]] bool inconclusive() const {
    return compared > 1 && static_cast<int>(within_noise.size()) + 1 >= compared;
  }
  bool operator==(const Recommendation&) const = default;
};

// Descriptors a program holds besides the workload's (stdio, logs, sockets): room left above
// them when sizing pregrow_to.
inline constexpr int kProgramDescriptors = 64;

// What recommend() measures, as fdbench_tune_options does in C.
struct RecommendOptions {
  std::size_t files = 2000;  // generated empty files to open
  std::string dir;  // where they are created (a private directory inside); empty: $TMPDIR or /tmp
  double budget_seconds = 3;  // the whole measurement (6 repetitions of each setting at least)
  bool keep_open = false;     // hold every descriptor, as a program keeping its files does
};

// The recommendation as the JSON object `tune` writes ("recommendation" in its output, the
// whole of a --save file): {strategy, threads, batch, ops_per_sec, fastest {...},
// within_noise [...], compared, inconclusive, knee_threads, pregrow_to}. A file from before
// fastest and compared were written reads with fastest = best and compared = the settings it
// names.
FDBENCH_EXPORT std::string recommendation_json(const Recommendation& recommendation);
// Parses that object (also a whole `tune --format json` document holding it); throws Error
// naming what is wrong ("recommendation.threads: expected a whole number of at least 1").
FDBENCH_EXPORT Recommendation parse_recommendation(std::string_view text);
// Reads a file written by `fdbench tune --save FILE`; Error names the file.
// Cost: reading and parsing one small file. Thread-safe.
FDBENCH_EXPORT Recommendation load_recommendation(const std::string& path);

// Measures it here: a short tune for a program that has no saved recommendation (the sweep of
// `fdbench tune`, bounded by options.budget_seconds, without any output). Throws Error when
// nothing could be measured or the files cannot be prepared.
// Cost: the budget, plus creating and removing the files in a private directory.
// Thread-safety: it starts and joins threads and forks helper processes: call it at start-up,
//   not while other threads create descriptors (they would disturb the measurement).
// Fork-safety: not in the child of a multi-threaded parent.
FDBENCH_EXPORT Recommendation recommend(const RecommendOptions& options = {});

// The strategy of a setting as open_many takes it, or nullopt for one open_many cannot apply
// (a pool, processes or libuv: the nearest open_many can do is `threads` with the same count,
// which `open_many_options` uses; `uring-direct`, whose descriptors stay in the ring).
FDBENCH_EXPORT std::optional<OpenStrategy> open_strategy(std::string_view name);

// The OpenManyOptions that apply `setting`: its strategy where open_many has it (threads,
// uring), else `threads` with the same thread count (a pool or processes spread opens over
// that many workers too). nullopt for `uring-direct` (descriptors a program cannot use).
FDBENCH_EXPORT std::optional<OpenManyOptions> open_many_options(const TunedSetting& setting);
// The first setting of `recommendation` (the best, then those within noise) that open_many
// can apply, as its options; nullopt when none can.
FDBENCH_EXPORT std::optional<OpenManyOptions> open_many_options(
    const Recommendation& recommendation);

}  // namespace fdbench
