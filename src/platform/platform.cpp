// The platform facade. Linux-only parts are behind __linux__; everything else is POSIX so
// that macOS and the BSDs build and run the portable strategies.
#include "fdbench/platform.hpp"

#include <dirent.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <string>

// FDBENCH_PORTABLE (a CMake option) builds only the portable POSIX paths even on Linux, so
// the code macOS and the BSDs run is built and tested on Linux too.
#if defined(__linux__) && !defined(FDBENCH_PORTABLE)
#define FDBENCH_LINUX 1
#endif
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || \
    defined(__OpenBSD__) || defined(__DragonFly__)
#define FDBENCH_BSD 1
#endif

#if defined(FDBENCH_LINUX) || defined(__FreeBSD__)
#include <sys/eventfd.h>
#define FDBENCH_HAVE_EVENTFD 1
#endif
#if defined(FDBENCH_LINUX)
#include <sys/prctl.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#elif defined(FDBENCH_BSD)
#include <sys/mount.h>
#include <sys/param.h>
#include <sys/sysctl.h>
#endif

namespace fdbench::platform {

bool uses_linux_interfaces() noexcept {
#if defined(FDBENCH_LINUX)
  return true;
#else
  return false;
#endif
}

std::int64_t now_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

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

std::string os_name() {
  utsname name{};
  return uname(&name) == 0 ? name.sysname : "unknown";
}

std::string kernel_release() {
  utsname name{};
  return uname(&name) == 0 ? name.release : "unknown";
}

std::string cpu_model() {
#if defined(FDBENCH_LINUX)
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    // x86 says "model name", arm64 often only "CPU part"/"Hardware"
    for (const char* key : {"model name", "Hardware", "cpu model"}) {
      if (line.rfind(key, 0) == 0) {
        const auto colon = line.find(':');
        if (colon != std::string::npos) {
          const auto start = line.find_first_not_of(" \t", colon + 1);
          if (start != std::string::npos) return line.substr(start);
        }
      }
    }
  }
  return "unknown";
#elif defined(__APPLE__)
  char buf[256];
  size_t size = sizeof buf;
  if (sysctlbyname("machdep.cpu.brand_string", buf, &size, nullptr, 0) == 0) return buf;
  return "unknown";
#elif defined(FDBENCH_BSD)
  char buf[256];
  size_t size = sizeof buf;
  int mib[2] = {CTL_HW, HW_MODEL};
  if (sysctl(mib, 2, buf, &size, nullptr, 0) == 0) return buf;
  return "unknown";
#else
  return "unknown";
#endif
}

int logical_cpus() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

std::string fs_type(const std::string& path) {
#if defined(FDBENCH_LINUX)
  struct statfs info {};
  if (statfs(path.c_str(), &info) != 0) return "unknown";
  // Magic numbers from linux/magic.h; statfs has no name field on Linux.
  static const std::map<unsigned long, const char*> kNames = {
      {0xEF53, "ext4"},       {0x01021994, "tmpfs"},  {0x9123683E, "btrfs"},
      {0x58465342, "xfs"},    {0x2FC12FC1, "zfs"},    {0x6969, "nfs"},
      {0x794C7630, "overlay"}, {0x65735546, "fuse"},  {0xF2F52010, "f2fs"},
      {0x4D44, "vfat"},       {0x5346544E, "ntfs"},   {0x858458F6, "ramfs"},
      {0xFF534D42, "cifs"},   {0x01021997, "9p"},     {0x62656572, "sysfs"},
      {0x9FA0, "proc"},       {0x73717368, "squashfs"}, {0x2011BAB0, "exfat"},
      {0xCA451A4E, "bcachefs"}, {0x7461636f, "ocfs2"},
  };
  const auto it = kNames.find(static_cast<unsigned long>(info.f_type));
  if (it != kNames.end()) return it->second;
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%lx", static_cast<unsigned long>(info.f_type));
  return hex;
#elif defined(FDBENCH_BSD)
  struct statfs info {};
  if (statfs(path.c_str(), &info) != 0) return "unknown";
  return info.f_fstypename;
#else
  (void)path;
  return "unknown";
#endif
}

std::optional<int> io_uring_disabled() {
#if defined(FDBENCH_LINUX)
  return read_int_file("/proc/sys/kernel/io_uring_disabled");
#else
  return std::nullopt;
#endif
}

std::optional<int> rcu_expedited() {
#if defined(FDBENCH_LINUX)
  return read_int_file("/sys/kernel/rcu_expedited");
#else
  return std::nullopt;
#endif
}

std::optional<int> read_int_file(const std::string& path) {
  std::ifstream in(path);
  int value = 0;
  if (in >> value) return value;
  return std::nullopt;
}

// ---- Threads of this process (for the debug check that every fork happens single-threaded) ----

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
