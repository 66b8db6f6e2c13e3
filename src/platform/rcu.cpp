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
// it either; it holds no other descriptor than the lock (below) and no directory.
//
// The lock: two runs changing the setting at once would each take the other's value for the
// original, and the last to end could leave the machine at the other value. So the setting
// has one owner at a time: an flock on kRcuExpeditedLock, taken before the original is read
// and handed to the watcher, whose copy of the descriptor holds it until the original is back
// (put back by fdbench, or by the watcher itself after a SIGKILL). A second run waits for it.
// The file holds the owner's pid, for the waiting run to name; it is never removed (removing
// a lock file races with the next run's open).
//
// Every process fdbench forks (the `process` workers, the fresh children) would inherit
// fdbench's end and keep the watcher from seeing end of file while one lives on: a
// pthread_atfork handler closes it in each of them, so only fdbench holds it.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <string>

#include "common/errors.hpp"
#include "fdbench/error.hpp"
#include "fdbench/unique_fd.hpp"
#include "platform/os.hpp"
#include "platform/platform.hpp"

#if defined(FDBENCH_LINUX)
#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

#include "platform/interrupt.hpp"
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

// The middle process, forked from a multithreaded fdbench: async-signal-safe calls only. The
// watcher gets the socketpair's end as fd 0 and the lock as fd 1, nothing else. Exits 0 once
// the watcher is forked, else with the failing call's errno.
[[noreturn]] void start_rcu_watcher(int watcher_end, int lock, int highest_fd,
                                    int original) noexcept {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  for (const int sig : kSignalsTheRcuWatcherIgnores) sigaction(sig, &ignore, nullptr);
  if (setsid() < 0) _exit(errno);
  if (chdir("/") != 0) _exit(errno);
  // Above 1 first, so that neither dup2 below closes the other's source.
  const int end_copy = fcntl(watcher_end, F_DUPFD, 2);
  const int lock_copy = fcntl(lock, F_DUPFD, 2);
  if (end_copy < 0 || lock_copy < 0) _exit(errno);
  if (dup2(end_copy, 0) < 0 || dup2(lock_copy, 1) < 0) _exit(errno);
  if (syscall(SYS_close_range, 2U, ~0U, 0U) != 0) {  // before Linux 5.9: what was open at fork
    for (int fd = 2; fd <= std::max(highest_fd, lock_copy); ++fd) close(fd);
  }
  const pid_t watcher = fork_rcu_watcher();
  if (watcher < 0) _exit(errno);
  if (watcher > 0) _exit(0);
  watch_rcu_expedited(original);
}

// The pid the lock's holder wrote in it, or 0.
long rcu_lock_holder(int lock) {
  char text[24] = {};
  const ssize_t n = pread(lock, text, sizeof text - 1, 0);
  return n > 0 ? std::strtol(text, nullptr, 10) : 0;
}

// Why this run stopped waiting for the lock after `waited`.
std::string gave_up_waiting(long holder, std::chrono::milliseconds waited) {
  return fmt::format(
      "another fdbench run{} has had it changed for longer than the {:g} s this run waits (it "
      "holds {}): let that run end, or give --timeout SECONDS to wait longer",
      holder > 0 ? fmt::format(" (pid {})", holder) : "",
      std::chrono::duration<double>(waited).count(), kRcuExpeditedLock);
}

// The machine-wide lock on changing the setting, taken (after waiting, at most `wait_limit`,
// while another run holds it), with this process's pid written in the file; or an invalid
// descriptor with `why_not` (and `gave_up` where the wait ran out).
UniqueFd lock_rcu_expedited(std::string& why_not, const std::function<void(long)>& waiting,
                            std::chrono::milliseconds wait_limit, bool& gave_up) {
  UniqueFd lock(open(kRcuExpeditedLock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (!lock) {
    why_not = fmt::format("cannot open its lock {}: {}", kRcuExpeditedLock, std::strerror(errno));
    return {};
  }
  const auto began = std::chrono::steady_clock::now();
  for (bool told = false; flock(lock.get(), LOCK_EX | LOCK_NB) != 0;) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      why_not = fmt::format("cannot lock {}: {}", kRcuExpeditedLock, std::strerror(errno));
      return {};
    }
    if (!told && waiting) waiting(rcu_lock_holder(lock.get()));
    told = true;
    if (std::chrono::steady_clock::now() - began >= wait_limit) {
      why_not = gave_up_waiting(rcu_lock_holder(lock.get()), wait_limit);
      gave_up = true;
      return {};
    }
    throw_if_interrupted();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const std::string pid = fmt::format("{}\n", getpid());
  if (ftruncate(lock.get(), 0) != 0 ||
      pwrite(lock.get(), pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    why_not = fmt::format("cannot write {}: {}", kRcuExpeditedLock, std::strerror(errno));
    return {};
  }
  return lock;
}

}  // namespace

std::unique_ptr<RcuExpeditedWatcher> RcuExpeditedWatcher::start(
    std::string& why_not, const std::function<void(long)>& waiting,
    std::chrono::milliseconds wait_limit) {
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
  std::string lock_failed;
  bool gave_up = false;
  // Held here until the watcher holds it too; closed here on every way out.
  const UniqueFd lock = lock_rcu_expedited(lock_failed, waiting, wait_limit, gave_up);
  if (!lock && gave_up) {
    why_not = lock_failed;
    return nullptr;
  }
  if (!lock) return refused(lock_failed);
  const std::optional<int> original = rcu_expedited();
  if (!original) {
    why_not = "cannot read /sys/kernel/rcu_expedited";
    return nullptr;
  }
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    return refused(fmt::format("socketpair: {}", std::strerror(errno)));
  }
  const std::vector<int> open = open_descriptors();
  const int highest = open.empty() ? ends[1] : open.back();
  g_rcu_watcher_end.store(ends[0]);
  const pid_t middle = fork();
  if (middle == 0) start_rcu_watcher(ends[1], lock.get(), highest, *original);
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
  if (started) {
    return std::unique_ptr<RcuExpeditedWatcher>(new RcuExpeditedWatcher(ends[0], *original));
  }
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

std::unique_ptr<RcuExpeditedWatcher> RcuExpeditedWatcher::start(
    std::string& why_not, const std::function<void(long)>& /*waiting*/,
    std::chrono::milliseconds /*wait_limit*/) {
  why_not = "rcu_expedited is a Linux setting";
  return nullptr;
}

RcuExpeditedWatcher::~RcuExpeditedWatcher() {
  (void)socket_;  // never made here
  (void)original_;
}

void RcuExpeditedWatcher::restored() noexcept {}

#endif

}  // namespace fdbench::platform
