// The one child-process mechanism (src/child_process.hpp): typed messages both ways, the exit
// status or signal of a child, a child that dies with its parent, an interrupt passed on,
// and the table each option gives the child. Whatever changes process-wide state (signal
// handlers, the descriptor table, threads) happens in a plain forked process, so the tests
// stay independent.
#include "engine/child_process.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "fdbench/error.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"
#include "support/read_within.hpp"
#include "support/require.hpp"
#include "support/threads.hpp"
#include "support/wait_until.hpp"

namespace fdbench {
namespace child_process_test {

struct Question {
  int number = 0;
  double scale = 0;
  char text[16] = {};
};
struct Answer {
  double scaled = 0;
  char echo[16] = {};
};
static_assert(Message<Question> && Message<Answer>);
static_assert(!Message<std::string>, "only trivially copyable types travel as bytes");

// Answers every question until the parent closes the channel.
void answer_all(Channel& channel) {
  Question q;
  while (channel.receive(q)) {
    Answer a;
    a.scaled = q.number * q.scale;
    std::memcpy(a.echo, q.text, sizeof a.echo);
    if (!channel.send(a)) return;
  }
}

TEST(ChildProcess, TypedMessagesMakeTheRoundTripUntilTheChannelCloses) {
  ChildProcess child(answer_all, {});
  for (int i = 1; i <= 3; ++i) {
    Question q{i, 0.5, {}};
    std::snprintf(q.text, sizeof q.text, "question %d", i);
    ASSERT_TRUE(child.send(q));
    Answer a;
    ASSERT_TRUE(child.receive(a));
    EXPECT_EQ(a.scaled, i * 0.5);
    EXPECT_STREQ(a.echo, q.text);
  }
  const ChildExit end = child.wait();  // closing the channel is the child's cue to exit
  EXPECT_EQ(end.code, 0);
  EXPECT_EQ(end.signal, 0);
  Answer none;
  EXPECT_FALSE(child.receive(none));
}

TEST(ChildProcess, ReportsTheExitStatus) {
  ChildProcess exits([](Channel&) { _exit(5); }, {});
  EXPECT_EQ(exits.wait().code, 5);
  ChildProcess throws([](Channel&) { throw Error("from the child"); }, {});
  EXPECT_EQ(throws.wait().code, 70);
  try {
    throws.throw_died("the test child died");
  } catch (const Error& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("the test child died: pid " + std::to_string(throws.pid())),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("exited with status 70 (an exception in the child)"), std::string::npos)
        << text;
  }
}

TEST(ChildProcess, ReportsTheSignalThatKilledIt) {
  ChildProcess killed([](Channel&) { raise(SIGKILL); }, {});
  Answer none;
  EXPECT_FALSE(killed.receive(none));
  EXPECT_EQ(killed.wait().signal, SIGKILL);
  EXPECT_EQ(killed.wait().code, -1);
  try {
    killed.throw_died("worker 1");
    ADD_FAILURE() << "throw_died returned";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("was killed by signal 9"), std::string::npos) << e.what();
  }
  // A child dies of SIGTERM or SIGINT only when fdbench is being stopped: that is no error.
  ChildProcess terminated([](Channel&) { raise(SIGTERM); }, {});
  try {
    terminated.throw_died("worker 2");
    ADD_FAILURE() << "throw_died returned";
  } catch (const Interrupted& e) {
    EXPECT_EQ(e.signal(), SIGTERM);
  }
}

// Runs `body` in a plain forked process and returns its exit code, or 128 + the signal that
// killed it.
int exit_code_in_process(const std::function<int()>& body) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) _exit(body());
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

using testing::read_within;
using testing::wait_until;

TEST(ChildProcess, DiesWithItsParent) {
  if (!platform::uses_linux_interfaces()) {
    GTEST_SKIP() << "PR_SET_PDEATHSIG is Linux-only: this build's die_with_parent() does nothing";
  }
  // A parent that is killed never closes the channel or reaps: only dying with it helps a
  // child that is busy (not waiting on its channel).
  int report[2];
  ASSERT_EQ(pipe(report), 0);
  const int parent_code = exit_code_in_process([&] {
    close(report[0]);
    ChildProcess busy(
        [](Channel&) {
          for (;;) pause();
        },
        {});
    const pid_t pid = busy.pid();
    if (write(report[1], &pid, sizeof pid) != sizeof pid) return 1;
    raise(SIGKILL);
    return 2;
  });
  close(report[1]);
  pid_t child = -1;
  const bool reported = read_within(report[0], &child, sizeof child);
  close(report[0]);
  EXPECT_EQ(parent_code, 128 + SIGKILL);
  ASSERT_TRUE(reported);
  wait_until([&] { return !platform::process_running(child); }, std::chrono::seconds(10));
  EXPECT_FALSE(platform::process_running(child)) << "orphaned child " << child;
  kill(child, SIGKILL);  // leave nothing behind, even when the test fails
}

// Forks a process that runs `body` with fdbench's interrupt handlers; once the body writes a
// byte to the fd it is given, sends it SIGINT (alone, as `kill` does) until it exits.
// Returns its exit code, or 128 + the signal that killed it.
int interrupt_while_waiting(const std::function<int(int ready_fd)>& body) {
  int ready[2];
  if (pipe(ready) != 0) return -1;
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    close(ready[0]);
    install_interrupt_handlers();
    _exit(body(ready[1]));
  }
  close(ready[1]);
  char byte = 0;
  const bool started = read_within(ready[0], &byte, 1);
  close(ready[0]);
  int status = 0;
  for (int waited_ms = 0; waitpid(pid, &status, WNOHANG) != pid; waited_ms += 20) {
    // Again and again: one that lands just before the parent blocks interrupts nothing.
    kill(pid, waited_ms < 10'000 && started ? SIGINT : SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(ChildProcess, AnInterruptForTheParentAloneKillsAWaitedOnChild) {
  const int code = interrupt_while_waiting([](int ready_fd) {
    ChildProcess child(
        [](Channel& channel) {
          channel.send('r');
          for (;;) pause();
        },
        {});
    char byte = 0;
    if (!child.receive(byte)) return 10;
    if (write(ready_fd, &byte, 1) != 1) return 11;
    if (child.receive(byte)) return 12;  // the child never sends again: it must die
    const ChildExit end = child.wait();
    return end.signal == SIGINT && interrupted() == SIGINT ? 0 : 13;
  });
  EXPECT_EQ(code, 0);
}

TEST(ChildProcess, AChildKeepingTheHandlersHearsOfTheInterruptAndReports) {
  const int code = interrupt_while_waiting([](int ready_fd) {
    ChildProcess child(
        [](Channel& channel) {
          channel.send('r');
          while (interrupted() == 0) usleep(1000);
          channel.send(interrupted());
        },
        ChildOptions{.keeps_interrupt_handlers = true});
    char byte = 0;
    if (!child.receive(byte)) return 10;
    if (write(ready_fd, &byte, 1) != 1) return 11;
    int heard = 0;
    if (!child.receive(heard)) return 12;
    if (heard != SIGINT) return 13;
    const ChildExit end = child.wait();
    return end.code == 0 && end.signal == 0 ? 0 : 14;
  });
  EXPECT_EQ(code, 0);
}

// What a child tells about its descriptors.
struct TableReport {
  pid_t pid = -1;
  int table = -1;  // -1: not visible here
  int count = 0;
  std::array<int, 8> fds{};
};

void report_table(Channel& channel) {
  TableReport r;
  r.pid = getpid();
  r.table = platform::fd_table_size().value_or(-1);
  const auto fds = platform::open_descriptors();
  r.count = static_cast<int>(fds.size());
  std::copy_n(fds.begin(), std::min(fds.size(), r.fds.size()), r.fds.begin());
  channel.send(r);
}

TEST(ChildProcess, SmallestTableKeepsOnlyFds0To2AndTheChannel) {
  const int code = exit_code_in_process([] {
    // A descriptor at 500 gives every plain fork a table of 512.
    if (dup2(1, 500) != 500) return 1;
    ChildProcess child(
        [](Channel& channel) {
          report_table(channel);
          _exit(42);
        },
        ChildOptions{.smallest_table = true});
    TableReport r;
    if (!child.receive(r)) return 2;
    const ChildExit end = child.wait();
    if (end.code != 42) return 3;  // the second fork's exit is reported as the child's
    if (r.count < 1 || r.count > 4 || r.fds[static_cast<std::size_t>(r.count) - 1] != 3) return 4;
    if (!platform::fd_table_size()) return 0;  // sizes not visible: nothing more to check
    if (r.table != platform::kSmallestFdTable) return 5;
    return r.pid != child.pid() ? 0 : 6;  // the inherited table was too big: forked again
  });
  EXPECT_EQ(code, 0);
}

TEST(ChildProcess, KeepsTheParentsTableSizeOnlyWhenAsked) {
  if (!platform::fd_table_size()) FDBENCH_SKIP_WITHOUT("proc_status") << "no FDSize";
  const int code = exit_code_in_process([] {
    if (platform::grow_fd_table(1000) != 0) return 1;  // grown, with nothing open up there
    const int grown = platform::fd_table_size().value_or(0);
    ChildProcess keeps(report_table, ChildOptions{.keeps_table_size = true});
    ChildProcess plain(report_table, {});
    TableReport r;
    if (!keeps.receive(r)) return 2;
    if (r.table < grown) return 3;
    if (!plain.receive(r)) return 4;
    return r.table < grown ? 0 : 5;  // fork sizes for the highest open descriptor only
  });
  EXPECT_EQ(code, 0);
}

TEST(ChildProcess, ClosesTheParentDescriptorsItIsGiven) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const std::array<int, 1> parent_only{fds[1]};
  ChildProcess child(
      [&](Channel& channel) {
        const bool closed = fcntl(parent_only[0], F_GETFD) == -1;
        const bool kept = fcntl(fds[0], F_GETFD) != -1;
        channel.send(closed && kept);
      },
      ChildOptions{.close_in_child = parent_only});
  bool ok = false;
  EXPECT_TRUE(child.receive(ok));
  EXPECT_TRUE(ok);
  close(fds[0]);
  close(fds[1]);
}

TEST(Platform, ThreadCountSeesEveryThread) {
  ASSERT_TRUE(testing::a_thread_came_and_went());
  const auto before = platform::thread_count();
  if (!before) FDBENCH_SKIP_WITHOUT("proc_status") << "no thread count";
  int gate[2];
  ASSERT_EQ(pipe(gate), 0);
  std::thread waiting([&] {
    char byte = 0;
    EXPECT_EQ(read(gate[0], &byte, 1), 1);
  });
  EXPECT_EQ(platform::thread_count(), *before + 1);
  EXPECT_EQ(write(gate[1], "x", 1), 1);
  waiting.join();
  close(gate[0]);
  close(gate[1]);
}

TEST(ChildProcess, ForkingWhileAnotherThreadRunsIsCaughtInDebugBuilds) {
#ifdef NDEBUG
  GTEST_SKIP() << "the check is in debug builds only";
#else
  if (!platform::thread_count()) FDBENCH_SKIP_WITHOUT("proc_status") << "no thread count";
  const int code = exit_code_in_process([] {
    int gate[2];
    if (pipe(gate) != 0) return 1;
    std::thread waiting([&] {
      char byte = 0;
      (void)!read(gate[0], &byte, 1);
    });
    { ChildProcess child(answer_all, {}); }  // aborts, after a grace period for exiting threads
    (void)!write(gate[1], "x", 1);
    waiting.join();
    return 2;
  });
  EXPECT_EQ(code, 128 + SIGABRT);
#endif
}

}  // namespace child_process_test
}  // namespace fdbench
