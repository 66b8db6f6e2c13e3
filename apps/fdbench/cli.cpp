// argv -> Command. CLI11 binds each row of the one option table (option_rows.hpp) to text; one
// function per subcommand then turns that text into validated options, so that every message
// names its flag (by its row).
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

#include "completion.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "fdbench/version.hpp"
#include "help_text.hpp"
#include "inputs/examined_files.hpp"
#include "inputs/file_set.hpp"
#include "inputs/input_files.hpp"
#include "model/format.hpp"
#include "option_rows.hpp"
#include "output/atomic_file.hpp"
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
  for (const auto& item : split_list(flag(Opt::threads), text)) {
    threads.push_back(static_cast<int>(parse_number(flag(Opt::threads), item, 1, kMaxThreads)));
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
  return given.empty() ? "TMPDIR" : flag(Opt::dir);
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

// Each command's options, by the option CLI11 made of their rows.
using Subcommands = std::map<Cmd, CLI::App*>;
// Each option's completion hint, by the option CLI11 made of its row.
using OptionHints = std::map<const CLI::Option*, ValueHint>;

// An option given "" is refused: CLI11 leaves the bound text as when it was not given, so
// --timeout "" or --export-json "" would silently mean the default.
const CLI::Validator kNotEmpty(
    [](const std::string& value) {
      return value.empty() ? std::string("an empty value: give one, or leave the option out")
                           : std::string();
    },
    "");

// Every row `command` takes, bound to its text in `values` (which defaults_of() filled).
void add_options(CLI::App& cmd, Cmd command, OptionValues& values, OptionHints& hints) {
  for (const OptionRow& row : option_rows()) {
    if (!row.commands.has(command)) continue;
    const std::string& names = row.names_in(command);
    const std::string& help = row.help_in(command);
    CLI::Option* option = nullptr;
    if (row.bind == Bind::flag) {
      option = cmd.add_flag(names, values.set.at(row.id), help);
    } else if (row.bind == Bind::list) {
      option = cmd.add_option(names, values.list.at(row.id), help);
    } else {
      option = cmd.add_option(names, values.text.at(row.id), help);
    }
    if (!row.value.empty()) option->type_name(row.value);
    if (!row.value.empty()) option->check(kNotEmpty);
    if (row.show_default.has(command)) option->capture_default_str();
    if (row.required) option->required();
    hints[option] = row.hint_in(command);
    values.parsed[row.id] = option;
  }
}

std::vector<std::string> parse_strategies(const std::string& text) {
  if (text == "all") return strategy_names();
  std::vector<std::string> names;
  for (const auto& name : split_list(flag(Opt::strategy), text)) {
    if (find_strategy(name) == nullptr) {
      throw BadValue(fmt::format("{}: unknown strategy '{}' (choose from {}, or all)",
                                 flag(Opt::strategy), name, join(strategy_names())));
    }
    names.push_back(name);
  }
  return names;
}

std::vector<Pregrow> parse_pregrow_list(const std::string& text) {
  std::vector<Pregrow> list;
  for (const auto& item : split_list(flag(Opt::pregrow), text)) {
    Pregrow p;
    if (!parse_pregrow(item, p)) {
      throw BadValue(fmt::format("{}: '{}' is not off, auto or a descriptor number",
                                 flag(Opt::pregrow), item));
    }
    if (p.mode == Pregrow::Mode::fd) parse_number(flag(Opt::pregrow), item, 0, kMaxPregrowFd);
    list.push_back(p);
  }
  return list;
}

std::size_t parse_layout(const std::string& text) {
  if (text == "flat") return 0;
  if (text.rfind("dirs:", 0) == 0) {
    return static_cast<std::size_t>(parse_number(flag(Opt::layout), text.substr(5), 1, 100000));
  }
  throw BadValue(fmt::format("{}: '{}' is not flat or dirs:K", flag(Opt::layout), text));
}

// --format: one of the formats `command` writes.
std::string parse_format(const OptionValues& values, Cmd command) {
  const std::string& value = values[Opt::format];
  const auto formats = formats_of(command);
  if (std::find(formats.begin(), formats.end(), value) == formats.end()) {
    throw BadValue(fmt::format("{}: unknown format '{}' (choose from {})", flag(Opt::format), value,
                               join(formats)));
  }
  return value;
}

// Every --export-FORMAT given, each to a file of its own.
std::vector<Export> apply_exports(const OptionValues& values) {
  std::vector<Export> exports;
  for (const auto& [id, format] : export_rows()) {
    const std::string& path = values[id];
    if (path.empty()) continue;
    check_output(flag(id), path);
    std::string taken_by = !values[Opt::output].empty() && same_output(path, values[Opt::output])
                               ? flag(Opt::output)
                               : "";
    for (const auto& other : exports) {
      if (same_output(other.path, path)) taken_by = other.flag;
    }
    if (!taken_by.empty()) {
      throw UsageError(
          fmt::format("{} {}: {} writes that file too; name another file", flag(id), path, taken_by));
    }
    exports.push_back({flag(id), format, path});
  }
  return exports;
}

std::vector<std::pair<std::string, std::string>> outputs_of(const Command& command) {
  std::vector<std::pair<std::string, std::string>> outputs;
  if (!command.output.empty()) outputs.emplace_back(flag(Opt::output), command.output);
  for (const auto& e : command.exports) outputs.emplace_back(e.flag, e.path);
  if (!command.trace_out.empty()) outputs.emplace_back(flag(Opt::trace_out), command.trace_out);
  if (!command.save.empty()) outputs.emplace_back(flag(Opt::save), command.save);
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

// --harness: minimal, published, or both in the order given (a repeated one counts once, as in
// every list).
std::vector<Harness> parse_harness_list(const std::string& text) {
  std::vector<Harness> harnesses;
  for (const auto& item : split_list(flag(Opt::harness), text)) {
    Harness harness{};
    if (!parse_harness(item, harness)) {
      throw BadValue(fmt::format(
          "{}: unknown value '{}' (choose from minimal, published, minimal,published)",
          flag(Opt::harness), item));
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

// --rcu-expedited keep|0|1|0,1: the values to set in turn (none for keep), refused up front
// where they cannot be set.
std::vector<int> parse_rcu_expedited(const std::string& text) {
  if (text == "keep") return {};
  std::vector<int> values;
  for (const auto& item : split_list(flag(Opt::rcu_expedited), text)) {
    if (item != "0" && item != "1") {
      throw BadValue(fmt::format("{}: '{}' is not keep, 0, 1 or a list of them such as 0,1",
                                 flag(Opt::rcu_expedited), item));
    }
    values.push_back(item == "1" ? 1 : 0);
  }
  if (const std::string why = platform::rcu_expedited_unsettable(); !why.empty()) {
    throw UsageError(fmt::format("{} {}: {}", flag(Opt::rcu_expedited), text, why));
  }
  return values;
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
        "{}: '{}' is not a number of seconds in plain decimals (such as 60 or 0.5) or none",
        flag(Opt::timeout), text));
  }
  const double seconds = std::strtod(text.c_str(), nullptr);
  if (seconds > kMaxTimeout) {
    throw BadValue(fmt::format("{}: {} is out of range (allowed: up to {} seconds, or none)",
                               flag(Opt::timeout), text, kMaxTimeout));
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
  return parse_decimal(flag(Opt::precision), text, "percent", 0.1, 50, "%") / 100;
}


// --repeat N|auto, with --precision and --max-time for auto.
Repeat parse_repeat(const OptionValues& values) {
  Repeat repeat;
  const std::string& text = values[Opt::repeat];
  if (text != "auto") {
    repeat.count = static_cast<int>(parse_number(flag(Opt::repeat), text, 1, 100000));
    for (const Opt id : {Opt::precision, Opt::max_time}) {
      if (!values[id].empty()) {
        throw UsageError(fmt::format("{} applies to --repeat auto, not to --repeat {}: drop one",
                                     flag(id), text));
      }
    }
    return repeat;
  }
  if (!values[Opt::precision].empty()) repeat.precision = parse_precision(values[Opt::precision]);
  if (!values[Opt::max_time].empty()) {
    repeat.max_time_s =
        parse_decimal(flag(Opt::max_time), values[Opt::max_time], "seconds", 0.001, 86400);
  }
  return repeat;
}

// --output, --export-*, --trace-out and --quiet: where a measuring command writes.
void apply_outputs(const OptionValues& values, Command& command) {
  command.output = values[Opt::output];
  check_output(flag(Opt::output), command.output);
  command.exports = apply_exports(values);
  const std::string& trace_out = values[Opt::trace_out];
  check_output(flag(Opt::trace_out), trace_out);
  if (!trace_out.empty()) {
    for (const auto& e : command.exports) {
      if (same_output(e.path, trace_out)) {
        throw UsageError(fmt::format("{} {}: {} writes that file too; name another file",
                                     flag(Opt::trace_out), trace_out, e.flag));
      }
    }
    if (!command.output.empty() && same_output(trace_out, command.output)) {
      throw UsageError(fmt::format("{} {}: {} writes that file too; name another file",
                                   flag(Opt::trace_out), trace_out, flag(Opt::output)));
    }
  }
  command.trace_out = trace_out;
  command.quiet = values.on(Opt::quiet);
}

// The settings every measuring command shares, applied once to each of its sweeps (the suite
// has two). --timeout is the caller's: its default depends on the input.
void apply_common(const OptionValues& values, Command& command,
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
void apply_open_input(const OptionValues& values, OpenOptions& open) {
  const std::string& tree = values[Opt::tree];
  const std::string& list = values[Opt::list];
  if (!tree.empty() && !list.empty()) throw UsageError("--tree and --list: choose one input");
  if (values.on(Opt::list0) && list.empty()) throw UsageError("--list0 needs --list FILE");
  for (const Opt id : {Opt::cross_mounts, Opt::allow_pseudo_fs}) {
    if (values.on(id) && tree.empty()) {
      throw UsageError(fmt::format("{} needs --tree DIR", flag(id)));
    }
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
  const std::string& dir = values[Opt::dir];
  open.dir = dir;  // empty: $TMPDIR or /tmp, named TMPDIR in messages (never passed --dir)
  const bool kept = !values[Opt::keep_files].empty() || !values[Opt::reuse_files].empty();
  if (!existing && !kept) check_directory(dir_flag(dir), dir_or_default(dir), true);
}

// The user's --tree directory or --list file, looked at here: whether it is there and of the
// kind it must be, and how a list file is separated.
void check_input_path(const OpenOptions& open) {
  if (!open.tree.empty()) check_directory(flag(Opt::tree), open.tree, false);
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
      open.timeout_s, open.tree.empty() ? flag(Opt::list) + " " + open.list : flag(Opt::tree) + " " + open.tree);
}

// --files and --layout shape the set fdbench makes; with --tree or --list there is none, and
// a run that left them unused would look like one that used them.

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
    throw UsageError(fmt::format("{} and {}: {} DIR is the set's own directory; leave out {}",
                                 name, flag(Opt::dir), name, flag(Opt::dir)));
  }
  if (keep) {
    open.keep_files = keep_files;
    open.dir = parent_of(keep_files);  // the filesystem the environment describes
    check_directory(fmt::format("{} {}: its parent", name, keep_files), open.dir, true);
    return;
  }
  struct stat info {};
  const int err = stat(reuse_files.c_str(), &info) != 0 ? errno
                  : S_ISDIR(info.st_mode)               ? 0
                                                        : ENOTDIR;
  if (err != 0) {
    throw UsageError(fmt::format("{} {}: {}: name the DIR of a --keep-files run", name,
                                 reuse_files, errno_text(err)));
  }
  open.reuse_files = reuse_files;
  open.dir = reuse_files;
  if (!values.given(Opt::files)) open.files.reset();     // the set's marker says
  if (!values.given(Opt::layout)) open.subdirs.reset();  // the set's marker says
}

void apply_uring_tuning(const std::string& text, UringOptions& uring) {
  if (!parse_uring_tuning(text, uring)) {
    throw BadValue(fmt::format("{}: unknown value '{}' (choose from {})", flag(Opt::uring_tuning),
                               text, join(uring_tuning_names())));
  }
}

// An enum's value by its word, or the message naming the choices.
template <typename T, typename Parse>
void apply_choice(Opt id, const std::string& text, Parse parse, std::vector<std::string> names,
                  std::string_view what, T& out) {
  if (!parse(text, out)) {
    throw BadValue(fmt::format("{}: unknown {} '{}' (choose from {})", flag(id), what, text,
                               join(names)));
  }
}

void apply_open(const OptionValues& values, OpenOptions& open) {
  open.files =
      static_cast<std::size_t>(parse_number(flag(Opt::files), values[Opt::files], 1, kMaxFiles));
  open.threads = parse_threads(values[Opt::threads]);
  open.strategies = parse_strategies(values[Opt::strategy]);
  open.batch = static_cast<int>(parse_number(flag(Opt::batch), values[Opt::batch], 1, kMaxFiles));
  open.subdirs = parse_layout(values[Opt::layout]);
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
  socket.strategies = parse_strategies(values[Opt::strategy]);
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

// Every command and its options, made from the rows and the commands' help.
Subcommands add_subcommands(CLI::App& app, std::map<Cmd, OptionValues>& values,
                            OptionHints& hints) {
  Subcommands sub;
  for (const CommandHelp& command : commands_help()) {
    CLI::App* cmd = &app;
    if (command.command != Cmd::suite) {
      cmd = app.add_subcommand(command.name, command.summary);
    } else {
      app.require_subcommand(0, 1);
    }
    cmd->footer(command.footer);
    values[command.command] = defaults_of(command.command);
    add_options(*cmd, command.command, values[command.command], hints);
    sub[command.command] = cmd;
  }
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

Command open_command(const OptionValues& values) {
  Command command;
  command.kind = Command::Kind::open;
  reject_set_options(values);
  apply_open(values, command.open);
  apply_kept_set(values, command.open);
  apply_common(values, command, {&command.open});
  command.open.timeout_s = parse_timeout(values[Opt::timeout],
                                         !command.open.tree.empty() || !command.open.list.empty());
  check_published_open(command.open);
  refuse_unrunnable(runnability(command.open));
  command.open.latency = latency_of(values, command.open.keep_open);
  refuse_output_over_input(command, flag(Opt::list) + " " + command.open.list, command.open.list);
  return command;
}

Command socket_command(const OptionValues& values) {
  Command command;
  command.kind = Command::Kind::socket;
  apply_socket(values, command.socket);
  apply_common(values, command, {&command.socket});
  command.socket.timeout_s = parse_timeout(values[Opt::timeout], false);
  refuse_unrunnable(runnability(command.socket));
  command.socket.latency = latency_of(values, true);
  return command;
}

Command suite_command(const OptionValues& values) {
  Command command;
  command.kind = Command::Kind::suite;
  OptionValues open = defaults_of(Cmd::open);
  open.text[Opt::dir] = values[Opt::dir];
  apply_open(open, command.open);
  apply_common(values, command, {&command.open, &command.socket});
  command.open.timeout_s = command.socket.timeout_s = parse_timeout(values[Opt::timeout], false);
  command.open.latency = latency_of(values, false);
  command.socket.latency = latency_of(values, true);
  // The seed's two threads, then the two ways around the shared table.
  command.socket.strategies = {"threads", "process", "uring-direct"};
  refuse_unrunnable(runnability(command.open));
  refuse_unrunnable(runnability(command.socket));
  return command;
}

Command tune_command(const OptionValues& values) {
  Command command;
  command.kind = Command::Kind::tune;
  reject_set_options(values);
  OpenOptions& open = command.tune.open;
  open.files =
      static_cast<std::size_t>(parse_number(flag(Opt::files), values[Opt::files], 1, kMaxFiles));
  open.keep_open = values.on(Opt::keep_open);
  command.tune.eligibility = {values.on(Opt::allow_process), values.on(Opt::allow_direct)};
  open.kernel_trace = values.on(Opt::kernel_trace);
  if (!values[Opt::strategy].empty()) open.strategies = parse_strategies(values[Opt::strategy]);
  apply_open_input(values, open);
  open.timeout_s = parse_timeout(values[Opt::timeout], !open.tree.empty() || !open.list.empty());
  command.tune.budget_seconds =
      static_cast<double>(parse_number(flag(Opt::budget), values[Opt::budget], 1, 86400));
  if (!values[Opt::precision].empty()) {
    command.tune.precision = parse_precision(values[Opt::precision]);
  }
  command.format = parse_format(values, Cmd::tune);
  check_output(flag(Opt::save), values[Opt::save]);
  command.save = values[Opt::save];
  command.quiet = values.on(Opt::quiet);
  refuse_output_over_input(command, flag(Opt::list) + " " + open.list, open.list);
  return command;
}

Command clean_command(const OptionValues& values) {
  Command command;
  command.kind = Command::Kind::clean;
  const auto& sets = values.list.at(Opt::sets);
  for (const auto& set : sets) {
    struct stat info {};
    if (lstat(set.c_str(), &info) != 0) {
      throw UsageError(
          fmt::format("{}: {}: name a set made with --keep-files", set, errno_text(errno)));
    }
  }
  command.clean_sets = sets;
  const std::string& dir = values[Opt::dir];
  if (sets.empty() || !dir.empty()) {
    command.clean_dir = dir_or_default(dir);
    check_directory(dir_flag(dir), command.clean_dir, true);
  }
  return command;
}

Command env_command(const OptionValues& values) {
  Command command;
  command.kind = Command::Kind::env;
  command.env_dir = dir_or_default(values[Opt::dir]);
  check_directory(dir_flag(values[Opt::dir]), command.env_dir, false);
  command.format = parse_format(values, Cmd::env);
  return command;
}

Command compare_command(const OptionValues& values) {
  Command command;
  command.kind = Command::Kind::compare;
  const auto& files = values.list.at(Opt::results);
  if (files.empty() || (files.size() == 1 && !values.on(Opt::references))) {
    throw UsageError(
        "name two or more results files (written with --format json or "
        "--export-json), or one with --references");
  }
  command.format = parse_format(values, Cmd::compare);
  command.compare_files = files;
  command.references = values.on(Opt::references);
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
Command report_command(const OptionValues& values) {
  const auto& files = values.list.at(Opt::results);
  if (files.empty()) {
    throw UsageError(
        "name one or more results files (written with --format json or "
        "--export-json)");
  }
  check_output(flag(Opt::output), values[Opt::output]);
  Command command;
  command.kind = Command::Kind::report;
  command.compare_files = files;
  command.output = values[Opt::output];
  for (const auto& file : files) {
    refuse_output_over_input(command, "the results file " + file, file);
  }
  return command;
}

Command make_command(const CLI::App& app, const Subcommands& sub,
                     const std::map<Cmd, OptionValues>& values, const OptionHints& hints) {
  for (const Cmd measuring : {Cmd::open, Cmd::socket, Cmd::tune}) {
    if (sub.at(measuring)->parsed()) reject_suite_options(app, sub.at(measuring)->get_name());
  }
  const auto parsed = [&sub](Cmd c) { return sub.at(c)->parsed(); };
  if (parsed(Cmd::open)) return open_command(values.at(Cmd::open));
  if (parsed(Cmd::socket)) return socket_command(values.at(Cmd::socket));
  if (parsed(Cmd::clean)) return clean_command(values.at(Cmd::clean));
  if (parsed(Cmd::env)) return env_command(values.at(Cmd::env));
  if (parsed(Cmd::compare)) return compare_command(values.at(Cmd::compare));
  if (parsed(Cmd::completion)) {
    return completion_command(app, hints, values.at(Cmd::completion)[Opt::shell]);
  }
  if (parsed(Cmd::report)) return report_command(values.at(Cmd::report));
  if (parsed(Cmd::tune)) return tune_command(values.at(Cmd::tune));
  if (parsed(Cmd::strategies)) {
    Command command;
    command.kind = Command::Kind::strategies;
    return command;
  }
  return suite_command(values.at(Cmd::suite));
}

}  // namespace

Parsed parse_command_line(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{commands_help().front().summary, "fdbench"};
  app.set_version_flag("--version", "fdbench " + std::string(version()));
  std::map<Cmd, OptionValues> values;
  OptionHints hints;
  const Subcommands sub = add_subcommands(app, values, hints);
  if (const auto code = parse_arguments(app, argc, argv, out, err)) return {std::nullopt, *code};
  try {
    Command command = make_command(app, sub, values, hints);
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

}  // namespace fdbench::cli
