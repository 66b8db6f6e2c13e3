// The option table holds each setting once: every name in one row, no flag spelled as a string
// literal anywhere else, and a shared row reaches every command that lists it, with its default
// taken from the options structs.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "support/parse_line.hpp"
#include "application/option_rows.hpp"

namespace fdbench::cli {
namespace option_rows_test {

using namespace app;  // NOLINT: the rows are the application's

std::vector<std::string> names_of(const std::string& names) {
  std::vector<std::string> out;
  std::stringstream in(names);
  std::string name;
  while (std::getline(in, name, ',')) out.push_back(name);
  return out;
}

TEST(OptionRows, EveryNameIsInOneRowAndEverySettingHasOne) {
  std::map<std::string, int> rows_with;
  std::set<Opt> ids;
  for (const auto& row : option_rows()) {
    EXPECT_TRUE(ids.insert(row.id).second) << row.names << ": a second row for its setting";
    std::set<std::string> names;
    for (const auto& name : names_of(row.names)) names.insert(name);
    for (const auto& [command, names_there] : row.names_for) {
      for (const auto& name : names_of(names_there)) names.insert(name);
    }
    for (const auto& name : names) ++rows_with[name];
    EXPECT_NE(row.commands.bits, 0U) << row.names << ": no command takes it";
  }
  for (const auto& [name, rows] : rows_with) EXPECT_EQ(rows, 1) << name;
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(Opt::arrival) + 1) << "a setting without a row";
}

// A line of code without its comment (good enough for this tree: no "//" inside the literals
// this test looks for).
std::string code_of(const std::string& line) {
  const auto comment = line.find("//");
  return comment == std::string::npos ? line : line.substr(0, comment);
}

// Where a flag's name is written as a string literal of its own ("--files"): the row's name
// must be used instead, flag(Opt::files). The layers below the command line (engine, inputs,
// output) cannot see the rows; the flags they name in messages are listed here, to be passed
// down from the rows as those messages move up.
TEST(OptionRows, NoFlagIsSpelledOutsideTheTable) {
  const std::set<std::string> lower_layers = {
      "src/engine/strategies/libuv_strategy.cpp", "src/output/reporters/section_text.cpp",
      "src/output/trace_out.cpp",                 "src/inputs/open_input.cpp",
      "src/inputs/file_set.cpp",                  "src/inputs/file_set_create.cpp",
      "src/inputs/file_set.hpp",                  "src/output/reporters/tune_text.cpp"};
  const std::set<std::string> not_settings = {"--help", "--version"};
  const std::regex literal(R"re("(--[a-z0-9][a-z0-9-]*)")re");
  const std::filesystem::path root = FDBENCH_SOURCE_DIR;
  for (const char* top : {"apps", "src"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / top)) {
      const auto ext = entry.path().extension();
      if (ext != ".cpp" && ext != ".hpp") continue;
      const std::string file = std::filesystem::relative(entry.path(), root).string();
      if (file == "src/application/option_rows.cpp" || lower_layers.count(file) > 0) continue;
      std::ifstream in(entry.path());
      std::string line;
      for (int number = 1; std::getline(in, line); ++number) {
        const std::string code = code_of(line);
        for (auto it = std::sregex_iterator(code.begin(), code.end(), literal);
             it != std::sregex_iterator(); ++it) {
          if (not_settings.count((*it)[1]) > 0) continue;
          ADD_FAILURE() << file << ":" << number << ": " << (*it)[1]
                        << " spelled out: take it from its row, flag(Opt::...)";
        }
      }
    }
  }
}

using Outcome = testing::ParsedLine;
using testing::parse_line;

// The sweeps a parsed command ran with: the suite has two (open's and socket's).
std::vector<const SweepOptions*> sweeps_of(const Command& command) {
  if (const auto* open = std::get_if<OpenCommand>(&command.what)) return {&open->open};
  if (const auto* socket = std::get_if<SocketCommand>(&command.what)) return {&socket->socket};
  if (const auto* accept = std::get_if<AcceptCommand>(&command.what)) return {&accept->accept};
  if (const auto* tune = std::get_if<TuneCommand>(&command.what)) return {&tune->tune.open};
  const auto& suite = std::get<SuiteCommand>(command.what);
  return {&suite.open, &suite.socket};
}

// A shared setting: a value other than its default, and how a sweep shows it.
struct Shared {
  std::string value;
  std::function<std::string(const SweepOptions&)> seen;
};

// Every row two or more measuring commands take, with what it does to their sweeps. A new
// shared row is a line here too: the test below fails until it is.
const std::map<Opt, Shared>& shared_rows() {
  static const std::map<Opt, Shared> rows = {
      {Opt::threads, {"3", [](const SweepOptions& s) { return std::to_string(s.threads.at(0)); }}},
      {Opt::strategy,
       {"pool", [](const SweepOptions& s) { return fmt::format("{}", fmt::join(s.strategies, ",")); }}},
      {Opt::batch, {"7", [](const SweepOptions& s) { return std::to_string(s.batch); }}},
      {Opt::pregrow,
       {"1023",
        [](const SweepOptions& s) {
          std::string labels;
          for (const auto& p : s.pregrow) labels += p.label() + ",";
          return labels;
        }}},
      {Opt::uring_tuning,
       {"none", [](const SweepOptions& s) { return uring_tuning_name(s.uring); }}},
      {Opt::repeat, {"4", [](const SweepOptions& s) { return std::to_string(s.repeat.count); }}},
      {Opt::precision,
       {"5", [](const SweepOptions& s) { return std::to_string(s.repeat.precision); }}},
      {Opt::max_time,
       {"2", [](const SweepOptions& s) { return std::to_string(s.repeat.max_time_s); }}},
      {Opt::warmup, {"3", [](const SweepOptions& s) { return std::to_string(s.warmup); }}},
      {Opt::order,
       {"sequential", [](const SweepOptions& s) { return std::string(to_string(s.order)); }}},
      {Opt::harness,
       {"minimal,published", [](const SweepOptions& s) { return std::to_string(s.harness.size()); }}},
      {Opt::timeout, {"7", [](const SweepOptions& s) { return std::to_string(s.timeout_s); }}},
      {Opt::kernel_trace, {"", [](const SweepOptions& s) { return std::to_string(s.kernel_trace); }}},
  };
  return rows;
}

// What the rows call each command on its command line.
const std::map<Cmd, std::vector<std::string>> kMeasuringCommands = {
    {Cmd::suite, {}},           {Cmd::open, {"open"}}, {Cmd::socket, {"socket"}},
    {Cmd::accept, {"accept"}}, {Cmd::tune, {"tune"}}};

// Rows that shape a sweep only through another (precision and max-time: with --repeat auto,
// tune's precision is TuneOptions'), or that are the command's output, not the sweep's.
bool shapes_the_sweep(Opt id, Cmd command) {
  if (command == Cmd::tune && id == Opt::precision) return false;
  return shared_rows().count(id) > 0;
}

TEST(OptionRows, EverySharedRowIsCoveredHere) {
  const std::set<Opt> outputs = {Opt::format,     Opt::output,      Opt::quiet, Opt::details,
                                 Opt::trace_out,  Opt::no_latency,  Opt::export_json,
                                 Opt::export_csv, Opt::export_html, Opt::export_markdown,
                                 Opt::dir,        Opt::rcu_expedited, Opt::latency,
                                 Opt::save,       Opt::history_file};
  // --save and --history are where a run is recorded (history_options_test.cpp holds them).
  // --rcu-expedited needs root to be set; --latency's default is each command's (on for socket
  // and --keep-open): the parse tests hold both.
  for (const auto& row : option_rows()) {
    int measuring = 0;
    for (const auto& [command, args] : kMeasuringCommands) measuring += row.commands.has(command);
    if (measuring < 2 || outputs.count(row.id) > 0) continue;
    if (row.id == Opt::files || row.id == Opt::tree || row.id == Opt::list ||
        row.id == Opt::list0 || row.id == Opt::cross_mounts || row.id == Opt::allow_pseudo_fs ||
        row.id == Opt::keep_open) {
      continue;  // open's input, which tune takes too: OpenOptions' own fields
    }
    if (row.id == Opt::budget) continue;  // the suite's and tune's own field each: parse tests

    if (row.id == Opt::kind) continue;  // socket's and accept's own field, each its own kinds
    // accept's burst, which tune --workload accept takes too: AcceptOptions' own field
    // (tune_test.cpp's accept sweep holds it).
    if (row.id == Opt::connections) continue;
    EXPECT_EQ(shared_rows().count(row.id), 1U) << row.names << " is shared: add it here";
  }
}

// Each shared row, given to each measuring command that lists it, lands in that command's
// sweep; not given, the sweep holds the options struct's default.
TEST(OptionRows, ASharedRowReachesEveryCommandThatListsIt) {
  for (const auto& [id, shared] : shared_rows()) {
    const OptionRow& row = row_of(id);
    for (const auto& [command, words] : kMeasuringCommands) {
      if (!row.commands.has(command) || !shapes_the_sweep(id, command)) continue;
      std::vector<std::string> args = words;
      args.push_back(flag(id));
      if (!shared.value.empty()) args.push_back(shared.value);
      if (id == Opt::precision || id == Opt::max_time) args.insert(args.end(), {"--repeat", "auto"});
      if (id == Opt::pregrow && command == Cmd::open) args.push_back("--keep-open");
      SCOPED_TRACE(fmt::format("fdbench {}", fmt::join(args, " ")));
      const Outcome given = parse_line(args);
      const Outcome plain = parse_line(words);
      ASSERT_TRUE(given.parsed.command.has_value()) << given.err;
      ASSERT_TRUE(plain.parsed.command.has_value()) << plain.err;
      const auto with = sweeps_of(*given.parsed.command);
      const auto without = sweeps_of(*plain.parsed.command);
      const SweepOptions defaults = command == Cmd::socket   ? SweepOptions(SocketOptions{})
                                    : command == Cmd::accept ? SweepOptions(AcceptOptions{})
                                                             : SweepOptions(OpenOptions{});
      for (std::size_t i = 0; i < with.size(); ++i) {
        EXPECT_NE(shared.seen(*with[i]), shared.seen(*without[i])) << "not applied";
      }
      if (id == Opt::timeout || id == Opt::strategy) continue;  // defaults of their own
      if (command != Cmd::suite) {
        EXPECT_EQ(shared.seen(*without[0]), shared.seen(defaults));
      }
    }
  }
}

}  // namespace option_rows_test
}  // namespace fdbench::cli
