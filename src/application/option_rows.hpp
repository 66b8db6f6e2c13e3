#pragma once
// Every setting of the command line, one row each: its names, its value, which commands take
// it, its help, what a completion offers, and where its default comes from. The parser, --help,
// the bash completion and (through --help) the man page's test are all made from these rows,
// and a message that names a flag takes the name from its row (flag()).
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <vector>


namespace fdbench::app {

// What may follow an option that takes a value.
struct ValueHint {
  std::vector<std::string> words;  // the choices, if the value is one of a fixed set
  bool comma_list = false;         // a comma list of them: complete the item after the last ','
  enum class Paths { none, directories, files } paths = Paths::none;
};


// The commands, as the rows name them (suite: fdbench with no subcommand).
enum class Cmd : unsigned {
  suite,
  open,
  socket,
  accept,
  tune,
  strategies,
  clean,
  env,
  compare,
  report,
  completion,
  history,
  pregrow,
  server,
  trace
};

// A set of commands.
struct Cmds {
  unsigned bits = 0;
  Cmds() = default;
  Cmds(std::initializer_list<Cmd> commands) {
    for (const Cmd c : commands) bits |= 1U << static_cast<unsigned>(c);
  }
  [[nodiscard]] bool has(Cmd c) const { return (bits & (1U << static_cast<unsigned>(c))) != 0; }
};

// Every setting, one enumerator each: a row's identity, so that code names a setting by it and
// never by its text.
enum class Opt {
  files,
  threads,
  strategy,
  batch,
  dir,
  layout,
  keep_files,
  reuse_files,
  tree,
  cross_mounts,
  allow_pseudo_fs,
  list,
  list0,
  flags,
  paths,
  keep_open,
  pregrow,
  uring_tuning,
  uring_close,
  per_thread,
  connections,
  kind,
  workload,
  allow_process,
  allow_direct,
  budget,
  quick,  // the suite's --quick: both seeds' questions in about 10 s
  repeat,
  precision,
  max_time,
  warmup,
  save,
  format,
  output,
  latency,
  no_latency,
  kernel_trace,
  trace_out,
  rcu_expedited,
  order,
  harness,
  timeout,
  quiet,
  details,
  export_json,
  export_csv,
  export_markdown,
  export_html,
  results,     // compare, report: the results files (a positional)
  sets,        // clean: kept sets to remove (a positional)
  references,  // compare --references
  history_file,    // --history FILE: the run history's file
  baseline,        // compare --baseline last|ID|FILE
  fail_if_slower,  // compare --fail-if-slower PCT: the CI gate
  require_baseline,  // compare --require-baseline: no baseline yet is a failure
  action,          // history: what to do (a positional)
  arguments,       // history: the runs or files it is done to (a positional)
  pid,         // trace --pid: a running process
  duration,    // trace --duration: seconds of tracing
  no_follow,   // trace --no-follow: not its child processes
  shell,       // completion: the shell (a positional)
  slots,       // pregrow: the table size to grow to (a positional)
  program,     // pregrow, server, trace: the program and its arguments, after -- (a positional)
  port,        // server --port
  probe,       // server --probe
  arrival,     // server --arrival
};

// How a row's value is held while argv is parsed.
enum class Bind { text, flag, list };

struct OptionRow {
  Opt id;
  std::string names{};  // "--files"; "-o,--output"; a positional's name ("files")
  std::string value{};  // what --help calls its value ("N", "LIST", "FILE"); "" for a flag
  Cmds commands{};      // which commands take it
  std::string help{};
  ValueHint hint{};  // what a completion offers after it
  // The text its flag would be given for the default, made from the options structs
  // (OpenOptions, SocketOptions, TuneOptions, Command), where one default lives; nullptr: ""
  // (the option not given).
  std::string (*default_text)(Cmd) = nullptr;
  Cmds show_default{};  // the commands whose --help shows that default
  Bind bind = Bind::text;
  bool required = false;
  // Where a command says it otherwise.
  std::map<Cmd, std::string> help_for{};
  std::map<Cmd, ValueHint> hint_for{};
  std::map<Cmd, std::string> names_for{};
  std::map<Cmd, std::string> value_for{};
  std::map<Cmd, Bind> bind_for{};

  [[nodiscard]] const std::string& help_in(Cmd c) const;
  [[nodiscard]] const ValueHint& hint_in(Cmd c) const;
  [[nodiscard]] const std::string& names_in(Cmd c) const;
  [[nodiscard]] const std::string& value_in(Cmd c) const;
  [[nodiscard]] Bind bind_in(Cmd c) const;
};

// The rows, in the order --help lists them.
const std::vector<OptionRow>& option_rows();
const OptionRow& row_of(Opt id);
// The option's long name as the user types it: "--files" (a positional: its name).
std::string flag(Opt id);

// What argv said for one command, by row; every row of the command holds its default text
// until parsing binds it.
struct OptionValues {
  std::map<Opt, std::string> text;
  std::map<Opt, bool> set;  // flags
  std::map<Opt, std::vector<std::string>> list;
  std::set<Opt> named;  // the rows the command line named

  // A row the command does not take reads as not given: "" and off.
  [[nodiscard]] const std::string& operator[](Opt id) const;
  [[nodiscard]] bool on(Opt id) const;
  [[nodiscard]] bool given(Opt id) const { return named.count(id) > 0; }
};

// Every row `command` takes, holding its default.
OptionValues defaults_of(Cmd command);

// --export-FORMAT FILE, one row per format: the row and the reporter's name.
struct ExportRow {
  Opt id;
  const char* format;
};
const std::vector<ExportRow>& export_rows();

// The output formats a command writes.
std::vector<std::string> formats_of(Cmd command);

}  // namespace fdbench::app
