#include "engine/child_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "fdbench/error.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"

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

// The one transfer loop: `step` moves up to `size` bytes and returns what read/write return;
// `before_step` runs before each try, also after a signal interrupted the last one.
template <class Byte, class Step, class BeforeStep>
bool transfer_exact(Byte* p, std::size_t size, Step step, BeforeStep before_step) noexcept {
  while (size > 0) {
    before_step();
    const ssize_t n = step(p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

void sleep_ns(std::int64_t ns) noexcept {
  timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  nanosleep(&ts, nullptr);
}

std::atomic<int> g_waiting_threads{0};

// The children ChildProcess made in this process and has not reaped, for kill_all(). A forked
// child starts with none: its parent's children are not its own.
std::mutex g_children_mutex;
std::vector<pid_t> g_children;

void add_child(pid_t pid) {
  const std::lock_guard lock(g_children_mutex);
  g_children.push_back(pid);
}

void remove_child(pid_t pid) noexcept {
  const std::lock_guard lock(g_children_mutex);
  std::erase(g_children, pid);
}

#ifndef NDEBUG
#if defined(__SANITIZE_THREAD__)
constexpr int kRuntimeThreads = 1;  // ThreadSanitizer's background thread, which it forks safely
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr int kRuntimeThreads = 1;
#else
constexpr int kRuntimeThreads = 0;
#endif
#else
constexpr int kRuntimeThreads = 0;
#endif

// A thread that was just joined may take a moment to leave the kernel's count, and so may
// io_uring's workers once their ring is closed: allow them that before calling it a bug.
bool settles_single_threaded() noexcept {
  for (int waited_ms = 0;; ++waited_ms) {
    const std::optional<int> threads = platform::thread_count();
    if (!threads || *threads <= 1 + kRuntimeThreads + WaitingThread::count()) return true;
    if (waited_ms >= 2000) return false;
    sleep_ns(1'000'000);
  }
}
#endif

}  // namespace

WaitingThread::WaitingThread() noexcept {
  g_waiting_threads.fetch_add(1);
}
WaitingThread::~WaitingThread() {
  g_waiting_threads.fetch_sub(1);
}
int WaitingThread::count() noexcept {
  return g_waiting_threads.load();
}

namespace {

pid_t fork_single_threaded() noexcept {
#ifndef NDEBUG
  FDBENCH_ASSERT(settles_single_threaded());
#endif
  std::fflush(nullptr);  // the child must not flush our buffered output a second time
  return fork();
}

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

ChildExit exit_of(int status) noexcept {
  if (WIFSIGNALED(status)) return {-1, WTERMSIG(status)};
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0};
}

// Die with the parent (strictly, on Linux: with the thread that forked us), so a crashed or
// killed fdbench leaves no orphan. The parent may have died before that took effect.
void stay_with(pid_t parent) noexcept {
  if (!platform::die_with_parent() || getppid() != parent) _exit(kExitOrphaned);
}

// The middle child of smallest_table: waits for the one working and ends as it ended.
[[noreturn]] void exit_like(pid_t child) noexcept {
  int status = 0;
  bool forwarded = false;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) _exit(1);
    // A signal for this process alone (fdbench passes one on) must reach the one working.
    if (!forwarded && interrupted() != 0) forwarded = kill(child, interrupted()) == 0;
  }
  const ChildExit end = exit_of(status);
  if (end.signal != 0) {
    std::signal(end.signal, SIG_DFL);
    raise(end.signal);
    _exit(1);
  }
  _exit(end.code);
}

// Keeps only fds 0-2 and the channel, as fd 3; forks again if the table is still bigger than
// a fresh process's. Returns the channel's descriptor.
int start_from_smallest_table(int channel) noexcept {
  if (channel != 3) {
    dup2(channel, 3);
    channel = 3;
  }
  platform::close_descriptors_from(4);
  const std::optional<int> inherited = platform::fd_table_size();
  if (!inherited || *inherited <= platform::kSmallestFdTable) return channel;
  const pid_t self = getpid();
  const pid_t child = fork_single_threaded();  // sized for what is open now: fds 0-3
  if (child > 0) {
    close(channel);
    exit_like(child);
  }
  if (child == 0) stay_with(self);
  return channel;  // no second fork: carry on here, with the bigger table
}

[[noreturn]] void run_child(const ChildProcess::Body& body, const ChildOptions& options,
                            UniqueFd& parent_end, UniqueFd& child_end, pid_t parent,
                            std::optional<int> parent_table) noexcept {
  g_children.clear();  // forked single-threaded: no other thread holds the mutex
  if (!options.keeps_interrupt_handlers) reset_interrupt_handlers_in_child();
  if (parent_table && *parent_table > platform::kSmallestFdTable) {
    platform::grow_fd_table(*parent_table - 1);
  }
  stay_with(parent);
  for (const int fd : options.close_in_child) close(fd);
  parent_end.reset();
  int fd = child_end.release();
  if (options.smallest_table) fd = start_from_smallest_table(fd);
  Channel channel(UniqueFd(fd), -1);
  try {
    body(channel);
  } catch (...) {
    _exit(kExitBodyThrew);
  }
  _exit(0);
}

}  // namespace

bool Channel::send_bytes(const void* data, std::size_t size) noexcept {
  const int fd = fd_.get();
  return transfer_exact(
      static_cast<const char*>(data), size,
      [fd](const char* p, std::size_t n) { return ::send(fd, p, n, kSendFlags); },
      [this] { pass_interrupt_on(); });
}

bool Channel::receive_bytes(void* data, std::size_t size) noexcept {
  const int fd = fd_.get();
  return transfer_exact(
      static_cast<char*>(data), size, [fd](char* p, std::size_t n) { return ::recv(fd, p, n, 0); },
      [this] { pass_interrupt_on(); });
}

void Channel::pass_interrupt_on() noexcept {
  if (child_ > 0 && !forwarded_ && interrupted() != 0) {
    forwarded_ = kill(child_, interrupted()) == 0;
  }
}

bool read_exact(int fd, void* data, std::size_t size) noexcept {
  return transfer_exact(
      static_cast<char*>(data), size, [fd](char* p, std::size_t n) { return ::read(fd, p, n); },
      [] {});
}

bool write_exact(int fd, const void* data, std::size_t size) noexcept {
  return transfer_exact(
      static_cast<const char*>(data), size,
      [fd](const char* p, std::size_t n) { return ::write(fd, p, n); }, [] {});
}

ChildProcess::ChildProcess(const Body& body, const ChildOptions& options) {
  FDBENCH_ASSERT(!(options.keeps_table_size && options.smallest_table));
  int fds[2];
  make_channel(fds);
  UniqueFd parent_end(fds[0]);
  UniqueFd child_end(fds[1]);
  const pid_t parent = getpid();
  const std::optional<int> table =
      options.keeps_table_size ? platform::fd_table_size() : std::nullopt;
  const pid_t pid = fork_single_threaded();
  if (pid < 0) throw ForkFailed("cannot fork a child process: " + errno_text(errno), errno);
  if (pid == 0) run_child(body, options, parent_end, child_end, parent, table);
  pid_ = pid;
  channel_ = Channel(std::move(parent_end), pid);
  add_child(pid);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      channel_(std::move(other.channel_)),
      reaped_(other.reaped_),
      exit_(other.exit_) {}

ChildProcess::~ChildProcess() {
  wait();
}

ChildExit ChildProcess::wait() noexcept {
  channel_.close();
  if (pid_ < 0 || reaped_) return exit_;
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
  reaped_ = true;
  remove_child(pid_);
  exit_ = exit_of(status);
  return exit_;
}

int ChildProcess::kill_all(KillDeadline deadline) noexcept {
  // Not lock(): a thread abandoned while it held the mutex (it was slow, not blocked, when it
  // was parked) would hold it for ever.
  std::unique_lock lock(g_children_mutex, std::defer_lock);
  for (int tries = 0; !lock.try_lock(); ++tries) {
    if (tries == 100) return 0;
    sleep_ns(1'000'000);
  }
  std::vector<pid_t> children = g_children;
  g_children.clear();
  lock.unlock();
  int killed = 0;
  for (const pid_t pid : children) {
    if (kill(pid, SIGKILL) == 0) ++killed;
  }
  for (;;) {
    std::erase_if(children, [](pid_t pid) { return waitpid(pid, nullptr, WNOHANG) != 0; });
    if (children.empty() || std::chrono::steady_clock::now() >= deadline) break;
    sleep_ns(1'000'000);
  }
  return killed;
}

void quiet_standard_streams() noexcept {
  const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null < 0) return;
  if (null != 1) {
    dup2(null, 1);
    close(null);
  }
}

std::string not_ended_text(const std::vector<int>& killed, KillDeadline deadline) {
  const auto left = std::max(std::chrono::milliseconds(0),
                             std::chrono::duration_cast<std::chrono::milliseconds>(
                                 deadline - std::chrono::steady_clock::now()));
  const auto stuck = platform::processes_not_ended(killed, left);
  if (stuck.empty()) return {};
  std::string pids;
  std::string states;
  for (const auto& p : stuck) {
    pids += fmt::format("{}{}", pids.empty() ? "" : ", ", p.pid);
    if (states.find(p.state) == std::string::npos) {
      states += (states.empty() ? "" : "/") + std::string(1, p.state);
    }
  }
  const bool waiting = states == "D";
  const bool one = stuck.size() == 1;
  return fmt::format(
      "; pid{} {} (state {}{}) could not be ended by SIGKILL and {} left behind until {} call "
      "returns",
      one ? "" : "s", pids, states,
      waiting ? ": waiting in the kernel, where no signal reaches it" : "", one ? "is" : "are",
      one ? "its" : "their");
}

void ChildProcess::throw_died(std::string_view what) {
  const ChildExit end = wait();
  if (end.signal == SIGINT || end.signal == SIGTERM) throw Interrupted(end.signal);
  if (end.signal != 0) {
    throw Error(fmt::format("{}: pid {} was killed by signal {} ({})", what, pid_, end.signal,
                            strsignal(end.signal)));
  }
  throw Error(fmt::format("{}: pid {} exited with status {}{}", what, pid_, end.code,
                          end.code == kExitBodyThrew ? " (an exception in the child)" : ""));
}

}  // namespace fdbench
