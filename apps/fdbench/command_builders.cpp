// OptionValues -> each command's struct: the text CLI11 bound to each row turned into
// validated options, every message naming its flag (by its row).
#include "command_builders.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>

#include "application/checks.hpp"
#include "application/history_commands.hpp"
#include "application/option_rows.hpp"
#include "common/errors.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "history/history.hpp"
#include "inputs/file_set.hpp"
#include "model/format.hpp"
#include "platform/platform.hpp"
#include "run/planner.hpp"
#include "run/runnable.hpp"

namespace fdbench::cli {

using namespace app;  // NOLINT: the application layer these builders fill in

namespace {

// Every --export-FORMAT given, each to a file of its own (check_outputs_apart() has seen that
// no two outputs are one file).
std::vector<Export> apply_exports(const OptionValues& values) {
  std::vector<Export> exports;
  for (const auto& [id, format] : export_rows()) {
    const std::string& path = values[id];
    if (path.empty()) continue;
    check_output(flag(id), path);
    exports.push_back({flag(id), format, path});
  }
  return exports;
}

// The first seed's published harness opens the names it made itself (1.txt .. N.txt, flat,
// relative, read-only, closed at once): what cannot be done that way is refused up front.
void check_published_open(const OpenOptions& open) {
  if (std::find(open.harness.begin(), open.harness.end(), Harness::published) ==
      open.harness.end()) {
    return;
  }
  const auto refuse = [](std::string_view what) {
    throw UsageError(
        fmt::format("--harness published opens the first seed's files as its "
                    "program does; {}, or use --harness minimal",
                    what));
  };
  if (!open.tree.empty() || !open.list.empty()) {
    refuse("it needs a set fdbench makes (1.txt .. N.txt): drop --tree or --list");
  }
  if (open.subdirs.value_or(0) != 0) refuse("its set is flat: drop --layout");
  if (open.keep_open) refuse("it closes each file at once: drop --keep-open");
  if (open.paths != PathMode::relative) refuse("it names them relative, tmp/N.txt: drop --paths");
  if (open.flags != OpenFlags::rdonly) refuse("std::ifstream opens them read-only: drop --flags");
}

// --latency or --no-latency, or `otherwise` when neither is given; --trace-out needs it.
bool latency_of(const OptionValues& values, bool otherwise) {
  const bool latency = values.on(Opt::latency);
  const bool no_latency = values.on(Opt::no_latency);
  if (latency && no_latency) {
    throw UsageError("--latency and --no-latency: give one of them");
  }
  if (!values[Opt::trace_out].empty() && no_latency) {
    throw UsageError("--trace-out writes the calls --latency times: drop --no-latency");
  }
  return latency || !values[Opt::trace_out].empty() || (otherwise && !no_latency);
}

// --history FILE, or where the history lives by default; "" where nothing says.
std::string history_path(const OptionValues& values) {
  const std::string& given = values[Opt::history_file];
  if (!given.empty()) return given;
  return history::default_history_path();
}

// --save (tune: FDBENCH_HISTORY=1 only), and the history it saves into.
void apply_history(const OptionValues& values, OutputSettings& command) {
  command.save_history = saves_by_variable() || values.on(Opt::save);
  command.history = history_path(values);
  if (command.save_history && command.history.empty()) {
    throw UsageError(fmt::format("{}: neither XDG_DATA_HOME nor HOME is set: name the file with {}",
                                 flag(Opt::save), flag(Opt::history_file)));
  }
}

// --output, --export-*, --trace-out and --quiet: where a measuring command writes.
void apply_outputs(const OptionValues& values, OutputSettings& command) {
  command.output = values[Opt::output];
  check_output(flag(Opt::output), command.output);
  command.exports = apply_exports(values);
  const std::string& trace_out = values[Opt::trace_out];
  check_output(flag(Opt::trace_out), trace_out);
  command.trace_out = trace_out;
  command.quiet = values.on(Opt::quiet);
  apply_history(values, command);
  command.details = values.on(Opt::details);
}

// The settings every measuring command shares, applied once to each of its sweeps (the suite
// has two). --timeout is the caller's: its default depends on the input.
void apply_common(const OptionValues& values, OutputSettings& command,
                  std::initializer_list<SweepOptions*> sweeps) {
  const Repeat repeat = parse_repeat(values);
  const int warmup =
      static_cast<int>(parse_number(flag(Opt::warmup), values[Opt::warmup], 0, 100000));
  command.format = parse_format(values, Cmd::open);
  apply_outputs(values, command);
  const auto rcu = parse_rcu_expedited(values[Opt::rcu_expedited]);
  Order order{};
  if (!parse_order(values[Opt::order], order)) {
    throw BadValue(fmt::format("{}: unknown value '{}' (choose from interleaved, sequential)",
                               flag(Opt::order), values[Opt::order]));
  }
  const auto harness = parse_harness_list(values[Opt::harness]);
  for (SweepOptions* sweep : sweeps) {
    sweep->repeat = repeat;
    sweep->warmup = warmup;
    sweep->rcu_expedited = rcu;
    sweep->order = order;
    sweep->harness = harness;
    sweep->kernel_trace = values.on(Opt::kernel_trace);
  }
}

// The user's files instead of a generated set: --tree or --list.
void apply_open_input(const OptionValues& values, OpenOptions& open) {
  const std::string& tree = values[Opt::tree];
  const std::string& list = values[Opt::list];
  if (!tree.empty() && !list.empty()) throw UsageError("--tree and --list: choose one input");
  if (values.on(Opt::list0) && list.empty()) throw UsageError("--list0 needs --list FILE");
  if (values.on(Opt::cross_mounts) && tree.empty()) {
    throw UsageError(fmt::format("{} needs --tree DIR", flag(Opt::cross_mounts)));
  }
  if (values.on(Opt::allow_pseudo_fs) && tree.empty() && list.empty()) {
    throw UsageError(fmt::format("{} needs --tree DIR or --list FILE", flag(Opt::allow_pseudo_fs)));
  }
  open.tree = tree;
  open.cross_mounts = values.on(Opt::cross_mounts);
  open.allow_pseudo_fs = values.on(Opt::allow_pseudo_fs);
  open.list = list;
  open.list0 = values.on(Opt::list0);
  const bool existing = !open.tree.empty() || !open.list.empty();
  if (existing && open.flags == OpenFlags::rdwr) {
    throw UsageError(
        "--flags rdwr works only on fdbench's own files: --tree and --list "
        "inputs are never opened for writing");
  }
  if (existing && open.paths == PathMode::absolute && !platform::has_open_resolved()) {
    throw UsageError(fmt::format(
        "{} absolute with {}: your files are opened by full path only with openat2() (Linux "
        "5.6), which follows no link a race may put on the path, and this system has none: drop "
        "{}",
        flag(Opt::paths), flag(open.tree.empty() ? Opt::list : Opt::tree), flag(Opt::paths)));
  }
  const std::string& dir = values[Opt::dir];
  open.dir = dir;  // empty: $TMPDIR or /tmp, named TMPDIR in messages (never passed --dir)
  const bool kept = !values[Opt::keep_files].empty() || !values[Opt::reuse_files].empty();
  if (!existing && !kept) check_directory(dir_flag(dir), dir_or_default(dir), true);
}

// --files and --layout shape the set fdbench makes; with --tree or --list there is none, and
// a run that left them unused would look like one that used them.
void reject_set_options(const OptionValues& values) {
  if (values[Opt::tree].empty() && values[Opt::list].empty()) return;
  const std::string input = flag(values[Opt::tree].empty() ? Opt::list : Opt::tree);
  for (const Opt id : {Opt::files, Opt::layout}) {
    if (values.given(id)) {
      throw UsageError(fmt::format(
          "{} and {}: {} is for the set of files fdbench makes, {} opens files that exist; "
          "drop {}",
          input, flag(id), flag(id), input, flag(id)));
    }
  }
}

// --keep-files DIR or --reuse-files DIR: the generated set at a directory of its own that
// outlives the run, instead of a private one under --dir. What the set holds is checked when
// the run starts (exit 1); here only what the command line says (exit 2). With --reuse-files,
// where --files or --layout was not named, the set's marker supplies it.
void apply_kept_set(const OptionValues& values, OpenOptions& open) {
  const std::string& keep_files = values[Opt::keep_files];
  const std::string& reuse_files = values[Opt::reuse_files];
  if (keep_files.empty() && reuse_files.empty()) return;
  if (!keep_files.empty() && !reuse_files.empty()) {
    throw UsageError("--keep-files and --reuse-files: give one (keep makes a set, reuse uses one)");
  }
  const bool keep = !keep_files.empty();
  const std::string name = flag(keep ? Opt::keep_files : Opt::reuse_files);
  if (!values[Opt::tree].empty() || !values[Opt::list].empty()) {
    const std::string input = flag(values[Opt::tree].empty() ? Opt::list : Opt::tree);
    throw UsageError(fmt::format("{} and {}: {} is for fdbench's own files, {} opens yours", name,
                                 input, name, input));
  }
  if (!values[Opt::dir].empty()) {
    throw UsageError(fmt::format("{} and {}: {} DIR is the set's own directory; leave out {}", name,
                                 flag(Opt::dir), name, flag(Opt::dir)));
  }
  if (keep) {
    open.keep_files = keep_files;
    open.dir = parent_of(keep_files);  // the filesystem the environment describes
    check_directory(fmt::format("{} {}: its parent", name, keep_files), open.dir, true);
    return;
  }
  check_reused_set(name, reuse_files);
  open.reuse_files = reuse_files;
  open.dir = reuse_files;
  if (!values.given(Opt::files)) open.files.reset();     // the set's marker says
  if (!values.given(Opt::layout)) open.subdirs.reset();  // the set's marker says
}

void apply_open(const OptionValues& values, OpenOptions& open) {
  open.files =
      static_cast<std::size_t>(parse_number(flag(Opt::files), values[Opt::files], 1, kMaxFiles));
  open.threads = parse_threads(values[Opt::threads]);
  open.strategies = parse_strategies(values[Opt::strategy]);
  open.batch = static_cast<int>(parse_number(flag(Opt::batch), values[Opt::batch], 1, kMaxFiles));
  open.subdirs = parse_layout(values[Opt::layout]);
  // More directories than files is work out of proportion (issue 49 item 9: dirs:100000 for 10
  // files made 100,000 directories, 42 s, to hold 10 files): refused, saying the most.
  if (*open.subdirs > *open.files) {
    throw UsageError(fmt::format(
        "{} {} with {} {}: more directories than files, most of them empty; give at most dirs:{}",
        flag(Opt::layout), values[Opt::layout], flag(Opt::files), values[Opt::files],
        *open.files));
  }
  apply_choice(Opt::flags, values[Opt::flags], parse_open_flags, open_flags_names(), "value",
               open.flags);
  apply_choice(Opt::paths, values[Opt::paths], parse_path_mode, path_mode_names(), "value",
               open.paths);
  open.keep_open = values.on(Opt::keep_open);
  apply_uring_tuning(values[Opt::uring_tuning], open.uring);
  apply_choice(Opt::uring_close, values[Opt::uring_close], parse_uring_close, uring_close_names(),
               "value", open.uring.close);
  open.pregrow = parse_pregrow_list(values[Opt::pregrow]);
  if (!open.keep_open && (open.pregrow.size() != 1 || open.pregrow[0].mode != Pregrow::Mode::off)) {
    throw UsageError(
        "--pregrow needs --keep-open: open+close never holds more than a few "
        "descriptors, so the table does not grow");
  }
  apply_open_input(values, open);
}

void apply_socket(const OptionValues& values, SocketOptions& socket) {
  socket.strategies = parse_strategies(values[Opt::strategy], WorkloadKind::create);
  socket.batch =
      static_cast<int>(parse_number(flag(Opt::batch), values[Opt::batch], 1, kMaxPerThread));
  socket.threads = parse_threads(values[Opt::threads]);
  socket.per_thread = static_cast<std::size_t>(
      parse_number(flag(Opt::per_thread), values[Opt::per_thread], 1, kMaxPerThread));
  apply_choice(Opt::kind, values[Opt::kind], parse_socket_kind, socket_kind_names(), "kind",
               socket.kind);
  socket.pregrow = parse_pregrow_list(values[Opt::pregrow]);
  apply_uring_tuning(values[Opt::uring_tuning], socket.uring);
}

// A command none of whose strategy x harness pairs can run here is refused before anything is
// made or started; where only some cannot, the run names them as it starts (measure()).
void refuse_unrunnable(const Runnability& runnability) {
  if (runnability.nothing_runs()) throw UsageError(nothing_runs_text(runnability));
}

}  // namespace

OpenCommand open_command(const OptionValues& values) {
  OpenCommand command;
  reject_set_options(values);
  apply_open(values, command.open);
  apply_kept_set(values, command.open);
  apply_common(values, command.outputs, {&command.open});
  command.open.timeout_s =
      parse_timeout(values[Opt::timeout], !command.open.tree.empty() || !command.open.list.empty());
  check_published_open(command.open);
  refuse_unrunnable(runnability(command.open));
  command.open.latency = latency_of(values, command.open.keep_open);
  return command;
}

SocketCommand socket_command(const OptionValues& values) {
  SocketCommand command;
  apply_socket(values, command.socket);
  apply_common(values, command.outputs, {&command.socket});
  command.socket.timeout_s = parse_timeout(values[Opt::timeout], false);
  refuse_unrunnable(runnability(command.socket));
  command.socket.latency = latency_of(values, true);
  return command;
}

// The suite's --budget, shared by its sweeps in proportion to the results each plans (each
// --rcu-expedited value measures a sweep's plan once more, to a share of its own).
void share_budget(SuiteCommand& command, double budget_s) {
  const auto open_results = static_cast<double>(open_combinations(command.open).size());
  const auto socket_results = static_cast<double>(socket_combinations(command.socket).size());
  const auto accept_results = static_cast<double>(accept_combinations(command.accept).size());
  const auto blocks = static_cast<double>(std::max<std::size_t>(
      1, std::max({command.open.rcu_expedited.size(), command.socket.rcu_expedited.size(),
                   command.accept.rcu_expedited.size()})));
  const double each =
      budget_s / std::max(1.0, open_results + socket_results + accept_results) / blocks;
  command.open.repeat.budget_s = each * open_results;
  command.socket.repeat.budget_s = each * socket_results;
  command.accept.repeat.budget_s = each * accept_results;
}

AcceptCommand accept_command(const OptionValues& values) {
  AcceptCommand command;
  AcceptOptions& accept = command.accept;
  accept.strategies = parse_strategies(values[Opt::strategy], WorkloadKind::accept);
  accept.threads = parse_threads(values[Opt::threads]);
  accept.connections = static_cast<std::size_t>(
      parse_number(flag(Opt::connections), values[Opt::connections], 1, kMaxPerThread));
  apply_choice(Opt::kind, values[Opt::kind], parse_accept_kind, accept_kind_names(), "kind",
               accept.kind);
  accept.pregrow = parse_pregrow_list(values[Opt::pregrow]);
  if (auto why = accept_backlog_refusal(accept.connections); !why.empty()) {
    throw UsageError(flag(Opt::connections) + ": " + why);
  }
  apply_common(values, command.outputs, {&accept});
  accept.timeout_s = parse_timeout(values[Opt::timeout], false);
  refuse_unrunnable(runnability(accept));
  accept.latency = latency_of(values, true);
  return command;
}

namespace {

// The suite's accept section, kept cheap: 4 threads x 1,000 connections (fewer where the
// listen backlog is capped lower), blocking threads and epoll where it runs here, from the
// starting table and pre-grown; the minimal harness alone (no seed accepted connections).
void suite_accept(AcceptOptions& accept) {
  accept.strategies.clear();
  for (const char* name : {"threads", "epoll"}) {
    if (find_strategy(name)->unavailable_reason().empty()) accept.strategies.emplace_back(name);
  }
  if (const auto most = platform::somaxconn()) {
    accept.connections = std::min(accept.connections, static_cast<std::size_t>(*most));
  }
  accept.harness = {Harness::minimal};
}

// --quick: the fewest results that still answer both seeds' questions (the fastest way and the
// thread count past which more stop helping, a pool's cost, the stall with and without
// pre-growing), in a budget of a few seconds; the run says so above its tables.
constexpr double kQuickBudget = 4;
constexpr double kQuickPrecision = 0.05;

void make_quick(SuiteCommand& command, bool budget_given) {
  command.open.threads = {1, 2, 4};
  command.open.strategies.clear();
  for (const char* name : {"threads", "pool", "pool-batch", "uring-direct"}) {
    if (find_strategy(name)->unavailable_reason().empty())
      command.open.strategies.emplace_back(name);
  }
  command.socket.strategies = {"threads"};
  command.accept.strategies = {"threads"};
  for (SweepOptions* sweep :
       {static_cast<SweepOptions*>(&command.open), static_cast<SweepOptions*>(&command.socket),
        static_cast<SweepOptions*>(&command.accept)}) {
    sweep->repeat.precision = std::max(sweep->repeat.precision, kQuickPrecision);
  }
  if (!budget_given) command.budget_s = kQuickBudget;
  command.outputs.mode_note = fmt::format(
      "{}: fewer results and a {:g} s budget, each median aimed at ±{:g}%: the Answers may say "
      "\"cannot tell here\" where the full suite (without {}) would settle them",
      flag(Opt::quick), command.budget_s, kQuickPrecision * 100, flag(Opt::quick));
}

}  // namespace

SuiteCommand suite_command(const OptionValues& values) {
  SuiteCommand command;
  OptionValues open = defaults_of(Cmd::open);
  open.text[Opt::dir] = values[Opt::dir];
  apply_open(open, command.open);
  apply_common(values, command.outputs, {&command.open, &command.socket, &command.accept});
  command.open.timeout_s = command.socket.timeout_s = command.accept.timeout_s =
      parse_timeout(values[Opt::timeout], false);
  command.open.latency = latency_of(values, false);
  command.socket.latency = command.accept.latency = latency_of(values, true);
  // The seed's two threads, then the two ways around the shared table.
  command.socket.strategies = {"threads", "process", "uring-direct"};
  suite_accept(command.accept);
  refuse_unrunnable(runnability(command.open));
  refuse_unrunnable(runnability(command.socket));
  command.budget_s =
      static_cast<double>(parse_number(flag(Opt::budget), values[Opt::budget], 1, 86400));
  if (values.on(Opt::quick)) make_quick(command, values.given(Opt::budget));
  if (command.open.repeat.automatic()) share_budget(command, command.budget_s);
  return command;
}

namespace {

// The options of one of tune's workloads given with the other's: refused, naming both.
void reject_other_workload(const OptionValues& values, WorkloadKind workload) {
  const bool accept = workload == WorkloadKind::accept;
  const auto others =
      accept ? std::vector<Opt>{Opt::files, Opt::keep_open, Opt::tree,         Opt::list,
                                Opt::dir,   Opt::list0,     Opt::cross_mounts, Opt::allow_pseudo_fs}
             : std::vector<Opt>{Opt::connections, Opt::kind};
  for (const Opt id : others) {
    if (!values.given(id)) continue;
    throw UsageError(fmt::format("{} {}: {} is for {}; drop it", flag(Opt::workload),
                                 to_string(workload), flag(id),
                                 accept ? "--workload open's files" : "--workload accept's burst"));
  }
}

// tune --workload accept: the burst a fresh server accepts (--connections, --kind), measured
// with the strategies asked for besides the recommendable ones that accept here.
void apply_tune_accept(const OptionValues& values, AcceptOptions& accept) {
  accept.strategies.clear();
  if (!values[Opt::strategy].empty()) {
    accept.strategies = parse_strategies(values[Opt::strategy], WorkloadKind::accept);
  }
  accept.connections = static_cast<std::size_t>(
      parse_number(flag(Opt::connections), values[Opt::connections], 1, kMaxPerThread));
  apply_choice(Opt::kind, values[Opt::kind], parse_accept_kind, accept_kind_names(), "kind",
               accept.kind);
  if (auto why = accept_backlog_refusal(accept.connections); !why.empty()) {
    throw UsageError(flag(Opt::connections) + ": " + why);
  }
  accept.kernel_trace = values.on(Opt::kernel_trace);
  accept.timeout_s = parse_timeout(values[Opt::timeout], false);
}

bool parse_tuned_workload(std::string_view text, WorkloadKind& workload) {
  return (text == "open" || text == "accept") && parse_workload_kind(text, workload);
}

}  // namespace

TuneCommand tune_command(const OptionValues& values) {
  TuneCommand command;
  reject_set_options(values);
  apply_choice(Opt::workload, values[Opt::workload], parse_tuned_workload, {"open", "accept"},
               "workload", command.tune.workload);
  reject_other_workload(values, command.tune.workload);
  if (command.tune.workload == WorkloadKind::accept) apply_tune_accept(values, command.tune.accept);
  OpenOptions& open = command.tune.open;
  open.files =
      static_cast<std::size_t>(parse_number(flag(Opt::files), values[Opt::files], 1, kMaxFiles));
  open.keep_open = values.on(Opt::keep_open);
  command.tune.eligibility = {values.on(Opt::allow_process), values.on(Opt::allow_direct)};
  open.kernel_trace = values.on(Opt::kernel_trace);
  if (!values[Opt::strategy].empty() && command.tune.workload == WorkloadKind::open) {
    open.strategies = parse_strategies(values[Opt::strategy]);
  }
  apply_open_input(values, open);
  open.timeout_s = parse_timeout(values[Opt::timeout], !open.tree.empty() || !open.list.empty());
  command.tune.budget_seconds =
      static_cast<double>(parse_number(flag(Opt::budget), values[Opt::budget], 1, 86400));
  if (!values[Opt::precision].empty()) {
    command.tune.precision = parse_precision(values[Opt::precision]);
  }
  command.outputs.format = parse_format(values, Cmd::tune);
  command.outputs.output = values[Opt::output];
  check_output(flag(Opt::output), command.outputs.output);
  command.outputs.exports = apply_exports(values);
  check_output(flag(Opt::save), values[Opt::save]);
  command.save = values[Opt::save];
  command.outputs.quiet = values.on(Opt::quiet);
  apply_history(values, command.outputs);
  command.outputs.details = values.on(Opt::details);
  return command;
}

CleanCommand clean_command(const OptionValues& values) {
  CleanCommand command;
  const auto& sets = values.list.at(Opt::sets);
  check_kept_sets(sets);
  command.sets = sets;
  const std::string& dir = values[Opt::dir];
  if (sets.empty() || !dir.empty()) {
    command.dir = dir_or_default(dir);
    check_directory(dir_flag(dir), command.dir, true);
  }
  return command;
}

EnvCommand env_command(const OptionValues& values) {
  EnvCommand command;
  command.dir = dir_or_default(values[Opt::dir]);
  check_directory(dir_flag(values[Opt::dir]), command.dir, false);
  command.format = parse_format(values, Cmd::env);
  return command;
}

TraceCommand trace_command(const OptionValues& values) {
  TraceCommand command;
  command.program = values.list.at(Opt::program);
  if (values.given(Opt::pid)) {
    command.pid = static_cast<int>(parse_number(flag(Opt::pid), values[Opt::pid], 1, 1LL << 30));
  }
  if (command.program.empty() == (command.pid == 0)) {
    throw UsageError(fmt::format("name a command after -- or a running process with {}, not {}",
                                 flag(Opt::pid), command.program.empty() ? "neither" : "both"));
  }
  if (values.given(Opt::duration)) {
    command.duration_s =
        parse_decimal(flag(Opt::duration), values[Opt::duration], "seconds", 0.001, 1e7, "");
  }
  command.follow = !values.on(Opt::no_follow);
  command.format = parse_format(values, Cmd::trace);
  command.output = values[Opt::output];
  return command;
}

CompareCommand compare_command(const OptionValues& values) {
  CompareCommand command;
  const auto& files = values.list.at(Opt::results);
  command.baseline = values[Opt::baseline];
  command.history = history_path(values);
  if (!values[Opt::fail_if_slower].empty()) {
    if (command.baseline.empty()) {
      throw UsageError(
          fmt::format("{} needs {} last|ID|FILE", flag(Opt::fail_if_slower), flag(Opt::baseline)));
    }
    command.fail_if_slower = parse_decimal(flag(Opt::fail_if_slower), values[Opt::fail_if_slower],
                                           "percent", 0, 1e6, "%");
  }
  command.require_baseline = values.on(Opt::require_baseline);
  if (command.require_baseline && command.baseline.empty()) {
    throw UsageError(
        fmt::format("{} needs {} last|ID|FILE", flag(Opt::require_baseline), flag(Opt::baseline)));
  }
  if (!command.baseline.empty()) {
    if (files.size() > 1 || values.on(Opt::references)) {
      throw UsageError(fmt::format("{}: name at most one results file, the one compared with it",
                                   flag(Opt::baseline)));
    }
    command.format = parse_format(values, Cmd::compare);
    command.files = files;
    return command;
  }
  if (files.empty() || (files.size() == 1 && !values.on(Opt::references))) {
    throw UsageError(
        "name two or more results files (written with --format json or "
        "--export-json), or one with --references");
  }
  command.format = parse_format(values, Cmd::compare);
  command.files = files;
  command.references = values.on(Opt::references);
  return command;
}

ReportCommand report_command(const OptionValues& values) {
  const auto& files = values.list.at(Opt::results);
  if (files.empty()) {
    throw UsageError(
        "name one or more results files (written with --format json or "
        "--export-json)");
  }
  check_output(flag(Opt::output), values[Opt::output]);
  ReportCommand command;
  command.files = files;
  command.output = values[Opt::output];
  return command;
}

namespace {

// What `history ACTION` does, by its word.
HistoryAction history_action(const std::string& word) {
  static const std::vector<std::pair<std::string, HistoryAction>> kActions = {
      {"list", HistoryAction::list},     {"show", HistoryAction::show},
      {"import", HistoryAction::import}, {"export", HistoryAction::export_run},
      {"rm", HistoryAction::remove},     {"trend", HistoryAction::trend}};
  for (const auto& [name, action] : kActions) {
    if (name == word) return action;
  }
  throw BadValue(
      fmt::format("history: unknown action '{}' (choose from list, show, import, "
                  "export, rm, trend)",
                  word));
}

// How many arguments each action takes: at least, at most.
void check_history_arguments(HistoryAction action, std::size_t given) {
  const bool ok = action == HistoryAction::list || action == HistoryAction::trend ? given == 0
                  : action == HistoryAction::show || action == HistoryAction::export_run
                      ? given == 1
                      : given >= 1;
  if (ok) return;
  throw UsageError(
      "history: list and trend take no argument, show and export one run's ID, rm one or more "
      "IDs, import one or more results files");
}

}  // namespace

HistoryCommand history_command(const OptionValues& values) {
  HistoryCommand command;
  command.action = history_action(values[Opt::action]);
  command.arguments = values.list.at(Opt::arguments);
  check_history_arguments(command.action, command.arguments.size());
  command.history = history_path(values);
  if (command.history.empty()) {
    throw UsageError(fmt::format("neither XDG_DATA_HOME nor HOME is set: name the file with {}",
                                 flag(Opt::history_file)));
  }
  command.format = parse_format(values, Cmd::history);
  command.output = values[Opt::output];
  check_output(flag(Opt::output), command.output);
  const bool trend = command.action == HistoryAction::trend;
  if (trend && command.format != "table" && command.format != "html") {
    throw UsageError(fmt::format("history: trend prints a table, or with {} html a page of charts",
                                 flag(Opt::format)));
  }
  const bool takes_output =
      command.action == HistoryAction::export_run || (trend && command.format == "html");
  if ((command.action == HistoryAction::export_run && command.output.empty()) ||
      (!takes_output && !command.output.empty())) {
    throw UsageError(fmt::format(
        "history: {} names the file of export, or of trend's page with {} html, and no other",
        flag(Opt::output), flag(Opt::format)));
  }
  if (values.given(Opt::strategy)) command.strategies = parse_strategies(values[Opt::strategy]);
  if (values.given(Opt::threads)) command.threads = parse_threads(values[Opt::threads]);
  return command;
}

}  // namespace fdbench::cli

namespace fdbench::cli {

namespace {

// The program after --, which pregrow and server cannot do without (the row is shared with
// trace, which may watch --pid instead, so CLI11 does not require it).
std::vector<std::string> required_program(const OptionValues& values, std::string_view command) {
  const std::vector<std::string>& program = values.list.at(Opt::program);
  if (program.empty()) {
    throw UsageError(
        fmt::format("{} needs the program to run, after --: fdbench {} ... -- CMD "
                    "[ARGS...]",
                    flag(Opt::program), command));
  }
  return program;
}

}  // namespace

PregrowCommand pregrow_command(const OptionValues& values) {
  PregrowCommand command;
  command.slots =
      static_cast<int>(parse_number(flag(Opt::slots), values[Opt::slots], 1, kMaxPregrowFd));
  // Descriptor N - 1 is what grows the table: above the soft limit no call may make it.
  const std::uint64_t limit = platform::nofile_limit().soft;
  if (static_cast<std::uint64_t>(command.slots) > limit) {
    throw UsageError(fmt::format(
        "{} {} is above the descriptor limit (ulimit -n) {}: raise it (ulimit -n {}) or give a "
        "smaller {}",
        flag(Opt::slots), command.slots, limit, command.slots, flag(Opt::slots)));
  }
  command.program = required_program(values, "pregrow");
  return command;
}

}  // namespace fdbench::cli

namespace fdbench::cli {

namespace {

void parse_probe(const std::string& text, ServerCommand& command) {
  static const std::vector<std::pair<std::string, ServerProbe>> kProbes = {
      {"memcached", ServerProbe::memcached},
      {"redis", ServerProbe::redis},
      {"http", ServerProbe::http},
      {"connect", ServerProbe::connect}};
  for (const auto& [name, probe] : kProbes) {
    if (text == name) {
      command.probe = probe;
      return;
    }
  }
  if (text.starts_with("line:") && text.size() > 5) {
    command.probe = ServerProbe::line;
    command.line = text.substr(5);
    return;
  }
  throw BadValue(
      fmt::format("{}: unknown probe '{}' (choose from memcached, redis, http, "
                  "line:TEXT, connect)",
                  flag(Opt::probe), text));
}

// The value after `option` among the server's arguments ("-c 4096" or "-c4096"), or -1.
long long server_argument(const std::vector<std::string>& args, const std::string& option) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string value;
    if (args[i] == option && i + 1 < args.size()) value = args[i + 1];
    if (args[i].size() > option.size() && args[i].starts_with(option)) {
      value = args[i].substr(option.size());
    }
    if (!value.empty() && std::all_of(value.begin(), value.end(), ::isdigit)) {
      return std::stoll(value);
    }
  }
  return -1;
}

// The burst refused up front where something would cut it: this process's descriptor limit
// (the clients), the kernel's listen queue cap, or the server's own limit on its command line.
void check_burst_fits(const ServerCommand& command) {
  const auto needed = static_cast<std::uint64_t>(command.connections) + 64;
  if (const auto soft = platform::nofile_limit().soft; soft < needed) {
    throw UsageError(fmt::format(
        "{} {} needs {} descriptors for its clients, ulimit -n is {}: "
        "raise it (ulimit -n {}) or lower {}",
        flag(Opt::connections), command.connections, needed, soft, needed, flag(Opt::connections)));
  }
  const auto cap = platform::somaxconn();
  if (command.arrival == ServerArrival::queued && cap && *cap < command.connections) {
    throw UsageError(
        fmt::format("{} {} cannot queue: net.core.somaxconn is {} (raise it with "
                    "sysctl -w net.core.somaxconn={}, or lower {})",
                    flag(Opt::connections), command.connections, *cap, command.connections,
                    flag(Opt::connections)));
  }
  const std::string& program = command.program.front();
  if (program == "memcached" || program.ends_with("/memcached")) {
    const long long limit = server_argument(command.program, "-c");
    if (limit >= 0 && limit < command.connections) {
      throw UsageError(fmt::format("memcached -c {} holds fewer than {} {}: raise -c or lower {}",
                                   limit, flag(Opt::connections), command.connections,
                                   flag(Opt::connections)));
    }
  }
}

}  // namespace

ServerCommand server_command(const OptionValues& values) {
  ServerCommand command;
  command.program = required_program(values, "server");
  if (values.given(Opt::port)) {
    command.port = static_cast<int>(parse_number(flag(Opt::port), values[Opt::port], 1, 65535));
  }
  command.connections = static_cast<int>(
      parse_number(flag(Opt::connections), values[Opt::connections], 1, 1'000'000));
  command.pregrow = parse_pregrow_list(values[Opt::pregrow]);
  command.repeat = static_cast<int>(parse_number(flag(Opt::repeat), values[Opt::repeat], 1, 1000));
  if (values.given(Opt::timeout)) {
    command.timeout_s =
        parse_decimal(flag(Opt::timeout), values[Opt::timeout], "seconds", 0.001, kMaxTimeout);
  }
  parse_probe(values[Opt::probe], command);
  const std::string& arrival = values[Opt::arrival];
  if (arrival != "queued" && arrival != "open") {
    throw BadValue(fmt::format("{}: unknown arrival '{}' (choose from queued, open)",
                               flag(Opt::arrival), arrival));
  }
  command.arrival = arrival == "open" ? ServerArrival::open : ServerArrival::queued;
  command.format = parse_format(values, Cmd::server);
  command.kernel_trace = values.on(Opt::kernel_trace);
  command.details = values.on(Opt::details);
  check_burst_fits(command);
  return command;
}

}  // namespace fdbench::cli
