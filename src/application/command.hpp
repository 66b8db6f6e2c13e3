#pragma once
// The application's API: a command, as the command line made it, run with its reporters, its
// output files and exports. apps/ turns argv into a Command and calls run(); everything a
// command does besides reading argv is here.
#include <iosfwd>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/server_burst.hpp"
#include "run/options.hpp"
#include "run/tune_sweep.hpp"

namespace fdbench::app {

// --export-FORMAT FILE: that format's output kept in FILE, rewritten after every result.
struct Export {
  std::string flag;    // its option's name, as its row spells it
  std::string format;  // a reporter name: "json"
  std::string path;
};

// Where a measuring command writes: --format, --output, --export-*, --trace-out, --quiet, --save,
// --history, --details.
struct OutputSettings {
  std::string format = "table";
  std::string output;  // empty: stdout
  std::vector<Export> exports;
  std::string trace_out;  // --trace-out FILE: every timed call as CSV
  bool quiet = false;     // no progress on stderr
  // --save (or FDBENCH_HISTORY=1): the run's JSON document recorded in the history, at
  // `history`, once it has measured everything.
  bool save_history = false;
  std::string history;   // the history's file, as --history names it or by default
  bool details = false;  // --details: the table's small print under every row
  // A line the run's environment warnings carry, above the tables (--quick: measured less).
  std::string mode_note;
};

// Each command with only its own fields.
struct SuiteCommand {  // no subcommand: open's, socket's and accept's sweeps in turn
  OpenOptions open;
  SocketOptions socket;
  AcceptOptions accept;
  OutputSettings outputs;
  // --budget: with --repeat auto, the seconds its sweeps' repetitions may take, shared by the
  // results still racing (open's and socket's shares in proportion to their results), so that
  // the first answer comes in under a minute; --max-time still bounds each result.
  double budget_s = 40;
};
struct OpenCommand {
  OpenOptions open;
  OutputSettings outputs;
};
struct SocketCommand {
  SocketOptions socket;
  OutputSettings outputs;
};
struct AcceptCommand {
  AcceptOptions accept;
  OutputSettings outputs;
};
struct TuneCommand {
  TuneOptions tune;
  OutputSettings outputs;
  std::string save;  // --save FILE: the recommendation's JSON
};
struct StrategiesCommand {};
struct CleanCommand {
  std::string dir;                // where to look for leftovers ("": not at all)
  std::vector<std::string> sets;  // kept sets to remove
};
struct EnvCommand {
  std::string dir;  // where files would be created (fs_type)
  std::string format = "table";
};
struct CompareCommand {
  std::vector<std::string> files;  // results files, the first the baseline
  bool references = false;         // also against the published figures
  std::string format = "table";
  // --baseline: "last", a run's id in the history, or a results file; "" without it. Then
  // `files` holds the one compared (none: the history's latest run).
  std::string baseline;
  std::string history;                   // the history's file
  std::optional<double> fail_if_slower;  // --fail-if-slower PERCENT: the gate, in percent
  bool require_baseline = false;         // --require-baseline: no baseline yet exits 1
};
struct ReportCommand {
  std::vector<std::string> files;  // results files
  std::string output;              // empty: stdout
};
// fdbench history ACTION ...: the runs saved with --save.
enum class HistoryAction { list, show, import, export_run, remove, trend };
struct HistoryCommand {
  HistoryAction action = HistoryAction::list;
  std::vector<std::string> arguments;   // ids (show, export, rm) or files (import)
  std::string history;                  // the history's file
  std::string output;                   // export: the file written
  std::string format = "table";         // show: how the run is printed
  std::vector<std::string> strategies;  // trend: only these (empty: every one)
  std::vector<int> threads;             // trend: only these thread counts (empty: every one)
};
// fdbench server [OPTIONS] -- CMD...: an unmodified server's first burst, from its starting
// table and pre-grown (through the launcher's grow-then-exec).
struct ServerCommand {
  std::vector<std::string> program;  // CMD and its arguments, "{port}" where the port goes
  int port = 0;                      // --port; 0: one the kernel picks, each repetition
  int connections = 1000;
  std::vector<Pregrow> pregrow{Pregrow{}, Pregrow{Pregrow::Mode::automatic}};
  int repeat = 5;
  ServerArrival arrival = ServerArrival::queued;
  ServerProbe probe = ServerProbe::memcached;
  std::string line;       // --probe line:TEXT
  double timeout_s = 10;  // --timeout: to answer at start, and to drain the burst
  std::string format = "table";
  bool kernel_trace = false;  // --kernel-trace: the server's threads off their CPUs, by cause
  bool details = false;       // --details: the table's small print under each row
};

// fdbench pregrow N -- CMD...: grow the table, then become CMD (the launcher).
struct PregrowCommand {
  int slots = 0;                     // the table holds at least this many once grown
  std::vector<std::string> program;  // CMD and its arguments
};
// fdbench trace [-- CMD ARGS... | --pid PID]: a program's descriptor-creating calls.
struct TraceCommand {
  std::vector<std::string> program;  // the command and its arguments; empty with --pid
  int pid = 0;                       // --pid: a running process
  double duration_s = 0;             // --duration: seconds of tracing; 0: until it ends
  bool follow = true;                // its child processes too (--no-follow: not)
  std::string format = "table";      // table or json
  std::string output;  // --output: the report's file; "": stderr (a command's) or stdout (--pid)
};
struct CompletionCommand {
  std::string text;  // the script to print
};

using CommandKind =
    std::variant<SuiteCommand, OpenCommand, SocketCommand, AcceptCommand, TuneCommand,
                 StrategiesCommand, CleanCommand, EnvCommand, CompareCommand, ReportCommand,
                 CompletionCommand, HistoryCommand, PregrowCommand, ServerCommand, TraceCommand>;

struct Command {
  CommandKind what;
  std::vector<std::string> command_line;  // argv as given: the results' context records it
};

// Looks at the user's --tree directory or --list file (open, tune) as the run will look at
// their files: in a child process under --timeout's limit, since on a dead mount stat() and
// open() wait where no signal reaches them. 0 when they will do; else one line on `err` and
// the exit code: 2 for what the command line got wrong (missing, of the wrong kind, a list
// separated otherwise than said), 1 when the look timed out or failed, 128+N on a signal.
// Not part of parsing, which touches no file of the user's. run() calls it first.
int look_at_inputs(const Command& command, std::ostream& err);

// Runs a command; returns the process exit code (0, 1 runtime error, 2 unreadable input of
// compare or report, or a --list read as the wrong kind, 128+signal).
int run(const Command& command, std::ostream& out, std::ostream& err);

}  // namespace fdbench::app
