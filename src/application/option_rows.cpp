// The command line's one table: a row per setting. A default is the options struct's own
// (OpenOptions, SocketOptions, TuneOptions; Repeat for --repeat's), written as its flag takes it;
// a word stands for an empty list where it means "every" or "none" ("all", "keep").
#include "application/option_rows.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>

#include "analysis/compare.hpp"
#include "application/command.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "inputs/file_set.hpp"
#include "output/reporter.hpp"

namespace fdbench::app {

namespace {

// A default list as its flag takes it: "1,2,4,8,16", "threads", "off,auto".
template <typename T>
std::string flag_list(const std::vector<T>& items) {
  return fmt::format("{}", fmt::join(items, ","));
}
std::string flag_list(const std::vector<Pregrow>& settings) {
  std::vector<std::string> labels;
  for (const auto& p : settings) labels.push_back(p.label());
  return flag_list(labels);
}
std::string flag_list(const std::vector<Harness>& harnesses) {
  std::vector<std::string> names;
  for (const auto h : harnesses) names.emplace_back(to_string(h));
  return flag_list(names);
}

// The defaults of the command's sweep: socket's differ from open's (threads, strategies,
// pregrow); the suite and tune start from open's.
SweepOptions sweep_of(Cmd c) {
  if (c == Cmd::socket) return SocketOptions{};
  if (c == Cmd::accept) return AcceptOptions{};
  return OpenOptions{};
}

ValueHint choices(std::vector<std::string> words, bool comma_list = false) {
  return {std::move(words), comma_list};
}
const ValueHint kDirectories{{}, false, ValueHint::Paths::directories};
const ValueHint kFiles{{}, false, ValueHint::Paths::files};

// --strategy's completion: every strategy, or all.
ValueHint strategy_choices() {
  auto names = strategy_names();
  names.emplace_back("all");
  return choices(names, true);
}

const Cmds kMeasuring{Cmd::suite, Cmd::open, Cmd::socket, Cmd::accept};
const Cmds kOpenAndTune{Cmd::open, Cmd::tune};
const Cmds kSweeps{Cmd::open, Cmd::socket, Cmd::accept};
const Cmds kAllMeasuring{Cmd::suite, Cmd::open, Cmd::socket, Cmd::accept, Cmd::tune};
// What takes a batch and io_uring's tuning: accept's io_uring strategies take neither.
const Cmds kBatched{Cmd::open, Cmd::socket};

std::string listed(const std::vector<std::string>& items) {
  return fmt::format("{}", fmt::join(items, ", "));
}

const char* const kTimeoutHelp =
    "Seconds a repetition may take before it is abandoned as hung (a dead NFS or FUSE "
    "mount): the {} stops, exit 1, naming the file; plain decimal seconds (60, 0.5; at "
    "least 0.000000001, the clock's resolution: less is refused), or none for no limit "
    "(default: none, 60 with --tree or --list)";

std::vector<OptionRow> sweep_rows() {
  return {
      {.id = Opt::files, .names = "--files", .value = "N", .commands = kOpenAndTune,
       .help = "Number of files",
       .default_text = [](Cmd) { return std::to_string(*OpenOptions{}.files); },
       .show_default = kOpenAndTune},
      {.id = Opt::threads, .names = "--threads", .value = "LIST",
       .commands = {Cmd::open, Cmd::socket, Cmd::accept, Cmd::history},
       .help = "Thread counts, a comma list (1 to 1024)",
       .hint = choices({"1", "2", "4", "8", "16"}, true),
       .default_text = [](Cmd c) { return flag_list(sweep_of(c).threads); },
       .show_default = kSweeps,
       .help_for = {{Cmd::socket, "Thread counts, a comma list; 2 = the main thread plus one"},
                    {Cmd::accept, "Server threads (or processes), a comma list"},
                    {Cmd::history, "trend: only the results with these thread counts"}}},
      {.id = Opt::strategy, .names = "--strategy", .value = "LIST",
       .commands = {Cmd::open, Cmd::socket, Cmd::accept, Cmd::tune, Cmd::history},
       .help = "Strategies, a comma list of " + listed(strategy_names()) + ", or all",
       .hint = strategy_choices(),
       .default_text =
           [](Cmd c) {
             const auto names = sweep_of(c).strategies;
             if (c == Cmd::tune) return std::string();  // none besides the recommendable ones
             return names.empty() ? std::string("all") : flag_list(names);
           },
       .show_default = kSweeps,
       .help_for = {{Cmd::tune,
                     "Also measure these strategies, a comma list of " + listed(strategy_names())},
                    {Cmd::history, "trend: only the results of these strategies"}}},
      {.id = Opt::batch, .names = "--batch", .value = "N", .commands = kBatched,
       .help = "Files per task (pool-batch), per submission (uring) or in flight (libuv)",
       .default_text = [](Cmd c) { return std::to_string(sweep_of(c).batch); },
       .show_default = kBatched,
       .help_for = {{Cmd::socket, "Descriptors per io_uring submission"}}},
      {.id = Opt::dir, .names = "--dir", .value = "DIR",
       .commands = {Cmd::suite, Cmd::open, Cmd::tune, Cmd::clean, Cmd::env},
       .help = "Where the private file set is created (default $TMPDIR or /tmp)",
       .hint = kDirectories,
       .help_for = {{Cmd::clean, "Where to look (default $TMPDIR or /tmp)"},
                    {Cmd::env,
                     "The directory whose filesystem is described (default $TMPDIR or /tmp)"}}},
      // dirs:K is a number the user picks
      {.id = Opt::layout, .names = "--layout", .value = "LAYOUT", .commands = {Cmd::open},
       .help = "flat, or dirs:K to spread the files over K subdirectories",
       .hint = choices({"flat"}),
       .default_text = [](Cmd) { return layout_name(*OpenOptions{}.subdirs); },
       .show_default = {Cmd::open}},
  };
}

// Where an open command's files come from: a kept set, or the user's own.
std::vector<OptionRow> input_rows() {
  return {
      {.id = Opt::keep_files, .names = "--keep-files", .value = "DIR", .commands = {Cmd::open},
       .help = "Make the file set in this new directory (not under --dir) and leave it there for "
               "--reuse-files",
       .hint = kDirectories},
      {.id = Opt::reuse_files, .names = "--reuse-files", .value = "DIR", .commands = {Cmd::open},
       .help = "Use the set --keep-files left in this directory, checked, instead of making one "
               "(--files and --layout default to the set's)",
       .hint = kDirectories},
      {.id = Opt::tree, .names = "--tree", .value = "DIR", .commands = kOpenAndTune,
       .help = "Open the regular files under this existing directory instead",
       .hint = kDirectories},
      // --tree's walk stays on the tree's own filesystem and off the kernel's pseudo-filesystems
      // unless these say otherwise.
      {.id = Opt::cross_mounts, .names = "--cross-mounts", .commands = kOpenAndTune,
       .help = "With --tree: descend into other filesystems mounted below DIR too (by default "
               "the walk stays on DIR's own)",
       .bind = Bind::flag},
      {.id = Opt::allow_pseudo_fs, .names = "--allow-pseudo-fs", .commands = kOpenAndTune,
       .help = "With --tree or --list: open proc, sysfs, tracefs, debugfs, securityfs, cgroup, "
               "configfs and bpf too, where opening a file can change the kernel's state "
               "(refused otherwise)",
       .bind = Bind::flag},
      {.id = Opt::list, .names = "--list", .value = "FILE", .commands = kOpenAndTune,
       .help = "Open the paths listed in this file (one per line) instead", .hint = kFiles},
      {.id = Opt::list0, .names = "--list0", .commands = kOpenAndTune,
       .help = "The --list file is NUL-separated", .bind = Bind::flag},
  };
}

std::vector<OptionRow> open_rows() {
  return {
      {.id = Opt::flags, .names = "--flags", .value = "MODE", .commands = {Cmd::open},
       .help = "Open mode: " + listed(open_flags_names()), .hint = choices(open_flags_names()),
       .default_text = [](Cmd) { return std::string(to_string(OpenOptions{}.flags)); },
       .show_default = {Cmd::open}},
      {.id = Opt::paths, .names = "--paths", .value = "MODE", .commands = {Cmd::open},
       .help = "Name files relative to their directory (openat) or absolute (open): " +
               listed(path_mode_names()),
       .hint = choices(path_mode_names()),
       .default_text = [](Cmd) { return std::string(to_string(OpenOptions{}.paths)); },
       .show_default = {Cmd::open}},
      {.id = Opt::keep_open, .names = "--keep-open", .commands = kOpenAndTune,
       .help = "Hold every descriptor until the repetition ends", .bind = Bind::flag,
       .help_for = {{Cmd::tune,
                     "Hold every descriptor until the repetition ends (advice on the fd table)"}}},
      {.id = Opt::pregrow, .names = "--pregrow", .value = "LIST",
       .commands = {Cmd::open, Cmd::socket, Cmd::accept, Cmd::server},
       .help = "With --keep-open: comma list of off, auto or N (grow the fd table first)",
       .hint = choices({"off", "auto"}, true),
       .default_text =
           [](Cmd c) {
             return c == Cmd::server ? flag_list(ServerCommand{}.pregrow)
                                     : flag_list(sweep_of(c).pregrow);
           },
       .show_default = {Cmd::open, Cmd::socket, Cmd::accept, Cmd::server},
       .help_for = {{Cmd::socket, "Comma list of off, auto or N: grow the fd table first"},
                    {Cmd::accept,
                     "Comma list of off, auto or N: grow the server's fd table first"},
                    {Cmd::server,
                     "Comma list of off (its starting table), auto (the burst plus what it "
                     "holds at start) or N (to hold descriptor N): each started through the "
                     "launcher's grow-then-exec"}}},
      {.id = Opt::uring_tuning, .names = "--uring-tuning", .value = "WHAT", .commands = kBatched,
       .help = "io_uring rings: all, flags (the best setup flags the kernel accepts), ring-fd "
               "(each thread registers its ring's descriptor) or none (kernel defaults)",
       .hint = choices(uring_tuning_names()),
       .default_text = [](Cmd c) { return uring_tuning_name(sweep_of(c).uring); },
       .show_default = kBatched},
      {.id = Opt::uring_close, .names = "--uring-close", .value = "MODE", .commands = {Cmd::open},
       .help = "uring-direct: batched (a submission of opens, then one of their closes) or linked "
               "(each close linked behind its open, one submission)",
       .hint = choices(uring_close_names()),
       .default_text = [](Cmd c) { return to_string(sweep_of(c).uring.close); },
       .show_default = {Cmd::open}},
      {.id = Opt::per_thread, .names = "--per-thread", .value = "N", .commands = {Cmd::socket},
       .help = "Creation calls each thread makes (descriptors, or pipes)",
       .default_text = [](Cmd) { return std::to_string(SocketOptions{}.per_thread); },
       .show_default = {Cmd::socket}},
  };
}

// The burst accept measures, and tune --workload accept.
std::vector<OptionRow> accept_rows() {
  return {
      {.id = Opt::connections, .names = "--connections", .value = "N",
       .commands = {Cmd::accept, Cmd::tune, Cmd::server},
       .help = "Connections queued before each repetition, all accepted while timed (at most "
               "net.core.somaxconn)",
       .default_text =
           [](Cmd c) {
             return std::to_string(c == Cmd::server ? ServerCommand{}.connections
                                                    : AcceptOptions{}.connections);
           },
       .show_default = {Cmd::accept, Cmd::tune, Cmd::server},
       .help_for = {{Cmd::tune, "With --workload accept: connections queued before each "
                                "repetition (at most net.core.somaxconn)"},
                    {Cmd::server, "Loopback clients in the server's first burst, each sending "
                                  "the probe and waiting for its reply"}}},
      {.id = Opt::kind, .names = "--kind", .value = "KIND",
       .commands = {Cmd::socket, Cmd::accept, Cmd::tune},
       .help = "Descriptor kind: " + listed(socket_kind_names()) +
               " (a pipe call makes two descriptors)",
       .hint = choices(socket_kind_names()),
       .default_text =
           [](Cmd c) {
             return std::string(to_string(c == Cmd::socket ? SocketOptions{}.kind
                                                           : AcceptOptions{}.kind));
           },
       .show_default = {Cmd::socket, Cmd::accept, Cmd::tune},
       .help_for = {{Cmd::accept, "Listener: tcp (127.0.0.1), tcp6 (::1) or unix (a Unix-domain "
                                  "socket in a private directory)"},
                    {Cmd::tune, "With --workload accept: the listener, tcp (127.0.0.1), tcp6 "
                                "(::1) or unix (a Unix-domain socket in a private directory)"}},
       .hint_for = {{Cmd::accept, choices(accept_kind_names())},
                    {Cmd::tune, choices(accept_kind_names())}}},
  };
}

std::vector<OptionRow> tune_rows() {
  return {
      {.id = Opt::workload, .names = "--workload", .value = "WORKLOAD", .commands = {Cmd::tune},
       .help = "What the sweep measures: open (open and close files) or accept (a fresh server's "
               "threads accepting a queued burst of loopback connections)",
       .hint = choices({"open", "accept"}),
       .default_text = [](Cmd) { return std::string(to_string(TuneOptions{}.workload)); },
       .show_default = {Cmd::tune}},
      {.id = Opt::allow_process, .names = "--allow-process", .commands = {Cmd::tune},
       .help = "May recommend process: its descriptors are made in worker processes, a table "
               "each, which a program calling fdbench cannot use (measured either way)",
       .bind = Bind::flag},
      {.id = Opt::allow_direct, .names = "--allow-direct", .commands = {Cmd::tune},
       .help = "May recommend uring-direct: its descriptors live in the io_uring and are no "
               "descriptors a program can use elsewhere (measured either way)",
       .bind = Bind::flag},
      {.id = Opt::budget, .names = "--budget", .value = "SECONDS",
       .commands = {Cmd::suite, Cmd::tune},
       .help = "Seconds the sweep may take, shared by the combinations (6 repetitions of each at "
               "least)",
       .hint = choices({"5", "20", "60"}),
       .default_text =
           [](Cmd c) {
             return fmt::format("{}", c == Cmd::suite ? app::SuiteCommand{}.budget_s
                                                      : TuneOptions{}.budget_seconds);
           },
       .show_default = {Cmd::suite, Cmd::tune},
       .help_for = {{Cmd::suite,
                     "With --repeat auto: seconds the results' repetitions may take in all, shared "
                     "by those whose order is still open (6 repetitions of each at least; "
                     "--max-time still bounds each)"}}},
  };
}

std::vector<OptionRow> repeat_rows() {
  return {
      {.id = Opt::repeat, .names = "--repeat", .value = "N|auto",
       .commands = {Cmd::suite, Cmd::open, Cmd::socket, Cmd::accept, Cmd::server},
       .help = "Timed repetitions of each result; the median is reported. auto: repeat until the "
               "median's 95% interval is within --precision of it, or --max-time is spent",
       .hint = choices({"auto", "10"}),
       .default_text =
           [](Cmd c) {
             const Repeat repeat;
             if (c == Cmd::server) return std::to_string(ServerCommand{}.repeat);
             return repeat.automatic() ? std::string("auto") : std::to_string(repeat.count);
           },
       .show_default = {Cmd::suite, Cmd::open, Cmd::socket, Cmd::accept, Cmd::server},
       .help_for = {{Cmd::server, "Starts of the server for each --pregrow setting, taken in "
                                  "turns (a fixed count)"}},
       .value_for = {{Cmd::server, "N"}}},
      {.id = Opt::precision, .names = "--precision", .value = "PERCENT", .commands = kAllMeasuring,
       .help = fmt::format("With --repeat auto: the 95% interval of each median within ±PERCENT "
                           "of it (default {:g})",
                           Repeat{}.precision * 100),
       .help_for = {{Cmd::tune,
                     fmt::format("Each combination repeats until its median's 95% interval is "
                                 "within ±PERCENT of it, or its share of --budget is spent "
                                 "(default {:g})",
                                 TuneOptions{}.precision * 100)}}},
      {.id = Opt::max_time, .names = "--max-time", .value = "SECONDS", .commands = kMeasuring,
       .help = fmt::format("With --repeat auto: the most time one result may take, its warm-ups "
                           "included (default {:g})",
                           Repeat{}.max_time_s)},
      {.id = Opt::warmup, .names = "--warmup", .value = "N", .commands = kMeasuring,
       .help = "Untimed repetitions before them",
       .default_text = [](Cmd c) { return std::to_string(sweep_of(c).warmup); },
       .show_default = kMeasuring},
  };
}

std::vector<OptionRow> output_rows() {
  return {
      // Its help and choices per command: formats_of().
      {.id = Opt::format,
       .names = "--format",
       .value = "FORMAT",
       .commands = {Cmd::suite, Cmd::open, Cmd::socket, Cmd::accept, Cmd::tune, Cmd::env,
                    Cmd::compare, Cmd::history, Cmd::server, Cmd::trace},
       .default_text = [](Cmd) { return OutputSettings{}.format; },
       .show_default = {Cmd::suite, Cmd::open, Cmd::socket, Cmd::accept, Cmd::tune, Cmd::env,
                        Cmd::compare, Cmd::server, Cmd::trace}},
      {.id = Opt::output,
       .names = "--output",
       .value = "FILE",
       .commands = {Cmd::suite, Cmd::open, Cmd::socket, Cmd::accept, Cmd::tune, Cmd::report,
                    Cmd::history, Cmd::trace},
       .help = "Write the output to FILE instead of stdout (atomically: all or nothing)",
       .hint = kFiles,
       .help_for = {{Cmd::report, "Write the report to FILE instead of stdout (atomically)"},
                    {Cmd::history,
                     "export: the FILE the run's JSON document is written to; trend with "
                     "--format html: the FILE its page of charts is written to"},
                    {Cmd::trace,
                     "Write the report to FILE (atomically) instead of stderr (a command's "
                     "stdout is its own) or stdout (--pid)"}},
       .names_for = {
           {Cmd::report, "-o,--output"}, {Cmd::history, "-o,--output"}, {Cmd::trace, "-o,--output"}}},
      {.id = Opt::latency,
       .names = "--latency",
       .commands = kMeasuring,
       .help = "Time every call: percentiles, table-growth events and stalls with their causes "
               "(on by default for socket, accept and --keep-open)",
       .bind = Bind::flag},
      {.id = Opt::no_latency,
       .names = "--no-latency",
       .commands = kMeasuring,
       .help = "Do not time each call",
       .bind = Bind::flag},
      {.id = Opt::kernel_trace,
       .names = "--kernel-trace",
       .commands = {Cmd::suite, Cmd::open, Cmd::socket, Cmd::accept, Cmd::tune, Cmd::server},
       .help = "Linux, root or CAP_PERFMON: where the measuring threads were off their CPU while "
               "timed, by cause, from the kernel's call chain at each switch (perf events)",
       .bind = Bind::flag,
       .help_for = {{Cmd::tune,
                     "Linux, root or CAP_PERFMON: where each combination's threads were off their "
                     "CPU while timed, by cause, from the kernel's call chains (perf events)"},
                    {Cmd::server,
                     "Linux, root or CAP_PERFMON: where the server's threads were off their CPU "
                     "during the burst, by cause (the table's growth, RCU, locks, ...), from the "
                     "kernel's call chains (perf events)"}}},
      {.id = Opt::trace_out,
       .names = "--trace-out",
       .value = "FILE",
       .commands = kMeasuring,
       .help = "With --latency (implied): every timed call as a CSV row in FILE, written after "
               "the run, atomically",
       .hint = kFiles},
  };
}

std::vector<OptionRow> run_rows() {
  return {
      {.id = Opt::rcu_expedited, .names = "--rcu-expedited", .value = "LIST",
       .commands = kMeasuring,
       .help = "Linux, root: keep, or set /sys/kernel/rcu_expedited to 0, 1 or each of 0,1 for "
               "the results that ask (system-wide while they run; restored after)",
       .hint = choices({"keep", "0", "1", "0,1"}),
       .default_text =
           [](Cmd c) {
             const auto values = sweep_of(c).rcu_expedited;
             return values.empty() ? std::string("keep") : flag_list(values);
           },
       .show_default = kMeasuring},
      {.id = Opt::order, .names = "--order", .value = "ORDER", .commands = kMeasuring,
       .help = "interleaved: the results' repetitions in turn, so drift hits all alike; "
               "sequential: each result's repetitions back to back",
       .hint = choices({"interleaved", "sequential"}),
       .default_text = [](Cmd c) { return std::string(to_string(sweep_of(c).order)); },
       .show_default = kMeasuring},
      {.id = Opt::harness, .names = "--harness", .value = "LIST", .commands = kMeasuring,
       .help = "minimal: only the calls on the clock; published: the seeds' own programs' "
               "harness (threads created inside the clock; open: std::ifstream and a std::string "
               "per file, tmp/N.txt as the first seed names it), threads and pool only; "
               "minimal,published: both",
       .hint = choices({"minimal", "published", "minimal,published"}),
       .default_text = [](Cmd c) { return flag_list(sweep_of(c).harness); },
       .show_default = kMeasuring},
      // Its default depends on the input (none for a private set, 60 for --tree and --list):
      // parse_timeout() says which.
      {.id = Opt::timeout, .names = "--timeout", .value = "SECONDS",
       .commands = {Cmd::suite, Cmd::open, Cmd::socket, Cmd::accept, Cmd::tune, Cmd::server},
       .help = fmt::format(fmt::runtime(kTimeoutHelp), "run"), .hint = choices({"none", "60"}),
       .help_for = {{Cmd::tune, fmt::format(fmt::runtime(kTimeoutHelp), "sweep")},
                    {Cmd::server, "Seconds the server has to answer once started, and its "
                                  "burst to drain (default 10)"}}},
      {.id = Opt::quiet, .names = "--quiet", .commands = kAllMeasuring,
       .help = "No live table on stdout and no progress line on stderr (each drawn only on a "
               "terminal)",
       .bind = Bind::flag,
       .help_for = {{Cmd::tune,
                     "No progress lines on stderr (shown only when stderr is a terminal)"}}},
      {.id = Opt::quick, .names = "--quick", .commands = {Cmd::suite},
       .help = "Both seeds' questions in about 10 s, at lower precision (said above the "
               "tables): open with threads, pool, pool-batch and uring-direct at 1, 2 and 4 "
               "threads, socket and accept with threads alone, a 4 s --budget",
       .bind = Bind::flag},
      {.id = Opt::details, .names = "--details",
       .commands = {Cmd::suite, Cmd::open, Cmd::socket, Cmd::accept, Cmd::tune, Cmd::server},
       .help = "The table: under each row its per-call times, the timed region's page faults "
               "and context switches, and kernel evidence (by default only where they matter; "
               "the other formats always have them)",
       .bind = Bind::flag},
  };
}

std::vector<OptionRow> other_rows() {
  return {
      {.id = Opt::results, .names = "files", .value = "FILE", .commands = {Cmd::compare, Cmd::report},
       .help = "Results files; the first is the baseline", .hint = kFiles, .bind = Bind::list,
       .help_for = {{Cmd::report, "Results files (--format json or --export-json)"}}},
      {.id = Opt::sets, .names = "sets", .value = "DIR", .commands = {Cmd::clean},
       .help = "Kept sets to remove (the DIR of --keep-files); then --dir only if given",
       .hint = kDirectories, .bind = Bind::list},
      {.id = Opt::references, .names = "--references", .commands = {Cmd::compare},
       .help = "Also set each file against the figures the seed experiments published",
       .bind = Bind::flag},
      {.id = Opt::slots, .names = "N", .value = "N", .commands = {Cmd::pregrow},
       .help = "Grow the descriptor table to at least N slots (the kernel rounds up: a power of "
               "two, 128 at least; at most ulimit -n)",
       .hint = choices({"1024", "4096", "65536"}), .required = true},
      {.id = Opt::program, .names = "command", .value = "CMD",
       .commands = {Cmd::pregrow, Cmd::server, Cmd::trace},
       .help = "The program and its arguments, after --: run with the environment and "
               "descriptors as they are, keeping the grown table",
       .bind = Bind::list,
       .help_for = {{Cmd::server, "The server and its arguments, after --; {port} in them is "
                                  "replaced by the port it is to listen on (127.0.0.1)"},
                    {Cmd::trace, "The command and its arguments, after --: its standard streams "
                                 "and exit code pass through"}}},
      {.id = Opt::port, .names = "--port", .value = "PORT", .commands = {Cmd::server},
       .help = "The loopback port the server listens on (default: one the kernel picks free, "
               "each start)"},
      {.id = Opt::probe, .names = "--probe", .value = "PROBE", .commands = {Cmd::server},
       .help = "What each client sends and waits for: memcached (version), redis (PING), http "
               "(GET / HTTP/1.1, kept alive), line:TEXT (TEXT and a newline), or connect "
               "(nothing: the server's answer or close; one that does neither is unanswered)",
       .hint = choices({"memcached", "redis", "http", "connect"}),
       .default_text = [](Cmd) { return std::string("memcached"); },
       .show_default = {Cmd::server}},
      {.id = Opt::arrival, .names = "--arrival", .value = "HOW", .commands = {Cmd::server},
       .help = "queued: the burst connects and sends while the server is stopped (SIGSTOP), the "
               "clock runs from its SIGCONT to the last reply; open: the clients connect as fast "
               "as they can while it runs",
       .hint = choices({"queued", "open"}),
       .default_text = [](Cmd) { return std::string("queued"); },
       .show_default = {Cmd::server}},
      {.id = Opt::pid, .names = "--pid", .value = "PID", .commands = {Cmd::trace},
       .help = "Trace a running process (every thread, and those it starts) instead of a command"},
      {.id = Opt::duration, .names = "--duration", .value = "SECONDS", .commands = {Cmd::trace},
       .help = "Stop tracing after SECONDS (a command runs on to its end); default: until it "
               "exits or Ctrl-C"},
      {.id = Opt::no_follow, .names = "--no-follow", .commands = {Cmd::trace},
       .help = "Only the process itself, not the processes it starts", .bind = Bind::flag},
      {.id = Opt::shell, .names = "shell", .value = "SHELL", .commands = {Cmd::completion},
       .help = "The shell: bash, zsh or fish", .hint = choices({"bash", "zsh", "fish"}),
       .required = true},
  };
}

// The run history: --save and --history, compare's baseline and gate, history's positionals.
std::vector<OptionRow> history_rows() {
  return {
      // tune's --save was its recommendation's file before the history existed, and stays so:
      // tune saves its run in the history with FDBENCH_HISTORY=1.
      {.id = Opt::save,
       .names = "--save",
       .commands = kAllMeasuring,
       .help = "Also record the run in the history (--history), once it has measured "
               "everything; FDBENCH_HISTORY=1 does the same",
       .bind = Bind::flag,
       .help_for = {{Cmd::tune,
                     "Write the recommendation's JSON to FILE (atomically), for "
                     "load_recommendation"}},
       .hint_for = {{Cmd::tune, kFiles}},
       .value_for = {{Cmd::tune, "FILE"}},
       .bind_for = {{Cmd::tune, Bind::text}}},
      {.id = Opt::history_file,
       .names = "--history",
       .value = "FILE",
       .commands = {Cmd::suite, Cmd::open, Cmd::socket, Cmd::accept, Cmd::tune, Cmd::compare,
                    Cmd::history},
       .help = "The run history (default $XDG_DATA_HOME/fdbench/history.db, else "
               "~/.local/share/fdbench/history.db)",
       .hint = kFiles},
      {.id = Opt::baseline, .names = "--baseline", .value = "last|ID|FILE",
       .commands = {Cmd::compare},
       .help = "Compare with a baseline: the last run saved in the history (before the one "
               "compared), a run's ID there, or a results FILE",
       .hint = kFiles},
      {.id = Opt::fail_if_slower, .names = "--fail-if-slower", .value = "PERCENT",
       .commands = {Cmd::compare},
       .help = "With --baseline: exit 3 when a result is slower than the baseline's by more than "
               "PERCENT and the difference is significant"},
      {.id = Opt::require_baseline, .names = "--require-baseline", .commands = {Cmd::compare},
       .help = "With --baseline last: exit 1 when the history holds no baseline yet (without "
               "it, the first run passes and becomes the baseline)",
       .bind = Bind::flag},
      {.id = Opt::action, .names = "action", .value = "ACTION", .commands = {Cmd::history},
       .help = "list, show ID, import FILE..., export ID -o FILE, rm ID..., or trend",
       .hint = choices({"list", "show", "import", "export", "rm", "trend"}), .required = true},
      {.id = Opt::arguments, .names = "args", .value = "ID|FILE", .commands = {Cmd::history},
       .help = "The runs (IDs, as list shows them) or the files (import)", .hint = kFiles,
       .bind = Bind::list},
  };
}

const std::vector<ExportRow> kExportRows = {
    {Opt::export_json, "json"},
    {Opt::export_csv, "csv"},
    {Opt::export_markdown, "markdown"},
    {Opt::export_html, "html"},
};

// --export-FORMAT FILE, one line per format, as hyperfine lists its exporters: a new export is
// a line in kExportRows and its reporter in the registry.
std::vector<OptionRow> export_option_rows() {
  std::vector<OptionRow> rows;
  for (const auto& [id, format] : kExportRows) {
    rows.push_back({.id = id, .names = fmt::format("--export-{}", format), .value = "FILE",
                    .commands = kAllMeasuring,
                    .help = fmt::format("Also keep the {} output in FILE, rewritten after every "
                                        "result (an interrupted run keeps what it measured)",
                                        format),
                    .hint = kFiles});
  }
  return rows;
}

// --format's help and choices are the formats each command writes.
void add_formats(OptionRow& row) {
  for (const Cmd c : {Cmd::suite, Cmd::open, Cmd::socket, Cmd::accept, Cmd::tune, Cmd::env,
                      Cmd::compare, Cmd::history, Cmd::server, Cmd::trace}) {
    row.help_for[c] = "Output format: " + listed(formats_of(c));
    row.hint_for[c] = choices(formats_of(c));
  }
}

std::vector<OptionRow> make_rows() {
  std::vector<OptionRow> rows;
  for (auto part : {sweep_rows(), input_rows(), open_rows(), accept_rows(), tune_rows(),
                    repeat_rows(), output_rows(), history_rows(), run_rows(), export_option_rows(),
                    other_rows()}) {
    for (auto& row : part) rows.push_back(std::move(row));
  }
  for (auto& row : rows) {
    if (row.id == Opt::format) add_formats(row);
  }
  return rows;
}

}  // namespace

std::vector<std::string> formats_of(Cmd command) {
  if (command == Cmd::env || command == Cmd::trace) return {"table", "json"};
  if (command == Cmd::compare) return compare_formats();
  return reporter_names();
}

const std::string& OptionRow::help_in(Cmd c) const {
  const auto it = help_for.find(c);
  return it == help_for.end() ? help : it->second;
}
const ValueHint& OptionRow::hint_in(Cmd c) const {
  const auto it = hint_for.find(c);
  return it == hint_for.end() ? hint : it->second;
}
const std::string& OptionRow::value_in(Cmd c) const {
  const auto it = value_for.find(c);
  return it == value_for.end() ? value : it->second;
}
Bind OptionRow::bind_in(Cmd c) const {
  const auto it = bind_for.find(c);
  return it == bind_for.end() ? bind : it->second;
}
const std::string& OptionRow::names_in(Cmd c) const {
  const auto it = names_for.find(c);
  return it == names_for.end() ? names : it->second;
}

const std::vector<OptionRow>& option_rows() {
  static const std::vector<OptionRow> rows = make_rows();
  return rows;
}

const OptionRow& row_of(Opt id) {
  for (const auto& row : option_rows()) {
    if (row.id == id) return row;
  }
  FDBENCH_ASSERT(false && "every Opt has a row");
  std::abort();
}

std::string flag(Opt id) {
  return row_of(id).names;
}

const std::vector<ExportRow>& export_rows() {
  return kExportRows;
}

const std::string& OptionValues::operator[](Opt id) const {
  static const std::string kNotGiven;
  const auto it = text.find(id);
  return it == text.end() ? kNotGiven : it->second;
}

bool OptionValues::on(Opt id) const {
  const auto it = set.find(id);
  return it != set.end() && it->second;
}

OptionValues defaults_of(Cmd command) {
  OptionValues values;
  for (const auto& row : option_rows()) {
    if (!row.commands.has(command)) continue;
    switch (row.bind_in(command)) {
      case Bind::flag:
        values.set[row.id] = false;
        break;
      case Bind::list:
        values.list[row.id] = {};
        break;
      case Bind::text:
        values.text[row.id] = row.default_text ? row.default_text(command) : std::string();
        break;
    }
  }
  return values;
}

}  // namespace fdbench::app
