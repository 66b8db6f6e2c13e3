#include "cli.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <map>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "fdbench/atomic_file.hpp"
#include "fdbench/environment.hpp"
#include "fdbench/error.hpp"
#include "fdbench/file_set.hpp"
#include "fdbench/interrupt.hpp"
#include "fdbench/reporter.hpp"
#include "fdbench/runner.hpp"
#include "fdbench/strategy.hpp"
#include "fdbench/version.hpp"

namespace fdbench::cli {

namespace {

constexpr long long kMaxFiles = 10'000'000;
constexpr long long kMaxPerThread = 1'000'000;
constexpr long long kMaxPregrowFd = 1 << 20;  // Linux's default fs.nr_open

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

long long parse_number(std::string_view flag, std::string_view text, long long min,
                       long long max) {
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range ||
      (ec == std::errc{} && end == text.data() + text.size() && (value < min || value > max))) {
    throw UsageError(
        fmt::format("{}: {} is out of range (allowed: {} to {})", flag, text, min, max));
  }
  if (ec != std::errc{} || end != text.data() + text.size()) {
    throw UsageError(fmt::format("{}: '{}' is not a whole number", flag, text));
  }
  return value;
}

std::vector<std::string> split_list(std::string_view flag, const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    if (item.empty()) throw UsageError(fmt::format("{}: empty item in '{}'", flag, text));
    if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
  }
  if (items.empty() || text.back() == ',') {
    throw UsageError(fmt::format("{}: expected a comma-separated list, got '{}'", flag, text));
  }
  return items;
}

std::vector<int> parse_threads(const std::string& text) {
  std::vector<int> threads;
  for (const auto& item : split_list("--threads", text)) {
    threads.push_back(static_cast<int>(parse_number("--threads", item, 1, kMaxThreads)));
  }
  return threads;
}

void check_directory(std::string_view flag, const std::string& dir, bool writable) {
  struct stat info {};
  if (stat(dir.c_str(), &info) != 0) {
    throw UsageError(fmt::format("{} {}: {}: create it or name another directory", flag, dir,
                                 errno_text(errno)));
  }
  if (!S_ISDIR(info.st_mode)) {
    throw UsageError(fmt::format("{} {}: not a directory: name a directory", flag, dir));
  }
  if (writable && access(dir.c_str(), W_OK | X_OK) != 0) {
    throw UsageError(fmt::format("{} {}: not writable ({}); choose a writable directory", flag,
                                 dir, errno_text(errno)));
  }
}

void check_output(const std::string& output) {
  if (output.empty()) return;
  const auto slash = output.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : output.substr(0, slash + 1);
  check_directory("--output: directory", dir, true);
  struct stat info {};
  if (stat(output.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    throw UsageError(fmt::format("--output {}: is a directory; name a file", output));
  }
}

// Flags as text, validated after parsing so that every message names its flag.
struct CommonText {
  std::string repeat = "10";
  std::string warmup = "1";
  std::string format = "table";
  std::string output;
};

struct OpenText {
  std::string files = "10000";
  std::string threads = "1,2,4,8,16";
  std::string strategy = "all";
  std::string batch = "64";
  std::string dir;
  std::string layout = "flat";
  std::string tree;
  std::string list;
  bool list0 = false;
  std::string flags = "rdonly";
  bool keep_open = false;
  std::string pregrow = "off";
};

struct SocketText {
  std::string strategy = "threads";
  std::string threads = "2";
  std::string per_thread = "256";
  std::string kind = "tcp";
  std::string pregrow = "off,auto";
  std::string batch = "64";
};

std::vector<std::string> parse_strategies(const std::string& text) {
  if (text == "all") return strategy_names();
  std::vector<std::string> names;
  for (const auto& name : split_list("--strategy", text)) {
    if (find_strategy(name) == nullptr) {
      throw UsageError(fmt::format("--strategy: unknown strategy '{}' (choose from {}, or all)",
                                   name, join(strategy_names())));
    }
    names.push_back(name);
  }
  return names;
}

std::vector<Pregrow> parse_pregrow_list(const std::string& text) {
  std::vector<Pregrow> list;
  for (const auto& item : split_list("--pregrow", text)) {
    Pregrow p;
    if (!parse_pregrow(item, p)) {
      throw UsageError(
          fmt::format("--pregrow: '{}' is not off, auto or a descriptor number", item));
    }
    if (p.mode == Pregrow::Mode::fd) parse_number("--pregrow", item, 0, kMaxPregrowFd);
    list.push_back(p);
  }
  return list;
}

std::size_t parse_layout(const std::string& text) {
  if (text == "flat") return 0;
  if (text.rfind("dirs:", 0) == 0) {
    return static_cast<std::size_t>(parse_number("--layout", text.substr(5), 1, 100000));
  }
  throw UsageError(fmt::format("--layout: '{}' is not flat or dirs:K", text));
}

void add_common(CLI::App& app, CommonText& text) {
  app.add_option("--repeat", text.repeat, "Timed repetitions; the median is reported")
      ->capture_default_str();
  app.add_option("--warmup", text.warmup, "Untimed repetitions before them")
      ->capture_default_str();
  app.add_option("--format", text.format, "Output format: " + join(reporter_names()))
      ->capture_default_str();
  app.add_option("--output", text.output,
                 "Write the output to FILE instead of stdout (atomically: all or nothing)");
}

void apply_common(const CommonText& text, int& repeat, int& warmup, Command& command) {
  repeat = static_cast<int>(parse_number("--repeat", text.repeat, 1, 100000));
  warmup = static_cast<int>(parse_number("--warmup", text.warmup, 0, 100000));
  const auto formats = reporter_names();
  if (std::find(formats.begin(), formats.end(), text.format) == formats.end()) {
    throw UsageError(fmt::format("--format: unknown format '{}' (choose from {})", text.format,
                                 join(formats)));
  }
  command.format = text.format;
  check_output(text.output);
  command.output = text.output;
}

void apply_open(const OpenText& text, OpenOptions& open) {
  open.files = static_cast<std::size_t>(parse_number("--files", text.files, 1, kMaxFiles));
  open.threads = parse_threads(text.threads);
  open.strategies = parse_strategies(text.strategy);
  open.batch = static_cast<int>(parse_number("--batch", text.batch, 1, kMaxFiles));
  open.subdirs = parse_layout(text.layout);
  if (!parse_open_flags(text.flags, open.flags)) {
    throw UsageError(fmt::format("--flags: unknown value '{}' (choose from {})", text.flags,
                                 join(open_flags_names())));
  }
  open.keep_open = text.keep_open;
  open.pregrow = parse_pregrow_list(text.pregrow);
  if (!open.keep_open && (open.pregrow.size() != 1 || open.pregrow[0].mode != Pregrow::Mode::off)) {
    throw UsageError("--pregrow needs --keep-open: open+close never holds more than a few "
                     "descriptors, so the table does not grow");
  }
  if (!text.tree.empty() && !text.list.empty()) {
    throw UsageError("--tree and --list: choose one input");
  }
  if (text.list0 && text.list.empty()) throw UsageError("--list0 needs --list FILE");
  open.tree = text.tree;
  open.list = text.list;
  open.list0 = text.list0;
  const bool existing = !open.tree.empty() || !open.list.empty();
  if (existing && open.flags == OpenFlags::rdwr) {
    throw UsageError("--flags rdwr works only on fdbench's own files: --tree and --list "
                     "inputs are never opened for writing");
  }
  if (!open.tree.empty()) check_directory("--tree", open.tree, false);
  if (!open.list.empty()) {
    struct stat info {};
    if (stat(open.list.c_str(), &info) != 0) {
      throw UsageError(fmt::format("--list {}: {}", open.list, errno_text(errno)));
    }
    if (S_ISDIR(info.st_mode)) {
      throw UsageError(fmt::format("--list {}: is a directory (did you mean --tree?)", open.list));
    }
  }
  open.dir = text.dir.empty() ? default_dir() : text.dir;
  if (!existing) check_directory("--dir", open.dir, true);
}

void apply_socket(const SocketText& text, SocketOptions& socket) {
  socket.strategies = parse_strategies(text.strategy);
  socket.batch = static_cast<int>(parse_number("--batch", text.batch, 1, kMaxPerThread));
  socket.threads = parse_threads(text.threads);
  socket.per_thread =
      static_cast<std::size_t>(parse_number("--per-thread", text.per_thread, 1, kMaxPerThread));
  if (!parse_socket_kind(text.kind, socket.kind)) {
    throw UsageError(fmt::format("--kind: unknown kind '{}' (choose from {})", text.kind,
                                 join(socket_kind_names())));
  }
  socket.pregrow = parse_pregrow_list(text.pregrow);
}

constexpr const char* kOpenFooter = R"(
Every file is a distinct empty file in a private directory (removed afterwards), unless
--tree or --list names existing files: those are opened read-only (O_NOFOLLOW, O_NONBLOCK),
never written, and FIFOs, sockets, devices and symlinks are skipped, never opened. Workers
and pools are created before the clock starts: thread creation is not timed. `libuv` is
libuv's thread pool with uv_fs_open/uv_fs_close, which is how Node.js opens files.
With --keep-open each repetition runs in a fresh child process (see `fdbench socket`).

Examples:
  fdbench open --files 1000 --threads 1,2 --strategy threads,pool --format json
  fdbench open --tree ~/src/linux --strategy threads,uring --threads 1,2,4
  fdbench open --keep-open --pregrow off,auto --threads 2 --strategy threads,uring-direct)";

constexpr const char* kSocketFooter = R"(
Every repetition runs in a fresh child process holding only fds 0-2, so it starts from the
kernel's smallest descriptor table (64 on Linux). --pregrow auto grows the table to fit the
whole run before the second thread exists; --pregrow N grows it to hold fd N. The calling
thread is one of the threads; thread creation is not timed.

Examples:
  fdbench socket --threads 2 --per-thread 256 --pregrow off,auto
  fdbench socket --kind eventfd --strategy threads,process,uring-direct)";

constexpr const char* kSuiteFooter = R"(
With no subcommand fdbench runs the default suite: both seed experiments, then its findings.
  1. open 10,000 empty files with 1, 2, 4, 8 and 16 threads, with every strategy here
     (plain threads, the seed's thread pool, batched, a fast pool, processes, io_uring,
     io_uring direct descriptors, libuv as Node.js uses it);
  2. two threads each creating 256 TCP sockets, with and without a pre-grown descriptor
     table, and the same with two processes and with io_uring direct descriptors.

Examples:
  fdbench
  fdbench open --help
  fdbench socket --pregrow off,auto,1023 --format json --output socket.json)";

}  // namespace

Parsed parse_command_line(int argc, const char* const* argv, std::ostream& out,
                          std::ostream& err) {
  CLI::App app{"fdbench: how fast can this machine create file descriptors?", "fdbench"};
  app.set_version_flag("--version", "fdbench " + std::string(version()));
  app.footer(kSuiteFooter);
  app.require_subcommand(0, 1);
  CommonText suite_common;
  std::string suite_dir;
  add_common(app, suite_common);
  app.add_option("--dir", suite_dir, "Where the private file set is created (default $TMPDIR or /tmp)");

  CLI::App* open_cmd = app.add_subcommand("open", "Open and close N distinct empty files");
  OpenText open_text;
  CommonText open_common;
  open_cmd->add_option("--files", open_text.files, "Number of files")->capture_default_str();
  open_cmd->add_option("--threads", open_text.threads, "Thread counts, a comma list (1 to 1024)")
      ->capture_default_str();
  open_cmd->add_option("--strategy", open_text.strategy,
                       "Strategies, a comma list of " + join(strategy_names()) + ", or all")
      ->capture_default_str();
  open_cmd->add_option("--batch", open_text.batch,
                       "Files per task (pool-batch), per submission (uring) or in flight (libuv)")
      ->capture_default_str();
  open_cmd->add_option("--dir", open_text.dir,
                       "Where the private file set is created (default $TMPDIR or /tmp)");
  open_cmd->add_option("--layout", open_text.layout,
                       "flat, or dirs:K to spread the files over K subdirectories")
      ->capture_default_str();
  open_cmd->add_option("--tree", open_text.tree,
                       "Open the regular files under this existing directory instead");
  open_cmd->add_option("--list", open_text.list,
                       "Open the paths listed in this file (one per line) instead");
  open_cmd->add_flag("--list0", open_text.list0, "The --list file is NUL-separated");
  open_cmd->add_option("--flags", open_text.flags, "Open mode: " + join(open_flags_names()))
      ->capture_default_str();
  open_cmd->add_flag("--keep-open", open_text.keep_open,
                     "Hold every descriptor until the repetition ends");
  open_cmd->add_option("--pregrow", open_text.pregrow,
                       "With --keep-open: comma list of off, auto or N (grow the fd table first)")
      ->capture_default_str();
  add_common(*open_cmd, open_common);
  open_cmd->footer(kOpenFooter);

  CLI::App* socket_cmd =
      app.add_subcommand("socket", "T threads each create and hold N descriptors");
  SocketText socket_text;
  CommonText socket_common;
  socket_cmd->add_option("--strategy", socket_text.strategy,
                         "Strategies, a comma list of " + join(strategy_names()) + ", or all")
      ->capture_default_str();
  socket_cmd->add_option("--batch", socket_text.batch, "Descriptors per io_uring submission")
      ->capture_default_str();
  socket_cmd->add_option("--threads", socket_text.threads,
                         "Thread counts, a comma list; 2 = the main thread plus one")
      ->capture_default_str();
  socket_cmd->add_option("--per-thread", socket_text.per_thread,
                         "Creation calls each thread makes (descriptors, or pipes)")
      ->capture_default_str();
  socket_cmd->add_option("--kind", socket_text.kind,
                         "Descriptor kind: " + join(socket_kind_names()) +
                             " (a pipe call makes two descriptors)")
      ->capture_default_str();
  socket_cmd->add_option("--pregrow", socket_text.pregrow,
                         "Comma list of off, auto or N: grow the fd table first")
      ->capture_default_str();
  add_common(*socket_cmd, socket_common);
  socket_cmd->footer(kSocketFooter);

  CLI::App* strategies_cmd =
      app.add_subcommand("strategies", "List every strategy and whether it can run here");
  strategies_cmd->footer("\nExample:\n  fdbench strategies");

  CLI::App* clean_cmd = app.add_subcommand(
      "clean", "Remove private directories left behind by a killed fdbench (after SIGKILL)");
  std::string clean_dir;
  clean_cmd->add_option("--dir", clean_dir, "Where to look (default $TMPDIR or /tmp)");
  clean_cmd->footer(
      "\nOnly directories named fdbench-XXXXXX that hold fdbench's marker file are touched,\n"
      "and inside them only the names fdbench creates; anything else is left and reported.\n\n"
      "Example:\n  fdbench clean --dir /mnt/scratch");

  // Say what each value is in --help, instead of CLI11's generic TEXT.
  static const std::map<std::string, std::string> kTypeNames = {
      {"--files", "N"},       {"--threads", "LIST"}, {"--strategy", "LIST"},  {"--batch", "N"},
      {"--dir", "DIR"},       {"--layout", "LAYOUT"}, {"--tree", "DIR"},      {"--list", "FILE"},
      {"--flags", "MODE"},    {"--pregrow", "LIST"}, {"--repeat", "N"},       {"--warmup", "N"},
      {"--format", "FORMAT"}, {"--output", "FILE"},  {"--per-thread", "N"},   {"--kind", "KIND"},
  };
  for (CLI::App* each : {&app, open_cmd, socket_cmd, clean_cmd}) {
    for (CLI::Option* option : each->get_options()) {
      if (const auto it = kTypeNames.find(option->get_name()); it != kTypeNames.end()) {
        option->type_name(it->second);
      }
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return {std::nullopt, app.exit(e, out, err)};
  } catch (const CLI::CallForAllHelp& e) {
    return {std::nullopt, app.exit(e, out, err)};
  } catch (const CLI::CallForVersion& e) {
    return {std::nullopt, app.exit(e, out, err)};
  } catch (const CLI::ParseError& e) {
    // One line, like every other error: scripts and people read the first line only.
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    err << "Error: " << what << " (run 'fdbench --help' for usage)\n";
    return {std::nullopt, 2};
  }

  Command command;
  try {
    if (strategies_cmd->parsed()) {
      command.kind = Command::Kind::strategies;
      return {command, 0};
    }
    if (clean_cmd->parsed()) {
      command.kind = Command::Kind::clean;
      command.clean_dir = clean_dir.empty() ? default_dir() : clean_dir;
      check_directory("--dir", command.clean_dir, true);
      return {command, 0};
    }
    if (open_cmd->parsed() || socket_cmd->parsed()) {
      for (const auto* option : app.get_options()) {
        if (option->count() > 0 && option->get_name() != "--help" &&
            option->get_name() != "--version") {
          throw UsageError(fmt::format("{} goes after the subcommand (fdbench {} {} ...)",
                                       option->get_name(),
                                       open_cmd->parsed() ? "open" : "socket",
                                       option->get_name()));
        }
      }
    }
    if (open_cmd->parsed()) {
      command.kind = Command::Kind::open;
      apply_open(open_text, command.open);
      apply_common(open_common, command.open.repeat, command.open.warmup, command);
    } else if (socket_cmd->parsed()) {
      command.kind = Command::Kind::socket;
      apply_socket(socket_text, command.socket);
      apply_common(socket_common, command.socket.repeat, command.socket.warmup, command);
    } else {
      command.kind = Command::Kind::suite;
      OpenText defaults;
      defaults.dir = suite_dir;
      apply_open(defaults, command.open);
      apply_common(suite_common, command.open.repeat, command.open.warmup, command);
      command.socket.repeat = command.open.repeat;
      command.socket.warmup = command.open.warmup;
      // The seed's two threads, then the two ways around the shared table.
      command.socket.strategies = {"threads", "process", "uring-direct"};
    }
  } catch (const UsageError& e) {
    err << "Error: " << e.what() << "\n";
    return {std::nullopt, 2};
  }
  return {command, 0};
}

int list_strategies(std::ostream& out) {
  std::size_t width = 0;
  for (const auto& info : strategy_registry()) width = std::max(width, info.name.size());
  for (const auto& info : strategy_registry()) {
    const std::string reason = info.unavailable_reason();
    out << fmt::format("{:<{}}  {:<11}  {}\n", info.name, width,
                       reason.empty() ? "available" : "unavailable", info.summary);
    if (!reason.empty()) out << fmt::format("{:<{}}  {}\n", "", width + 13, reason);
  }
  return 0;
}

int clean(const std::string& dir, std::ostream& out, std::ostream& err) {
  try {
    const auto report = FileSet::clean_leftovers(dir);
    for (const auto& path : report.removed) out << "removed " << path << "\n";
    for (const auto& why : report.kept) out << "left " << why << "\n";
    if (report.removed.empty() && report.kept.empty()) {
      out << "nothing to clean in " << dir << "\n";
    }
    return 0;
  } catch (const Error& e) {
    err << "Error: " << e.what() << "\n";
    return 1;
  }
}

int run(const Command& command, std::ostream& out, std::ostream& err) {
  if (command.kind == Command::Kind::strategies) return list_strategies(out);
  if (command.kind == Command::Kind::clean) return clean(command.clean_dir, out, err);
  std::ostringstream buffer;
  std::ostream& sink = command.output.empty() ? out : buffer;
  std::vector<std::unique_ptr<Reporter>> reporters;
  reporters.push_back(make_reporter(command.format, sink));
  FDBENCH_ASSERT(reporters.back() != nullptr);
  const std::string dir = command.open.dir.empty() ? default_dir() : command.open.dir;
  Session session(capture_environment(dir), std::move(reporters));

  int code = 0;
  try {
    if (command.kind == Command::Kind::suite || command.kind == Command::Kind::open) {
      session.run_open(command.open);
    }
    if (command.kind == Command::Kind::suite || command.kind == Command::Kind::socket) {
      session.run_socket(command.socket);
    }
    session.finish(true);
  } catch (const Interrupted& e) {
    session.finish(false);
    err << fmt::format("fdbench: interrupted by signal {}; {} finished result{} kept\n",
                       e.signal(), session.results().size(),
                       session.results().size() == 1 ? "" : "s");
    code = 128 + e.signal();
  } catch (const Error& e) {
    session.finish(false);
    err << "Error: " << e.what() << "\n";
    code = 1;
  }
  if (!command.output.empty()) {
    try {
      write_file_atomically(command.output, buffer.str());
      err << fmt::format("fdbench: wrote {} ({} result{})\n", command.output,
                         session.results().size(), session.results().size() == 1 ? "" : "s");
    } catch (const Error& e) {
      err << "Error: " << e.what() << "\n";
      code = code == 0 ? 1 : code;
    }
  }
  out.flush();
  if (!out) {
    err << "Error: cannot write to standard output\n";
    code = code == 0 ? 1 : code;
  }
  return code;
}

}  // namespace fdbench::cli
