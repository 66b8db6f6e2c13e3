// Opens that never return, for real: a FUSE server (tests/support/fuse_hang.cpp, mounted by
// tests/support/fuse_mount.hpp) that reads an open request and never answers it leaves the
// opening thread in the kernel's request_wait_answer(), where not even SIGKILL reaches it, as on
// a hung NFS or FUSE mount. fdbench must still exit at its --timeout, naming the file, with its
// exports written, and say which of its processes it could not end.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/fuse_mount.hpp"

namespace fdbench::testing {
namespace fuse_hang_test {

// The mount with `hang0.txt` (its open never returns) and `lookup-hangs.txt` (its lookup never
// returns).
class HungFuseMount : public FuseMount {
 protected:
  // Runs `args` (with a 1 s limit), whose --list file or --tree directory cannot be looked at:
  // fdbench exits at its limit, naming `what` ("--list FILE"), having measured nothing.
  void expect_looking_at_times_out(std::vector<std::string> args, const std::string& what) {
    args.insert(args.end(), {"--timeout", "1", "--quiet"});
    const RunResult run = run_bounded(args);
    ASSERT_TRUE(exited_by_itself) << "fdbench did not exit at its limit: " << run.err;
    EXPECT_EQ(run.exit_code, 1) << run.err;
    const std::string line = line_starting(run.err, "fdbench: timed out: ");
    EXPECT_NE(line.find("examining " + what + " did not finish within 1 s"), std::string::npos)
        << run.err;
    if (shows_stuck_calls()) {
      EXPECT_NE(line.find("could not be ended"), std::string::npos) << line;
    }
    EXPECT_EQ(run.out, "");
    expect_nothing_left();
  }
};

struct Case {
  const char* strategy;
  bool keep_open;
};

class OpenNeverReturns : public HungFuseMount, public ::testing::WithParamInterface<Case> {};

TEST_P(OpenNeverReturns, FdbenchExitsAtItsLimitNamingTheFile) {
  write_text(out / "list", hanging + "\n");
  // `process` forks its workers inside the fresh child after the clock starts: on a loaded
  // machine they may not reach the open within 1 s, and the line would then rightly name no
  // open. 3 s leaves them time; the others are in their open at once.
  const std::string limit = std::string(GetParam().strategy) == "process" ? "3" : "1";
  std::vector<std::string> args{"open",
                                "--list",
                                out / "list",
                                "--strategy",
                                GetParam().strategy,
                                "--threads",
                                "2",
                                "--repeat",
                                "2",
                                "--timeout",
                                limit,
                                "--export-json",
                                out / "r.json",
                                "--quiet"};
  if (GetParam().keep_open) args.push_back("--keep-open");
  const RunResult run = run_bounded(args);
  ASSERT_TRUE(exited_by_itself) << "fdbench did not exit at its limit (exit code " << run.exit_code
                                << " once the mount was aborted): " << run.err;
  // A build without io_uring refuses a uring-only run before it starts.
  if (run.exit_code == 2 && run.err.find("nothing it asks for can run here") != std::string::npos) {
    FDBENCH_SKIP_WITHOUT("uring") << run.err;
  }
  if (run.exit_code == 0 && std::string(GetParam().strategy).rfind("uring", 0) == 0) {
    const auto doc = nlohmann::json::parse(read_text(out / "r.json"));
    if (doc.at("results").at(0).at("status") == "unavailable") {
      FDBENCH_SKIP_WITHOUT("uring") << doc.at("results").at(0).value("error", "");
    }
  }
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const std::string line = line_starting(run.err, "fdbench: timed out: ");
  EXPECT_NE(line.find("did not finish within " + limit + " s"), std::string::npos) << run.err;
  if (shows_stuck_calls()) {
    if (std::string(GetParam().strategy).rfind("uring", 0) != 0) {
      EXPECT_NE(line.find("it was opening " + hanging), std::string::npos) << line;
    } else {  // io_uring opens in the kernel, in no thread's system call: the list is named
      EXPECT_NE(line.find("opening the files --list " + out / "list" + " names"), std::string::npos)
          << line;
    }
    // The process stuck in the open cannot be ended: the line says which it left behind.
    EXPECT_NE(line.find("could not be ended"), std::string::npos) << line;
    EXPECT_NE(line.find("pid "), std::string::npos) << line;
  }

  const auto doc = nlohmann::json::parse(read_text(out / "r.json"));
  ASSERT_EQ(doc.at("results").size(), 1U) << doc.dump(1);
  EXPECT_EQ(doc.at("results").at(0).at("status"), "timed-out");
  expect_nothing_left();
}

INSTANTIATE_TEST_SUITE_P(Strategies, OpenNeverReturns,
                         ::testing::Values(Case{"threads", false}, Case{"pool", false},
                                           Case{"fast-pool", false}, Case{"uring", false},
                                           Case{"process", false}, Case{"libuv", false},
                                           Case{"threads", true}),
                         [](const auto& each) {
                           std::string name = std::string(each.param.strategy) +
                                              (each.param.keep_open ? "_kept_open" : "");
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

// tune measures a list as open does, in a process it can abandon.
TEST_F(HungFuseMount, TuneExitsAtItsLimitNamingTheFile) {
  write_text(out / "list", hanging + "\n");
  const RunResult run = run_bounded({"tune", "--list", out / "list", "--budget", "2", "--timeout",
                                     "1", "--save", out / "rec.json", "--quiet"});
  ASSERT_TRUE(exited_by_itself) << "fdbench tune did not exit at its limit: " << run.err;
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const std::string line = line_starting(run.err, "fdbench: timed out: ");
  if (shows_stuck_calls()) {
    EXPECT_NE(line.find("it was opening " + hanging), std::string::npos) << run.err;
  }
  EXPECT_NE(line.find("nothing recommended"), std::string::npos) << line;
  EXPECT_FALSE(std::filesystem::exists(out / "rec.json"));
  expect_nothing_left();
}

// Paths are looked at before anything is measured, under the same limit and in a process of
// their own: a listed path whose lookup never returns stops the run at the limit, naming it.
TEST_F(HungFuseMount, AListedPathThatCannotBeExaminedTimesOut) {
  write_text(out / "a.txt", "x");
  const std::string stuck = mountpoint + "/lookup-hangs.txt";
  write_text(out / "list", out / "a.txt" + "\n" + stuck + "\n");
  const RunResult run = run_bounded({"open", "--list", out / "list", "--strategy", "threads",
                                     "--timeout", "1", "--export-json", out / "r.json", "--quiet"});
  ASSERT_TRUE(exited_by_itself) << "fdbench did not exit at its limit: " << run.err;
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const std::string line = line_starting(run.err, "fdbench: timed out: ");
  EXPECT_NE(line.find("examining --list " + out / "list" + " did not finish within 1 s"),
            std::string::npos)
      << run.err;
  if (shows_stuck_calls()) {
    EXPECT_NE(line.find("it was examining " + stuck), std::string::npos) << line;
    EXPECT_NE(line.find("could not be ended"), std::string::npos) << line;
  }
  const auto doc = nlohmann::json::parse(read_text(out / "r.json"));
  EXPECT_TRUE(doc.at("results").empty()) << doc.dump(1);
  expect_nothing_left();
}

// A --tree walk that reaches such a path stops the same way.
TEST_F(HungFuseMount, ATreeWalkThatCannotFinishTimesOut) {
  const RunResult run = run_bounded(
      {"open", "--tree", mountpoint, "--strategy", "threads", "--timeout", "1", "--quiet"});
  ASSERT_TRUE(exited_by_itself) << "fdbench did not exit at its limit: " << run.err;
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const std::string line = line_starting(run.err, "fdbench: timed out: ");
  EXPECT_NE(line.find("examining --tree " + mountpoint), std::string::npos) << run.err;
  if (shows_stuck_calls()) {
    EXPECT_NE(line.find("lookup-hangs.txt"), std::string::npos) << line;
  }
  expect_nothing_left();
}

// And tune, before its sweep.
TEST_F(HungFuseMount, TuneStopsWhenAListedPathCannotBeExamined) {
  write_text(out / "list", mountpoint + "/lookup-hangs.txt\n");
  const RunResult run = run_bounded({"tune", "--list", out / "list", "--budget", "2", "--timeout",
                                     "1", "--save", out / "rec.json", "--quiet"});
  ASSERT_TRUE(exited_by_itself) << "fdbench tune did not exit at its limit: " << run.err;
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const std::string line = line_starting(run.err, "fdbench: timed out: ");
  if (shows_stuck_calls()) {
    EXPECT_NE(line.find("lookup-hangs.txt"), std::string::npos) << run.err;
  }
  EXPECT_NE(line.find("nothing recommended"), std::string::npos) << line;
  EXPECT_FALSE(std::filesystem::exists(out / "rec.json"));
  expect_nothing_left();
}

// The --list file or --tree directory itself on such a mount: looked at before the run, under
// the same limit and in a process of its own, not in fdbench (which could then never exit).
TEST_F(HungFuseMount, AListFileWhoseOpenNeverReturnsTimesOut) {
  expect_looking_at_times_out({"open", "--list", hanging, "--strategy", "threads"},
                              "--list " + hanging);
}

TEST_F(HungFuseMount, TuneTimesOutOnAListFileWhoseOpenNeverReturns) {
  expect_looking_at_times_out({"tune", "--list", hanging, "--budget", "2"}, "--list " + hanging);
}

// A --tree directory whose own lookup never returns is caught before that, as every path the
// command line names is (dead_mount_test.cpp): named, at the limit.
TEST_F(HungFuseMount, ATreeWhoseLookupNeverReturnsTimesOut) {
  const std::string stuck = mountpoint + "/lookup-hangs.txt";
  const RunResult run = run_bounded(
      {"open", "--tree", stuck, "--strategy", "threads", "--timeout", "1", "--quiet"});
  ASSERT_TRUE(exited_by_itself) << "fdbench did not exit at its limit: " << run.err;
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(line_starting(run.err, "Error: --tree " + stuck +
                                       ": no answer from its filesystem in 1 s (a dead mount?)"),
            "")
      << run.err;
  EXPECT_EQ(run.out, "");
  expect_nothing_left();
}

}  // namespace fuse_hang_test
}  // namespace fdbench::testing
