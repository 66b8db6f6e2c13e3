// The progress line as a user sees it: fdbench run on a pseudo-terminal by script(1), the
// way a shell runs it, with and without --quiet; and never on a stderr that is a file.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/fdbench_process.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace progress_test {

const std::string kErase = "\r\033[K";

class ProgressOnATerminal : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("command -v script >/dev/null 2>&1") != 0) {
      FDBENCH_SKIP_WITHOUT("terminal") << "script(1) is not installed (Debian: bsdutils)";
    }
  }

  // Everything the terminal received while `fdbench args...` ran on it.
  std::string on_a_terminal(const std::string& args) {
    const std::string typescript = dir_ / "typescript";
    const std::string command = "script -qfec \"'" + std::string(fdbench_binary()) + "' " + args +
                                "\" '" + typescript + "' >/dev/null 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return read_text(typescript);
  }

  std::string open_args() const {
    return "open --files 3000 --strategy threads --threads 1,2 --repeat 3 --dir '" + dir_.path() +
           "' --output '" + (dir_ / "out.txt") + "'";
  }

  TempDir dir_;
};

TEST_F(ProgressOnATerminal, ShowsEachResultAndLeavesNothingBehind) {
  const std::string seen = on_a_terminal(open_args());
  EXPECT_NE(seen.find(kErase + "fdbench: threads, 1 thread: repetition 1/4, result 1 of 2"),
            std::string::npos)
      << seen;
  EXPECT_NE(seen.find("fdbench: threads, 2 threads: repetition"), std::string::npos) << seen;
  // The last line erased, then only what fdbench says at the end.
  const auto last = seen.rfind(kErase);
  ASSERT_NE(last, std::string::npos);
  EXPECT_EQ(seen.find("repetition", last), std::string::npos) << seen.substr(last);
  EXPECT_NE(seen.find("fdbench: wrote", last), std::string::npos) << seen.substr(last);
  EXPECT_NE(read_text(dir_ / "out.txt").find("threads"), std::string::npos);
}

TEST_F(ProgressOnATerminal, QuietShowsNone) {
  const std::string seen = on_a_terminal(open_args() + " --quiet");
  EXPECT_EQ(seen.find("repetition"), std::string::npos) << seen;
  EXPECT_EQ(seen.find(kErase), std::string::npos) << seen;
  EXPECT_NE(seen.find("fdbench: wrote"), std::string::npos) << seen;
}

// tune's progress lines too: each turn of its sweep on a terminal, none on a file (issue 34:
// 163 lines on a stderr that was no terminal, where open writes none).
TEST_F(ProgressOnATerminal, TuneSaysEachTurnOnATerminal) {
  const std::string tune = "tune --files 200 --budget 1 --strategy threads --dir '" + dir_.path() +
                           "' --format json --save '" + (dir_ / "rec.json") + "'";
  const std::string seen = on_a_terminal(tune);
  EXPECT_NE(seen.find("combinations in turns, each until its median is within ±3% or its share "
                      "of "),
            std::string::npos)
      << seen;
  // Taking turns, each repetition's workers are primed: no warm-up turn.
  EXPECT_NE(seen.find("fdbench tune: turn 1: "), std::string::npos) << seen;
  EXPECT_EQ(seen.find("(warm-up)"), std::string::npos) << seen;
  EXPECT_EQ(on_a_terminal(tune + " --quiet").find("fdbench tune: turn"), std::string::npos);
}

TEST(ProgressOffATerminal, TuneWritesNoProgressLinesToAFileOrPipe) {
  TempDir dir;
  const auto run = run_fdbench(
      {"tune", "--files", "200", "--budget", "1", "--dir", dir.path(), "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.find("turn "), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("combinations in turns"), std::string::npos) << run.err;
}

TEST(ProgressOffATerminal, NotWrittenToAFileOrPipe) {
  TempDir dir;
  const auto run = run_fdbench({"open", "--files", "500", "--strategy", "threads", "--threads", "1",
                                "--repeat", "3", "--dir", dir.path()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.find("repetition"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find('\033'), std::string::npos) << run.err;
}

TEST(ProgressOffATerminal, QuietIsInEveryMeasuringCommandsHelp) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--help"},
                                               {"open", "--help"},
                                               {"socket", "--help"},
                                               {"tune", "--help"}}) {
    const auto run = run_fdbench(args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.out.find("--quiet"), std::string::npos) << args.front();
  }
}

}  // namespace progress_test
}  // namespace fdbench::testing
