#pragma once
// `fdbench compare`: results files side by side, and one file against the figures others
// published. Pure over ResultsDocuments (tested on hand-built ones); write_compare_report()
// prints what compare() found as a table, markdown or JSON.
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/results_json.hpp"

namespace fdbench {

// Two-sided Mann-Whitney U test on raw samples, as Google Benchmark's compare.py runs it
// (SciPy's mannwhitneyu): exact when both samples have at most 8 values and no ties,
// otherwise the normal approximation with tie and continuity correction.
struct MannWhitney {
  double u = 0;        // U of the first sample: pairs where it is the larger, ties count half
  double p_value = 1;  // 1 when either sample is empty
  bool exact = false;
};
MannWhitney mann_whitney_u(std::span<const std::int64_t> a, std::span<const std::int64_t> b);

inline constexpr double kSignificanceLevel = 0.05;
// Below this many repetitions on either side, no verdict: too few to tell.
inline constexpr std::size_t kMinRepetitionsToTell = 5;

// What makes results from two files the same measurement.
struct ResultKey {
  std::string workload;
  Configuration config;
  std::uint64_t ops = 0;
  bool holds_descriptors = false;
  // The parameters that configure it (see key_of), and the configuration's that a row's label
  // and compare's JSON name among them (paths, rcu_expedited, a published harness).
  std::map<std::string, std::string> parameters;

  auto operator<=>(const ResultKey&) const = default;
};
ResultKey key_of(const Result& result);

enum class Verdict {
  baseline,    // the first file: what the others are set against
  faster,      // significantly faster than the first file
  slower,      // significantly slower
  same,        // no significant difference
  too_few,     // fewer than kMinRepetitionsToTell repetitions on a side
  no_samples,  // this file or the first could not run it (or has no samples)
  unpaired,    // measured here, but the first file has no such result
  absent,      // this file has no such result
};
std::string_view to_string(Verdict verdict);

// One file's result for one key.
struct CompareCell {
  Verdict verdict = Verdict::absent;
  Status status = Status::measured;  // how it ended on that machine
  std::string error;                 // why, when it has no timings
  std::size_t repetitions = 0;
  double median_ns = 0;
  std::int64_t min_ns = 0;
  std::int64_t max_ns = 0;
  MedianInterval interval;  // the 95% interval of its median (min-max where not reached)
  // Against the first file; set when both have samples.
  std::optional<double> ratio;       // median / first file's median (< 1: faster)
  std::optional<double> ratio_low;   // min / first file's max
  std::optional<double> ratio_high;  // max / first file's min
  std::optional<double> p_value;     // Mann-Whitney U on times_ns
  bool kernel_traced = false;        // timed with --kernel-trace (kernel evidence recorded)
  // Set against the first file's result with only one of the two traced: the traced one's
  // times include the tracing's cost (a record at every switch), so the ratio is not the
  // files' difference alone. Still paired, and marked where it is printed.
  bool traced_on_one_side = false;
  // Its result was measured while another program changed rcu_expedited (the warning kind
  // setting-changed): its times mix both kinds of grace period.
  bool setting_changed = false;
  // Set against the first file's result: this one or that one was (setting_changed), so the
  // ratio is not the files' difference alone. Still paired, and marked where it is printed.
  bool setting_changed_on_a_side = false;
};

struct CompareRow {
  ResultKey key;
  std::vector<CompareCell> cells;  // one per file, in the order given
};

// One environment field across the files ("kernel", "rlimit_nofile.soft", ...).
struct EnvironmentRow {
  std::string field;
  std::vector<std::optional<std::string>> values;  // nullopt: the file does not record it
  bool differs = false;
};

struct ComparedFile {
  std::string label;  // as given on the command line
  std::string tool_version;
  bool complete = true;
  std::size_t results = 0;
};

struct Comparison {
  std::vector<ComparedFile> files;
  // The fields that explain most differences (OS, kernel, CPU, filesystem, mitigations,
  // rcu_expedited, build type, ...) whenever a file records them, then any other that differs.
  std::vector<EnvironmentRow> environment;
  std::vector<CompareRow> shared;   // results every file has, in the first file's order
  std::vector<CompareRow> partial;  // results only some files have: listed, not dropped
};

Comparison compare(std::span<const ResultsDocument> documents, std::span<const std::string> labels);

// A figure someone published (docs/references.json), and what in a results file matches it.
struct Reference {
  std::string id;
  std::string source;  // who, where, when
  std::string url;
  std::string machine;  // with its OS: "Apple M2 laptop, macOS"
  std::string os;
  std::string measured;  // what their program did
  std::string quote;     // their words for the figure, where it is a round number
  std::string workload;  // the results that match: workload, kind, threads, ops, pregrow
  std::optional<DescriptorKind> kind;  // nullopt: any
  std::optional<int> threads;
  std::uint64_t ops = 0;
  std::optional<Pregrow> pregrow;       // nullopt: any
  std::vector<std::string> strategies;  // empty: any
  std::optional<double> ops_per_sec;    // a throughput ceiling they reported ("files/s") ...
  std::string unit = "ops/s";
  std::vector<std::int64_t> times_ns;  // ... or the times of their runs
};

// The references shipped with fdbench (docs/references.json, compiled in).
std::vector<Reference> shipped_references();
// Parses a references document; throws Error naming what is wrong.
std::vector<Reference> parse_references(std::string_view json);

// Where one results file stands against one reference.
struct Standing {
  Reference reference;
  std::optional<Result> mine;  // the best matching result; nullopt: nothing matches
  double speed_ratio = 0;      // this machine's speed / theirs (> 1: this machine faster)
};
std::vector<Standing> stand_against(const ResultsDocument& document,
                                    std::span<const Reference> references);

struct CompareReport {
  std::optional<Comparison> comparison;  // two or more files
  struct FileStandings {
    std::string label;
    std::vector<Standing> standings;
  };
  std::vector<FileStandings> references;  // with --references
};

// "table", "markdown", "json".
std::vector<std::string> compare_formats();
void write_compare_report(std::ostream& out, const CompareReport& report, std::string_view format);

}  // namespace fdbench
