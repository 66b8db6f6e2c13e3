// --save, --history, FDBENCH_HISTORY, `history` and compare's --baseline as the command line
// makes them: where each lands, and what is refused before anything runs.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "support/parse_line.hpp"

namespace fdbench::cli {
namespace history_options_test {

using namespace app;  // NOLINT: the command structs under test

using testing::parse_line;

TEST(HistoryOptions, SaveRecordsEveryMeasuringCommandButTunesSaveIsItsFile) {
  const auto open = parse_line({"open", "--save", "--history", "/tmp/h.db"});
  ASSERT_TRUE(open.parsed.command) << open.err;
  const auto& outputs = std::get<OpenCommand>(open.parsed.command->what).outputs;
  EXPECT_TRUE(outputs.save_history);
  EXPECT_EQ(outputs.history, "/tmp/h.db");
  const auto suite = parse_line({"--save"});
  ASSERT_TRUE(suite.parsed.command) << suite.err;
  EXPECT_TRUE(std::get<SuiteCommand>(suite.parsed.command->what).outputs.save_history);
  const auto tune = parse_line({"tune", "--save", "rec.json"});
  ASSERT_TRUE(tune.parsed.command) << tune.err;
  const auto& command = std::get<TuneCommand>(tune.parsed.command->what);
  EXPECT_EQ(command.save, "rec.json");
  EXPECT_FALSE(command.outputs.save_history);
}

TEST(HistoryOptions, TheVariableSavesTuneToo) {
  ::setenv("FDBENCH_HISTORY", "1", 1);
  const auto tune = parse_line({"tune"});
  ::unsetenv("FDBENCH_HISTORY");
  ASSERT_TRUE(tune.parsed.command) << tune.err;
  EXPECT_TRUE(std::get<TuneCommand>(tune.parsed.command->what).outputs.save_history);
}

TEST(HistoryOptions, TheHistoryCommandTakesItsActionAndArguments) {
  const auto show = parse_line({"history", "show", "3", "--format", "json", "--history", "h.db"});
  ASSERT_TRUE(show.parsed.command) << show.err;
  const auto& command = std::get<HistoryCommand>(show.parsed.command->what);
  EXPECT_EQ(command.action, HistoryAction::show);
  EXPECT_EQ(command.arguments, std::vector<std::string>{"3"});
  EXPECT_EQ(command.format, "json");
  const auto trend = parse_line({"history", "trend", "--strategy", "threads", "--threads", "2"});
  ASSERT_TRUE(trend.parsed.command) << trend.err;
  const auto& filters = std::get<HistoryCommand>(trend.parsed.command->what);
  EXPECT_EQ(filters.strategies, std::vector<std::string>{"threads"});
  EXPECT_EQ(filters.threads, std::vector<int>{2});
  const auto page = parse_line({"history", "trend", "--format", "html", "-o", "trend.html"});
  ASSERT_TRUE(page.parsed.command) << page.err;
  EXPECT_EQ(std::get<HistoryCommand>(page.parsed.command->what).output, "trend.html");
}

TEST(HistoryOptions, MistakesAreUsageErrors) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"history", "frobnicate"},
           {"history", "show"},
           {"history", "list", "7"},
           {"history", "export", "1"},
           {"history", "show", "1", "-o", "x.json"},
           {"history", "trend", "--format", "json"},
           {"history", "trend", "-o", "trend.txt"},
           {"compare", "--fail-if-slower", "10", "a.json", "b.json"},
           {"compare", "--baseline", "last", "a.json", "b.json"},
           {"compare", "--baseline", "last", "--fail-if-slower", "ten"}}) {
    const auto run = parse_line(args);
    EXPECT_FALSE(run.parsed.command.has_value()) << args.back();
    EXPECT_EQ(run.parsed.exit_code, 2) << args.back();
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  }
}

TEST(HistoryOptions, CompareTakesABaselineAndAGate) {
  const auto gate = parse_line({"compare", "--baseline", "last", "--fail-if-slower", "10%"});
  ASSERT_TRUE(gate.parsed.command) << gate.err;
  const auto& command = std::get<CompareCommand>(gate.parsed.command->what);
  EXPECT_EQ(command.baseline, "last");
  EXPECT_TRUE(command.files.empty());
  ASSERT_TRUE(command.fail_if_slower.has_value());
  EXPECT_EQ(*command.fail_if_slower, 10);
}

}  // namespace history_options_test
}  // namespace fdbench::cli
