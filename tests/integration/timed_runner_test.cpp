// TimedRunner (--timeout): steps run on a thread of its own, their exceptions come back, and a
// step that does not return is abandoned at the limit, or after Ctrl-C, without being joined.
#include "engine/timed_runner.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "fdbench/error.hpp"
#include "platform/interrupt.hpp"
#include "support/wait_until.hpp"

namespace fdbench {
namespace timed_runner_test {

using namespace std::chrono_literals;
using testing::wait_until;

// A step that blocks until release() (a read on a pipe), as an open() on a dead mount would;
// shared, so that an abandoned step still has its pipe when it is released after the test.
struct Blocker {
  int fds[2] = {-1, -1};
  std::atomic<bool> entered{false};  // the step is under way, about to block
  std::atomic<bool> returned{false};
  Blocker() { EXPECT_EQ(pipe(fds), 0); }
  ~Blocker() {
    close(fds[0]);
    close(fds[1]);
  }
  void block() {
    char byte = 0;
    entered = true;
    while (read(fds[0], &byte, 1) < 0) {
    }
    returned = true;
  }
  void release() { EXPECT_EQ(write(fds[1], "x", 1), 1); }
};

TEST(TimedRunner, RunsEachStepOnOneThreadOfItsOwnAndWaitsForIt) {
  TimedRunner runner(30s);
  std::thread::id first, second;
  int runs = 0;
  EXPECT_EQ(runner.run([&] {
    first = std::this_thread::get_id();
    ++runs;
  }),
            TimedRunner::Outcome::done);
  EXPECT_EQ(runner.run([&] {
    second = std::this_thread::get_id();
    ++runs;
  }),
            TimedRunner::Outcome::done);
  EXPECT_EQ(runs, 2);  // each step had finished when run() returned
  EXPECT_EQ(first, second);
  EXPECT_NE(first, std::this_thread::get_id());
}

TEST(TimedRunner, RethrowsWhatAStepThrowsAndCarriesOn) {
  TimedRunner runner(30s);
  EXPECT_THROW(runner.run([] { throw Error("the strategy cannot run here"); }), Error);
  EXPECT_THROW(runner.run([] { throw Interrupted(SIGINT); }), Interrupted);
  bool ran = false;
  EXPECT_EQ(runner.run([&] { ran = true; }), TimedRunner::Outcome::done);
  EXPECT_TRUE(ran);
}

TEST(TimedRunner, AbandonsAStepThatOutlastsTheLimitWithoutJoiningIt) {
  auto blocker = std::make_shared<Blocker>();
  {
    TimedRunner runner(100ms);
    EXPECT_EQ(runner.run([blocker] { blocker->block(); }), TimedRunner::Outcome::timed_out);
    EXPECT_FALSE(blocker->returned);
  }  // destroyed with the step still blocked: it must not wait for it
  EXPECT_FALSE(blocker->returned);
  blocker->release();  // the abandoned thread returns later and ends on its own
  wait_until([&] { return blocker->returned.load(); }, 10s);
  EXPECT_TRUE(blocker->returned);
}

// In a child process: the interrupt handlers and the signal stay there.
TEST(TimedRunner, AbandonsAStepThatCtrlCCannotReach) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    install_interrupt_handlers();
    auto blocker = std::make_shared<Blocker>();
    TimedRunner runner(600s);
    // Once the step is blocked: a signal before it would not test that Ctrl-C cannot reach it.
    std::thread signal_soon([blocker] {
      wait_until([&] { return blocker->entered.load(); }, 10s);
      kill(getpid(), SIGINT);
    });
    const auto outcome = runner.run([blocker] { blocker->block(); });
    signal_soon.join();
    _exit(outcome == TimedRunner::Outcome::interrupted && interrupted() == SIGINT ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace timed_runner_test
}  // namespace fdbench
