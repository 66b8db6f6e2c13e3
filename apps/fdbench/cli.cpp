// argv -> Command. CLI11 binds each flag to text; one function per subcommand then turns that
// text into validated options, so that every message names its flag.
#include "cli.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <variant>

#include "analysis/compare.hpp"
#include "completion.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "fdbench/version.hpp"
#include "inputs/examined_files.hpp"
#include "inputs/file_set.hpp"
#include "inputs/input_files.hpp"
#include "model/format.hpp"
#include "output/atomic_file.hpp"
#include "output/reporter.hpp"
#include "parse_error.hpp"
#include "platform/platform.hpp"
#include "run/runnable.hpp"

namespace fdbench::cli {

namespace {

// A value its option does not take (not a number, out of range, not one of its words): what
// the command's --help answers, so its line points there.
class BadValue : public UsageError {
 public:
  using UsageError::UsageError;
};

constexpr long long kMaxFiles = 10'000'000;
constexpr long long kMaxPerThread = 1'000'000;
constexpr long long kMaxPregrowFd = 1 << 20;  // Linux's default fs.nr_open
// --timeout for --tree and --list when none is given: the user's files may be on a network or
// FUSE mount that stops answering, and a minute is far beyond any repetition that is working.
constexpr double kDefaultTreeTimeout = 60;
constexpr double kMaxTimeout = 7 * 24 * 3600;

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

long long parse_number(std::string_view flag, std::string_view text, long long min, long long max) {
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range ||
      (ec == std::errc{} && end == text.data() + text.size() && (value < min || value > max))) {
    throw BadValue(fmt::format("{}: {} is out of range (allowed: {} to {})", flag, text, min, max));
  }
  if (ec != std::errc{} || end != text.data() + text.size()) {
    throw BadValue(fmt::format("{}: '{}' is not a whole number", flag, text));
  }
  return value;
}

std::vector<std::string> split_list(std::string_view flag, const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    if (item.empty()) throw BadValue(fmt::format("{}: empty item in '{}'", flag, text));
    if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
  }
  if (items.empty() || text.back() == ',') {
    throw BadValue(fmt::format("{}: expected a comma-separated list, got '{}'", flag, text));
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
    throw UsageError(fmt::format("{} {}: {}: create it or name another directory{}", flag, dir,
                                 errno_text(errno), flag == "TMPDIR" ? " with --dir" : ""));
  }
  if (!S_ISDIR(info.st_mode)) {
    throw UsageError(fmt::format("{} {}: not a directory: name a directory{}", flag, dir,
                                 flag == "TMPDIR" ? " with --dir" : ""));
  }
  if (writable && access(dir.c_str(), W_OK | X_OK) != 0) {
    throw UsageError(fmt::format("{} {}: not writable ({}); choose a writable directory{}", flag,
                                 dir, errno_text(errno), flag == "TMPDIR" ? " with --dir" : ""));
  }
}

// What the directory a command works in is called in its messages: --dir where it was given,
// else TMPDIR (whose default is /tmp), which the user may never have thought of as an option.
std::string dir_flag(const std::string& given) {
  return given.empty() ? "TMPDIR" : "--dir";
}
std::string dir_or_default(const std::string& given) {
  return given.empty() ? default_dir() : given;
}

// A file fdbench will write (--output, --export-*): its directory must take it, the directory
// of the file a symlink leads to where it is one.
void check_output(std::string_view flag, const std::string& output) {
  if (output.empty()) return;
  if (output_streams(output)) return;  // a device, FIFO or terminal, written in place
  std::string target;
  try {
    target = follow_symlinks(output);
  } catch (const Error& e) {
    throw UsageError(fmt::format("{} {}: {}", flag, output, e.what()));
  }
  const auto slash = target.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : target.substr(0, slash + 1);
  check_directory(fmt::format("{}: directory", flag), dir, true);
  struct stat info {};
  if (stat(output.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    throw UsageError(fmt::format("{} {}: is a directory; name a file", flag, output));
  }
  if (const std::string why = output_refusal(output); !why.empty()) {
    throw UsageError(fmt::format("{} {}: {}", flag, output, why));
  }
}

// --export-FORMAT FILE, one line per format, as hyperfine lists its exporters: a new export is
// a line here and its reporter in the registry.
struct ExportFlag {
  const char* flag;
  const char* format;
};
constexpr ExportFlag kExportFlags[] = {
    {"--export-json", "json"},
    {"--export-csv", "csv"},
    {"--export-markdown", "markdown"},
    {"--export-html", "html"},
};

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

// Flags as text, validated after parsing so that every message names its flag. Every default
// is the options struct's own (OpenOptions, SocketOptions, TuneOptions), written as its flag
// takes it; a word stands for an empty list where it means "every" or "none" ("all", "keep").
struct CommonText {
  std::string repeat = "auto";  // OpenOptions::repeat's default
  std::string precision;        // empty: Repeat's default, and not given
  std::string max_time;         // empty: Repeat's default, and not given
  std::string warmup = std::to_string(OpenOptions{}.warmup);
  std::string format = Command{}.format;
  std::string output;
  std::map<std::string, std::string> exports;  // flag -> FILE
  bool quiet = false;
  bool latency = false;
  bool no_latency = false;
  bool kernel_trace = false;
  std::string rcu_expedited = "keep";  // OpenOptions::rcu_expedited empty: kept as it is
  std::string order = std::string(to_string(OpenOptions{}.order));
  std::string harness = std::string(to_string(OpenOptions{}.harness.front()));
  std::string trace_out;
  std::string timeout;  // empty: none for private sets, kDefaultTreeTimeout for --tree, --list
};

struct OpenText {
  std::string files = std::to_string(*OpenOptions{}.files);
  std::string threads = flag_list(OpenOptions{}.threads);
  std::string strategy = "all";  // OpenOptions::strategies empty: every one
  std::string batch = std::to_string(OpenOptions{}.batch);
  std::string dir;
  std::string layout = layout_name(*OpenOptions{}.subdirs);
  std::string keep_files;
  std::string reuse_files;
  std::string tree;
  bool cross_mounts = false;
  bool allow_pseudo_fs = false;
  std::string list;
  bool list0 = false;
  std::string flags = std::string(to_string(OpenOptions{}.flags));
  std::string paths = std::string(to_string(OpenOptions{}.paths));
  bool keep_open = false;
  std::string pregrow = flag_list(OpenOptions{}.pregrow);
  std::string uring_tuning = uring_tuning_name(OpenOptions{}.uring);
  std::string uring_close = to_string(OpenOptions{}.uring.close);
};

struct SocketText {
  std::string strategy = flag_list(SocketOptions{}.strategies);
  std::string threads = flag_list(SocketOptions{}.threads);
  std::string per_thread = std::to_string(SocketOptions{}.per_thread);
  std::string kind = std::string(to_string(SocketOptions{}.kind));
  std::string pregrow = flag_list(SocketOptions{}.pregrow);
  std::string batch = std::to_string(SocketOptions{}.batch);
  std::string uring_tuning = uring_tuning_name(SocketOptions{}.uring);
};

struct TuneText {
  OpenText open;
  std::string strategy;
  std::string budget = fmt::format("{}", TuneOptions{}.budget_seconds);
  std::string precision;  // empty: TuneOptions' default
  std::string save;
  std::string format = Command{}.format;
  std::string timeout;  // empty: none for a private set, kDefaultTreeTimeout for --tree, --list
  bool quiet = false;
  bool allow_process = false;
  bool allow_direct = false;
  bool kernel_trace = false;
};

struct CompareText {
  std::vector<std::string> files;
  bool references = false;
  std::string format = Command{}.format;
};

// Everything the command line can say, bound to CLI11 options, with the subcommands.
struct Texts {
  CommonText suite;
  std::string suite_dir;
  OpenText open;
  CommonText open_common;
  SocketText socket;
  CommonText socket_common;
  std::string clean_dir;
  std::vector<std::string> clean_sets;
  std::string env_dir;
  std::string env_format = Command{}.format;
  CompareText compare;
  TuneText tune;
  std::string shell;  // completion
  std::vector<std::string> report_files;
  std::string report_output;
};

struct Subcommands {
  CLI::App* open = nullptr;
  CLI::App* socket = nullptr;
  CLI::App* strategies = nullptr;
  CLI::App* clean = nullptr;
  CLI::App* env = nullptr;
  CLI::App* compare = nullptr;
  CLI::App* completion = nullptr;
  CLI::App* report = nullptr;
  CLI::App* tune = nullptr;
};

// One option of a command: the one definition the parser, --help, the bash completion (and
// through --help the man-page test) are made from. A command is a table of these.
struct OptionSpec {
  std::string names;  // "--files"; "-o,--output"; a positional's name ("files")
  std::string value;  // what --help calls its value ("N", "LIST", "FILE"); "" for a flag
  std::string help;
  std::variant<std::string*, bool*, std::vector<std::string>*> bound;
  ValueHint hint{};           // what a completion offers after it
  bool show_default = false;  // --help shows the bound text's default
  bool required = false;
};
using OptionTable = std::vector<OptionSpec>;
// Each option's completion hint, by the option CLI11 made of its row.
using OptionHints = std::map<const CLI::Option*, ValueHint>;

ValueHint choices(std::vector<std::string> words, bool comma_list = false) {
  return {std::move(words), comma_list};
}
const ValueHint kDirectories{{}, false, ValueHint::Paths::directories};
const ValueHint kFiles{{}, false, ValueHint::Paths::files};

// An option given "" is refused: CLI11 leaves the bound text as when it was not given, so
// --timeout "" or --export-json "" would silently mean the default.
const CLI::Validator kNotEmpty(
    [](const std::string& value) {
      return value.empty() ? std::string("an empty value: give one, or leave the option out")
                           : std::string();
    },
    "");

void add_options(CLI::App& cmd, const OptionTable& table, OptionHints& hints) {
  for (const OptionSpec& row : table) {
    CLI::Option* option = nullptr;
    if (auto* const* flag = std::get_if<bool*>(&row.bound)) {
      option = cmd.add_flag(row.names, **flag, row.help);
    } else if (auto* const* text = std::get_if<std::string*>(&row.bound)) {
      option = cmd.add_option(row.names, **text, row.help);
    } else {
      option = cmd.add_option(row.names, *std::get<std::vector<std::string>*>(row.bound), row.help);
    }
    if (!row.value.empty()) option->type_name(row.value);
    if (!row.value.empty()) option->check(kNotEmpty);
    if (row.show_default) option->capture_default_str();
    if (row.required) option->required();
    hints[option] = row.hint;
  }
}

std::vector<std::string> parse_strategies(const std::string& text) {
  if (text == "all") return strategy_names();
  std::vector<std::string> names;
  for (const auto& name : split_list("--strategy", text)) {
    if (find_strategy(name) == nullptr) {
      throw BadValue(fmt::format("--strategy: unknown strategy '{}' (choose from {}, or all)", name,
                                 join(strategy_names())));
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
      throw BadValue(fmt::format("--pregrow: '{}' is not off, auto or a descriptor number", item));
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
  throw BadValue(fmt::format("--layout: '{}' is not flat or dirs:K", text));
}

void check_choice(std::string_view flag, const std::string& value,
                  const std::vector<std::string>& choices) {
  if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
    throw BadValue(
        fmt::format("{}: unknown format '{}' (choose from {})", flag, value, join(choices)));
  }
}

// The output formats a command writes ("fdbench" for the default suite).
std::vector<std::string> formats_of(std::string_view command) {
  if (command == "env") return {"table", "json"};
  if (command == "compare") return compare_formats();
  if (command == "tune") return {"table", "json"};
  return reporter_names();
}

// The options every measuring command has (the default suite's, open's, socket's).
OptionTable common_options(CommonText& text, std::string_view command) {
  OptionTable table{
      {"--repeat", "N|auto",
       "Timed repetitions of each result; the median is reported. auto: repeat until the "
       "median's 95% interval is within --precision of it, or --max-time is spent",
       &text.repeat, choices({"auto", "10"}), true},
      {"--precision", "PERCENT",
       fmt::format("With --repeat auto: the 95% interval of each median within ±PERCENT of it "
                   "(default {:g})",
                   Repeat{}.precision * 100),
       &text.precision},
      {"--max-time", "SECONDS",
       fmt::format("With --repeat auto: the most time one result may take, its warm-ups "
                   "included (default {:g})",
                   Repeat{}.max_time_s),
       &text.max_time},
      {"--warmup", "N", "Untimed repetitions before them", &text.warmup, {}, true},
      {"--format", "FORMAT", "Output format: " + join(formats_of(command)), &text.format,
       choices(formats_of(command)), true},
      {"--output", "FILE",
       "Write the output to FILE instead of stdout (atomically: all or nothing)", &text.output,
       kFiles},
      {"--latency", "",
       "Time every call: percentiles, table-growth events and stalls with their causes "
       "(on by default for socket and --keep-open)",
       &text.latency},
      {"--no-latency", "", "Do not time each call", &text.no_latency},
      {"--kernel-trace", "",
       "Linux, root or CAP_PERFMON: where the measuring threads were off their CPU while "
       "timed, by cause, from the kernel's call chain at each switch (perf events)",
       &text.kernel_trace},
      {"--trace-out", "FILE",
       "With --latency (implied): every timed call as a CSV row in FILE, written after the run, "
       "atomically",
       &text.trace_out, kFiles},
      {"--rcu-expedited", "LIST",
       "Linux, root: keep, or set /sys/kernel/rcu_expedited to 0, 1 or each of 0,1 for the "
       "results that ask (system-wide while they run; restored after)",
       &text.rcu_expedited, choices({"keep", "0", "1", "0,1"}), true},
      {"--order", "ORDER",
       "interleaved: the results' repetitions in turn, so drift hits all alike; sequential: each "
       "result's repetitions back to back",
       &text.order, choices({"interleaved", "sequential"}), true},
      {"--harness", "LIST",
       "minimal: only the calls on the clock; published: the seeds' own programs' harness "
       "(threads created inside the clock; open: std::ifstream and a std::string per file, "
       "tmp/N.txt as the first seed names it), threads and pool only; minimal,published: both",
       &text.harness, choices({"minimal", "published", "minimal,published"}), true},
      {"--timeout", "SECONDS",
       "Seconds a repetition may take before it is abandoned as hung (a dead NFS or FUSE "
       "mount): the run stops, exit 1, naming the file; plain decimal seconds (60, 0.5; at "
       "least 0.000000001, the clock's resolution: less is refused), or none for no limit "
       "(default: none, 60 with --tree or --list)",
       &text.timeout, choices({"none", "60"})},
      {"--quiet", "", "No progress line on stderr (shown only when stderr is a terminal)",
       &text.quiet},
  };
  for (const auto& [flag, format] : kExportFlags) {
    table.push_back({flag, "FILE",
                     fmt::format("Also keep the {} output in FILE, rewritten after every result "
                                 "(an interrupted run keeps what it measured)",
                                 format),
                     &text.exports[flag], kFiles});
  }
  return table;
}

// Every --export-FORMAT given, each to a file of its own.
std::vector<Export> apply_exports(const CommonText& text) {
  std::vector<Export> exports;
  for (const auto& [flag, format] : kExportFlags) {
    const std::string& path = text.exports.at(flag);
    if (path.empty()) continue;
    check_output(flag, path);
    std::string taken_by = !text.output.empty() && same_output(path, text.output) ? "--output" : "";
    for (const auto& other : exports) {
      if (same_output(other.path, path)) taken_by = other.flag;
    }
    if (!taken_by.empty()) {
      throw UsageError(
          fmt::format("{} {}: {} writes that file too; name another file", flag, path, taken_by));
    }
    exports.push_back({flag, format, path});
  }
  return exports;
}

// Every output a command writes, with the flag that asks for it.
std::vector<std::pair<std::string, std::string>> outputs_of(const Command& command) {
  std::vector<std::pair<std::string, std::string>> outputs;
  if (!command.output.empty()) outputs.emplace_back("--output", command.output);
  for (const auto& e : command.exports) outputs.emplace_back(e.flag, e.path);
  if (!command.trace_out.empty()) outputs.emplace_back("--trace-out", command.trace_out);
  if (!command.save.empty()) outputs.emplace_back("--save", command.save);
  return outputs;
}

// An output that is a file the command reads would replace it (issue 39 item 3: report -o over
// its input, --export-csv over the --list): refused, naming both. `what` names the input.
void refuse_output_over_input(const Command& command, const std::string& what,
                              const std::string& input) {
  if (input.empty()) return;
  for (const auto& [flag, path] : outputs_of(command)) {
    if (same_output(path, input)) {
      throw UsageError(
          fmt::format("{} {}: it is {}, which fdbench reads; name another file", flag, path, what));
    }
  }
}

// --rcu-expedited keep|0|1|0,1: the values to set in turn (none for keep), refused up front
// where they cannot be set.
// --harness: minimal, published, or both in the order given (a repeated one counts once, as in
// every list).
std::vector<Harness> parse_harness_list(const std::string& text) {
  std::vector<Harness> harnesses;
  for (const auto& item : split_list("--harness", text)) {
    Harness harness{};
    if (!parse_harness(item, harness)) {
      throw BadValue(fmt::format(
          "--harness: unknown value '{}' (choose from minimal, published, minimal,published)",
          item));
    }
    harnesses.push_back(harness);
  }
  return harnesses;
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

std::vector<int> parse_rcu_expedited(const std::string& text) {
  if (text == "keep") return {};
  std::vector<int> values;
  for (const auto& item : split_list("--rcu-expedited", text)) {
    if (item != "0" && item != "1") {
      throw BadValue(fmt::format(
          "--rcu-expedited: '{}' is not keep, 0, 1 or a list of them such as 0,1", item));
    }
    values.push_back(item == "1" ? 1 : 0);
  }
  if (const std::string why = platform::rcu_expedited_unsettable(); !why.empty()) {
    throw UsageError(fmt::format("--rcu-expedited {}: {}", text, why));
  }
  return values;
}

// --latency or --no-latency, or `otherwise` when neither is given; --trace-out needs it.
bool latency_of(const CommonText& text, bool otherwise) {
  if (text.latency && text.no_latency) {
    throw UsageError("--latency and --no-latency: give one of them");
  }
  if (!text.trace_out.empty() && text.no_latency) {
    throw UsageError("--trace-out writes the calls --latency times: drop --no-latency");
  }
  return text.latency || !text.trace_out.empty() || (otherwise && !text.no_latency);
}

// "60", "0.5": digits with at most one point between digits. No sign, exponent, hex or
// infinity: strtod takes "0x10" and "1e-300", which nobody means as a number of seconds.
bool plain_decimal(const std::string& text) {
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  const std::size_t point = text.find('.');
  const std::string_view whole = std::string_view(text).substr(0, point);
  const std::string_view part =
      point == std::string::npos ? std::string_view("0") : std::string_view(text).substr(point + 1);
  return !whole.empty() && !part.empty() && std::all_of(whole.begin(), whole.end(), digit) &&
         std::all_of(part.begin(), part.end(), digit);
}

// --timeout SECONDS|none: 0 for none (a 0 given is refused). Given nothing, `existing` (the user's
// files, which may be on a mount that stops answering) gets kDefaultTreeTimeout, a private set
// none. Given "" (CLI11 leaves the text as when not given), refused by add_options.
double parse_timeout(const std::string& text, bool existing) {
  if (text.empty()) return existing ? kDefaultTreeTimeout : 0;
  if (text == "none") return 0;
  if (!plain_decimal(text)) {
    throw BadValue(fmt::format(
        "--timeout: '{}' is not a number of seconds in plain decimals (such as 60 or 0.5) or none",
        text));
  }
  const double seconds = std::strtod(text.c_str(), nullptr);
  if (seconds > kMaxTimeout) {
    throw BadValue(fmt::format("--timeout: {} is out of range (allowed: up to {} seconds, or none)",
                               text, kMaxTimeout));
  }
  // 0 once meant "no limit" silently; a limit of nothing is not one, so no limit is said so.
  if (seconds == 0) {
    throw BadValue(fmt::format(
        "--timeout: {} is no limit at all; for no limit say --timeout none, else give seconds "
        "above 0",
        text));
  }
  // The limit is kept in whole nanoseconds; less would be 0 there, which is no limit at all.
  if (std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(seconds))
          .count() == 0) {
    throw BadValue(fmt::format(
        "--timeout: {} is below the clock's resolution of 1 ns: give at least 0.000000001 "
        "seconds, or none",
        text));
  }
  return seconds;
}

// A positive number in [min, max] ("3", "0.5"), with an optional `suffix` ("%").
double parse_decimal(std::string_view flag, std::string text, std::string_view unit, double min,
                     double max, std::string_view suffix = {}) {
  if (!suffix.empty() && text.ends_with(suffix)) text.resize(text.size() - suffix.size());
  // strtod, not from_chars: libc++ on macOS has no floating-point from_chars.
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() ||
      !std::isdigit(static_cast<unsigned char>(text[0])) || !std::isfinite(value)) {
    throw BadValue(fmt::format("{}: '{}' is not a number of {}", flag, text, unit));
  }
  if (value < min || value > max) {
    throw BadValue(fmt::format("{}: {} is out of range (allowed: {:g} to {:g} {})", flag, text, min,
                               max, unit));
  }
  return value;
}

// --precision PERCENT (open, socket, tune), as a share of the median.
double parse_precision(const std::string& text) {
  return parse_decimal("--precision", text, "percent", 0.1, 50, "%") / 100;
}

// --repeat N|auto, with --precision and --max-time for auto.
Repeat parse_repeat(const CommonText& text) {
  Repeat repeat;
  if (text.repeat != "auto") {
    repeat.count = static_cast<int>(parse_number("--repeat", text.repeat, 1, 100000));
    for (const auto& [flag, given] :
         {std::pair{"--precision", &text.precision}, std::pair{"--max-time", &text.max_time}}) {
      if (!given->empty()) {
        throw UsageError(fmt::format("{} applies to --repeat auto, not to --repeat {}: drop one",
                                     flag, text.repeat));
      }
    }
    return repeat;
  }
  if (!text.precision.empty()) {
    repeat.precision = parse_precision(text.precision);
  }
  if (!text.max_time.empty()) {
    repeat.max_time_s = parse_decimal("--max-time", text.max_time, "seconds", 0.001, 86400);
  }
  return repeat;
}

void apply_common(const CommonText& text, Repeat& repeat, int& warmup, Command& command) {
  repeat = parse_repeat(text);
  warmup = static_cast<int>(parse_number("--warmup", text.warmup, 0, 100000));
  check_choice("--format", text.format, formats_of("open"));
  command.format = text.format;
  check_output("--output", text.output);
  command.output = text.output;
  command.exports = apply_exports(text);
  check_output("--trace-out", text.trace_out);
  if (!text.trace_out.empty()) {
    for (const auto& e : command.exports) {
      if (same_output(e.path, text.trace_out)) {
        throw UsageError(fmt::format("--trace-out {}: {} writes that file too; name another file",
                                     text.trace_out, e.flag));
      }
    }
    if (!text.output.empty() && same_output(text.trace_out, text.output)) {
      throw UsageError(fmt::format(
          "--trace-out {}: --output writes that file too; name another file", text.trace_out));
    }
  }
  command.trace_out = text.trace_out;
  command.quiet = text.quiet;
  const auto rcu = parse_rcu_expedited(text.rcu_expedited);
  command.open.rcu_expedited = rcu;
  command.socket.rcu_expedited = rcu;
  Order order{};
  if (!parse_order(text.order, order)) {
    throw BadValue(fmt::format("--order: unknown value '{}' (choose from interleaved, sequential)",
                               text.order));
  }
  command.open.order = order;
  command.socket.order = order;
  command.open.harness = command.socket.harness = parse_harness_list(text.harness);
  command.open.timeout_s =
      parse_timeout(text.timeout, !command.open.tree.empty() || !command.open.list.empty());
  command.socket.timeout_s = parse_timeout(text.timeout, false);
}

// A list file separated otherwise than --list0 says, refused before the run starts. A pipe
// is read once, by the run: read_list() refuses it there.
void check_list_separator(const std::string& list, bool list0) {
  std::ifstream in(list, std::ios::binary);
  std::string head(2 * PATH_MAX, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (auto why = list_separator_mistake(list, head, list0); !why.empty()) throw UsageError(why);
}

// The user's files instead of a generated set: --tree or --list.
void apply_open_input(const OpenText& text, OpenOptions& open) {
  if (!text.tree.empty() && !text.list.empty()) {
    throw UsageError("--tree and --list: choose one input");
  }
  if (text.list0 && text.list.empty()) throw UsageError("--list0 needs --list FILE");
  for (const auto& [given, flag] :
       {std::pair{text.cross_mounts, "--cross-mounts"},
        std::pair{text.allow_pseudo_fs && text.list.empty(), "--allow-pseudo-fs"}}) {
    if (given && text.tree.empty()) {
      throw UsageError(
          fmt::format("{} needs --tree DIR{}", flag, text.cross_mounts ? "" : " or --list FILE"));
    }
  }
  open.tree = text.tree;
  open.cross_mounts = text.cross_mounts;
  open.allow_pseudo_fs = text.allow_pseudo_fs;
  open.list = text.list;
  open.list0 = text.list0;
  const bool existing = !open.tree.empty() || !open.list.empty();
  if (existing && open.flags == OpenFlags::rdwr) {
    throw UsageError(
        "--flags rdwr works only on fdbench's own files: --tree and --list "
        "inputs are never opened for writing");
  }
  open.dir = text.dir;  // empty: $TMPDIR or /tmp, named TMPDIR in messages (never passed --dir)
  const bool kept = !text.keep_files.empty() || !text.reuse_files.empty();
  if (!existing && !kept) check_directory(dir_flag(text.dir), dir_or_default(text.dir), true);
}

// The user's --tree directory or --list file, looked at here: whether it is there and of the
// kind it must be, and how a list file is separated.
void check_input_path(const OpenOptions& open) {
  if (!open.tree.empty()) check_directory("--tree", open.tree, false);
  if (!open.list.empty()) {
    struct stat info {};
    if (stat(open.list.c_str(), &info) != 0) {
      throw UsageError(fmt::format("--list {}: {}", open.list, errno_text(errno)));
    }
    if (S_ISDIR(info.st_mode)) {
      throw UsageError(fmt::format("--list {}: is a directory (did you mean --tree?)", open.list));
    }
    // Read from a file or a pipe (<(find ...)); a device is never opened (/dev/zero would
    // never end).
    if (!S_ISREG(info.st_mode) && !S_ISFIFO(info.st_mode)) {
      throw UsageError(fmt::format("--list {} is {}; --list reads a file of paths, or a pipe",
                                   open.list, platform::file_type_words(info.st_mode)));
    }
    if (S_ISREG(info.st_mode)) check_list_separator(open.list, open.list0);
  }
}

// check_input_path() as the run looks at the user's files: in a child process under
// --timeout's limit (examine_in_child), since on a mount whose server stopped answering stat()
// and open() wait where no signal reaches them, and this process could never exit. Throws
// UsageError for what check_input_path() refuses, TimedOut or Interrupted where it hangs.
void check_input_paths(const OpenOptions& open) {
  if (open.tree.empty() && open.list.empty()) return;
  examine_in_child(
      [&open] {
        check_input_path(open);
        return InputFiles{};
      },
      open.timeout_s, open.tree.empty() ? "--list " + open.list : "--tree " + open.tree);
}

// --files and --layout shape the set fdbench makes; with --tree or --list there is none, and
// a run that left them unused would look like one that used them.
void reject_set_options(const CLI::App& cmd, const OpenText& text) {
  if (text.tree.empty() && text.list.empty()) return;
  const std::string input = text.tree.empty() ? "--list" : "--tree";
  for (const char* flag : {"--files", "--layout"}) {
    if (cmd.get_option_no_throw(flag) != nullptr && cmd.count(flag) > 0) {
      throw UsageError(fmt::format(
          "{} and {}: {} is for the set of files fdbench makes, {} opens files that exist; "
          "drop {}",
          input, flag, flag, input, flag));
    }
  }
}

// The directory `path` is in ("." for a bare name), as the kernel resolves it.
std::string parent_of(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// --keep-files DIR or --reuse-files DIR: the generated set at a directory of its own that
// outlives the run, instead of a private one under --dir. What the set holds is checked when
// the run starts (exit 1); here only what the command line says (exit 2). With --reuse-files,
// `files_given` and `layout_given` say whether --files and --layout were named: the set's
// marker supplies what was not.
void apply_kept_set(const OpenText& text, bool files_given, bool layout_given, OpenOptions& open) {
  if (text.keep_files.empty() && text.reuse_files.empty()) return;
  if (!text.keep_files.empty() && !text.reuse_files.empty()) {
    throw UsageError("--keep-files and --reuse-files: give one (keep makes a set, reuse uses one)");
  }
  const bool keep = !text.keep_files.empty();
  const std::string flag = keep ? "--keep-files" : "--reuse-files";
  if (!text.tree.empty() || !text.list.empty()) {
    throw UsageError(fmt::format("{} and --{}: {} is for fdbench's own files, --{} opens yours",
                                 flag, text.tree.empty() ? "list" : "tree", flag,
                                 text.tree.empty() ? "list" : "tree"));
  }
  if (!text.dir.empty()) {
    throw UsageError(fmt::format("{} and --dir: {} DIR is the set's own directory; leave out --dir",
                                 flag, flag));
  }
  if (keep) {
    open.keep_files = text.keep_files;
    open.dir = parent_of(text.keep_files);  // the filesystem the environment describes
    check_directory(fmt::format("--keep-files {}: its parent", text.keep_files), open.dir, true);
    return;
  }
  struct stat info {};
  const int err = stat(text.reuse_files.c_str(), &info) != 0 ? errno
                  : S_ISDIR(info.st_mode)                    ? 0
                                                             : ENOTDIR;
  if (err != 0) {
    throw UsageError(fmt::format("--reuse-files {}: {}: name the DIR of a --keep-files run",
                                 text.reuse_files, errno_text(err)));
  }
  open.reuse_files = text.reuse_files;
  open.dir = text.reuse_files;
  if (!files_given) open.files.reset();     // the set's marker says
  if (!layout_given) open.subdirs.reset();  // the set's marker says
}

void apply_uring_tuning(const std::string& text, UringOptions& uring) {
  if (!parse_uring_tuning(text, uring)) {
    throw BadValue(fmt::format("--uring-tuning: unknown value '{}' (choose from {})", text,
                               join(uring_tuning_names())));
  }
}

void apply_open(const OpenText& text, OpenOptions& open) {
  open.files = static_cast<std::size_t>(parse_number("--files", text.files, 1, kMaxFiles));
  open.threads = parse_threads(text.threads);
  open.strategies = parse_strategies(text.strategy);
  open.batch = static_cast<int>(parse_number("--batch", text.batch, 1, kMaxFiles));
  open.subdirs = parse_layout(text.layout);
  if (!parse_open_flags(text.flags, open.flags)) {
    throw BadValue(fmt::format("--flags: unknown value '{}' (choose from {})", text.flags,
                               join(open_flags_names())));
  }
  if (!parse_path_mode(text.paths, open.paths)) {
    throw BadValue(fmt::format("--paths: unknown value '{}' (choose from {})", text.paths,
                               join(path_mode_names())));
  }
  open.keep_open = text.keep_open;
  apply_uring_tuning(text.uring_tuning, open.uring);
  if (!parse_uring_close(text.uring_close, open.uring.close)) {
    throw BadValue(fmt::format("--uring-close: unknown value '{}' (choose from {})",
                               text.uring_close, join(uring_close_names())));
  }
  open.pregrow = parse_pregrow_list(text.pregrow);
  if (!open.keep_open && (open.pregrow.size() != 1 || open.pregrow[0].mode != Pregrow::Mode::off)) {
    throw UsageError(
        "--pregrow needs --keep-open: open+close never holds more than a few "
        "descriptors, so the table does not grow");
  }
  apply_open_input(text, open);
}

void apply_socket(const SocketText& text, SocketOptions& socket) {
  socket.strategies = parse_strategies(text.strategy);
  socket.batch = static_cast<int>(parse_number("--batch", text.batch, 1, kMaxPerThread));
  socket.threads = parse_threads(text.threads);
  socket.per_thread =
      static_cast<std::size_t>(parse_number("--per-thread", text.per_thread, 1, kMaxPerThread));
  if (!parse_socket_kind(text.kind, socket.kind)) {
    throw BadValue(fmt::format("--kind: unknown kind '{}' (choose from {})", text.kind,
                               join(socket_kind_names())));
  }
  socket.pregrow = parse_pregrow_list(text.pregrow);
  apply_uring_tuning(text.uring_tuning, socket.uring);
}

constexpr const char* kOpenFooter = R"(
Every file is a distinct empty file in a private directory (removed afterwards), unless
--tree or --list names existing files: those are opened read-only (O_NOFOLLOW, O_NONBLOCK),
never written, and FIFOs, sockets, devices, symlinks and files without a read permission bit
are skipped, never opened. A --tree walk stays on DIR's filesystem (--cross-mounts to enter
others) and off proc, sysfs, tracefs and the kernel's other pseudo-filesystems, where opening
a file can change the kernel's state (--allow-pseudo-fs to walk them). Workers
and pools are created before the clock starts: thread creation is not timed. `libuv` is
libuv's thread pool with uv_fs_open/uv_fs_close, which is how Node.js opens files.
With --keep-open each repetition runs in a fresh child process (see `fdbench socket`).
--paths relative (the default) opens each file relative to its open directory,
openat(dirfd, "N.txt"); --paths absolute opens it by its full path from the root,
open("/dir/N.txt"), so the kernel walks every component each time. The first seed's program
does neither: it opens tmp/N.txt from the directory above its set, which is what --harness
published does. Full paths are built before the clock starts; a relative --tree or --dir and the
relative entries of a --list are resolved against the current directory, and absolute --list
entries stay absolute either way. `libuv` has no openat(): it always opens by full path, and
its result says so.

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

OptionSpec uring_tuning_option(std::string& text) {
  return {"--uring-tuning",
          "WHAT",
          "io_uring rings: all, flags (the best setup flags the kernel accepts), ring-fd (each "
          "thread registers its ring's descriptor) or none (kernel defaults)",
          &text,
          choices(uring_tuning_names()),
          true};
}

// --tree's walk stays on the tree's own filesystem and off the kernel's pseudo-filesystems
// unless these say otherwise (open and tune).
OptionSpec cross_mounts_option(bool& flag) {
  return {"--cross-mounts", "",
          "With --tree: descend into other filesystems mounted below DIR too (by default the "
          "walk stays on DIR's own)",
          &flag};
}
OptionSpec allow_pseudo_fs_option(bool& flag) {
  return {"--allow-pseudo-fs", "",
          "With --tree or --list: open proc, sysfs, tracefs, debugfs, securityfs, cgroup, configfs "
          "and bpf too, where opening a file can change the kernel's state (refused otherwise)",
          &flag};
}

// --strategy's completion: every strategy, or all.
ValueHint strategy_choices() {
  auto names = strategy_names();
  names.emplace_back("all");
  return choices(names, true);
}

const ValueHint kThreadCounts = choices({"1", "2", "4", "8", "16"}, true);
const ValueHint kPregrowSettings = choices({"off", "auto"}, true);
CLI::App* add_open_command(CLI::App& app, OpenText& text, CommonText& common, OptionHints& hints) {
  CLI::App* cmd = app.add_subcommand("open", "Open and close N distinct empty files");
  const OptionTable table{
      {"--files", "N", "Number of files", &text.files, {}, true},
      {"--threads", "LIST", "Thread counts, a comma list (1 to 1024)", &text.threads, kThreadCounts,
       true},
      {"--strategy", "LIST", "Strategies, a comma list of " + join(strategy_names()) + ", or all",
       &text.strategy, strategy_choices(), true},
      {"--batch",
       "N",
       "Files per task (pool-batch), per submission (uring) or in flight (libuv)",
       &text.batch,
       {},
       true},
      {"--dir", "DIR", "Where the private file set is created (default $TMPDIR or /tmp)", &text.dir,
       kDirectories},
      // dirs:K is a number the user picks
      {"--layout", "LAYOUT", "flat, or dirs:K to spread the files over K subdirectories",
       &text.layout, choices({"flat"}), true},
      {"--keep-files", "DIR",
       "Make the file set in this new directory (not under --dir) and leave it there for "
       "--reuse-files",
       &text.keep_files, kDirectories},
      {"--reuse-files", "DIR",
       "Use the set --keep-files left in this directory, checked, instead of making one "
       "(--files and --layout default to the set's)",
       &text.reuse_files, kDirectories},
      {"--tree", "DIR", "Open the regular files under this existing directory instead", &text.tree,
       kDirectories},
      cross_mounts_option(text.cross_mounts),
      allow_pseudo_fs_option(text.allow_pseudo_fs),
      {"--list", "FILE", "Open the paths listed in this file (one per line) instead", &text.list,
       kFiles},
      {"--list0", "", "The --list file is NUL-separated", &text.list0},
      {"--flags", "MODE", "Open mode: " + join(open_flags_names()), &text.flags,
       choices(open_flags_names()), true},
      {"--paths", "MODE",
       "Name files relative to their directory (openat) or absolute (open): " +
           join(path_mode_names()),
       &text.paths, choices(path_mode_names()), true},
      {"--keep-open", "", "Hold every descriptor until the repetition ends", &text.keep_open},
      {"--pregrow", "LIST",
       "With --keep-open: comma list of off, auto or N (grow the fd table first)", &text.pregrow,
       kPregrowSettings, true},
      uring_tuning_option(text.uring_tuning),
      {"--uring-close", "MODE",
       "uring-direct: batched (a submission of opens, then one of their closes) or linked (each "
       "close linked behind its open, one submission)",
       &text.uring_close, choices(uring_close_names()), true},
  };
  add_options(*cmd, table, hints);
  add_options(*cmd, common_options(common, "open"), hints);
  cmd->footer(kOpenFooter);
  return cmd;
}
CLI::App* add_socket_command(CLI::App& app, SocketText& text, CommonText& common,
                             OptionHints& hints) {
  CLI::App* cmd = app.add_subcommand("socket", "T threads each create and hold N descriptors");
  const OptionTable table{
      {"--strategy", "LIST", "Strategies, a comma list of " + join(strategy_names()) + ", or all",
       &text.strategy, strategy_choices(), true},
      {"--batch", "N", "Descriptors per io_uring submission", &text.batch, {}, true},
      {"--threads", "LIST", "Thread counts, a comma list; 2 = the main thread plus one",
       &text.threads, kThreadCounts, true},
      {"--per-thread",
       "N",
       "Creation calls each thread makes (descriptors, or pipes)",
       &text.per_thread,
       {},
       true},
      {"--kind", "KIND",
       "Descriptor kind: " + join(socket_kind_names()) + " (a pipe call makes two descriptors)",
       &text.kind, choices(socket_kind_names()), true},
      {"--pregrow", "LIST", "Comma list of off, auto or N: grow the fd table first", &text.pregrow,
       kPregrowSettings, true},
      uring_tuning_option(text.uring_tuning),
  };
  add_options(*cmd, table, hints);
  add_options(*cmd, common_options(common, "socket"), hints);
  cmd->footer(kSocketFooter);
  return cmd;
}
CLI::App* add_clean_command(CLI::App& app, Texts& texts, OptionHints& hints) {
  CLI::App* cmd = app.add_subcommand(
      "clean",
      "Remove private directories a killed fdbench left behind, or sets kept with --keep-files");
  add_options(
      *cmd,
      {{"sets", "DIR", "Kept sets to remove (the DIR of --keep-files); then --dir only if given",
        &texts.clean_sets, kDirectories},
       {"--dir", "DIR", "Where to look (default $TMPDIR or /tmp)", &texts.clean_dir, kDirectories}},
      hints);
  cmd->footer(
      "\nWith no SET, only directories under --dir named fdbench-XXXXXX that hold fdbench's\n"
      "marker file are touched, and inside them only the names fdbench creates; anything else\n"
      "is left and reported. A kept set is removed only when named, the same way: its marker\n"
      "and the names fdbench creates, nothing else (a set holding anything else, or in use by\n"
      "a running fdbench, is left, and the exit status is 1).\n\n"
      "Examples:\n  fdbench clean --dir /mnt/scratch\n  fdbench clean /mnt/scratch/set-10k");
  return cmd;
}
CLI::App* add_env_command(CLI::App& app, Texts& texts, OptionHints& hints) {
  CLI::App* cmd = app.add_subcommand("env", "Print what fdbench records about this machine");
  add_options(
      *cmd,
      {{"--dir", "DIR", "The directory whose filesystem is described (default $TMPDIR or /tmp)",
        &texts.env_dir, kDirectories},
       {"--format", "FORMAT", "Output format: " + join(formats_of("env")), &texts.env_format,
        choices(formats_of("env")), true}},
      hints);
  cmd->footer(
      "\nThe same capture every results file carries as its \"environment\".\n\n"
      "Examples:\n  fdbench env\n  fdbench env --dir /dev/shm --format json");
  return cmd;
}
constexpr const char* kCompareFooter = R"(
Results present in every file are set side by side: each file's median, its time ratio to
the first file (< 1: faster) with the ratio's min-max range, and a two-sided Mann-Whitney U
test on the repetition times (p < 0.05: a real difference; under 5 repetitions on a side,
too few to tell). Results only some files have are listed too. The environments come first,
with the fields that differ marked (kernel, CPU, filesystem, mitigations, rcu_expedited, ...).
--references sets each file against the figures the seed experiments published (an Apple
M2, a 64-core Linux server, Linux vs OpenBSD sockets): measured elsewhere, not a
controlled comparison.

Examples:
  fdbench open --export-json ext4.json --dir /tmp && fdbench open --export-json shm.json --dir /dev/shm
  fdbench compare ext4.json shm.json
  fdbench compare --references --format markdown ext4.json)";

CLI::App* add_compare_command(CLI::App& app, CompareText& text, OptionHints& hints) {
  CLI::App* cmd = app.add_subcommand(
      "compare", "Compare results files (--format json), or one against published figures");
  add_options(
      *cmd,
      {{"files", "FILE", "Results files; the first is the baseline", &text.files, kFiles},
       {"--references", "", "Also set each file against the figures the seed experiments published",
        &text.references},
       {"--format", "FORMAT", "Output format: " + join(formats_of("compare")), &text.format,
        choices(formats_of("compare")), true}},
      hints);
  cmd->footer(kCompareFooter);
  return cmd;
}
constexpr const char* kReportFooter = R"(
One HTML file that needs nothing else to be viewed (inline SVG, no script, no network): each
run's environment, findings and results, files/s against threads for every strategy with
min-max whiskers and the seed's loop as a reference line, pregrow off against auto for held
descriptors; for several files, the runs side by side with the compare table.
A run can write the same page for itself with --export-html FILE.

Examples:
  fdbench open --export-json ext4.json --export-html ext4.html
  fdbench report ext4.json shm.json -o report.html)";

CLI::App* add_report_command(CLI::App& app, Texts& texts, OptionHints& hints) {
  CLI::App* cmd = app.add_subcommand("report", "Write an HTML report of results files");
  add_options(*cmd,
              {{"files", "FILE", "Results files (--format json or --export-json)",
                &texts.report_files, kFiles},
               {"-o,--output", "FILE", "Write the report to FILE instead of stdout (atomically)",
                &texts.report_output, kFiles}},
              hints);
  cmd->footer(kReportFooter);
  return cmd;
}
constexpr const char* kTuneFooter = R"(
Sweeps every strategy a program can adopt that runs here (not `pool`, the seed's naive pool:
name it with --strategy to measure it as well), threads 1, 2, 4, ... up to twice the logical
CPUs, and batch sizes 16, 64 and 256 where a strategy batches. The combinations take turns,
a repetition each, so drift on a busy machine hits all alike, and each repeats until its
median's 95% interval is within --precision or its share of --budget is spent (6 repetitions
at least); one that is precise early leaves its turns to the others. Then the recommendation: the
fastest setting, the others within noise of it (their medians' 95% intervals overlap, or
there were too few repetitions for such intervals to tell them apart), the knee (the fewest threads within noise of the best), the descriptor-table advice (with
--keep-open: the pre-grow size, and whether the stall was seen without it) and what
RLIMIT_NOFILE must allow. A program reads the --save file with fdbench::load_recommendation.
The recommendation names only strategies whose descriptors land in the calling program's own
table (threads, the pools, libuv, uring): `process` and `uring-direct` are measured and shown,
and named among those not compared, unless --allow-process or --allow-direct lets them in.
Progress lines go to stderr only when it is a terminal (and not --quiet).

Examples:
  fdbench tune
  fdbench tune --tree ~/src/app --keep-open --budget 60
  fdbench tune --files 2000 --budget 5 --save ~/.config/myapp/fdbench.json)";

CLI::App* add_tune_command(CLI::App& app, TuneText& text, OptionHints& hints) {
  CLI::App* cmd = app.add_subcommand(
      "tune", "Find the fastest strategy, threads and batch for opening files here");
  const OptionTable table{
      {"--files", "N", "Number of files", &text.open.files, {}, true},
      {"--tree", "DIR", "Open the regular files under this existing directory instead",
       &text.open.tree, kDirectories},
      cross_mounts_option(text.open.cross_mounts),
      allow_pseudo_fs_option(text.open.allow_pseudo_fs),
      {"--list", "FILE", "Open the paths listed in this file (one per line) instead",
       &text.open.list, kFiles},
      {"--list0", "", "The --list file is NUL-separated", &text.open.list0},
      {"--keep-open", "",
       "Hold every descriptor until the repetition ends (advice on the fd table)",
       &text.open.keep_open},
      {"--allow-process", "",
       "May recommend process: its descriptors are made in worker processes, a table each, "
       "which a program calling fdbench cannot use (measured either way)",
       &text.allow_process},
      {"--allow-direct", "",
       "May recommend uring-direct: its descriptors live in the io_uring and are no "
       "descriptors a program can use elsewhere (measured either way)",
       &text.allow_direct},
      {"--budget", "SECONDS",
       "Seconds the sweep may take, shared by the combinations (6 repetitions of each at least)",
       &text.budget, choices({"5", "20", "60"}), true},
      {"--precision", "PERCENT",
       fmt::format("Each combination repeats until its median's 95% interval is within "
                   "±PERCENT of it, or its share of --budget is spent (default {:g})",
                   TuneOptions{}.precision * 100),
       &text.precision},
      {"--dir", "DIR", "Where the private file set is created (default $TMPDIR or /tmp)",
       &text.open.dir, kDirectories},
      {"--strategy", "LIST",
       "Also measure these strategies, a comma list of " + join(strategy_names()), &text.strategy,
       strategy_choices()},
      {"--save", "FILE",
       "Write the recommendation's JSON to FILE (atomically), for load_recommendation", &text.save,
       kFiles},
      {"--format", "FORMAT", "Output format: " + join(formats_of("tune")), &text.format,
       choices(formats_of("tune")), true},
      {"--timeout", "SECONDS",
       "Seconds a repetition may take before it is abandoned as hung (a dead NFS or FUSE "
       "mount): the sweep stops, exit 1, naming the file; plain decimal seconds (60, 0.5; at "
       "least 0.000000001, the clock's resolution: less is refused), or none for no limit "
       "(default: none, 60 with --tree or --list)",
       &text.timeout, choices({"none", "60"})},
      {"--kernel-trace", "",
       "Linux, root or CAP_PERFMON: where each combination's threads were off their CPU while "
       "timed, by cause, from the kernel's call chains (perf events)",
       &text.kernel_trace},
      {"--quiet", "", "No progress lines on stderr (shown only when stderr is a terminal)",
       &text.quiet},
  };
  add_options(*cmd, table, hints);
  cmd->footer(kTuneFooter);
  return cmd;
}
CLI::App* add_completion_command(CLI::App& app, std::string& shell, OptionHints& hints) {
  CLI::App* cmd = app.add_subcommand("completion", "Print a shell completion script");
  add_options(*cmd, {{"shell", "SHELL", "The shell: bash", &shell, choices({"bash"}), false, true}},
              hints);
  cmd->footer(
      "\nInstalled builds put it where bash-completion finds it already.\n\n"
      "Examples:\n  source <(fdbench completion bash)\n"
      "  fdbench completion bash > ~/.local/share/bash-completion/completions/fdbench");
  return cmd;
}
Subcommands add_subcommands(CLI::App& app, Texts& texts, OptionHints& hints) {
  Subcommands sub;
  app.footer(kSuiteFooter);
  app.require_subcommand(0, 1);
  add_options(app, common_options(texts.suite, "fdbench"), hints);
  add_options(app,
              {{"--dir", "DIR", "Where the private file set is created (default $TMPDIR or /tmp)",
                &texts.suite_dir, kDirectories}},
              hints);
  sub.open = add_open_command(app, texts.open, texts.open_common, hints);
  sub.socket = add_socket_command(app, texts.socket, texts.socket_common, hints);
  sub.strategies =
      app.add_subcommand("strategies", "List every strategy and whether it can run here");
  sub.strategies->footer("\nExample:\n  fdbench strategies");
  sub.clean = add_clean_command(app, texts, hints);
  sub.env = add_env_command(app, texts, hints);
  sub.compare = add_compare_command(app, texts.compare, hints);
  sub.report = add_report_command(app, texts, hints);
  sub.completion = add_completion_command(app, texts.shell, hints);
  sub.tune = add_tune_command(app, texts.tune, hints);
  return sub;
}
// Parses argv into the texts; an exit code when there is nothing to run (help, version, a
// CLI11 parse error as one line).
std::optional<int> parse_arguments(CLI::App& app, int argc, const char* const* argv,
                                   std::ostream& out, std::ostream& err) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    // One line, like every other error: scripts and people read the first line only.
    err << "Error: " << printable(parse_error_line(app, e, argc, argv)) << "\n";
    return 2;
  }
  return std::nullopt;
}

// Top-level options belong to the default suite; before a subcommand they would be ignored.
void reject_suite_options(const CLI::App& app, std::string_view subcommand) {
  for (const auto* option : app.get_options()) {
    if (option->count() > 0 && option->get_name() != "--help" &&
        option->get_name() != "--version") {
      throw UsageError(fmt::format("{} goes after the subcommand (fdbench {} {} ...)",
                                   option->get_name(), subcommand, option->get_name()));
    }
  }
}

// A command none of whose strategy x harness pairs can run here is refused before anything is
// made or started; where only some cannot, the run names them as it starts (measure()).
void refuse_unrunnable(const Runnability& runnability) {
  if (runnability.nothing_runs()) throw UsageError(nothing_runs_text(runnability));
}

Command open_command(const Texts& texts, const CLI::App& open) {
  Command command;
  command.kind = Command::Kind::open;
  reject_set_options(open, texts.open);
  apply_open(texts.open, command.open);
  apply_kept_set(texts.open, open.count("--files") > 0, open.count("--layout") > 0, command.open);
  apply_common(texts.open_common, command.open.repeat, command.open.warmup, command);
  check_published_open(command.open);
  refuse_unrunnable(runnability(command.open));
  command.open.latency = latency_of(texts.open_common, command.open.keep_open);
  command.open.kernel_trace = texts.open_common.kernel_trace;
  refuse_output_over_input(command, "--list " + command.open.list, command.open.list);
  return command;
}

Command socket_command(const Texts& texts) {
  Command command;
  command.kind = Command::Kind::socket;
  apply_socket(texts.socket, command.socket);
  apply_common(texts.socket_common, command.socket.repeat, command.socket.warmup, command);
  refuse_unrunnable(runnability(command.socket));
  command.socket.latency = latency_of(texts.socket_common, true);
  command.socket.kernel_trace = texts.socket_common.kernel_trace;
  return command;
}

Command suite_command(const Texts& texts) {
  Command command;
  command.kind = Command::Kind::suite;
  OpenText defaults;
  defaults.dir = texts.suite_dir;
  apply_open(defaults, command.open);
  apply_common(texts.suite, command.open.repeat, command.open.warmup, command);
  command.socket.repeat = command.open.repeat;
  command.socket.warmup = command.open.warmup;
  command.open.latency = latency_of(texts.suite, false);
  command.socket.latency = latency_of(texts.suite, true);
  command.open.kernel_trace = command.socket.kernel_trace = texts.suite.kernel_trace;
  // The seed's two threads, then the two ways around the shared table.
  command.socket.strategies = {"threads", "process", "uring-direct"};
  refuse_unrunnable(runnability(command.open));
  refuse_unrunnable(runnability(command.socket));
  return command;
}

Command tune_command(const TuneText& text, const CLI::App& tune) {
  Command command;
  command.kind = Command::Kind::tune;
  reject_set_options(tune, text.open);
  OpenOptions& open = command.tune.open;
  open.files = static_cast<std::size_t>(parse_number("--files", text.open.files, 1, kMaxFiles));
  open.keep_open = text.open.keep_open;
  command.tune.eligibility = {text.allow_process, text.allow_direct};
  open.kernel_trace = text.kernel_trace;
  if (!text.strategy.empty()) open.strategies = parse_strategies(text.strategy);
  apply_open_input(text.open, open);
  open.timeout_s = parse_timeout(text.timeout, !open.tree.empty() || !open.list.empty());
  command.tune.budget_seconds =
      static_cast<double>(parse_number("--budget", text.budget, 1, 86400));
  if (!text.precision.empty()) {
    command.tune.precision = parse_precision(text.precision);
  }
  check_choice("--format", text.format, formats_of("tune"));
  command.format = text.format;
  check_output("--save", text.save);
  command.save = text.save;
  command.quiet = text.quiet;
  refuse_output_over_input(command, "--list " + open.list, open.list);
  return command;
}

Command clean_command(const Texts& texts) {
  Command command;
  command.kind = Command::Kind::clean;
  for (const auto& set : texts.clean_sets) {
    struct stat info {};
    if (lstat(set.c_str(), &info) != 0) {
      throw UsageError(
          fmt::format("{}: {}: name a set made with --keep-files", set, errno_text(errno)));
    }
  }
  command.clean_sets = texts.clean_sets;
  if (texts.clean_sets.empty() || !texts.clean_dir.empty()) {
    command.clean_dir = dir_or_default(texts.clean_dir);
    check_directory(dir_flag(texts.clean_dir), command.clean_dir, true);
  }
  return command;
}

Command env_command(const Texts& texts) {
  Command command;
  command.kind = Command::Kind::env;
  command.env_dir = dir_or_default(texts.env_dir);
  check_directory(dir_flag(texts.env_dir), command.env_dir, false);
  check_choice("--format", texts.env_format, formats_of("env"));
  command.format = texts.env_format;
  return command;
}

Command compare_command(const CompareText& text) {
  Command command;
  command.kind = Command::Kind::compare;
  if (text.files.empty() || (text.files.size() == 1 && !text.references)) {
    throw UsageError(
        "name two or more results files (written with --format json or "
        "--export-json), or one with --references");
  }
  check_choice("--format", text.format, formats_of("compare"));
  command.format = text.format;
  command.compare_files = text.files;
  command.references = text.references;
  return command;
}

Command completion_command(const CLI::App& app, const OptionHints& hints,
                           const std::string& shell) {
  if (shell != "bash") {
    throw BadValue(fmt::format("'{}' is not a shell fdbench writes for (bash)", shell));
  }
  Command command;
  command.kind = Command::Kind::completion;
  command.text = bash_completion_script(app, [&hints](const CLI::App&, const CLI::Option& option) {
    const auto it = hints.find(&option);
    return it == hints.end() ? ValueHint{} : it->second;
  });
  return command;
}
Command report_command(const Texts& texts) {
  if (texts.report_files.empty()) {
    throw UsageError(
        "name one or more results files (written with --format json or "
        "--export-json)");
  }
  check_output("--output", texts.report_output);
  Command command;
  command.kind = Command::Kind::report;
  command.compare_files = texts.report_files;
  command.output = texts.report_output;
  for (const auto& file : texts.report_files) {
    refuse_output_over_input(command, "the results file " + file, file);
  }
  return command;
}

Command make_command(const CLI::App& app, const Subcommands& sub, const Texts& texts,
                     const OptionHints& hints) {
  for (const CLI::App* measuring : {sub.open, sub.socket, sub.tune}) {
    if (measuring->parsed()) reject_suite_options(app, measuring->get_name());
  }
  if (sub.open->parsed()) return open_command(texts, *sub.open);
  if (sub.socket->parsed()) return socket_command(texts);
  if (sub.clean->parsed()) return clean_command(texts);
  if (sub.env->parsed()) return env_command(texts);
  if (sub.compare->parsed()) return compare_command(texts.compare);
  if (sub.completion->parsed()) return completion_command(app, hints, texts.shell);
  if (sub.report->parsed()) return report_command(texts);
  if (sub.tune->parsed()) return tune_command(texts.tune, *sub.tune);
  if (sub.strategies->parsed()) {
    Command command;
    command.kind = Command::Kind::strategies;
    return command;
  }
  return suite_command(texts);
}

}  // namespace

Parsed parse_command_line(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"fdbench: how fast can this machine create file descriptors?", "fdbench"};
  app.set_version_flag("--version", "fdbench " + std::string(version()));
  Texts texts;
  OptionHints hints;
  const Subcommands sub = add_subcommands(app, texts, hints);
  if (const auto code = parse_arguments(app, argc, argv, out, err)) return {std::nullopt, *code};
  try {
    Command command = make_command(app, sub, texts, hints);
    command.command_line.assign(argv, argv + argc);
    return {std::move(command), 0};
  } catch (const UsageError& e) {
    const bool see_help = dynamic_cast<const BadValue*>(&e) != nullptr;
    err << "Error: " << printable(usage_line(command_name(app), e.what(), see_help)) << "\n";
    return {std::nullopt, 2};
  }
}

int look_at_inputs(const Command& command, std::ostream& err) {
  const bool tune = command.kind == Command::Kind::tune;
  if (!tune && command.kind != Command::Kind::open) return 0;
  try {
    check_input_paths(tune ? command.tune.open : command.open);
    return 0;
  } catch (const UsageError& e) {
    err << "Error: "
        << printable(usage_line(tune ? "fdbench tune" : "fdbench open", e.what(), false)) << "\n";
    return 2;
  } catch (const TimedOut& e) {
    err << fmt::format("fdbench: timed out: {} (--timeout SECONDS sets the limit)\n",
                       printable(e.what()));
    return 1;
  } catch (const Interrupted& e) {
    err << fmt::format("fdbench: interrupted by signal {}\n", e.signal());
    return 128 + e.signal();
  } catch (const Error& e) {
    err << "Error: " << printable(e.what()) << "\n";
    return 1;
  }
}

}  // namespace fdbench::cli
