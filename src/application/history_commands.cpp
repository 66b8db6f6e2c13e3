// --save, `fdbench history` and `compare --baseline`: the history layer at the command line.
// A run is shown again by replaying its stored JSON document through the reporters, the way
// `compare` and `report` read documents; nothing is measured here.
#include "application/history_commands.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>

#include "analysis/compare.hpp"
#include "analysis/findings.hpp"
#include "application/option_rows.hpp"
#include "application/test_events.hpp"
#include "application/trend_chart.hpp"
#include "common/errors.hpp"
#include "history/history.hpp"
#include "model/format.hpp"
#include "output/atomic_file.hpp"
#include "output/reporter.hpp"
#include "output/results_file.hpp"
#include "platform/platform.hpp"

namespace fdbench::app {

namespace {

// For the reliability tests: holds the save's transaction open until the process is killed,
// once it has said so ("history-saving"), so a test can SIGKILL a run in the middle of it.
void hold_save_for_test() {
  test_event("history-saving");
  if (std::getenv("FDBENCH_TEST_HOLD_SAVE") == nullptr) return;
  for (;;) ::pause();
}

std::string results_count_text(std::size_t n) {
  return fmt::format("{} result{}", n, n == 1 ? "" : "s");
}

// What `list` and `trend` print for a history with no run in it (exit 0: a fresh CI cache).
std::string no_runs_text(const std::string& path) {
  return fmt::format("no runs saved yet in {}: a run saves into it with {}", printable(path),
                     flag(Opt::save));
}

}  // namespace

bool saves_by_variable() {
  const char* variable = std::getenv("FDBENCH_HISTORY");
  return variable != nullptr && std::string_view(variable) == "1";
}

int check_history_before_measuring(const OutputSettings& outputs, std::ostream& err) {
  if (!outputs.save_history) return 0;
  try {
    history::History::check_writable(outputs.history);
    return 0;
  } catch (const Error& e) {
    err << "Error: " << printable(e.what()) << "\n";
    return 1;
  }
}

int save_in_history(const OutputSettings& outputs, const std::string& document, int code,
                    std::ostream& err) {
  if (!outputs.save_history) return code;
  if (code != 0) {
    err << fmt::format("fdbench: the run was not saved in {}: it did not end cleanly (exit {})\n",
                       printable(outputs.history), code);
    return code;
  }
  try {
    const ResultsDocument parsed = parse_results_json(document);
    auto history = history::History::open_for_writing(outputs.history);
    const auto added = history.add(document, parsed, "saved", hold_save_for_test);
    err << fmt::format("fdbench: saved as run {} in {} ({})\n", added.id,
                       printable(outputs.history), results_count_text(parsed.results.size()));
    return 0;
  } catch (const Error& e) {
    // SQLite says "disk I/O error" where its files could not grow: name the cause.
    const std::string folder = std::filesystem::path(outputs.history).parent_path().string();
    const bool full = platform::filesystem_full(outputs.history) ||
                      platform::filesystem_full(folder.empty() ? "." : folder);
    err << fmt::format("Error: the run was not saved: {}{}\n", printable(e.what()),
                       full ? "; its filesystem is full (No space left on device): free some "
                              "space, or save elsewhere with --history FILE"
                            : "");
    return 1;
  }
}

namespace {

// A run's id as `list` shows it; throws UsageError for anything else.
std::int64_t run_id(const std::string& text) {
  std::int64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || id <= 0) {
    throw UsageError(fmt::format("'{}' is not a run's ID (fdbench history list shows them)", text));
  }
  return id;
}

std::string stored_document(history::History& history, std::int64_t id, const std::string& path) {
  auto document = history.document(id);
  if (!document) {
    throw Error(fmt::format("no run {} in {} (fdbench history list shows them)", id, path));
  }
  return *document;
}

int list_runs(history::History& history, const std::string& path, std::ostream& out) {
  const auto runs = history.runs();
  if (runs.empty()) {
    out << no_runs_text(path) << "\n";
    return 0;
  }
  out << fmt::format("{:>4}  {:<20}  {:<16}  {:<24}  {:<8}  {:>7}  {}\n", "id", "date", "host",
                     "kernel", "command", "results", "origin");
  for (const auto& run : runs) {
    out << fmt::format("{:>4}  {:<20}  {:<16}  {:<24}  {:<8}  {:>7}  {}{}\n", run.id,
                       printable(run.date), printable(run.host), printable(run.kernel),
                       run.command.empty() ? "-" : printable(run.command), run.results,
                       printable(run.origin), run.complete ? "" : " (incomplete)");
  }
  return 0;
}

bool same_section(const Result& a, const Result& b) {
  return a.workload == b.workload && a.config.kind == b.config.kind;
}

// The heading of the section that starts at `results[first]`, told again from its results; its
// repetitions are those its rows had (a range where --repeat auto or a budget made them differ).
Section section_from(const std::vector<Result>& results, std::size_t first) {
  const Result& result = results[first];
  Section section;
  section.workload = result.workload;
  section.kind = result.config.kind;
  section.held = result.holds_descriptors;
  section.warmup = result.warmup;
  if (result.input) section.input = result.input;
  // Held descriptors are sized per thread (socket); files are one list for all threads.
  if (!result.input && result.config.threads > 0) {
    section.per_thread = result.ops / static_cast<std::uint64_t>(result.config.threads);
  }
  int least = result.repetitions_run();
  int most = least;
  for (std::size_t i = first; i < results.size() && same_section(result, results[i]); ++i) {
    least = std::min(least, results[i].repetitions_run());
    most = std::max(most, results[i].repetitions_run());
  }
  section.repeat.count = most;
  if (least != most) section.repetitions_range = {least, most};
  return section;
}

// The sections a document's results were printed under, told again from the results
// themselves: a heading where the workload or the descriptor kind changes.
void replay(const ResultsDocument& doc, Reporter& reporter) {
  reporter.begin(doc.environment);
  if (doc.context) reporter.context(*doc.context);
  for (std::size_t i = 0; i < doc.results.size(); ++i) {
    if (i == 0 || !same_section(doc.results[i - 1], doc.results[i])) {
      reporter.section(section_from(doc.results, i));
    }
    reporter.add(doc.results[i]);
  }
  const auto findings_now =
      doc.findings_recorded ? doc.findings : findings(doc.results, doc.environment);
  reporter.end(doc.results, findings_now, doc.complete);
}

int show_run(history::History& history, const HistoryCommand& command, std::ostream& out) {
  const std::string document =
      stored_document(history, run_id(command.arguments.at(0)), command.history);
  if (command.format == "json") {  // the document as the run wrote it
    out << document;
    if (!document.ends_with('\n')) out << "\n";
    return 0;
  }
  const auto reporter = make_reporter(command.format, out);
  FDBENCH_ASSERT(reporter != nullptr);  // the CLI validated the format
  replay(parse_results_json(document), *reporter);
  return 0;
}

int export_run(history::History& history, const HistoryCommand& command, std::ostream& err) {
  const std::int64_t id = run_id(command.arguments.at(0));
  const std::string document = stored_document(history, id, command.history);
  write_file_atomically(command.output, document, flag(Opt::output));
  err << fmt::format("fdbench: wrote {} (run {})\n", printable(command.output), id);
  return 0;
}

int remove_runs(history::History& history, const HistoryCommand& command, std::ostream& out,
                std::ostream& err) {
  int code = 0;
  for (const auto& text : command.arguments) {
    const std::int64_t id = run_id(text);
    if (history.remove(id)) {
      out << fmt::format("removed run {}\n", id);
    } else {
      err << fmt::format("Error: no run {} in {} (fdbench history list shows them)\n", id,
                         printable(command.history));
      code = 1;
    }
  }
  return code;
}

}  // namespace

}  // namespace fdbench::app

namespace fdbench::app {

namespace {

// Each file in turn; one that cannot be read is said and the others still come in (exit 2).
int import_files(history::History& history, const HistoryCommand& command, std::ostream& out,
                 std::ostream& err) {
  int code = 0;
  for (const auto& path : command.arguments) {
    ResultsFile file;
    try {
      file = read_results_file_whole(path, "history import");
    } catch (const Error& e) {
      err << "Error: " << printable(e.what()) << "\n";
      code = 2;
      continue;
    }
    const auto added = history.add(file.text, file.document, "imported " + path);
    if (added.duplicate) {
      out << fmt::format("{}: already in the history as run {}\n", printable(path), added.id);
    } else {
      out << fmt::format("imported {} as run {} ({})\n", printable(path), added.id,
                         results_count_text(file.document.results.size()));
    }
  }
  return code;
}

bool wanted(const history::TrendSeries& s, const HistoryCommand& command) {
  const auto& strategies = command.strategies;
  const auto& threads = command.threads;
  return (strategies.empty() ||
          std::find(strategies.begin(), strategies.end(), s.config.strategy) != strategies.end()) &&
         (threads.empty() ||
          std::find(threads.begin(), threads.end(), s.config.threads) != threads.end());
}

void print_series(const history::TrendSeries& s, std::ostream& out) {
  out << series_title(s) << "\n";
  out << fmt::format("  {:>4}  {:<20}  {:<16}  {:>11}  {:<25}  {:>4}\n", "run", "date", "host",
                     "median ms", "95% interval ms", "reps");
  for (const auto& p : s.points) {
    if (p.status != Status::measured && p.status != Status::cut_short) {
      out << fmt::format("  {:>4}  {:<20}  {:<16}  {:>11}\n", p.run, printable(p.date),
                         printable(p.host), to_string(p.status));
      continue;
    }
    const std::string interval = fmt::format("{} - {}{}", format_ms(p.low_ns), format_ms(p.high_ns),
                                             p.interval_reached ? "" : " (min-max)");
    out << fmt::format("  {:>4}  {:<20}  {:<16}  {:>11}  {:<25}  {:>4}\n", p.run, printable(p.date),
                       printable(p.host), format_ms(p.median_ns), interval, p.repetitions);
  }
}

// The series asked for as the table, or (--format html) as a page of charts, to stdout or -o.
int print_trend(history::History& history, const HistoryCommand& command, std::ostream& out,
                std::ostream& err) {
  auto series = history.trend();
  std::erase_if(series, [&](const auto& s) { return !wanted(s, command); });
  if (command.format == "html") {
    const std::string page = trend_page(series);
    if (command.output.empty()) {
      out << page;
      return 0;
    }
    write_file_atomically(command.output, page, flag(Opt::output));
    err << fmt::format("fdbench: wrote {} ({} configuration{})\n", printable(command.output),
                       series.size(), series.size() == 1 ? "" : "s");
    return 0;
  }
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (i > 0) out << "\n";
    print_series(series[i], out);
  }
  if (series.empty()) out << "no results in the history match\n";
  return 0;
}

int history_action(history::History& history, const HistoryCommand& command, std::ostream& out,
                   std::ostream& err) {
  switch (command.action) {
    case HistoryAction::list:
      return list_runs(history, command.history, out);
    case HistoryAction::show:
      return show_run(history, command, out);
    case HistoryAction::import:
      return import_files(history, command, out, err);
    case HistoryAction::export_run:
      return export_run(history, command, err);
    case HistoryAction::remove:
      return remove_runs(history, command, out, err);
    case HistoryAction::trend:
      return print_trend(history, command, out, err);
  }
  return 1;
}

}  // namespace

int run_history(const HistoryCommand& command, std::ostream& out, std::ostream& err) {
  try {
    const bool writes =
        command.action == HistoryAction::import || command.action == HistoryAction::remove;
    if (command.action == HistoryAction::list && !history::History::started(command.history)) {
      out << no_runs_text(command.history) << "\n";
      return 0;
    }
    auto history = writes ? history::History::open_for_writing(command.history)
                          : history::History::open_for_reading(command.history);
    return history_action(history, command, out, err);
  } catch (const UsageError& e) {
    err << "Error: fdbench history: " << printable(e.what()) << "\n";
    return 2;
  } catch (const Error& e) {
    err << "Error: " << printable(e.what()) << "\n";
    return 1;
  }
}

}  // namespace fdbench::app

namespace fdbench::app {

namespace {

// One side of `compare --baseline`: what it is called, its text and its reading.
struct Side {
  std::string label;
  std::string text;
  ResultsDocument document;
  bool saved = false;  // a run of the history, not a file
};

bool names_a_run(const std::string& text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

Side history_run(history::History& history, std::int64_t id, const std::string& path) {
  std::string text = stored_document(history, id, path);
  ResultsDocument document = parse_results_json(text);
  return {fmt::format("run {}", id), std::move(text), std::move(document), true};
}

// A file that cannot be read as results is the command line's mistake (exit 2, as compare).
Side file_side(const std::string& path) {
  try {
    auto file = read_results_file_whole(path, "compare");
    return {path, std::move(file.text), std::move(file.document)};
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

history::History& opened(std::optional<history::History>& history, const std::string& path) {
  if (!history) history.emplace(history::History::open_for_reading(path));
  return *history;
}

// The run compared: the file named, or else the history's latest run.
Side current_side(const CompareCommand& command, std::optional<history::History>& history) {
  if (!command.files.empty()) return file_side(command.files.front());
  auto& opened_history = opened(history, command.history);
  const auto latest = opened_history.latest();
  if (!latest) {
    throw Error(fmt::format("no runs in {} yet: a run saves into it with {}", command.history,
                            flag(Opt::save)));
  }
  return history_run(opened_history, *latest, command.history);
}

// The baseline: the last run saved other than the one compared, a run's ID, or a file; nullopt
// where the baseline is `last` and the history holds no such run yet (a CI job's first).
std::optional<Side> baseline_side(const CompareCommand& command, const Side& current,
                                  std::optional<history::History>& history) {
  if (!baseline_from_history(command.baseline)) return file_side(command.baseline);
  if (command.baseline == "last" && !history && !history::History::started(command.history)) {
    return std::nullopt;
  }
  auto& opened_history = opened(history, command.history);
  if (command.baseline != "last") {
    return history_run(opened_history, run_id(command.baseline), command.history);
  }
  const auto last = opened_history.latest(current.text);
  if (!last) return std::nullopt;
  return history_run(opened_history, *last, command.history);
}

// No baseline yet: one line, and exit 0 (the first job of a gate passes) unless
// --require-baseline asks for one.
int without_baseline(const CompareCommand& command, const Side& current, std::ostream& out,
                     std::ostream& err) {
  const std::string path = printable(command.history);
  const std::string next =
      current.saved ? fmt::format("{} is the baseline the next run is compared with", current.label)
                    : fmt::format("save a run with {} to make it the baseline", flag(Opt::save));
  if (command.require_baseline) {
    err << fmt::format("Error: no baseline in {} yet ({}): {}\n", path, flag(Opt::require_baseline),
                       next);
    return 1;
  }
  std::ostream& said = command.format == "table" ? out : err;
  said << fmt::format("{}no baseline in {} yet, nothing to compare with: {}{}\n",
                      command.fail_if_slower ? "gate: " : "", path, next,
                      command.fail_if_slower ? ": pass" : "");
  return 0;
}

// The results both sides have that the gate fails: significantly slower, by more than it allows.
std::vector<const CompareRow*> too_slow(const Comparison& comparison, double percent) {
  std::vector<const CompareRow*> rows;
  for (const auto& row : comparison.shared) {
    const CompareCell& cell = row.cells.at(1);
    if (cell.verdict == Verdict::slower && cell.ratio && *cell.ratio > 1 + percent / 100) {
      rows.push_back(&row);
    }
  }
  return rows;
}

void say_too_slow(const std::vector<const CompareRow*>& rows, double percent, std::ostream& out) {
  out << fmt::format("slower than the baseline by more than {}% (significant, p < {}):\n", percent,
                     kSignificanceLevel);
  for (const CompareRow* row : rows) {
    const CompareCell& cell = row->cells.at(1);
    std::string what =
        fmt::format("{}, {}, {}, {}", row->key.workload, to_string(row->key.config.kind),
                    row->key.config.strategy, thread_count_text(row->key.config.threads));
    if (row->key.config.batch != 1) what += fmt::format(", batch {}", row->key.config.batch);
    if (row->key.config.pregrow.grows()) what += ", pregrow " + row->key.config.pregrow.label();
    out << fmt::format("  {}: {} ms against {} ms, +{:.1f}% (p = {:.3g})\n", what,
                       format_ms(cell.median_ns), format_ms(row->cells.at(0).median_ns),
                       (*cell.ratio - 1) * 100, cell.p_value.value_or(1));
  }
}

// The gate's last words: the rows that fail it, then one verdict line; exit 3 on a failure.
int gate_verdict(const Comparison& comparison, double percent, std::ostream& out) {
  const auto slower = too_slow(comparison, percent);
  if (!slower.empty()) say_too_slow(slower, percent, out);
  out << fmt::format("gate: {} of {} slower by more than {}%: {}\n", slower.size(),
                     results_count_text(comparison.shared.size()), percent,
                     slower.empty() ? "pass" : "fail");
  return slower.empty() ? 0 : 3;
}

}  // namespace

bool baseline_from_history(const std::string& baseline) {
  return baseline == "last" || names_a_run(baseline);
}

int compare_with_baseline(const CompareCommand& command, std::ostream& out, std::ostream& err) {
  std::optional<history::History> history;
  std::vector<ResultsDocument> documents;
  std::vector<std::string> labels;
  try {
    Side current = current_side(command, history);
    std::optional<Side> baseline = baseline_side(command, current, history);
    if (!baseline) return without_baseline(command, current, out, err);
    labels = {"baseline " + baseline->label, current.label};
    documents.push_back(std::move(baseline->document));
    documents.push_back(std::move(current.document));
  } catch (const UsageError& e) {
    err << "Error: " << printable(e.what()) << "\n";
    return 2;
  } catch (const Error& e) {
    err << "Error: " << printable(e.what()) << "\n";
    return 1;
  }
  CompareReport report;
  report.comparison = compare(documents, labels);
  write_compare_report(out, report, command.format);
  if (!command.fail_if_slower) return 0;
  // After the report, so that a terminal or a CI log ends on the verdict.
  return gate_verdict(*report.comparison, *command.fail_if_slower,
                      command.format == "table" ? out : err);
}

}  // namespace fdbench::app
