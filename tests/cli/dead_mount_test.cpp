// A dead mount anywhere on the command line (issue 39 item 6): a FUSE server that never answers
// a getattr or a lookup (fdbench_fuse_hang --dead) leaves whoever calls stat() on a path into it
// in the kernel, where not even SIGKILL reaches it. fdbench must never be that caller: each path
// the command line names (--dir, TMPDIR, --keep-files, outputs, inputs, clean --dir) is first
// looked at by a child process it can abandon, under --timeout's limit (10 s without one), so
// fdbench exits, naming the path, with nothing left behind. Skipped without FUSE; every test
// ends the connection and detaches the mount (support/fuse_mount.hpp), whatever its outcome.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/fuse_mount.hpp"

namespace fdbench::testing {
namespace dead_mount_test {

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

}  // namespace dead_mount_test
}  // namespace fdbench::testing
