// AtomicFile's temporaries (issue 21, item 5): a process killed while it writes an output
// leaves no temporary file where the filesystem gives unnamed ones (O_TMPFILE), and where it
// does not, a named one that clean_output_temporaries() recognises and removes once no live
// run holds it. clean_output_temporaries() removes nothing else.
#include "output/atomic_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fdbench/error.hpp"
#include "platform/platform.hpp"
#include "support/fd_table.hpp"
#include "support/temp_dir.hpp"

namespace fdbench {
namespace atomic_file_test {

using testing::list_names;
using testing::open_under;
using testing::read_text;
using testing::TempDir;
using testing::write_text;

constexpr const char* kOld = "the previous content\n";

// A pid that is no process now: a child of ours, reaped.
int dead_pid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

// What this process holds open under `dir`, as /proc shows it: a path, or an unnamed file's
TEST(OutputTemporaryNames, ArePickedApartAndNothingElseIs) {
  EXPECT_EQ(output_temporary_owner("run.json.tmp-fdbench-4242-a1B2c3"), 4242);
  EXPECT_EQ(output_temporary_owner("a.tmp-fdbench-1-zzzzzz"), 1);
  EXPECT_EQ(output_temporary_owner("x.tmp-fdbench-7-abc.tmp-fdbench-8-ABCDEF"), 8);
  for (const char* name :
       {"run.json", "run.json.tmp-a1B2c3", ".tmp-fdbench-4242-a1B2c3", "r.tmp-fdbench--a1B2c3",
        "r.tmp-fdbench-0-a1B2c3", "r.tmp-fdbench-12-a1B2c", "r.tmp-fdbench-12-a1B2c3d",
        "r.tmp-fdbench-12-a1B2c.", "r.tmp-fdbench-x2-a1B2c3", "r.tmp-fdbench-99999999999-abcdef"}) {
    EXPECT_EQ(output_temporary_owner(name), std::nullopt) << name;
  }
}

TEST(AtomicFile, WritesWholeFilesAndLeavesNothingElse) {
  TempDir dir;
  const std::string path = dir / "out";
  write_file_atomically(path, "first\n", "--output");  // made
  EXPECT_EQ(read_text(path), "first\n");
  write_file_atomically(path, "second\n", "--output");  // replaced
  EXPECT_EQ(read_text(path), "second\n");
  {
    AtomicFile abandoned(path, "--output");
    abandoned.write("never committed\n");
  }
  EXPECT_EQ(read_text(path), "second\n");
  EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{"out"});
}

// A child writes an output, existing and new, and is SIGKILLed mid-write: what it leaves is
// the old file alone, or (no unnamed files here) a temporary clean_output_temporaries() takes.
TEST(AtomicFile, ASigkillMidWriteLeavesNoTemporary) {
  for (const bool existing : {true, false}) {
    SCOPED_TRACE(existing ? "replacing a file" : "a new file");
    TempDir dir;
    const std::string path = dir / "out";
    if (existing) write_text(path, kOld);
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    std::fflush(nullptr);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      try {
        AtomicFile file(path, "--output");
        file.write(std::string(1 << 20, 'x'));
        const char go = 'g';
        if (write(ready[1], &go, 1) != 1) _exit(2);
        pause();  // killed here, the file still being written
      } catch (...) {
        _exit(3);
      }
      _exit(4);
    }
    close(ready[1]);
    char go = 0;
    ASSERT_EQ(read(ready[0], &go, 1), 1) << "the child could not write its output";
    close(ready[0]);
    const auto held = open_under(child, dir.path());
    ASSERT_EQ(held.size(), 1U) << "the child holds no file in the directory";
    const bool unnamed = held.front().find(" (deleted)") != std::string::npos;
    RecordProperty("unnamed", unnamed ? "yes" : "no");
    kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status));
    const std::vector<std::string> finals =
        existing ? std::vector<std::string>{"out"} : std::vector<std::string>{};
    if (unnamed) {
      EXPECT_EQ(list_names(dir.path()), finals) << "a SIGKILL left a temporary behind";
    } else {  // a named temporary (no O_TMPFILE here): `fdbench clean` takes it
      const auto cleaned = clean_output_temporaries(dir.path());
      EXPECT_EQ(cleaned.removed.size(), 1U);
      EXPECT_EQ(cleaned.kept, std::vector<std::string>{});
      EXPECT_EQ(list_names(dir.path()), finals);
    }
    if (existing) {
      EXPECT_EQ(read_text(path), kOld);
    }
  }
}

// While it is written, an output's file has no name (where the filesystem allows): nothing
// of it is in the directory but the file it replaces.
TEST(AtomicFile, HasNoNameWhileItIsWritten) {
  if (!platform::uses_linux_interfaces()) GTEST_SKIP() << "O_TMPFILE is Linux's";
  TempDir dir;
  const std::string path = dir / "out";
  write_text(path, kOld);
  AtomicFile file(path, "--output");
  file.write("new\n");
  const auto held = open_under(getpid(), dir.path());
  ASSERT_EQ(held.size(), 1U);
  if (held.front().find(" (deleted)") == std::string::npos) {
    GTEST_SKIP() << "this filesystem gives no unnamed files: " << held.front();
  }
  EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{"out"});
  file.commit();
  EXPECT_EQ(read_text(path), "new\n");
  EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{"out"});
}

TEST(CleanOutputTemporaries, RemovesOnlyWhatADeadRunLeftAndNoLiveOneHolds) {
  TempDir dir;
  const std::string dead = std::to_string(dead_pid());
  const std::string self = std::to_string(getpid());
  const std::string living = std::to_string(getppid());
  // Removed: a dead run's; one whose pid is alive but which nobody holds locked (a run killed
  // in a PID namespace names pid 1, which always exists: the lock decides, not the pid).
  write_text(dir / ("a.json.tmp-fdbench-" + dead + "-abcdef"), "partial");
  write_text(dir / ("b.json.tmp-fdbench-" + living + "-abcdef"), "partial");
  // Kept: one this process holds locked (as a live AtomicFile does); a symlink, a directory
  // and a file with two links named like one; another name altogether.
  const std::string locked = dir / ("c.json.tmp-fdbench-" + self + "-abcdef");
  write_text(locked, "partial");
  const int holder = open(locked.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(holder, 0);
  ASSERT_EQ(flock(holder, LOCK_EX | LOCK_NB), 0);
  ASSERT_EQ(symlink("a.json", (dir / ("d.json.tmp-fdbench-" + dead + "-abcdef")).c_str()), 0);
  ASSERT_EQ(mkdir((dir / ("e.json.tmp-fdbench-" + dead + "-abcdef")).c_str(), 0755), 0);
  write_text(dir / ("f.json.tmp-fdbench-" + dead + "-abcdef"), "partial");
  ASSERT_EQ(
      link((dir / ("f.json.tmp-fdbench-" + dead + "-abcdef")).c_str(), (dir / "f-link").c_str()),
      0);
  write_text(dir / "g.json.tmp-abcdef", "the user's");

  const auto before = list_names(dir.path());
  const auto cleaned = clean_output_temporaries(dir.path());
  close(holder);
  auto removed = cleaned.removed;
  std::sort(removed.begin(), removed.end());
  EXPECT_EQ(removed,
            (std::vector<std::string>{dir / ("a.json.tmp-fdbench-" + dead + "-abcdef"),
                                      dir / ("b.json.tmp-fdbench-" + living + "-abcdef")}));
  ASSERT_EQ(cleaned.kept.size(), 4U) << ::testing::PrintToString(cleaned.kept);
  auto after = before;
  std::erase(after, "a.json.tmp-fdbench-" + dead + "-abcdef");
  std::erase(after, "b.json.tmp-fdbench-" + living + "-abcdef");
  EXPECT_EQ(list_names(dir.path()), after);
  const std::string kept = ::testing::PrintToString(cleaned.kept);
  EXPECT_NE(kept.find("a running fdbench is writing it"), std::string::npos) << kept;
  EXPECT_NE(kept.find("never followed"), std::string::npos) << kept;
  EXPECT_NE(kept.find("not a regular file"), std::string::npos) << kept;
  EXPECT_NE(kept.find("2 hard links"), std::string::npos) << kept;
  EXPECT_THROW(clean_output_temporaries(dir / "missing"), Error);
}

}  // namespace atomic_file_test
}  // namespace fdbench
