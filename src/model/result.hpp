#pragma once
// One measured (workload, strategy, threads, ...) combination: raw samples and statistics.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/configuration.hpp"
#include "model/kernel_evidence.hpp"
#include "model/latency.hpp"
#include "model/settings.hpp"
#include "model/statistics.hpp"

namespace fdbench {

// What runs a strategy's items.
enum class WorkerKind { threads, processes };
// Whose descriptor table the descriptors a strategy's workers create go into.
enum class FdTable {
  shared,      // the process's one table, shared by every worker: a growth waits for RCU
  per_worker,  // a table of each worker's own (worker processes): never shared
  none,        // no process table at all (io_uring direct descriptors): it never grows
};
// The JSON spellings: "threads", "processes"; "shared", "per-worker", "none".
std::string_view to_string(WorkerKind workers);
std::string_view to_string(FdTable table);
// False if `text` is none of them.
bool parse_worker_kind(std::string_view text, WorkerKind& workers);
bool parse_fd_table(std::string_view text, FdTable& table);

// A result's outcome. Reporters, findings and compare read it, never the error's words.
enum class Status {
  measured,     // every repetition ran (its calls may still have failed: see failures)
  unavailable,  // the combination cannot run here (no io_uring, a workload it cannot do)
  failed,       // it started and broke: a worker died, a ring broke, threads could not start
  cut_short,    // Ctrl-C came first: the timed repetitions that ran are kept
  timed_out,    // a repetition outlasted --timeout and was abandoned
  hung,         // a repetition was still running when Ctrl-C came, and was abandoned
};
// The JSON spellings: "measured", "unavailable", "failed", "cut-short", "timed-out", "hung".
std::string_view to_string(Status status);
bool parse_status(std::string_view text, Status& status);
// How reporters name an outcome that is not plain measured: "unavailable", "failed",
// "cut short", "timed out", "hung".
std::string_view status_words(Status status);

// What a warning is about; the text says it for people.
enum class WarningKind {
  noisy,        // the median is known only within more than ±kNoisyHalfWidth (is_noisy())
  cut_short,    // how many of the timed repetitions ran before Ctrl-C
  leak,         // the run held descriptors afterwards that it did not hold before
  page_faults,  // the timed regions took page faults: the clock held memory work too
  // a machine-wide setting the result is measured under (rcu_expedited) was changed by
  // another program while it was measured: its times mix both values (schema 7)
  setting_changed,
  other,
};
// The JSON spellings: "noisy", "cut-short", "leak", "page-faults", "setting-changed",
// "other".
std::string_view to_string(WarningKind kind);
bool parse_warning_kind(std::string_view text, WarningKind& kind);

struct Warning {
  WarningKind kind = WarningKind::other;
  std::string text;

  bool operator==(const Warning&) const = default;
};

// Where the files of an `open` result came from. One value for JSON's two fields, "source"
// ("generated", "tree", "list") and, for a generated set, "file_set" ("private", "kept",
// "reused"; absent before schema 9 recorded it), converted there and nowhere else.
enum class InputSource {
  generated,    // a set fdbench made, from a document that does not say what became of it
  private_set,  // made for this run in a private directory, removed after it
  kept,         // made at --dir with --keep-files and left there
  reused,       // a kept set, checked and used as it is (none created)
  tree,         // the user's files, found under --tree
  list,         // the user's files, named by --list
};
// JSON's "source": "generated" for the first four, "tree", "list".
std::string_view source_name(InputSource source);
// JSON's "file_set": "private", "kept", "reused"; empty for the others (not written).
std::string_view file_set_name(InputSource source);
// From JSON's two fields (`file_set` empty where absent); false if they name none.
bool parse_input_source(std::string_view source, std::string_view file_set, InputSource& out);
// Whether fdbench made the files (any of the first four): not the user's own.
[[nodiscard]] inline bool generated(InputSource source) {
  return source != InputSource::tree && source != InputSource::list;
}

// Where the files of an `open` result came from, with what was left out.
struct InputSummary {
  InputSource source = InputSource::generated;
  std::string origin;                // --dir, --tree, --list, or a kept set's DIR
  std::string layout = "flat";       // generated sets: "flat" or "dirs:K"
  std::string flags = "rdonly";      // --flags
  bool keep_open = false;
  std::uint64_t files = 0;                       // files opened per repetition
  std::map<std::string, std::uint64_t> skipped;  // never opened, by kind
  std::map<std::string, std::uint64_t> missing;  // --list entries not found, by errno text
  // Untimed set-up before the first repetition: making the set (reused: checking it), or
  // reading the tree or list. Written as the result's "setup_ns".
  std::optional<std::int64_t> setup_ns;
  // --list: how many of `files` are distinct paths, where fewer (a path listed again is opened
  // again); said in the table's title, not written to the JSON.
  std::optional<std::uint64_t> distinct;
};

// Failed calls that returned one errno value, and that value's message on the machine that ran.
struct ErrnoCount {
  std::uint64_t count = 0;
  std::string message;  // strerror text, e.g. "Too many open files"

  bool operator==(const ErrnoCount&) const = default;
};

// What a timed region took besides the measured calls, summed over a repetition's workers, each
// read off the clock around its own timed part (getrusage): page faults, and the times a worker
// waited (voluntary context switches) or was preempted (involuntary ones).
struct TimedRegion {
  std::uint64_t minor_faults = 0;
  std::uint64_t major_faults = 0;
  std::uint64_t voluntary_switches = 0;
  std::uint64_t involuntary_switches = 0;

  [[nodiscard]] std::uint64_t page_faults() const { return minor_faults + major_faults; }
  TimedRegion& operator+=(const TimedRegion& other);
  bool operator==(const TimedRegion&) const = default;
};
// Each count's median over `repetitions` (of an even number, the mean of the middle two,
// rounded down); nullopt for none.
std::optional<TimedRegion> median_timed_region(std::span<const TimedRegion> repetitions);

// --repeat auto: what a result's repetitions aimed for, and why they stopped.
struct AutoRepeat {
  double precision = 0;   // --precision: the 95% interval within ± this share of the median
  double max_time_s = 0;  // --max-time; with a budget, the share of it the result had at the end
  RepeatStop stopped = RepeatStop::precision;

  bool operator==(const AutoRepeat&) const = default;
};

struct Result {
  std::string workload;  // "open" or "socket"
  // What was measured: strategy, threads, batch, kind, pregrow, harness, paths, rcu_expedited.
  Configuration config;
  int runnable_threads = 1;                // threads or processes that can be on a CPU while timed
  BatchUnit batch_unit = BatchUnit::none;  // what config.batch counts
  std::uint64_t ops = 0;  // descriptors created per repetition
  int repeat = 0;         // timed repetitions: as planned, or as many as --repeat auto took
  int warmup = 0;
  std::optional<AutoRepeat> auto_repeat;  // nullopt: a fixed --repeat
  std::vector<std::int64_t> times_ns;     // one per timed repetition
  Summary stats;
  MedianInterval median_ci;           // 95% interval of the median of times_ns
  std::vector<std::size_t> outliers;  // indices into times_ns beyond 1.5 × IQR
  double ops_per_sec = 0;             // ops / median
  std::optional<int> fdsize_before;
  std::optional<int> fdsize_after;
  // What each timed repetition's region took, where every one's workers could be counted (in
  // memory only: the JSON keeps the medians), and their medians per repetition. nullopt: not
  // counted (threads where the OS counts only whole processes, a document before schema 3).
  std::vector<TimedRegion> timed_region_samples;
  std::optional<TimedRegion> timed_region;
  std::uint64_t failures = 0;                           // failed calls over timed repetitions
  std::string first_failure;                            // errno text of the first failed call
  std::map<std::string, ErrnoCount> failures_by_errno;  // errno name ("EMFILE") -> count
  std::map<std::string, std::string> parameters;        // strategy parameters
  std::optional<InputSummary> input;                    // open results
  std::optional<Latency> latency;  // --latency: every call timed (nullopt: not asked, or not
                                   // recordable for this strategy: parameters["latency"] says)
  // --kernel-trace: where the measuring threads were off their CPU while timed, by cause, as
  // the kernel recorded it; or why it could not be recorded. nullopt: not asked.
  std::optional<KernelEvidence> kernel;
  Status status = Status::measured;
  std::string error;  // why, when status is neither measured nor cut_short
  std::vector<Warning> warnings;

  // What the strategy and the workload are, recorded so that findings and reporters never
  // have to know either by name (results read back from JSON included).
  WorkerKind workers = WorkerKind::threads;
  FdTable fd_table = FdTable::shared;
  bool reference = false;          // the seed's plain loop, the yardstick for the others
  bool holds_descriptors = false;  // held to the end of a repetition: the table grows
  std::string unit = "fds";        // what ops counts, in rates ("files" for files/s)
  WorkloadKind workload_kind = WorkloadKind::create;  // what each item asks of the kernel
  // Whether tune may recommend it: a way a program can adopt (not the seed's naive pool,
  // measured only to show what it costs).
  bool recommendable = true;

  // Whether it has timed repetitions to show: measured, or cut short.
  [[nodiscard]] bool ran() const {
    return status == Status::measured || status == Status::cut_short;
  }
  [[nodiscard]] bool ok() const { return ran() && failures == 0; }
  // The timed repetitions it has times for: `repeat`, or fewer where Ctrl-C cut it short (a
  // fixed count keeps the planned one in `repeat`). What a per-repetition figure divides by.
  [[nodiscard]] int repetitions_run() const {
    return times_ns.empty() ? repeat : static_cast<int>(times_ns.size());
  }
  // Whether its failed calls are part of the measured work: opens of the user's own files
  // (--tree, --list), some of which may be unreadable. Elsewhere (a generated set, sockets) a
  // failed call means the times are not valid, and the row is marked FAILED.
  [[nodiscard]] bool failures_are_work() const {
    return input.has_value() && !generated(input->source);
  }
  // Whether a repetition hung and was abandoned (--timeout, or Ctrl-C it never saw).
  [[nodiscard]] bool hung() const { return status == Status::timed_out || status == Status::hung; }
  [[nodiscard]] bool has_warning(WarningKind about) const;
  // How precisely the median is known: the larger half of its 95% interval as a share of it
  // (relative_half_width); nullopt below the repetitions such an interval needs.
  [[nodiscard]] std::optional<double> precision() const {
    return relative_half_width(median_ci, stats.median);
  }
  // With --repeat auto, whether that precision fell short of the one asked for where it
  // mattered: a result decided against its contenders needed no more.
  [[nodiscard]] bool missed_precision() const {
    if (!auto_repeat || !ran() || auto_repeat->stopped == RepeatStop::decided) return false;
    const auto reached = precision();
    return !reached || *reached > auto_repeat->precision;
  }
  // Why its repetitions stopped: --repeat auto's reason, a fixed --repeat's count run, or an
  // interruption.
  [[nodiscard]] RepeatStop stopped() const {
    if (auto_repeat) return auto_repeat->stopped;
    return status == Status::cut_short || hung() ? RepeatStop::interrupted
                                                 : RepeatStop::fixed_repeat;
  }
  // The value --rcu-expedited set for it, as text: "0", "1"; "" when it was kept as it was.
  [[nodiscard]] std::string rcu_setting() const;
  // Adds a warning unless the same one is there already.
  void warn(WarningKind about, std::string text);
};

// The one noise rule: a result is noisy (the tables' `~`, its noisy warning) where its
// precision(), the ± column, is shown as more than ±this share of the median. Unlike the
// min–max range it does not grow as repetitions are added: more narrow it. Below the
// repetitions a 95% interval needs there is no precision (the column shows "-"), and no
// result is called noisy: that there are too few is said instead.
inline constexpr double kNoisyHalfWidth = 0.10;
// Whether `result` is noisy by that rule.
[[nodiscard]] bool is_noisy(const Result& result);
// The outcome as reporters show it when it is not measured: "unavailable: no io_uring",
// "timed out: threads, 1 thread: ...".
std::string error_text(const Result& result);

// Fills stats, ops_per_sec, median_ci and outliers from times_ns (and timed_region from its
// samples, where there are any), and warns (once) when the median is noisy() (a noisy warning
// read from a document is judged again, by today's rule), and when the timed regions took page
// faults.
void finalize(Result& result);

// Adds `count` failures with errno `err` under its name; err <= 0 stands for an errno value
// that was not recorded individually ("other").
void add_failures(std::map<std::string, ErrnoCount>& by_errno, int err, std::uint64_t count);

}  // namespace fdbench
