// Processes and the descriptors that signal between them: eventfd, pipes, a child's tie to
// its parent, and whether a process still runs.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fdbench/platform.hpp"
#include "platform/os.hpp"

#if defined(FDBENCH_HAVE_EVENTFD)
#include <sys/eventfd.h>
#endif
#if defined(FDBENCH_LINUX)
#include <sys/prctl.h>
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

}  // namespace fdbench::platform
