// What the accept workload needs of the system besides POSIX sockets: the most connections a
// listening socket may queue, how many it holds queued now, and an accept that makes a
// close-on-exec descriptor (accept4 where the system has it; macOS has not).
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <ctime>

#include "platform/os.hpp"
#include "platform/platform.hpp"

#if defined(FDBENCH_LINUX)
#include <sys/epoll.h>
#endif
#if defined(FDBENCH_BSD)
#include <sys/sysctl.h>
#include <sys/types.h>
#endif

namespace fdbench::platform {

std::optional<int> somaxconn() {
#if defined(FDBENCH_LINUX)
  std::FILE* f = std::fopen("/proc/sys/net/core/somaxconn", "re");
  if (f == nullptr) return std::nullopt;
  int value = 0;
  const bool read = std::fscanf(f, "%d", &value) == 1;
  std::fclose(f);
  if (!read || value <= 0) return std::nullopt;
  return value;
#elif defined(FDBENCH_BSD)
  int value = 0;
  std::size_t size = sizeof value;
  if (sysctlbyname("kern.ipc.somaxconn", &value, &size, nullptr, 0) != 0 || value <= 0) {
    return std::nullopt;
  }
  return value;
#else
  return std::nullopt;
#endif
}

std::optional<int> accept_queue_length(int listener) {
#if defined(FDBENCH_LINUX)
  // A listening TCP socket's tcp_info says its queue: tcpi_unacked is the connections waiting
  // for accept (sk_ack_backlog), tcpi_sacked the backlog.
  tcp_info info{};
  socklen_t size = sizeof info;
  if (getsockopt(listener, IPPROTO_TCP, TCP_INFO, &info, &size) != 0) return std::nullopt;
  if (info.tcpi_state != TCP_LISTEN) return std::nullopt;
  return static_cast<int>(info.tcpi_unacked);
#else
  (void)listener;
  return std::nullopt;
#endif
}

int accept_connection(int listener) noexcept {
#if defined(FDBENCH_LINUX) || defined(__FreeBSD__)
  return accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
#else
  const int fd = accept(listener, nullptr, nullptr);
  if (fd >= 0) fcntl(fd, F_SETFD, FD_CLOEXEC);
  return fd;
#endif
}

bool has_reuseport_balancing() noexcept {
  // Linux spreads the connections to one port over every SO_REUSEPORT listener; the BSDs let
  // the last listener take them all (FreeBSD's SO_REUSEPORT_LB aside), so no use there.
#if defined(FDBENCH_LINUX)
  return true;
#else
  return false;
#endif
}

int set_nonblocking(int fd, bool on) noexcept {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0) return errno;
  const int wanted = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
  if (wanted != flags && fcntl(fd, F_SETFL, wanted) != 0) return errno;
  return 0;
}

int allow_port_sharing(int fd) noexcept {
#if defined(SO_REUSEPORT)
  const int on = 1;
  return setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) == 0 ? 0 : errno;
#else
  (void)fd;
  return ENOTSUP;
#endif
}

ListenerWait::~ListenerWait() {
  if (fd_ >= 0) close(fd_);
}

bool ListenerWait::available() noexcept {
#if defined(FDBENCH_LINUX)
  return true;
#else
  return false;
#endif
}

int ListenerWait::open(int listener) noexcept {
#if defined(FDBENCH_LINUX)
  fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (fd_ < 0) return errno;
  epoll_event event{};
  event.events = EPOLLIN | EPOLLEXCLUSIVE;
  event.data.fd = listener;
  return epoll_ctl(fd_, EPOLL_CTL_ADD, listener, &event) == 0 ? 0 : errno;
#else
  (void)listener;
  return ENOTSUP;
#endif
}

int ListenerWait::wait(std::int64_t timeout_ns) noexcept {
#if defined(FDBENCH_LINUX)
  epoll_event event{};
  static std::atomic<bool> no_pwait2{false};
  if (!no_pwait2.load(std::memory_order_relaxed)) {
    const timespec limit{static_cast<time_t>(timeout_ns / 1'000'000'000),
                         static_cast<long>(timeout_ns % 1'000'000'000)};
    const int ready = epoll_pwait2(fd_, &event, 1, &limit, nullptr);
    if (ready >= 0 || errno != ENOSYS) return ready;
    no_pwait2.store(true, std::memory_order_relaxed);
  }
  return epoll_wait(fd_, &event, 1, static_cast<int>((timeout_ns + 999'999) / 1'000'000));
#else
  (void)timeout_ns;
  errno = ENOTSUP;
  return -1;
#endif
}

}  // namespace fdbench::platform
