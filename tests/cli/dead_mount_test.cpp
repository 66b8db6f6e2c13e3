// A dead mount anywhere on the command line (issue 39 item 6): a FUSE server that never answers
// a getattr or a lookup (fdbench_fuse_hang --dead) leaves whoever calls stat() on a path into it
// in the kernel, where not even SIGKILL reaches it. fdbench must never be that caller: each path
// the command line names (--dir, TMPDIR, --keep-files, outputs, inputs, clean --dir) is first
// looked at by a child process it can abandon, under --timeout's limit (10 s without one), so
// fdbench exits, naming the path, with nothing left behind. Skipped without FUSE; every test
// ends the connection and detaches the mount (support/fuse_mount.hpp), whatever its outcome.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "support/fuse_mount.hpp"
#include "support/run_processes.hpp"

namespace fdbench::testing {
namespace dead_mount_test {

// Whether a process waits for the FUSE server (its kernel wait channel says so).
bool waits_for_fuse(int pid) {
  const std::string wchan = read_text("/proc/" + std::to_string(pid) + "/wchan");
  return wchan.find("request_wait_answer") != std::string::npos ||
         wchan.find("fuse") != std::string::npos;
}

class DeadMount : public FuseMount {
 protected:
  [[nodiscard]] bool dead() const override { return true; }

  // Runs `args` (with `env`): fdbench exits by itself with exit code 1 and the one line
  // "Error: WHAT: no answer from its filesystem in LIMIT s (a dead mount?)", prints nothing on
  // stdout, and leaves no process behind once the mount is gone.
  void expect_no_answer(const std::vector<std::string>& args, const std::string& what,
                        const std::string& limit, std::vector<std::string> env = {}) {
    const RunResult run = run_bounded(args, std::chrono::seconds(30), std::move(env));
    ASSERT_TRUE(exited_by_itself) << "fdbench did not exit by itself: " << run.err;
    EXPECT_EQ(run.exit_code, 1) << run.err;
    const std::string line = line_starting(run.err, "Error: " + what + ": ");
    EXPECT_NE(line.find(": no answer from its filesystem in " + limit + " s (a dead mount?)"),
              std::string::npos)
        << run.err;
    if (shows_stuck_calls()) {  // the child stuck in the stat() is named, not left silently
      EXPECT_NE(line.find("could not be ended"), std::string::npos) << line;
    }
    EXPECT_EQ(run.out, "");
    expect_nothing_left();
    EXPECT_TRUE(list_names(out.path()).empty()) << "fdbench left something in " << out.path();
  }
};

TEST_F(DeadMount, DirOnItExitsAtTheLimit) {
  expect_no_answer({"open", "--dir", mountpoint, "--files", "10", "--repeat", "1", "--timeout",
                    "3", "--quiet"},
                   "--dir " + mountpoint, "3");
}

TEST_F(DeadMount, TmpdirOnItExitsAtTheLimit) {
  expect_no_answer({"open", "--files", "10", "--repeat", "1", "--timeout", "3", "--quiet"},
                   "TMPDIR " + mountpoint, "3", {"TMPDIR=" + mountpoint});
}

TEST_F(DeadMount, KeepFilesOnItExitsAtTheLimit) {
  expect_no_answer({"open", "--keep-files", mountpoint + "/set", "--files", "10", "--repeat", "1",
                    "--timeout", "3", "--quiet"},
                   "--keep-files " + mountpoint + "/set", "3");
}

TEST_F(DeadMount, ExportJsonIntoItExitsAtTheLimit) {
  TempDir work;
  expect_no_answer({"open", "--dir", work.path(), "--files", "10", "--repeat", "1", "--timeout",
                    "3", "--export-json", mountpoint + "/r.json", "--quiet"},
                   "--export-json " + mountpoint + "/r.json", "3");
  EXPECT_TRUE(list_names(work.path()).empty()) << "the private set was made, or left";
}

// compare and clean take no --timeout: the default limit, 10 s.
TEST_F(DeadMount, CompareInputOnItExitsAtTheDefaultLimit) {
  write_text(dir / "b.json", "{}");
  expect_no_answer({"compare", mountpoint + "/a.json", dir / "b.json"}, mountpoint + "/a.json",
                   "10");
}

TEST_F(DeadMount, CleanDirOnItExitsAtTheDefaultLimit) {
  expect_no_answer({"clean", "--dir", mountpoint}, "--dir " + mountpoint, "10");
}

// The history where it lives by default: a home (XDG_DATA_HOME) on a dead NFS mount.
TEST_F(DeadMount, TheDefaultHistoryOnItExitsAtTheLimit) {
  TempDir work;
  expect_no_answer({"socket", "--threads", "2", "--per-thread", "16", "--repeat", "1",
                    "--timeout", "3", "--save", "--quiet"},
                   "the history " + mountpoint + "/fdbench/history.db", "3",
                   {"XDG_DATA_HOME=" + mountpoint});
}

TEST_F(DeadMount, HistoryImportFromItExitsAtTheDefaultLimit) {
  expect_no_answer({"history", "import", mountpoint + "/a.json", "--history", dir / "h.db"},
                   mountpoint + "/a.json", "10");
}

// accept --kind unix binds its listener in a directory under TMPDIR (issue 49 item 3: on a dead
// TMPDIR it ignored --timeout 3 and was still there at 30 s): TMPDIR is looked at first, as for
// every command that works there, and the run ends at the limit naming it.
TEST_F(DeadMount, AcceptsUnixSocketInADeadTmpdirExitsAtTheLimit) {
  expect_no_answer({"accept", "--kind", "unix", "--connections", "16", "--repeat", "1",
                    "--timeout", "3", "--quiet"},
                   "TMPDIR " + mountpoint, "3", {"TMPDIR=" + mountpoint});
}

// The limit is kept to within half a second (issue 49 item 8: every dead-mount check ended 3.3
// to 4 s after it, the 2 s and 1 s the kill's reaping and its report each waited for a process
// that SIGKILL cannot end). The bound is the feature, so it is asserted, with room for a loaded
// machine (1.5 s over the limit); what it took is recorded (`elapsed`).
TEST_F(DeadMount, ATimeoutOfTwoSecondsEndsBetweenTwoAndTwoAndAHalf) {
  const auto start = std::chrono::steady_clock::now();
  const RunResult run = run_bounded({"open", "--dir", mountpoint, "--files", "10", "--repeat",
                                     "1", "--timeout", "2", "--quiet"},
                                    std::chrono::seconds(30));
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(exited_by_itself) << run.err;
  EXPECT_EQ(run.exit_code, 1) << run.err;
  RecordProperty("elapsed", std::to_string(elapsed));
  EXPECT_GE(elapsed, 2.0) << run.err;
  EXPECT_LT(elapsed, 2.0 + 1.5) << "the limit was kept late: " << run.err;
  if (elapsed >= 2.5) std::fprintf(stderr, "[ note ] --timeout 2 ended at %.2f s\n", elapsed);
  expect_nothing_left();
}

// SIGTERM during that wait ends the run within half a second (it took more than 2 s): the
// child that looks at the path holds nothing to finish, and is abandoned at once.
TEST_F(DeadMount, SigtermDuringTheWaitEndsItAtOnce) {
  RunOptions options = as_a_job();
  options.timeout = std::chrono::seconds(60);
  fdbench.emplace(std::vector<std::string>{"open", "--dir", mountpoint, "--files", "10",
                                           "--repeat", "1", "--timeout", "20", "--quiet"},
                  options);
  // Waits until the look is stuck: a process of fdbench's waiting for the FUSE server.
  ASSERT_TRUE(wait_until(
      [&] {
        for (const int pid : processes_in_group(fdbench->pid())) {
          if (pid != fdbench->pid() && waits_for_fuse(pid)) return true;
        }
        return false;
      },
      std::chrono::seconds(20)))
      << "nothing of fdbench waited for the dead mount";
  const auto start = std::chrono::steady_clock::now();
  fdbench->signal(SIGTERM);
  exited_by_itself = wait_until([&] { return has_exited(fdbench->pid()); }, std::chrono::seconds(10));
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!exited_by_itself) end_connection();
  const RunResult run = fdbench->wait();
  ASSERT_TRUE(exited_by_itself) << run.err;
  EXPECT_EQ(run.exit_code, 128 + SIGTERM) << run.err;
  RecordProperty("elapsed", std::to_string(elapsed));
  EXPECT_LT(elapsed, 0.5 + 1.5) << "SIGTERM was kept late";
  if (elapsed >= 0.5) std::fprintf(stderr, "[ note ] SIGTERM ended the wait at %.2f s\n", elapsed);
  expect_nothing_left();
}

}  // namespace dead_mount_test
}  // namespace fdbench::testing
