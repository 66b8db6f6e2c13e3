// Command -> what it does: measure with reporters and exports, print the environment,
// compare results files, list strategies, clean up after a kill.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <sstream>

#include "analysis/compare.hpp"
#include "analysis/findings.hpp"
#include "application/checks.hpp"
#include "application/command.hpp"
#include "common/errors.hpp"
#include "engine/capture.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "application/file_export.hpp"
#include "application/history_commands.hpp"
#include "application/launcher.hpp"
#include "application/server_command.hpp"
#include "application/trace.hpp"
#include "inputs/file_set.hpp"
#include "model/context.hpp"
#include "model/environment.hpp"
#include "model/format.hpp"
#include "model/results_json.hpp"
#include "application/option_rows.hpp"
#include "output/atomic_file.hpp"
#include "output/html_report.hpp"
#include "output/printable_lines.hpp"
#include "output/reporter.hpp"
#include "output/reporters/environment_text.hpp"
#include "output/results_file.hpp"
#include "output/trace_out.hpp"
#include "output/tune_text.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"
#include "application/live_table.hpp"
#include "application/progress_line.hpp"
#include "run/runnable.hpp"
#include "run/session.hpp"
#include "run/tune_sweep.hpp"
#include "application/test_events.hpp"

namespace fdbench::app {

namespace {

int list_strategies(std::ostream& out) {
  std::size_t width = 0;
  for (const auto& info : strategy_registry()) width = std::max(width, info.name.size());
  for (const auto& info : strategy_registry()) {
    const std::string reason = info.unavailable_reason();
    out << fmt::format("{:<{}}  {:<11}  {}\n", info.name, width,
                       reason.empty() ? "available" : "unavailable", info.summary);
    if (!reason.empty()) out << fmt::format("{:<{}}  {}\n", "", width + 13, reason);
    // The seeds' own harness, where one exists (--harness published): which workloads.
    std::vector<std::string_view> published;
    if (info.published_open) published.push_back("open");
    if (info.published_create) published.push_back("socket");
    if (!published.empty()) {
      out << fmt::format("{:<{}}  also --harness published (the seed's own program) for {}\n", "",
                         width + 13, fmt::join(published, " and "));
    }
  }
  return 0;
}

// Named sets first: each one not removed is an error (exit 1). Then leftovers under
// --dir, where what is left is only reported.
int clean(const CleanCommand& command, std::ostream& out, std::ostream& err) {
  int code = 0;
  for (const auto& set : command.sets) {
    const auto report = FileSet::clean_kept(set);
    for (const auto& path : report.removed) out << "removed " << path << "\n";
    for (const auto& why : report.kept) err << "Error: " << printable(why) << "\n";
    if (!report.kept.empty()) code = 1;
  }
  if (command.dir.empty()) return code;
  try {
    const auto report = FileSet::clean_leftovers(command.dir);
    for (const auto& path : report.removed) out << "removed " << path << "\n";
    for (const auto& why : report.kept) out << "left " << why << "\n";
    // An output's temporary, named where the filesystem has no O_TMPFILE, of a killed run.
    const auto temporaries = clean_output_temporaries(command.dir);
    for (const auto& path : temporaries.removed) out << "removed " << path << "\n";
    for (const auto& why : temporaries.kept) out << "left " << why << "\n";
    if (report.removed.empty() && report.kept.empty() && temporaries.removed.empty() &&
        temporaries.kept.empty()) {
      out << "nothing to clean in " << command.dir << "\n";
    }
    return code;
  } catch (const Error& e) {
    err << "Error: " << printable(e.what()) << "\n";
    return 1;
  }
}

std::string results_text(std::size_t n) {
  return fmt::format("{} result{}", n, n == 1 ? "" : "s");
}

// Whether `r` measured nothing: it failed, or every call it timed failed.
bool measured_nothing(const Result& r) {
  if (r.status == Status::failed) return true;
  return r.ran() && r.failures > 0 && r.failures >= r.ops * r.times_ns.size();
}

// Exit 1 for a run that measured nothing: every result failed or was unavailable (what the
// command line could have told was refused before it started, exit 2; this is what only the
// run could find: a limit on threads, descriptors that do not fit). A script must not read
// success from it.
int measured_code(std::span<const Result> results, std::ostream& err) {
  const auto failed = std::count_if(results.begin(), results.end(), measured_nothing);
  const auto unavailable = std::count_if(results.begin(), results.end(), [](const Result& r) {
    return r.status == Status::unavailable;
  });
  if (results.empty() || failed + unavailable != static_cast<std::ptrdiff_t>(results.size())) {
    return 0;
  }
  std::string what;
  if (unavailable == 0) {
    what = fmt::format("every result failed ({})", results_text(results.size()));
  } else if (failed == 0) {
    what = fmt::format("every result was unavailable ({})", results_text(results.size()));
  } else {
    what = fmt::format("{} failed, {} unavailable", results_text(static_cast<std::size_t>(failed)),
                       unavailable);
  }
  err << "Error: nothing was measured: " << what << "; each result says why\n";
  return 1;
}

// A measuring command as measure() runs it: the sweeps it has (suite: both), or tune's.
struct Measuring {
  const OpenOptions* open = nullptr;
  const SocketOptions* socket = nullptr;
  const TuneCommand* tune = nullptr;
  const OutputSettings& outputs;
  const AcceptOptions* accept = nullptr;
};

// What of the command cannot run here, said before anything starts, a line for each of its
// parts (a command none of whose combinations can run was refused as it was parsed).
void say_unavailable(const Measuring& command, std::ostream& err) {
  std::vector<std::pair<const char*, std::string>> lines;
  if (command.open != nullptr) {
    lines.emplace_back("open", unavailable_text(runnability(*command.open)));
  }
  if (command.socket != nullptr) {
    lines.emplace_back("socket", unavailable_text(runnability(*command.socket)));
  }
  if (command.accept != nullptr) {
    lines.emplace_back("accept", unavailable_text(runnability(*command.accept)));
  }
  for (const auto& [part, line] : lines) {
    if (!line.empty()) err << "fdbench " << part << ": " << printable(line) << "\n";
  }
}

// Runs the suite, open or socket; every reporter sees each result as it finishes.
int run_session(const Measuring& command, Session& session, std::ostream& err) {
  try {
    if (command.open != nullptr) session.run_open(*command.open);
    if (command.socket != nullptr) session.run_socket(*command.socket);
    if (command.accept != nullptr) session.run_accept(*command.accept);
    session.finish(true);
    return measured_code(session.results(), err);
  } catch (const Interrupted& e) {
    session.finish(false);
    const auto results = session.results();
    const auto short_ones = std::count_if(results.begin(), results.end(), [](const Result& r) {
      return r.status == Status::cut_short;
    });
    err << fmt::format("fdbench: interrupted by signal {}; {} result{} kept", e.signal(),
                       results.size(), results.size() == 1 ? "" : "s");
    if (short_ones > 0) {
      err << fmt::format(" ({} cut short, with the repetitions {} ran)", short_ones,
                         short_ones == 1 ? "it" : "they");
    }
    err << "\n";
    return 128 + e.signal();
  } catch (const TimedOut& e) {
    session.finish(false);
    const auto results = session.results();
    err << fmt::format("fdbench: timed out: {}; {} kept (--timeout SECONDS sets the limit)\n",
                       e.what(), results_text(results.size()));
    return 1;
  } catch (const Error& e) {
    session.finish(false);
    err << "Error: " << printable(e.what()) << "\n";
    return dynamic_cast<const UsageError*>(&e) != nullptr ? 2 : 1;  // --list read as the wrong kind
  }
}

// What JSON and CSV have no place for, said on stderr: the budget overrun and the strategies
// measured but kept out of the recommendation (the table, Markdown and HTML say both).
void tune_notes(const TuneSummary& summary, std::ostream& err) {
  if (const std::string over = budget_overrun_text(summary); !over.empty()) {
    err << "fdbench tune: " << over << "\n";
  }
  for (const auto& group : ineligible(summary.sweep, summary.eligibility)) {
    err << fmt::format("fdbench tune: not compared: {}: {}\n", fmt::join(group.strategies, ", "),
                       group.why);
  }
}

// tune through the session's reporters, as open and socket. Exit 1 when nothing could be
// recommended: a script reading --save must not find an old file. Progress lines only to a
// terminal, as open's progress line: a log or a pipe gets the results.
int run_tune_session(const TuneCommand& command, Session& session, std::ostream& err) {
  const bool show_progress = !command.outputs.quiet && platform::terminal_columns(2).has_value();
  const auto progress = [&](std::string_view line) {
    if (show_progress) err << "fdbench tune: " << line << "\n";
  };
  try {
    const TuneSummary summary = run_tune(session, command.tune, progress);
    session.finish(true);
    if (command.outputs.format == "json" || command.outputs.format == "csv")
      tune_notes(summary, err);
    if (!summary.recommendation) return 1;
    if (!command.save.empty()) {
      write_file_atomically(command.save, recommendation_json(*summary.recommendation) + "\n",
                            flag(Opt::save));
      err << fmt::format("fdbench: wrote {} (the recommendation)\n", printable(command.save));
    }
    return 0;
  } catch (const Interrupted& e) {
    session.finish(false);
    err << fmt::format("fdbench: interrupted by signal {}\n", e.signal());
    return 128 + e.signal();
  } catch (const TimedOut& e) {  // nothing is recommended from a sweep that did not finish
    session.finish(false);
    err << fmt::format(
        "fdbench: timed out: {}; the sweep stopped, nothing recommended (--timeout SECONDS "
        "sets the limit)\n",
        e.what());
    return 1;
  } catch (const Error& e) {
    session.finish(false);
    err << "Error: " << printable(e.what()) << "\n";
    return dynamic_cast<const UsageError*>(&e) != nullptr ? 2 : 1;  // --list read as the wrong kind
  }
}

// Once the run is over, every output is written or said to have failed, each on its own: one
// that failed makes the exit code 1 unless it is an error already.
int finish_outputs(const OutputSettings& command, std::size_t results, TraceOut* trace_out,
                   const std::vector<const FileExport*>& exports, const std::string& buffered,
                   std::ostream& err, int code) {
  const auto failed = [&](const std::string& why) {
    err << "Error: " << printable(why) << "\n";
    if (code == 0) code = 1;
  };
  if (trace_out != nullptr) {
    try {
      const std::uint64_t rows = trace_out->commit();
      err << fmt::format("fdbench: wrote {} ({} call{})\n", printable(command.trace_out), rows,
                         rows == 1 ? "" : "s");
    } catch (const Error& e) {
      failed(e.what());
    }
  }
  for (std::size_t i = 0; i < exports.size(); ++i) {
    if (exports[i]->written()) {
      err << fmt::format("fdbench: wrote {} ({})\n", printable(command.exports[i].path),
                         results_text(results));
    } else if (!exports[i]->error().empty()) {
      failed(exports[i]->error());
    }
  }
  if (!command.output.empty()) {
    try {
      write_file_atomically(command.output, buffered, flag(Opt::output));
      err << fmt::format("fdbench: wrote {} ({})\n", printable(command.output),
                         results_text(results));
    } catch (const Error& e) {
      failed(e.what());
    }
  }
  return code;
}

// What shows a run as it goes, each only on a terminal: the progress line on stderr, and the
// live table on stdout while the table is printed there; the table falls back on the line.
struct ProgressDisplays {
  std::optional<ProgressLine> line;
  std::optional<LiveTable> table;
  [[nodiscard]] Progress* shown() {
    if (table) return &*table;
    return line ? &*line : nullptr;
  }
};

void show_progress(const OutputSettings& command, std::ostream& out, std::ostream& err,
                   ProgressDisplays& displays) {
  if (const auto columns = platform::terminal_columns(2)) {
    displays.line.emplace(err, *columns, platform::now_ns);
  }
  const auto columns = platform::terminal_columns(1);
  const auto rows = platform::terminal_rows(1);
  if (columns && rows && command.format == "table" && command.output.empty()) {
    displays.table.emplace(out, *columns, *rows, platform::now_ns,
                           displays.line ? &*displays.line : nullptr,
                           []() -> std::optional<std::pair<int, int>> {
                             const auto c = platform::terminal_columns(1);
                             const auto r = platform::terminal_rows(1);
                             if (!c || !r) return std::nullopt;
                             return std::pair{*c, *r};
                           });
  }
}

// The table on a terminal narrower than its 100 columns: sentences wrapped to the terminal,
// rows cut to it (a terminal that wraps a row itself splits its numbers across two lines).
ReportOptions table_options(const OutputSettings& command) {
  ReportOptions options{.details = command.details};
  const auto columns = platform::terminal_columns(1);
  if (command.format == "table" && command.output.empty() && columns) {
    // One column spare: a line that fills the last column wraps on some terminals.
    options.columns =
        std::min(options.columns, static_cast<std::size_t>(std::max(*columns, 21) - 1));
    options.cut_rows = true;
    options.terminal_columns = [] {
      return static_cast<std::size_t>(platform::terminal_columns(1).value_or(0));
    };
  }
  return options;
}

int measure(const Measuring& measuring, const std::vector<std::string>& command_line,
            std::ostream& out, std::ostream& err) {
  const OutputSettings& command = measuring.outputs;
  if (const int refused = check_history_before_measuring(command, err); refused != 0) {
    return refused;
  }
  say_unavailable(measuring, err);
  std::ostringstream buffer;
  std::ostream& sink = command.output.empty() ? out : buffer;
  std::ostringstream saved;  // --save: the run's JSON document, for the history
  std::vector<std::unique_ptr<Reporter>> reporters;
  reporters.push_back(make_reporter(command.format, sink, table_options(command)));
  FDBENCH_ASSERT(reporters.back() != nullptr);
  if (command.save_history) reporters.push_back(make_reporter("json", saved));
  std::vector<const FileExport*> exports;
  for (const auto& e : command.exports) {
    reporters.push_back(std::make_unique<FileExport>(e.format, e.path, e.flag));
    exports.push_back(static_cast<const FileExport*>(reporters.back().get()));
  }
  const bool tune = measuring.tune != nullptr;
  const std::string& asked_dir = tune                        ? measuring.tune->tune.open.dir
                                 : measuring.open != nullptr ? measuring.open->dir
                                                             : std::string();
  const std::string dir = asked_dir.empty() ? platform::default_dir() : asked_dir;
  Environment environment = capture_environment(dir);
  if (!command.mode_note.empty()) environment.warnings.push_back(command.mode_note);
  Session session(std::move(environment), std::move(reporters), capture_context(command_line));
  ProgressDisplays displays;
  // tune says its turns in lines of their own (run_tune).
  if (!command.quiet && !tune) show_progress(command, out, err, displays);
  Progress* const shown = displays.shown();
  session.set_progress(shown);
  const auto events = TestEvents::from_environment(shown);
  if (events) session.set_progress(events.get());
  session.set_say([&err, shown](const std::string& line) {
    if (shown != nullptr) shown->clear();
    err << "fdbench: " << line << "\n" << std::flush;
  });
  std::optional<TraceOut> trace_out;
  if (!command.trace_out.empty()) {
    try {
      trace_out.emplace(command.trace_out);
    } catch (const Error& e) {
      err << "Error: " << printable(e.what()) << "\n";
      return 1;
    }
    session.set_trace_out(&*trace_out);
  }
  const int code =
      tune ? run_tune_session(*measuring.tune, session, err) : run_session(measuring, session, err);
  return save_in_history(command,  saved.str(),
                         finish_outputs(command, session.results().size(),
                                        trace_out ? &*trace_out : nullptr, exports, buffer.str(),
                                        err, code),
                         err);
}

// The context a run started now would record, as "context.date", "context.load_before..."
// rows: who, where, when and how loaded, without a command line (there is no run).
void add_context_fields(const nlohmann::json& context, std::map<std::string, std::string>& fields) {
  for (const auto& [name, value] : context.items()) {
    if (name == "command_line") continue;
    const std::string row = name == "load_before" ? "context.load" : "context." + name;
    if (value.is_object()) {
      for (const auto& [part, v] : value.items()) fields.emplace(row + "." + part, v.dump());
    } else {
      fields.emplace(row, value.is_string() ? value.get<std::string>() : value.dump());
    }
  }
  if (!context.at("load_before").contains("cpu_pressure")) {
    fields.emplace("context.load.cpu_pressure", "(not known here)");
  }
}

// The environment capture every results file carries, as its JSON or as a table of fields
// read back from that JSON, so the table lists every field the JSON has; the table adds the
// context a run would record now (date, host, user, load and CPU pressure).
int print_environment(const std::string& dir, const std::string& format, std::ostream& out) {
  const RunContext context = capture_context({});
  const std::string document = to_json_document(capture_environment(dir), {}, {}, &context);
  if (format == "json") {
    out << nlohmann::json::parse(document).at("environment").dump(2) << "\n";
    return 0;
  }
  auto fields = parse_results_json(document).environment_fields;
  add_context_fields(nlohmann::json::parse(document).at("context"), fields);
  // A field the JSON holds as null (or an empty group, such as cpu_mitigations where the
  // kernel does not list them) was not measurable here: the table says so, not nothing.
  const auto environment = nlohmann::json::parse(document).at("environment");
  for (auto it = environment.begin(); it != environment.end(); ++it) {
    if (it->is_null() || (it->is_object() && it->empty())) {
      fields.emplace(it.key(), "(not known here)");
    }
  }
  // What makes results less trustworthy here, one line each after the table.
  const auto warnings = environment.value("warnings", nlohmann::json::array());
  fields.erase("warnings");
  std::size_t width = 0;
  for (const auto& [name, value] : fields) width = std::max(width, name.size());
  for (const auto& [name, value] : fields) {
    out << fmt::format("{:<{}}  {}\n", name, width, environment_value_text(name, value));
  }
  for (const auto& w : warnings) {
    if (w.is_string()) out << "warning: " << printable(w.get<std::string>()) << "\n";
  }
  return 0;
}

// Unreadable, malformed or truncated input is a usage error: one line, exit 2.
int compare_files(const CompareCommand& command, std::ostream& out, std::ostream& err) {
  std::vector<ResultsDocument> documents;
  try {
    for (const auto& path : command.files) documents.push_back(read_results_file(path, "compare"));
  } catch (const Error& e) {
    err << "Error: " << printable(e.what()) << "\n";
    return 2;
  } catch (const Interrupted& e) {  // waiting on a pipe that gave nothing
    err << fmt::format("fdbench: interrupted by signal {}\n", e.signal());
    return 128 + e.signal();
  }
  CompareReport report;
  if (documents.size() >= 2) report.comparison = compare(documents, command.files);
  if (command.references) {
    const auto references = shipped_references();
    for (std::size_t i = 0; i < documents.size(); ++i) {
      report.references.push_back({command.files[i], stand_against(documents[i], references)});
    }
  }
  write_compare_report(out, report, command.format);
  return 0;
}

// One page for every file named; unreadable input is one line and exit 2, like compare.
int write_report(const ReportCommand& command, std::ostream& out, std::ostream& err) {
  std::vector<ReportInput> inputs;
  try {
    for (const auto& path : command.files) {
      inputs.push_back({path, read_results_file(path, "report")});
    }
  } catch (const Error& e) {
    err << "Error: " << printable(e.what()) << "\n";
    return 2;
  } catch (const Interrupted& e) {  // waiting on a pipe that gave nothing
    err << fmt::format("fdbench: interrupted by signal {}\n", e.signal());
    return 128 + e.signal();
  }
  const std::string page = html_report(inputs);
  if (command.output.empty()) {
    out << page;
    return 0;
  }
  try {
    write_file_atomically(command.output, page, flag(Opt::output));
  } catch (const Error& e) {
    err << "Error: " << printable(e.what()) << "\n";
    return 1;
  }
  err << fmt::format("fdbench: wrote {} ({} run{})\n", printable(command.output), inputs.size(),
                     inputs.size() == 1 ? "" : "s");
  return 0;
}

}  // namespace

namespace {

// The --tree or --list a command opens (open, tune), or none.
const OpenOptions* inputs_of(const Command& command) {
  if (const auto* open = std::get_if<OpenCommand>(&command.what)) return &open->open;
  if (const auto* tune = std::get_if<TuneCommand>(&command.what)) return &tune->tune.open;
  return nullptr;
}

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

// The command's own function, by its kind.
int dispatch(const Command& command, std::ostream& out, std::ostream& err) {
  const auto& line = command.command_line;
  return std::visit(
      Overloaded{
          [&](const SuiteCommand& c) {
            return measure({&c.open, &c.socket, nullptr, c.outputs, &c.accept}, line, out, err);
          },
          [&](const OpenCommand& c) {
            return measure({&c.open, nullptr, nullptr, c.outputs}, line, out, err);
          },
          [&](const SocketCommand& c) {
            return measure({nullptr, &c.socket, nullptr, c.outputs}, line, out, err);
          },
          [&](const AcceptCommand& c) {
            return measure({nullptr, nullptr, nullptr, c.outputs, &c.accept}, line, out, err);
          },
          [&](const TuneCommand& c) {
            return measure({nullptr, nullptr, &c, c.outputs}, line, out, err);
          },
          [&](const StrategiesCommand&) { return list_strategies(out); },
          [&](const CleanCommand& c) { return clean(c, out, err); },
          [&](const EnvCommand& c) { return print_environment(c.dir, c.format, out); },
          [&](const CompareCommand& c) {
            return c.baseline.empty() ? compare_files(c, out, err)
                                      : compare_with_baseline(c, out, err);
          },
          [&](const HistoryCommand& c) { return run_history(c, out, err); },
          [&](const TraceCommand& c) { return run_trace(c, out, err); },
          [&](const ReportCommand& c) { return write_report(c, out, err); },
          [&](const CompletionCommand& c) {
            out << c.text;
            return 0;
          },
          [&](const PregrowCommand& c) { return launch_pregrown(c, err); },
          [&](const ServerCommand& c) { return run_server(c, line, out, err); },
      },
      command.what);
}

}  // namespace

int look_at_inputs(const Command& command, std::ostream& err) {
  const OpenOptions* inputs = inputs_of(command);
  if (inputs == nullptr) return 0;
  const bool is_tune = std::holds_alternative<TuneCommand>(command.what);
  try {
    check_input_paths(*inputs);
    return 0;
  } catch (const UsageError& e) {
    err << "Error: "
        << (is_tune ? "fdbench tune: " : "fdbench open: ") << printable(e.what()) << "\n";
    return 2;
  } catch (const TimedOut& e) {
    err << fmt::format("fdbench: timed out: {} ({} SECONDS sets the limit)\n",
                       printable(e.what()), flag(Opt::timeout));
    return 1;
  } catch (const Interrupted& e) {
    err << fmt::format("fdbench: interrupted by signal {}\n", e.signal());
    return 128 + e.signal();
  } catch (const Error& e) {
    err << "Error: " << printable(e.what()) << "\n";
    return 1;
  }
}

int run(const Command& command, std::ostream& out, std::ostream& err) {
  // A run killed together with its rcu_expedited watcher left the setting changed: put back
  // at the next start, whatever the command.
  if (const std::string put_back = platform::put_back_rcu_expedited_left_changed();
      !put_back.empty()) {
    err << "fdbench: " << put_back << "\n";
  }
  if (const int refused = look_at_inputs(command, err); refused != 0) return refused;
  int code = dispatch(command, out, err);
  // A private file set that could not be removed was said in a line; the exit code says so.
  if (FileSet::left_unremoved() && code == 0) code = 1;
  out.flush();
  if (!out) {
    const std::string cause = platform::write_failure_cause(1, errno);  // errno: the flush's
    err << "Error: cannot write to standard output" << (cause.empty() ? "" : ": " + cause) << "\n";
    code = code == 0 ? 1 : code;
  }
  // A signal that came once the work was done, while the outputs were written (each was
  // finished first, or given up at a second signal): the exit code still says so.
  if (const int sig = interrupted(); sig != 0 && code < 128) {
    err << fmt::format(
        "fdbench: interrupted by signal {} as the run ended; its outputs were "
        "finished first\n",
        sig);
    code = 128 + sig;
  }
  return code;
}

}  // namespace fdbench::app
