// The descriptor table: its size, growing it, the limit on it, and what it holds.
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "platform/platform.hpp"
#include "platform/os.hpp"

#if defined(FDBENCH_LINUX)
#include <sys/syscall.h>
#endif

namespace fdbench::platform {

std::optional<int> fd_table_size() {
#if defined(FDBENCH_LINUX)
  std::FILE* status = std::fopen("/proc/self/status", "re");
  if (status == nullptr) return std::nullopt;
  char line[256];
  std::optional<int> size;
  while (std::fgets(line, sizeof line, status) != nullptr) {
    if (std::strncmp(line, "FDSize:", 7) == 0) {
      size = std::atoi(line + 7);
      break;
    }
  }
  std::fclose(status);
  return size;
#else
  return std::nullopt;
#endif
}

bool settle_rcu() noexcept {
#if defined(FDBENCH_LINUX) && defined(SYS_membarrier)
  constexpr int kMembarrierGlobal = 1;  // MEMBARRIER_CMD_GLOBAL: synchronize_rcu()
  return syscall(SYS_membarrier, kMembarrierGlobal, 0, 0) == 0;
#else
  return false;
#endif
}

int grow_fd_table(int highest_fd) noexcept {
  // Any open descriptor will do as the source; fall back to one of our own.
  int source = -1;
  for (int fd = 0; fd < 3 && source < 0; ++fd) {
    if (fcntl(fd, F_GETFD) != -1) source = fd;
  }
  int own = -1;
  if (source < 0) {
    own = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (own < 0) return errno;
    source = own;
  }
  int err = 0;
  if (fcntl(highest_fd, F_GETFD) == -1) {  // the slot is free: occupy it, then free it
    // F_DUPFD, not dup2: should another thread take the slot meanwhile, dup2 would silently
    // close that thread's descriptor; F_DUPFD takes the next free number instead.
    const int borrowed = fcntl(source, F_DUPFD_CLOEXEC, highest_fd);
    if (borrowed < 0) {
      err = errno;
    } else {
      close(borrowed);
    }
  }
  if (own >= 0) close(own);
  return err;
}

NofileLimit nofile_limit() {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  return {static_cast<std::uint64_t>(limit.rlim_cur), static_cast<std::uint64_t>(limit.rlim_max)};
}

int raise_nofile_soft(std::uint64_t needed) noexcept {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return errno;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur >= needed) return 0;
  if (limit.rlim_cur == RLIM_INFINITY) return 0;
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < needed) return EPERM;
  limit.rlim_cur = static_cast<rlim_t>(needed);
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return errno;
  return 0;
}

std::vector<int> open_descriptors() {
  std::vector<int> fds;
#if defined(FDBENCH_LINUX)
  const char* listing = "/proc/self/fd";
#else
  const char* listing = "/dev/fd";
#endif
  if (DIR* dir = opendir(listing)) {
    const int own = dirfd(dir);
    while (const dirent* entry = readdir(dir)) {
      if (entry->d_name[0] == '.') continue;
      const int fd = std::atoi(entry->d_name);
      if (fd != own) fds.push_back(fd);
    }
    closedir(dir);
  } else {  // no listing: probe every possible number
    const long max = sysconf(_SC_OPEN_MAX);
    for (int fd = 0; fd < max; ++fd) {
      if (fcntl(fd, F_GETFD) != -1) fds.push_back(fd);
    }
  }
  std::sort(fds.begin(), fds.end());
  return fds;
}

void close_descriptors_from(int lowest, int keep) noexcept {
#if defined(FDBENCH_LINUX) && defined(SYS_close_range)
  auto close_span = [](int first, unsigned last) {
    return static_cast<unsigned>(first) > last ? 0L : syscall(SYS_close_range, first, last, 0);
  };
  if (keep < lowest) {
    if (close_span(lowest, ~0U) == 0) return;
  } else if (close_span(lowest, static_cast<unsigned>(keep - 1)) == 0 &&
             close_span(keep + 1, ~0U) == 0) {
    return;
  }
#endif
  // Fallback (no close_range): only what is open, never a blind loop over a huge limit.
  for (const int fd : open_descriptors()) {
    if (fd >= lowest && fd != keep) close(fd);
  }
}

}  // namespace fdbench::platform
