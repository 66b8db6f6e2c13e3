// Processes and the descriptors that signal between them: eventfd, pipes, a child's tie to
// its parent, a word they wait on together, and whether a process still runs.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "platform/os.hpp"
#include "platform/platform.hpp"

#if defined(FDBENCH_HAVE_EVENTFD)
#include <sys/eventfd.h>
#endif
#if defined(FDBENCH_LINUX)
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <climits>
#endif

namespace fdbench::platform {

int create_eventfd() noexcept {
#if defined(FDBENCH_HAVE_EVENTFD)
  return eventfd(0, EFD_CLOEXEC);
#else
  errno = ENOSYS;
  return -1;
#endif
}

bool has_eventfd() noexcept {
#if defined(FDBENCH_HAVE_EVENTFD)
  return true;
#else
  return false;
#endif
}

int create_pipe(int fds[2]) noexcept {
#if defined(__APPLE__) || defined(FDBENCH_PORTABLE)
  if (pipe(fds) != 0) return -1;  // no pipe2 on macOS
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  return 0;
#else
  return pipe2(fds, O_CLOEXEC);
#endif
}

bool die_with_parent() noexcept {
#if defined(FDBENCH_LINUX)
  return prctl(PR_SET_PDEATHSIG, SIGKILL) == 0;
#else
  return true;
#endif
}

namespace {
// A pause between two looks at a word another CPU will change.
void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}
}  // namespace

#if defined(FDBENCH_LINUX)
namespace {

static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t) &&
                  std::atomic<std::uint32_t>::is_always_lock_free,
              "a futex is the atomic's own 32-bit word");

// Not FUTEX_PRIVATE_FLAG (nor std::atomic::wait, which uses it): the waiters are processes.
long futex(const std::atomic<std::uint32_t>& word, int op, std::uint32_t value) noexcept {
  auto* address = const_cast<std::uint32_t*>(reinterpret_cast<const std::uint32_t*>(&word));
  return syscall(SYS_futex, address, op, value, nullptr, nullptr, 0);
}

}  // namespace
#endif

bool shared_word_blocks() noexcept {
#if defined(FDBENCH_LINUX)
  return true;
#else
  return false;
#endif
}

void wait_shared_word(const std::atomic<std::uint32_t>& word, std::uint32_t seen) noexcept {
#if defined(FDBENCH_LINUX)
  constexpr std::int64_t kSpinNs = 50'000;
  const std::int64_t spin_until = now_ns() + kSpinNs;
  for (unsigned i = 1; word.load(std::memory_order_acquire) == seen; ++i) {
    cpu_relax();
    if ((i & 63) != 0 || now_ns() < spin_until) continue;
    // EAGAIN (changed meanwhile), EINTR or a spurious wake-up: look again.
    while (word.load(std::memory_order_acquire) == seen) futex(word, FUTEX_WAIT, seen);
    return;
  }
#else
  while (word.load(std::memory_order_acquire) == seen) sched_yield();
#endif
}

void wake_shared_word(std::atomic<std::uint32_t>& word) noexcept {
#if defined(FDBENCH_LINUX)
  futex(word, FUTEX_WAKE, INT_MAX);
#else
  (void)word;  // the waiters poll
#endif
}

void wait_word(const std::atomic<std::uint32_t>& word, std::uint32_t seen,
               std::int64_t spin_ns) noexcept {
  if (spin_ns > 0) {
    const std::int64_t spin_until = now_ns() + spin_ns;
    for (unsigned i = 1; word.load(std::memory_order_acquire) == seen; ++i) {
      cpu_relax();
      if ((i & 63) == 0 && now_ns() >= spin_until) break;
    }
  }
#if defined(FDBENCH_LINUX)
  // EAGAIN (changed meanwhile), EINTR or a spurious wake-up: look again.
  while (word.load(std::memory_order_acquire) == seen) futex(word, FUTEX_WAIT_PRIVATE, seen);
#else
  word.wait(seen, std::memory_order_acquire);
#endif
}

void wake_word(std::atomic<std::uint32_t>& word) noexcept {
#if defined(FDBENCH_LINUX)
  futex(word, FUTEX_WAKE_PRIVATE, INT_MAX);
#else
  word.notify_all();
#endif
}

bool process_running(int pid) noexcept {
  if (pid <= 0) return false;
  // kill(pid, 0) succeeds on a zombie, so a child of ours that has exited but is not reaped
  // yet would look alive forever: ask waitid, which sees it without reaping it (WNOWAIT).
  siginfo_t child{};
  if (waitid(P_PID, static_cast<id_t>(pid), &child, WEXITED | WNOHANG | WNOWAIT) == 0) {
    return child.si_pid != pid;  // si_pid stays 0 while the child runs
  }
  if (kill(pid, 0) != 0 && errno != EPERM) return false;
#if defined(FDBENCH_LINUX)
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
  if (std::FILE* stat = std::fopen(path, "re")) {
    char state = '?';
    // "pid (comm) S ...": the state follows the last ')'
    char line[512];
    if (std::fgets(line, sizeof line, stat) != nullptr) {
      if (const char* close = std::strrchr(line, ')'); close != nullptr && close[1] == ' ') {
        state = close[2];
      }
    }
    std::fclose(stat);
    return state != 'Z' && state != 'X';
  }
#endif
  return true;
}

// Threads of this process (for the debug check that every fork happens single-threaded).
std::optional<int> thread_count() {
#if defined(FDBENCH_LINUX)
  std::FILE* status = std::fopen("/proc/self/status", "re");
  if (status == nullptr) return std::nullopt;
  char line[256];
  std::optional<int> threads;
  while (std::fgets(line, sizeof line, status) != nullptr) {
    if (std::strncmp(line, "Threads:", 8) == 0) {
      threads = std::atoi(line + 8);
      break;
    }
  }
  std::fclose(status);
  return threads;
#else
  return std::nullopt;
#endif
}

int exec_program(const std::vector<std::string>& argv) noexcept {
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  return errno;
}

}  // namespace fdbench::platform
