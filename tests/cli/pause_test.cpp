// A run that is stopped (SIGSTOP, as Ctrl-Z, a cgroup freeze or a paused VM do) in the middle
// of a repetition, for longer than --timeout, is not a hung one: --timeout counts the time the
// repetition could run, and the run goes on when it is continued (issue 21 item 15).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace pause_test {

TEST(PausedRun, AStopLongerThanTheTimeoutIsNoHang) {
  const TempDir dir;
  // Repetitions of some 10 ms back to back, with a limit of one second each: fdbench spends
  // nearly all its time inside a repetition, so the stop lands in one.
  FdbenchProcess child({"open", "--files", "3000", "--threads", "1", "--strategy", "threads",
                        "--repeat", "100000", "--warmup", "0", "--timeout", "1", "--dir",
                        dir.path(), "--format", "json", "--quiet"});
  for (int pause = 1; pause <= 2; ++pause) {
    SCOPED_TRACE(pause);
    ASSERT_TRUE(child.wait_for_event("repetition-done", 3U * static_cast<std::size_t>(pause)))
        << "the run did not get under way";
    child.signal(SIGSTOP);
    // The pause itself, not a wait for something to happen: stopped, fdbench runs nothing.
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    child.signal(SIGCONT);
  }
  // Still measuring after both pauses: three more repetitions finish, then Ctrl-C ends it.
  const std::size_t before = child.events("repetition-done");
  EXPECT_TRUE(child.wait_for_event("repetition-done", before + 3)) << "it stopped measuring";
  child.signal(SIGINT);
  const RunResult run = child.wait();
  EXPECT_EQ(run.exit_code, 128 + SIGINT) << run.err;
  EXPECT_EQ(run.err.find("timed out"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("did not finish within"), std::string::npos) << run.err;
}

}  // namespace pause_test
}  // namespace fdbench::testing
