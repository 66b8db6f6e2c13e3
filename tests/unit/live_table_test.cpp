// The live table on a fake clock and a string for a terminal: every planned row at once, rows
// filled as repetitions land, finished rows left to the reporter, its block erased and only
// its own, and the progress line instead when the block would not fit.
#include "application/live_table.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "model/format.hpp"
#include "support/results.hpp"

namespace fdbench::app {
namespace live_table_test {

using fdbench::testing::ResultBuilder;

constexpr std::int64_t kMs = 1'000'000;

std::vector<std::string> lines_of_text(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<TraceKey> keys() {
  return {{0, "threads", 1, std::nullopt, "open"},
          {1, "threads", 2, std::nullopt, "open"},
          {2, "pool", 1, std::nullopt, "open"}};
}

Result partial(std::string strategy, int threads, int reps) {
  return ResultBuilder::open(std::move(strategy), threads).ops(300).each_took(2 * kMs, reps);
}

class LiveTableTest : public ::testing::Test {
 protected:
  std::ostringstream terminal_;
  std::ostringstream progress_terminal_;
  std::int64_t now_ = 5'000 * kMs;
  ProgressLine line_{progress_terminal_, 100, [this] { return now_; }};
  LiveTable table_{terminal_, 120, 50, [this] { return now_; }, &line_};

  void repetition(std::size_t result, const Result& so_far, bool stopped) {
    table_.repetition_started("x", result, 1);
    now_ += 200 * kMs;  // past the redraw interval
    table_.repetition_done([&so_far] { return so_far; }, stopped);
  }
};

TEST_F(LiveTableTest, DrawsEveryPlannedRowAndFillsThemIn) {
  table_.plan(3, 5, 0);
  table_.rows(keys(), {});
  ASSERT_TRUE(table_.live());
  repetition(1, partial("threads", 1, 1), false);
  std::vector<std::string> lines = table_.lines();
  ASSERT_EQ(lines.size(), 4U);
  EXPECT_NE(lines[0].find("median ms"), std::string::npos) << lines[0];
  EXPECT_TRUE(lines[1].ends_with("  running")) << lines[1];
  EXPECT_TRUE(lines[2].ends_with("   waiting")) << lines[2];
  EXPECT_NE(lines[3].find("pool"), std::string::npos) << lines[3];
  repetition(1, partial("threads", 1, 5), true);
  EXPECT_TRUE(table_.lines()[1].ends_with("  done")) << table_.lines()[1];
  // The progress line stays quiet while the block is drawn.
  EXPECT_EQ(progress_terminal_.str(), "");
}

TEST_F(LiveTableTest, LeavesPrintedRowsToTheReporterAndErasesOnlyItsBlock) {
  table_.plan(3, 5, 0);
  table_.rows(keys(), {});
  repetition(1, partial("threads", 1, 5), true);
  terminal_.str("");
  table_.result_done();
  // Up over its four lines, erased below: nothing else.
  EXPECT_EQ(terminal_.str(), "\r\033[4A\033[J");
  repetition(2, partial("threads", 2, 1), false);
  const std::vector<std::string> lines = table_.lines();
  ASSERT_EQ(lines.size(), 2U);  // the header was printed with the first row
  EXPECT_TRUE(lines[0].ends_with("  running")) << lines[0];
  table_.clear();
  const std::string all = terminal_.str();
  EXPECT_TRUE(all.ends_with("\r\033[2A\033[J")) << all;
}

TEST_F(LiveTableTest, ABlockTallerThanTheTerminalLeavesItToTheProgressLine) {
  LiveTable small(terminal_, 120, 4, [this] { return now_; }, &line_);
  small.plan(3, 5, 0);
  small.rows(keys(), {});
  EXPECT_FALSE(small.live());
  small.repetition_started("threads, 1 thread", 1, 1);
  small.repetition_done([] { return partial("threads", 1, 1); }, false);
  EXPECT_EQ(terminal_.str(), "");
  EXPECT_NE(progress_terminal_.str().find("threads, 1 thread: repetition 1/5"), std::string::npos)
      << progress_terminal_.str();
}

// A window made narrower: the block's lines, drawn up to 119 columns, now take two rows each
// in a terminal that reflowed them, so the block is erased over twice its lines; then drawn
// again cut to the new width.
TEST_F(LiveTableTest, AfterAResizeErasesTheBlockAsTheTerminalReflowedIt) {
  table_.plan(3, 5, 0);
  table_.rows(keys(), {});
  repetition(1, partial("threads", 1, 1), false);
  std::size_t wide = 0;
  for (const auto& line : table_.lines()) wide += line.size() > 60 ? 1 : 0;
  ASSERT_GT(wide, 0U);
  table_.resized(60, 50);
  terminal_.str("");
  table_.clear();
  EXPECT_EQ(terminal_.str(), fmt::format("\r\033[{}A\033[J", 4 + wide));
  repetition(1, partial("threads", 1, 2), false);
  for (const auto& line : lines_of_text(terminal_.str())) {
    EXPECT_LE(fdbench::display_width(line), 60U + 8U) << line;  // with its escape sequences
  }
}

}  // namespace live_table_test
}  // namespace fdbench::app
