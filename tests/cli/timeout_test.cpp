// --timeout: an open that never returns (made to hang by fdbench_hang_opens, as on a dead NFS
// or FUSE mount) is abandoned. fdbench exits 1 with one line naming the file, the result says
// "timed out", the results so far are kept, nothing of fdbench is left running, and the
// user's files are untouched. Ctrl-C ends such a run too. Skipped where the tool cannot make
// an open hang (no seccomp user notification). Every wait is bounded; no speed is asserted.
#ifdef FDBENCH_HANG_OPENS
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/errors.hpp"
#include "platform/platform.hpp"
#include "support/child_pids.hpp"
#include "support/fdbench_process.hpp"
#include "support/hang_opens.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace timeout_test {

RunOptions under_hang_opens() {
  RunOptions options = as_a_job();
  options.program = FDBENCH_HANG_OPENS;
  options.timeout = std::chrono::seconds(60);
  return options;
}

// A tree of a few files, one of which (hang-here.txt) cannot be opened: its open hangs.
struct HangingTree {
  TempDir dir;
  std::string hanging;
  HangingTree() {
    for (const char* name : {"a.txt", "b.txt", "c.txt", "d.txt"}) write_text(dir / name, "x");
    hanging = dir / "hang-here.txt";
    write_text(hanging, "never opened\n");
  }
};

std::vector<std::string> under_tool(const std::vector<std::string>& fdbench_args) {
  std::vector<std::string> args{"hang-here", "--", testing::fdbench_binary()};
  args.insert(args.end(), fdbench_args.begin(), fdbench_args.end());
  return args;
}

// The line of `text` that starts with `prefix`, or "".
std::string line_starting(const std::string& text, const std::string& prefix) {
  for (const auto& line : lines_of(text)) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return {};
}

struct HangingCase {
  const char* strategy;
  bool keep_open;  // each repetition in a fresh child process
};

// The one line a run stopped by --timeout 1 prints: the limit, and the file the hung open was
// given where the system shows another thread's system call. Returns the line.
std::string expect_timed_out_line(const RunResult& run, const HangingTree& tree) {
  const std::string line = line_starting(run.err, "fdbench: timed out: ");
  EXPECT_NE(line, "") << run.err;
  EXPECT_NE(line.find("did not finish within 1 s"), std::string::npos) << line;
  if (platform::uses_linux_interfaces()) {
    EXPECT_NE(line.find("it was opening " + tree.hanging), std::string::npos) << line;
  } else {
    EXPECT_NE(line.find("this system does not show"), std::string::npos) << line;
  }
  return line;
}

class TimedOut : public ::testing::TestWithParam<HangingCase> {};

TEST_P(TimedOut, ExitsOneNamingTheFileAndKeepsWhatItMeasured) {
  const HangingTree tree;
  const TempDir out;
  std::vector<std::string> args{"open",
                                "--tree",
                                tree.dir.path(),
                                "--strategy",
                                GetParam().strategy,
                                "--threads",
                                "2",
                                "--repeat",
                                "2",
                                "--timeout",
                                "1",
                                "--export-json",
                                out / "r.json",
                                "--quiet"};
  if (GetParam().keep_open) args.push_back("--keep-open");
  FdbenchProcess fdbench(under_tool(args), under_hang_opens());
  const RunResult run = fdbench.wait();
  if (run.exit_code == kHangOpensUnavailable) FDBENCH_SKIP_WITHOUT("hang_opens") << run.err;
  ASSERT_EQ(run.exit_code, 1) << run.err;
  expect_timed_out_line(run, tree);

  const auto doc = nlohmann::json::parse(read_text(out / "r.json"));
  EXPECT_FALSE(doc.at("complete").get<bool>());
  ASSERT_EQ(doc.at("results").size(), 1U);  // the first repetition hangs: nothing else ran
  const auto& result = doc.at("results").at(0);
  EXPECT_EQ(result.at("status"), "timed-out");
  const std::string error = result.at("error").get<std::string>();
  EXPECT_NE(error.find("did not finish within 1 s"), std::string::npos) << error;
  EXPECT_NE(error.find(GetParam().strategy), std::string::npos) << error;
  EXPECT_TRUE(result.at("times_ns").empty());
  EXPECT_EQ(result.at("parameters").at("timeout"), "1 s");
  bool said = false;
  for (const auto& f : doc.at("findings")) said = said || f.at("kind") == "hung";
  EXPECT_TRUE(said) << doc.at("findings").dump();

  const auto left = fdbench.leftovers();
  EXPECT_EQ(left.running, 0) << "a process of fdbench outlived it";
  EXPECT_EQ(read_text(tree.hanging), "never opened\n");  // the user's files are as they were
}

INSTANTIATE_TEST_SUITE_P(
    Strategies, TimedOut,
    ::testing::Values(HangingCase{"threads", false}, HangingCase{"pool", false},
                      HangingCase{"process", false}, HangingCase{"libuv", false},
                      HangingCase{"threads", true}),
    [](const auto& each) {
      return std::string(each.param.strategy) + (each.param.keep_open ? "_kept_open" : "");
    });

// Results measured before the hang are kept and reported beside the one that hung: here the
// tree's other files are measured first (the hanging file is opened only by the second
// command line's run, which lists it), so the first command's results are whole.
TEST(TimedOutRun, ResultsBeforeTheHangAreKept) {
  const HangingTree tree;
  const TempDir out;
  write_text(out / "list", tree.dir / "a.txt" + "\n" + tree.hanging + "\n");
  FdbenchProcess fdbench(under_tool({"open", "--list", out / "list", "--strategy", "uring,threads",
                                     "--threads", "1", "--repeat", "2", "--order", "sequential",
                                     "--timeout", "1", "--export-json", out / "r.json", "--quiet"}),
                         under_hang_opens());
  const RunResult run = fdbench.wait();
  if (run.exit_code == kHangOpensUnavailable) FDBENCH_SKIP_WITHOUT("hang_opens") << run.err;
  const auto doc = nlohmann::json::parse(read_text(out / "r.json"));
  ASSERT_EQ(doc.at("results").size(), 2U) << doc.dump(1);
  if (doc.at("results").at(0).at("status") == "unavailable") {
    FDBENCH_SKIP_WITHOUT("uring") << doc.at("results").at(0).value("error", "");
  }
  ASSERT_EQ(run.exit_code, 1) << run.err;
  // io_uring's opens do not pass through the system call the tool stops: it finished.
  EXPECT_EQ(doc.at("results").at(0).at("strategy"), "uring");
  EXPECT_EQ(doc.at("results").at(0).at("times_ns").size(), 2U);
  EXPECT_EQ(doc.at("results").at(1).at("strategy"), "threads");
  EXPECT_EQ(doc.at("results").at(1).at("status"), "timed-out");
  EXPECT_NE(line_starting(run.err, "fdbench: timed out: ").find("2 results kept"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(fdbench.leftovers().running, 0);
}

// No --timeout given: a --tree run still has one (60 s), and Ctrl-C, which the hung thread
// never sees, ends the run a few seconds later with the result marked "hung".
TEST(TimedOutRun, CtrlCEndsARunThatHangs) {
  const HangingTree tree;
  const TempDir out;
  FdbenchProcess fdbench(under_tool({"open", "--tree", tree.dir.path(), "--strategy", "threads",
                                     "--threads", "1", "--export-json", out / "r.json", "--quiet"}),
                         under_hang_opens());
  // The repetition under way and blocked in its open of the hanging file, which Ctrl-C cannot
  // reach (signalled at "repetition-started", a loaded machine could stop the run before it).
  const bool started = fdbench.wait_for_event("open-held ");
  fdbench.signal(SIGINT);  // to the tool, which passes it on to fdbench
  const RunResult run = fdbench.wait();
  if (run.exit_code == kHangOpensUnavailable) FDBENCH_SKIP_WITHOUT("hang_opens") << run.err;
  ASSERT_TRUE(started) << "no repetition started: " << run.err;
  ASSERT_EQ(run.exit_code, 128 + SIGINT) << run.err;
  EXPECT_NE(run.err.find("interrupted by signal"), std::string::npos) << run.err;
  const auto doc = nlohmann::json::parse(read_text(out / "r.json"));
  ASSERT_EQ(doc.at("results").size(), 1U);
  EXPECT_EQ(doc.at("results").at(0).at("status"), "hung");
  const std::string error = doc.at("results").at(0).at("error").get<std::string>();
  EXPECT_NE(error.find("was still running"), std::string::npos) << error;
  EXPECT_EQ(doc.at("results").at(0).at("parameters").at("timeout"), "60 s");
  EXPECT_EQ(fdbench.leftovers().running, 0);
}

// fdbench itself, the one child of the tool that runs it.
pid_t fdbench_under(const FdbenchProcess& tool) {
  const auto children = children_of(tool.pid());
  return children.size() == 1 ? children.front() : -1;
}

// Whether `sig` is still pending for the whole of process `pid` (not yet taken by a thread of
// it): /proc/PID/status's ShdPnd mask.
bool pending(pid_t pid, int sig) {
  const std::string status = read_text("/proc/" + std::to_string(pid) + "/status");
  const auto at = status.find("ShdPnd:");
  if (at == std::string::npos) return false;
  const unsigned long long mask = std::strtoull(status.c_str() + at + 7, nullptr, 16);
  return (mask & (1ULL << (sig - 1))) != 0;
}

// --timeout none, and the hung open never returns: Ctrl-C must still end the run. The first
// signal is sent to fdbench itself and seen taken (no longer pending) before the second, so
// the two are two: the second abandons the stuck repetition at once, as the limit would have.
TEST(NoLimit, ASecondCtrlCEndsARunStuckInAnOpen) {
  const HangingTree tree;
  const TempDir out;
  FdbenchProcess tool(
      under_tool({"open", "--tree", tree.dir.path(), "--strategy", "threads", "--threads", "1",
                  "--timeout", "none", "--export-json", out / "r.json", "--quiet"}),
      under_hang_opens());
  const bool held = tool.wait_for_event("open-held ");
  const pid_t fdbench = fdbench_under(tool);
  if (held && fdbench > 0) {
    kill(fdbench, SIGINT);
    EXPECT_TRUE(wait_until([&] { return !pending(fdbench, SIGINT); }, std::chrono::seconds(10)))
        << "fdbench never took the first SIGINT";
    kill(fdbench, SIGINT);
  }
  const RunResult run = tool.wait();
  if (run.exit_code == kHangOpensUnavailable) FDBENCH_SKIP_WITHOUT("hang_opens") << run.err;
  ASSERT_TRUE(held) << "no open was held: " << run.err;
  ASSERT_GT(fdbench, 0);
  ASSERT_EQ(run.exit_code, 128 + SIGINT) << run.err;
  EXPECT_NE(run.err.find("interrupted by signal"), std::string::npos) << run.err;
  const auto doc = nlohmann::json::parse(read_text(out / "r.json"));
  ASSERT_EQ(doc.at("results").size(), 1U);
  const auto& result = doc.at("results").at(0);
  EXPECT_EQ(result.at("status"), "hung");
  const std::string error = result.at("error").get<std::string>();
  EXPECT_NE(error.find("at the second signal"), std::string::npos) << error;
  if (platform::uses_linux_interfaces()) {  // elsewhere: "this system does not show"
    EXPECT_NE(error.find("it was opening " + tree.hanging), std::string::npos) << error;
  }
  EXPECT_FALSE(result.at("parameters").contains("timeout")) << result.at("parameters").dump();
  EXPECT_EQ(tool.leftovers().running, 0) << "a process of fdbench outlived it";
  EXPECT_EQ(read_text(tree.hanging), "never opened\n");
}

// One SIGTERM (what a service manager sends before SIGKILL) ends such a run too: the stuck
// repetition gets the grace a limited run gives it, then is abandoned.
TEST(NoLimit, OneSigtermEndsARunStuckInAnOpen) {
  const HangingTree tree;
  const TempDir out;
  FdbenchProcess tool(
      under_tool({"open", "--tree", tree.dir.path(), "--strategy", "threads", "--threads", "1",
                  "--timeout", "none", "--export-json", out / "r.json", "--quiet"}),
      under_hang_opens());
  const bool held = tool.wait_for_event("open-held ");
  tool.signal(SIGTERM);  // to the tool, which passes it on to fdbench
  const RunResult run = tool.wait();
  if (run.exit_code == kHangOpensUnavailable) FDBENCH_SKIP_WITHOUT("hang_opens") << run.err;
  ASSERT_TRUE(held) << "no open was held: " << run.err;
  ASSERT_EQ(run.exit_code, 128 + SIGTERM) << run.err;
  const auto doc = nlohmann::json::parse(read_text(out / "r.json"));
  ASSERT_EQ(doc.at("results").size(), 1U);
  EXPECT_EQ(doc.at("results").at(0).at("status"), "hung");
  EXPECT_EQ(tool.leftovers().running, 0);
}

// A repetition that runs out of its limit is named as the one that ran: "repetition 1 of 3",
// never the next one. An open that never returns makes this certain on any machine, however
// loaded (a 1 µs limit against 100 opens was beaten by the whole repetition on a loaded
// machine, whose waiting thread got no CPU until the repetition was over: issue 39 item 15).
TEST(TimedOutRun, NamesTheRepetitionThatRanOut) {
  const HangingTree tree;
  FdbenchProcess fdbench(
      under_tool({"open", "--tree", tree.dir.path(), "--threads", "1", "--strategy", "threads",
                  "--repeat", "3", "--warmup", "0", "--timeout", "1", "--quiet"}),
      under_hang_opens());
  const RunResult run = fdbench.wait();
  if (run.exit_code == kHangOpensUnavailable) FDBENCH_SKIP_WITHOUT("hang_opens") << run.err;
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const std::string line = expect_timed_out_line(run, tree);
  EXPECT_NE(line.find("repetition 1 of 3 did not finish within 1 s"), std::string::npos) << line;
  EXPECT_EQ(run.err.find("repetition 2 of"), std::string::npos) << run.err;
}

// The smallest limit there is (1 ns) against 100 opens: a repetition that ends just as the
// limit passes has already counted itself, yet is named as the one that ran, never
// "repetition 2 of 1". Whether any run times out depends on the machine's load, so none must.
TEST(TimedOutRun, AStepEndingAsTheLimitPassesIsNamedAsItself) {
  const TempDir work;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const RunResult run = run_fdbench({"open", "--files", "100", "--threads", "1", "--strategy",
                                       "threads", "--repeat", "1", "--warmup", "0", "--timeout",
                                       "0.000000001", "--dir", work.path(), "--quiet"});
    ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.exit_code << ": " << run.err;
    if (run.exit_code == 0) continue;
    EXPECT_NE(run.err.find("repetition 1 of 1 did not finish within"), std::string::npos)
        << run.err;
    EXPECT_EQ(run.err.find("repetition 2 of"), std::string::npos) << run.err;
  }
}

// tune runs every repetition as open does, under the same limit: a hung open stops the sweep
// with exit 1 and one line naming the file, nothing recommended or saved, nothing left over.
TEST(TimedOutTune, StopsTheSweepNamingTheFileAndSavesNothing) {
  const HangingTree tree;
  const TempDir out;
  const std::string saved = out / "rec.json";
  FdbenchProcess fdbench(under_tool({"tune", "--tree", tree.dir.path(), "--budget", "2",
                                     "--timeout", "1", "--save", saved, "--quiet"}),
                         under_hang_opens());
  const RunResult run = fdbench.wait();
  if (run.exit_code == kHangOpensUnavailable) FDBENCH_SKIP_WITHOUT("hang_opens") << run.err;
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const std::string line = expect_timed_out_line(run, tree);
  EXPECT_NE(line.find("nothing recommended"), std::string::npos) << line;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_FALSE(std::filesystem::exists(saved));
  EXPECT_EQ(fdbench.leftovers().running, 0);
}

// --harness published makes the file set's parent the current directory while a repetition
// runs (the seed opens tmp/N.txt from there). When that repetition hangs and is abandoned, the
// directory the run began in comes back: a relative --export-json is written where the user
// meant it, not beside the file set.
TEST(TimedOutPublishedHarness, RelativeOutputsStayWhereTheRunBegan) {
  TempDir started_in;
  TempDir sets;
  // The set is made first, and kept: made under the tool, its creation would hang.
  const std::string kept = sets / "kept";
  const RunResult made = run_fdbench({"open", "--files", "20", "--keep-files", kept, "--repeat",
                                      "1", "--warmup", "0", "--quiet"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  // Run from `started_in`, through a shell; the 7th file's open hangs (and the 17th's).
  const std::string command =
      "cd '" + started_in.path() + "' && exec '" + FDBENCH_HANG_OPENS + "' 7.txt -- '" +
      fdbench_binary() + "' open --reuse-files '" + kept + "' --harness published " +
      "--strategy threads --threads 1 --repeat 2 --timeout 1 --export-json r.json --quiet";
  RunOptions options = under_hang_opens();
  options.program = "/bin/sh";
  FdbenchProcess fdbench({"-c", command}, options);
  const RunResult run = fdbench.wait();
  if (run.exit_code == kHangOpensUnavailable) FDBENCH_SKIP_WITHOUT("hang_opens") << run.err;
  ASSERT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(line_starting(run.err, "fdbench: timed out: "), "") << run.err;
  EXPECT_TRUE(std::filesystem::exists(started_in / "r.json")) << run.err;
  EXPECT_FALSE(std::filesystem::exists(sets / "r.json")) << "written beside the file set";
  EXPECT_EQ(fdbench.leftovers().running, 0) << "a process of fdbench outlived it";
}

}  // namespace timeout_test
}  // namespace fdbench::testing
#endif  // FDBENCH_HANG_OPENS
