#include "strategies/child_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <optional>
#include <utility>

#include "fdbench/error.hpp"
#include "fdbench/interrupt.hpp"
#include "fdbench/platform.hpp"

namespace fdbench {

namespace {

constexpr int kExitBodyThrew = 70;  // EX_SOFTWARE
constexpr int kExitOrphaned = 71;
// A child gets this long to exit after its channel closes (it may be closing a million
// descriptors) before it is killed.
constexpr std::int64_t kGraceNs = 10'000'000'000;

#ifdef MSG_NOSIGNAL
constexpr int kSendFlags = MSG_NOSIGNAL;
#else
constexpr int kSendFlags = 0;  // SO_NOSIGPIPE is set on the socket instead
#endif

void make_channel(int fds[2]) {
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) {
    throw Error("cannot create a socketpair for a child process: " + errno_text(errno));
  }
  for (int i = 0; i < 2; ++i) {
    fcntl(fds[i], F_SETFD, FD_CLOEXEC);
#if !defined(MSG_NOSIGNAL) && defined(SO_NOSIGPIPE)
    const int on = 1;
    setsockopt(fds[i], SOL_SOCKET, SO_NOSIGPIPE, &on, sizeof on);
#endif
  }
}

[[noreturn]] void run_child(const std::function<void(int)>& body,
                            std::span<const int> close_in_child, int parent_end, int child_end,
                            pid_t parent, std::optional<int> parent_table) noexcept {
  reset_interrupt_handlers_in_child();
  // fork sizes our table for the parent's highest open descriptor, not for the parent's
  // table: a table the run pre-grew (--pregrow) would be lost here, and a child that starts
  // threads (libuv's pool) would stall on every growth again. Keep the parent's size.
  if (parent_table && *parent_table > platform::kSmallestFdTable) {
    platform::grow_fd_table(*parent_table - 1);
  }
  // Die with the parent (strictly, on Linux: with the thread that forked us), so a crashed or
  // killed fdbench leaves no orphan. The parent may have died before that took effect.
  if (!platform::die_with_parent()) _exit(kExitOrphaned);
  if (getppid() != parent) _exit(kExitOrphaned);
  for (const int fd : close_in_child) close(fd);
  close(parent_end);
  try {
    body(child_end);
  } catch (...) {
    _exit(kExitBodyThrew);
  }
  _exit(0);
}

void sleep_ns(std::int64_t ns) noexcept {
  timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  nanosleep(&ts, nullptr);
}

}  // namespace

ChildProcess::ChildProcess(const std::function<void(int)>& body,
                           std::span<const int> close_in_child) {
  int fds[2];
  make_channel(fds);
  UniqueFd parent_end(fds[0]);
  UniqueFd child_end(fds[1]);
  const pid_t parent = getpid();
  const std::optional<int> table = platform::fd_table_size();
  const pid_t pid = fork();
  if (pid < 0) throw Error("cannot fork a child process: " + errno_text(errno));
  if (pid == 0) run_child(body, close_in_child, parent_end.get(), child_end.get(), parent, table);
  pid_ = pid;
  channel_ = std::move(parent_end);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), channel_(std::move(other.channel_)) {}

ChildProcess::~ChildProcess() {
  reap();
}

bool ChildProcess::send(const void* data, std::size_t size) noexcept {
  return send_exact(channel_.get(), data, size);
}

bool ChildProcess::receive(void* data, std::size_t size) noexcept {
  return receive_exact(channel_.get(), data, size);
}

int ChildProcess::reap() noexcept {
  channel_.reset();
  if (pid_ < 0) return 0;
  int status = 0;
  const std::int64_t deadline = platform::now_ns() + kGraceNs;
  std::int64_t pause_ns = 20'000;
  for (;;) {
    const pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) break;
    if (done < 0 && errno == EINTR) continue;
    if (done < 0) break;  // ECHILD: reaped by someone else already
    if (platform::now_ns() >= deadline) {
      kill(pid_, SIGKILL);
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    sleep_ns(pause_ns);
    pause_ns = std::min<std::int64_t>(pause_ns * 2, 10'000'000);
  }
  pid_ = -1;
  return status;
}

void ChildProcess::throw_died(std::string_view what) {
  const pid_t pid = pid_;
  if (pid < 0) throw Error(fmt::format("{}: it had exited before", what));
  const int status = reap();
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if (sig == SIGINT || sig == SIGTERM) throw Interrupted(sig);
    throw Error(
        fmt::format("{}: pid {} was killed by signal {} ({})", what, pid, sig, strsignal(sig)));
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  throw Error(fmt::format("{}: pid {} exited with status {}{}", what, pid, code,
                          code == kExitBodyThrew ? " (an exception in the child)" : ""));
}

bool send_exact(int socket, const void* data, std::size_t size) noexcept {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::send(socket, p, size, kSendFlags);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool receive_exact(int socket, void* data, std::size_t size) noexcept {
  auto* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::recv(socket, p, size, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace fdbench
