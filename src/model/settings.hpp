#pragma once
// What a result was measured with, as types: set by the engine from the strategy and the
// workload, written to JSON and read back, so that findings, reporters and compare decide by
// these and never by a strategy's or a workload's name.
#include <compare>
#include <string>
#include <string_view>

namespace fdbench {

// --pregrow: whether the descriptor table was grown before the clock started, and how far.
struct Pregrow {
  enum class Mode { off, automatic, fd } mode = Mode::off;
  int fd = 0;  // with Mode::fd: grow the table to hold this descriptor number

  [[nodiscard]] bool grows() const { return mode != Mode::off; }
  [[nodiscard]] std::string label() const;  // "off", "auto" or the number
  auto operator<=>(const Pregrow&) const = default;
};
// Parses "off", "auto" or a non-negative number; false if none of these.
bool parse_pregrow(std::string_view text, Pregrow& out);

// --repeat: how many timed repetitions each result gets. A fixed count, or `auto`: repetitions
// go on until the 95% interval of the result's median is within ±precision of the median, or
// max_time_s has been spent on the result (its warm-ups and repetitions, wall time), whichever
// comes first, and never fewer than such an interval needs (min_samples_for(), 6).
struct Repeat {
  int count = 0;            // 0: auto
  double precision = 0.03;  // --precision: the interval's larger half, as a share of the median
  double max_time_s = 3;    // --max-time
  // --budget (the default suite's): the seconds all its results' repetitions may take, shared
  // by those still undecided; 0: none, each result has --max-time alone.
  double budget_s = 0;

  [[nodiscard]] bool automatic() const { return count == 0; }
  [[nodiscard]] static Repeat fixed(int n) { return Repeat{n}; }
  bool operator==(const Repeat&) const = default;
};

// Why the repetitions of a result stopped.
enum class RepeatStop {
  precision,        // its median's 95% interval reached ±precision
  decided,          // its median's 95% interval is separated from (or shown the same as) each
                    // contender's: more repetitions would not change how it ranks
  max_time,         // --max-time was spent first
  budget,           // its share of the whole plan's budget (tune's --budget) was spent first
  max_repetitions,  // the most repetitions a result may take (what --latency keeps, or the cap)
  interrupted,      // Ctrl-C or a hung repetition came first
  fixed_repeat,     // a fixed --repeat N: it ran its N
};
// The JSON spellings: "precision", "decided", "max-time", "budget", "max-repetitions",
// "interrupted", "fixed-repeat".
std::string_view to_string(RepeatStop stop);
bool parse_repeat_stop(std::string_view text, RepeatStop& stop);

// What a result's `batch` counts.
enum class BatchUnit {
  none,        // the strategy takes no batch (batch is 1)
  task,        // items per task handed to a pool's worker
  submission,  // operations per io_uring submission: one system call for the batch
  in_flight,   // requests in flight at once (libuv)
};
// The JSON spellings: "none", "task", "submission", "in-flight".
std::string_view to_string(BatchUnit unit);
bool parse_batch_unit(std::string_view text, BatchUnit& unit);

// What each item of a workload asks of the kernel.
enum class WorkloadKind {
  open,    // open an existing file by its path (the path walk included)
  create,  // create a new descriptor: a socket, a pipe, an eventfd
  accept,  // accept a connection already queued on a listening socket
};
// The JSON spellings: "open", "create", "accept".
std::string_view to_string(WorkloadKind kind);
bool parse_workload_kind(std::string_view text, WorkloadKind& kind);

// --harness: what besides the calls the clock holds.
enum class Harness {
  minimal,    // fdbench's own: workers made and primed before the clock, names built before it
  published,  // the seeds' programs' own: threads created and joined inside the clock, and the
              // first seed's std::ifstream named by a std::string built per file
};
// The JSON and command-line spellings: "minimal", "published".
std::string_view to_string(Harness harness);
bool parse_harness(std::string_view text, Harness& harness);

}  // namespace fdbench
