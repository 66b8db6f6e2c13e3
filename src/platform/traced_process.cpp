// The processes `fdbench trace` watches: a command it starts, held before its exec until the
// tracing is attached, and what /proc says of any process's table and threads.
//
// The command is forked, not spawned: between fork and exec the child waits on a pipe, so the
// perf events inherited by everything it runs are in place before its first instruction. It is
// the command's own process from then on: fdbench never signals, ptraces or waits on it but
// to learn its exit status.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "platform/interrupt.hpp"
#include "platform/os.hpp"
#include "platform/platform.hpp"

#ifdef FDBENCH_LINUX
#include <poll.h>
#endif

namespace fdbench::platform {

namespace {

// A field of /proc/PID/status ("FDSize:", "Threads:").
std::optional<int> status_field_of(int pid, const char* field) {
#ifdef FDBENCH_LINUX
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/status", pid);
  std::FILE* status = std::fopen(path, "re");
  if (status == nullptr) return std::nullopt;
  char line[256];
  std::optional<int> value;
  const std::size_t length = std::strlen(field);
  while (std::fgets(line, sizeof line, status) != nullptr) {
    if (std::strncmp(line, field, length) == 0) {
      value = std::atoi(line + length);
      break;
    }
  }
  std::fclose(status);
  return value;
#else
  (void)pid;
  (void)field;
  return std::nullopt;
#endif
}

// The held child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void run_held(const std::vector<char*>& args, int release_fd, int error_fd) {
  reset_interrupt_handlers_in_child();
  char go = 0;
  ssize_t n = 0;
  do {
    n = read(release_fd, &go, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1) _exit(127);  // fdbench went away before tracing began: run nothing
  execvp(args[0], args.data());
  const int err = errno;
  (void)!write(error_fd, &err, sizeof err);
  _exit(127);
}

}  // namespace

std::optional<int> fd_table_size_of(int pid) {
  return status_field_of(pid, "FDSize:");
}

std::optional<int> thread_count_of(int pid) {
  return status_field_of(pid, "Threads:");
}

HeldCommand::HeldCommand(int pid, int release_fd, int error_fd)
    : pid_(pid), release_(release_fd), error_(error_fd) {}

std::unique_ptr<HeldCommand> HeldCommand::start(const std::vector<std::string>& argv,
                                                std::string& why_not) {
  if (argv.empty()) {
    why_not = "no command to run";
    return nullptr;
  }
  int release[2];
  int error[2];
  if (pipe(release) != 0 || pipe(error) != 0) {
    why_not = fmt::format("cannot make a pipe to start the command: {}", std::strerror(errno));
    return nullptr;
  }
  // Both ends close at the exec: the command inherits none of them.
  for (const int fd : {release[0], release[1], error[0], error[1]}) fcntl(fd, F_SETFD, FD_CLOEXEC);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) run_held(args, release[0], error[1]);
  const int fork_error = errno;
  close(release[0]);
  close(error[1]);
  if (pid < 0) {
    close(release[1]);
    close(error[0]);
    why_not = fmt::format("cannot start the command: {}", std::strerror(fork_error));
    return nullptr;
  }
  return std::unique_ptr<HeldCommand>(new HeldCommand(pid, release[1], error[0]));
}

std::string HeldCommand::release() {
  const char go = 1;
  released_ = true;
  if (write(release_.get(), &go, 1) != 1) {
    return fmt::format("cannot start the command: {}", std::strerror(errno));
  }
  release_.reset();
  int err = 0;
  ssize_t n = 0;
  do {
    n = read(error_.get(), &err, sizeof err);
  } while (n < 0 && errno == EINTR);
  error_.reset();
  if (n == static_cast<ssize_t>(sizeof err)) {
    exec_error_ = err;
    return fmt::format("cannot run the command: {}{}", std::strerror(err),
                       err == ENOENT ? " (not found on PATH)" : "");
  }
  return {};
}

std::optional<int> HeldCommand::wait_for(int timeout_ms) {
  const int step_ms = 10;
  for (int waited = 0;; waited += step_ms) {
    int status = 0;
    const pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      reaped_ = true;
      if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
      return WEXITSTATUS(status);
    }
    if (done < 0 && errno != EINTR) {
      reaped_ = true;
      return 1;
    }
    if (waited >= timeout_ms) return std::nullopt;
    usleep(step_ms * 1000);
  }
}

HeldCommand::~HeldCommand() {
  if (reaped_) return;
  if (!released_) {
    // Still fdbench's own fork, waiting before its exec: closing the pipe ends it.
    release_.reset();
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  // A released command is the user's program: it runs on, never killed by fdbench.
}

}  // namespace fdbench::platform
