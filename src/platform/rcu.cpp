// Setting /sys/kernel/rcu_expedited (Linux, root): what --rcu-expedited changes for the
// results that ask for it, and the watcher that puts it back should fdbench die without
// running its destructors. Reading it lives with the other host facts (host.cpp).
//
// The watcher: a system-wide setting must not outlive a SIGKILL, and no destructor or handler
// runs then. The kernel does one thing for every death, however it comes: it closes the dead
// process's descriptors. So before the first change a process of its own (forked twice: it is
// no child of fdbench, which never waits for it and whose --timeout clean-up, which kills
// every descendant, never finds it) holds one end of a socketpair and blocks reading it; the
// other end is fdbench's. A byte means fdbench put the original back itself: the watcher
// exits without writing (a value that differs then was set by someone else after fdbench,
// and stays theirs). End of file means fdbench is gone without saying so: the watcher writes
// the original back, whatever the value is then, as fdbench's own ending would have, and
// exits. The watcher ignores the signals a terminal or a shell sends (Ctrl-C reaches the
// whole foreground group) and leaves fdbench's session, so a closed terminal does not take
// it either; it holds no other descriptor and no directory.
//
// Every process fdbench forks (the `process` workers, the fresh children) would inherit
// fdbench's end and keep the watcher from seeing end of file while one lives on: a
// pthread_atfork handler closes it in each of them, so only fdbench holds it.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <string>

#include "fdbench/error.hpp"
#include "platform/os.hpp"
#include "platform/platform.hpp"

#if defined(FDBENCH_LINUX)
#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <atomic>
#include <cstring>
#include <mutex>
#endif

namespace fdbench::platform {

namespace {
[[maybe_unused]] constexpr const char* kRcuExpedited = "/sys/kernel/rcu_expedited";
}

std::string rcu_expedited_unsettable() {
#if defined(FDBENCH_LINUX)
  if (access(kRcuExpedited, F_OK) != 0) return "this kernel has no /sys/kernel/rcu_expedited";
  if (access(kRcuExpedited, W_OK) != 0) {
    return "writing /sys/kernel/rcu_expedited needs root (it is a system-wide setting)";
  }
  return {};
#else
  return "rcu_expedited is a Linux setting";
#endif
}

int set_rcu_expedited(int value) noexcept {
#if defined(FDBENCH_LINUX)
  const int fd = open(kRcuExpedited, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const char text[2] = {value != 0 ? '1' : '0', '\n'};
  const ssize_t written = write(fd, text, sizeof text);
  const int err = written == static_cast<ssize_t>(sizeof text) ? 0 : (written < 0 ? errno : EIO);
  close(fd);
  return err;
#else
  (void)value;
  return ENOTSUP;
#endif
}

#if defined(FDBENCH_LINUX)
namespace {

constexpr char kRcuRestoredByParent = 'r';

// fdbench's end of the watcher's socketpair (-1: no watcher), closed in every forked child.
std::atomic<int> g_rcu_watcher_end{-1};

// Forgotten too: the child's own children must not close whatever reuses the number.
void close_rcu_watcher_end_in_child() {
  if (const int fd = g_rcu_watcher_end.exchange(-1); fd >= 0) close(fd);
}

// What a terminal, a shell or a closed session sends; SIGKILL alone still ends the watcher.
constexpr int kSignalsTheRcuWatcherIgnores[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,   SIGUSR1,
                                                SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF,
                                                SIGPIPE, SIGXFSZ, SIGTSTP, SIGTTIN,   SIGTTOU};

// A fork that runs no pthread_atfork handlers: the watcher's own, from its middle process,
// which after fdbench's multithreaded fork may only make async-signal-safe calls.
pid_t fork_rcu_watcher() noexcept {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  return _Fork();
#else
  return fork();
#endif
}

// The watcher: waits on fd 0 until fdbench says it restored the setting or is gone.
[[noreturn]] void watch_rcu_expedited(int original) noexcept {
  char byte = 0;
  ssize_t n = 0;
  do {
    n = read(0, &byte, 1);
  } while (n < 0 && errno == EINTR);
  if (n == 1 && byte == kRcuRestoredByParent) _exit(0);
  _exit(set_rcu_expedited(original) == 0 ? 0 : 1);
}

// The middle process, forked from a multithreaded fdbench: async-signal-safe calls only. Exits
// 0 once the watcher is forked, else with the failing call's errno.
[[noreturn]] void start_rcu_watcher(int watcher_end, int highest_fd, int original) noexcept {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  for (const int sig : kSignalsTheRcuWatcherIgnores) sigaction(sig, &ignore, nullptr);
  if (setsid() < 0) _exit(errno);
  if (chdir("/") != 0) _exit(errno);
  if (watcher_end != 0 && dup2(watcher_end, 0) < 0) _exit(errno);
  if (syscall(SYS_close_range, 1U, ~0U, 0U) != 0) {  // before Linux 5.9: what was open at fork
    for (int fd = 1; fd <= highest_fd; ++fd) close(fd);
  }
  const pid_t watcher = fork_rcu_watcher();
  if (watcher < 0) _exit(errno);
  if (watcher > 0) _exit(0);
  watch_rcu_expedited(original);
}

}  // namespace

std::unique_ptr<RcuExpeditedWatcher> RcuExpeditedWatcher::start(int original,
                                                                std::string& why_not) {
  static std::once_flag registered;
  std::call_once(registered,
                 [] { pthread_atfork(nullptr, nullptr, close_rcu_watcher_end_in_child); });
  FDBENCH_ASSERT(g_rcu_watcher_end.load() < 0);
  const auto refused = [&why_not](const std::string& what) {
    why_not =
        "cannot start the process that puts /sys/kernel/rcu_expedited back if fdbench is "
        "killed: " +
        what;
    return nullptr;
  };
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    return refused(fmt::format("socketpair: {}", std::strerror(errno)));
  }
  const std::vector<int> open = open_descriptors();
  const int highest = open.empty() ? ends[1] : open.back();
  g_rcu_watcher_end.store(ends[0]);
  const pid_t middle = fork();
  if (middle == 0) start_rcu_watcher(ends[1], highest, original);
  const int fork_errno = errno;
  close(ends[1]);
  int status = 0;
  pid_t reaped = -1;
  if (middle > 0) {
    do {
      reaped = waitpid(middle, &status, 0);
    } while (reaped < 0 && errno == EINTR);
  }
  const bool started = reaped == middle && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (started) return std::unique_ptr<RcuExpeditedWatcher>(new RcuExpeditedWatcher(ends[0]));
  g_rcu_watcher_end.store(-1);
  close(ends[0]);
  if (middle < 0) return refused(fmt::format("fork: {}", std::strerror(fork_errno)));
  if (reaped != middle) return refused(fmt::format("waitpid: {}", std::strerror(errno)));
  if (WIFSIGNALED(status)) {
    return refused(fmt::format("it was killed by signal {}", WTERMSIG(status)));
  }
  return refused(std::strerror(WEXITSTATUS(status)));  // the failing call's errno
}

RcuExpeditedWatcher::~RcuExpeditedWatcher() {
  g_rcu_watcher_end.store(-1);
  close(socket_);
}

void RcuExpeditedWatcher::restored() noexcept {
  ssize_t sent = 0;
  do {
    sent = send(socket_, &kRcuRestoredByParent, 1, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
}

#else

std::unique_ptr<RcuExpeditedWatcher> RcuExpeditedWatcher::start(int /*original*/,
                                                                std::string& why_not) {
  why_not = "rcu_expedited is a Linux setting";
  return nullptr;
}

RcuExpeditedWatcher::~RcuExpeditedWatcher() {
  (void)socket_;  // never made here
}

void RcuExpeditedWatcher::restored() noexcept {}

#endif

}  // namespace fdbench::platform
