// fdbench_hang_opens, the program the --timeout tests run fdbench under: an open of a path
// without the needle goes through, one with it hangs until its caller is killed, the program's
// exit code comes back, and nothing outlives a kill. Skipped where seccomp user notification
// is unavailable (the tool exits 77). Every wait is bounded; no speed is asserted.
#ifdef FDBENCH_HANG_OPENS
#include "support/hang_opens.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/fdbench_process.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace hang_opens_test {

RunOptions hang_opens_job() {
  RunOptions options = as_a_job();
  options.program = FDBENCH_HANG_OPENS;
  options.timeout = std::chrono::seconds(30);
  return options;
}

// The child's end if it exits before the tool reports the open it holds (it did not hang, or
// the tool is unavailable).
std::optional<RunResult> exited_before_the_hang(FdbenchProcess& child) {
  if (child.wait_for_event("open-held ")) return std::nullopt;
  return child.wait();
}

TEST(HangOpens, AnOpenWithoutTheNeedleGoesThrough) {
  TempDir dir;
  write_text(dir / "plain.txt", "plain text\n");
  FdbenchProcess child({"hang-here", "--", "/bin/cat", dir / "plain.txt"}, hang_opens_job());
  const RunResult run = child.wait();
  if (run.exit_code == kHangOpensUnavailable) FDBENCH_SKIP_WITHOUT("hang_opens") << run.err;
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "plain text\n");
  EXPECT_EQ(run.err, "");
  const auto left = child.leftovers();
  EXPECT_EQ(left.running + left.orphans, 0);
}

// `cat` of a file whose open hangs, started for each test and held in that open, as the tool
// reports (or the test is skipped where the tool is unavailable).
class HungCat : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text(dir / "hang-here.txt", "never read\n");
    child.emplace(std::vector<std::string>{"hang-here", "--", "/bin/cat", dir / "hang-here.txt"},
                  hang_opens_job());
    if (const auto early = exited_before_the_hang(*child)) {
      if (early->exit_code == kHangOpensUnavailable)
        FDBENCH_SKIP_WITHOUT("hang_opens") << early->err;
      FAIL() << "it did not hang: exit code " << early->exit_code << "\n" << early->err;
    }
  }
  TempDir dir;
  std::optional<FdbenchProcess> child;
};

// Killed as a whole group, the tool and its blocked program go; their order decides whether
// the program dies an orphan (it then comes to us and is reaped), so only what runs counts.
TEST_F(HungCat, AnOpenWithTheNeedleHangsUntilKilled) {
  child->signal(SIGKILL, true);
  const RunResult run = child->wait();
  EXPECT_EQ(run.exit_code, 128 + SIGKILL) << run.err;
  EXPECT_EQ(run.out, "") << "the file was read";
  EXPECT_EQ(child->leftovers().running, 0) << "a process of the group outlived SIGKILL";
}

// SIGTERM to the tool alone goes on to the blocked program, which it kills.
TEST_F(HungCat, SigtermToTheToolEndsTheBlockedProgram) {
  child->signal(SIGTERM);
  const RunResult run = child->wait();
  EXPECT_EQ(run.exit_code, 128 + SIGTERM) << run.err;
  EXPECT_EQ(run.out, "");
  const auto left = child->leftovers();
  EXPECT_EQ(left.running, 0);
  EXPECT_EQ(left.orphans, 0) << "the tool exited before its program";
}

TEST(HangOpens, TheProgramsExitCodeComesBack) {
  FdbenchProcess child({"hang-here", "--", "/bin/sh", "-c", "exit 3"}, hang_opens_job());
  const RunResult run = child.wait();
  if (run.exit_code == kHangOpensUnavailable) FDBENCH_SKIP_WITHOUT("hang_opens") << run.err;
  EXPECT_EQ(run.exit_code, 3) << run.err;
  const auto left = child.leftovers();
  EXPECT_EQ(left.running + left.orphans, 0);
}

TEST(HangOpens, ABadCommandLineIsOneLineAndExitCode2) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {}, {"hang-here", "/bin/true"}, {"hang-here", "--"}, {"", "--", "/bin/true"}}) {
    const RunResult run = FdbenchProcess(args, hang_opens_job()).wait();
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(run.err.rfind("hang_opens: ", 0), 0U) << run.err;
    EXPECT_EQ(lines_of(run.err).size(), 1U) << run.err;
  }
}

}  // namespace hang_opens_test
}  // namespace fdbench::testing
#endif  // FDBENCH_HANG_OPENS
