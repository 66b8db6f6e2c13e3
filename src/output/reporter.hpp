#pragma once
// One Reporter per output format behind one interface, chosen by name. Results reach the
// reporter as each one finishes, so a later failure or Ctrl-C loses nothing.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/findings.hpp"
#include "analysis/tune_summary.hpp"
#include "model/context.hpp"
#include "model/environment.hpp"
#include "model/result.hpp"

namespace fdbench {

// What the next results measure, as data; each reporter words it the way its format needs.
struct Section {
  std::string workload;               // "open", "socket", "accept"
  DescriptorKind kind = DescriptorKind::file;  // what one item creates
  int descriptors_per_item = 1;       // a pipe makes two
  std::uint64_t per_thread = 0;       // items per thread, when the work is sized per thread
  std::uint64_t burst = 0;  // accept: connections queued before each repetition's clock
  // A workload that says what it measures and what its clock holds in its own words (server:
  // someone else's program); empty: made from the fields here.
  std::string what;
  std::string clock;
  std::optional<InputSummary> input;  // the files, when the work is a list of files
  std::string fs_type;                // the filesystem holding those files ("ext4", ...)
  std::size_t subdirs = 0;            // generated files spread over this many subdirectories
  Repeat repeat;  // --repeat: a count, or auto with its precision and time limit
  // history show: the fewest and most repetitions its rows had, where they differ (told from
  // the results, not the --repeat that asked for them); nullopt: `repeat` says it.
  std::optional<std::pair<int, int>> repetitions_range;
  // tune's --budget, shared by the results instead of a time limit each; nullopt: none.
  std::optional<double> budget_s;
  int warmup = 0;
  bool held = false;         // descriptors are held to the end of each repetition
  bool fresh_child = false;  // each repetition runs in a fresh process
  bool batch_column = false;  // results differ by batch too (tune's sweep): the table shows it
  // --harness published ran: the table shows each row's harness (minimal or published).
  bool harness_column = false;
  // open's --paths, and the strategies measured that open by full path whatever it says (no
  // openat()): the title and note say both.
  PathMode paths = PathMode::relative;
  std::vector<std::string> by_full_path;
  // --kernel-trace: asked for, and (empty) recorded or why it cannot be here.
  bool kernel_trace = false;
  std::string kernel_unavailable;
};

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void begin(const Environment& env) = 0;
  // The run's record (date, host, command line, user, load): given after begin with the load
  // before the run, and again just before end with the load after it. Formats that write a
  // whole document keep it; the others need not.
  virtual void context(const RunContext& /*context*/) {}
  virtual void section(const Section& /*section*/) {}
  virtual void add(const Result& result) = 0;
  // tune: what its sweep recommends, once every result is added and before end. Each format
  // words it its own way (the table and Markdown a block under the findings, JSON a top-level
  // "recommendation", HTML a section); CSV has rows only and leaves it out.
  virtual void recommendation(const TuneSummary& /*summary*/) {}
  // `findings` are the run's, computed once from `all` (findings.hpp). `complete` is false
  // after an interruption or error: what was measured is still written.
  virtual void end(std::span<const Result> all, std::span<const Finding> findings,
                   bool complete) = 0;
};

// How a reporter words what it reports, where the format lets the reader choose.
struct ReportOptions {
  // --details: the table's small print under each row (per-call times, the timed region's
  // faults and switches, kernel evidence); without it, only what is material. Other formats
  // always carry everything.
  bool details = false;
  // The table's width: its rows fit it, its sentences are wrapped to it (0: never wrapped, so
  // a test can match a sentence whole).
  std::size_t columns = 100;
  // A terminal narrower than the table: its rows are cut to `columns` (an ellipsis where
  // something is missing) rather than wrapped, which would split a number across two lines.
  bool cut_rows = false;
  // With cut_rows: the terminal's columns now, asked before each part is printed, so that a
  // window resized mid-run gets the rest at its new width (0: unknown, keep `columns`).
  std::function<std::size_t()> terminal_columns{};
};

// "table", "json", "csv", "markdown", "html"; nullptr if unknown. The reporter writes to `out`.
std::unique_ptr<Reporter> make_reporter(std::string_view format, std::ostream& out,
                                        const ReportOptions& options = {});
std::vector<std::string> reporter_names();

// The JSON document of the output contract (schema_version kSchemaVersion); with the run's
// context where `context` is not nullptr.
std::string to_json_document(const Environment& env, std::span<const Result> results,
                             std::span<const Finding> findings = {},
                             const RunContext* context = nullptr);
// CSV: one header row and one row per result.
std::string csv_header();
std::string csv_row(const Result& result);

}  // namespace fdbench
