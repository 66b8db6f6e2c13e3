// The progress line on a fake clock and a string for a terminal: what it says, when it
// redraws, that it never wraps, and that it is gone when asked.
#include "application/progress_line.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>

#include "model/format.hpp"

namespace fdbench::app {
namespace progress_line_test {

constexpr std::int64_t kMs = 1'000'000;

class ProgressLineTest : public ::testing::Test {
 protected:
  std::ostringstream terminal_;
  std::int64_t now_ = 5'000 * kMs;
  ProgressLine line_{terminal_, 100, [this] { return now_; }};

  // What is on the terminal's last line now, as a terminal shows \r and ESC[K.
  std::string shown() const {
    const std::string all = terminal_.str();
    const auto cut = all.rfind("\r\033[K");
    return cut == std::string::npos ? all : all.substr(cut + 4);
  }
};

// Runs `count` repetitions of result `result` ("threads, 1 thread"), `step` ms each.
void run(ProgressLine& line, std::int64_t& now, std::size_t result, int first, int count,
         std::int64_t step_ms) {
  for (int i = first; i < first + count; ++i) {
    line.repetition_started("threads, 1 thread", result, i);
    now += step_ms * kMs;
    line.repetition_done([] { return Result{}; }, false);
  }
}

TEST_F(ProgressLineTest, NamesTheResultTheRepetitionAndHowManyResults) {
  line_.plan(4, 11, 0);
  line_.repetition_started("uring, 2 threads", 1, 1);
  EXPECT_EQ(shown(),
            "fdbench: uring, 2 threads: repetition 1/11, result 1 of 4, estimating time left");
  line_.repetition_done([] { return Result{}; }, false);
  now_ += 200 * kMs;
  line_.repetition_started("uring, 2 threads", 1, 2);
  EXPECT_EQ(shown(),
            "fdbench: uring, 2 threads: repetition 2/11, result 1 of 4, estimating time left");
}

TEST_F(ProgressLineTest, InterleavedRepetitionsNameTheirOwnResult) {
  line_.plan(3, 5, 0);
  line_.repetition_started("threads, 1 thread", 1, 1);
  line_.repetition_done([] { return Result{}; }, false);
  now_ += 200 * kMs;  // past the redraw interval
  line_.repetition_started("uring, 1 thread", 2, 1);
  EXPECT_EQ(shown(),
            "fdbench: uring, 1 thread: repetition 1/5, result 2 of 3, estimating time left");
  line_.repetition_done([] { return Result{}; }, false);
  now_ += 200 * kMs;
  line_.repetition_started("threads, 1 thread", 1, 2);
  EXPECT_NE(shown().find("threads, 1 thread: repetition 2/5, result 1 of 3"), std::string::npos)
      << shown();
}

TEST_F(ProgressLineTest, TimeLeftFollowsTheShareDone) {
  line_.plan(2, 10, 0);
  run(line_, now_, 1, 1, 5, 400);  // a quarter of the run in 2 s: 6 s to go
  EXPECT_NE(shown().find("about 6 s left"), std::string::npos) << shown();
  line_.result_done();
  run(line_, now_, 1, 6, 5, 400);
  run(line_, now_, 2, 1, 1, 598'000);  // 600 s for 11 of 20: about 491 s to go
  EXPECT_NE(shown().find("result 2 of 2, about 8 min left"), std::string::npos) << shown();
}

TEST_F(ProgressLineTest, CreatingFilesTakesNoTimeFromTheEstimate) {
  line_.plan(1, 4, 0);
  line_.creating_files(8192, 200000);
  EXPECT_EQ(shown(), "fdbench: creating files: 8,192 of 200,000 (4%)");
  now_ += 60'000 * kMs;  // a minute creating files
  run(line_, now_, 1, 1, 2, 500);
  EXPECT_NE(shown().find("about 1 s left"), std::string::npos) << shown();
}

TEST_F(ProgressLineTest, RedrawsAtMostEveryTenthOfASecond) {
  line_.plan(1, 1000, 0);
  line_.repetition_started("threads, 1 thread", 1, 1);
  const std::string first = terminal_.str();
  run(line_, now_, 1, 2, 50, 1);
  EXPECT_EQ(terminal_.str(), first);  // 50 ms: not yet
  now_ += 60 * kMs;
  line_.repetition_started("threads, 1 thread", 1, 52);
  EXPECT_NE(terminal_.str(), first);
  EXPECT_NE(shown().find("repetition 52/1000"), std::string::npos) << shown();
}

TEST_F(ProgressLineTest, NeverWiderThanTheTerminal) {
  std::ostringstream narrow;
  ProgressLine line(narrow, 30, [this] { return now_; });
  line.plan(3, 11, 0);
  line.repetition_started("uring-direct, 16 threads, pregrow auto", 1, 1);
  const std::string all = narrow.str();
  const std::string text = all.substr(all.rfind("\r\033[K") + 4);
  EXPECT_LE(display_width(text), 29U) << text;
  EXPECT_EQ(text.find('\n'), std::string::npos);
  EXPECT_EQ(text, "fdbench: uring-direct") << text;
}

// The time left is a clause of its own: it goes whole, never as "at most about 12 s lef".
TEST(ProgressLineFit, DropsWholeClausesThenWholeWords) {
  const std::string line =
      "fdbench: threads, 2 threads: repetition 3, result 5 of 24, at most about 12 s left";
  EXPECT_EQ(fitted(line, 100), line);
  EXPECT_EQ(fitted(line, 80), "fdbench: threads, 2 threads: repetition 3, result 5 of 24");
  EXPECT_EQ(fitted(line, 20), "fdbench: threads");
  EXPECT_EQ(fitted("fdbench: creating files: 1,000 of 10,000 (10%)", 30),
            "fdbench: creating files:…");
  EXPECT_EQ(fitted("fdbench:", 3), "");
}

TEST_F(ProgressLineTest, GoneBeforeAResultIsPrintedAndAtTheEnd) {
  line_.plan(2, 3, 0);
  line_.repetition_started("threads, 1 thread", 1, 1);
  line_.result_done();
  EXPECT_EQ(shown(), "");  // erased: the result's row starts on a clean line
  line_.repetition_started("threads, 2 threads", 2, 1);
  line_.clear();
  EXPECT_EQ(shown(), "");
  const std::string after = terminal_.str();
  line_.clear();  // nothing shown, nothing written
  EXPECT_EQ(terminal_.str(), after);
}

TEST(ProgressLineSilence, WritesNothingUntilThereIsSomethingToShow) {
  std::ostringstream terminal;
  {
    ProgressLine line(terminal, 80, [] { return std::int64_t{0}; });
    line.plan(5, 11, 0);
  }
  EXPECT_EQ(terminal.str(), "");
}

}  // namespace progress_line_test
}  // namespace fdbench::app
