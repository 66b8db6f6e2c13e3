// What fdbench does with a repetition that hangs (--timeout): sees which files its threads and
// processes are stuck opening, stops its other threads for good, and kills its processes.
//
// Linux shows every thread's current system call and its arguments in
// /proc/PID/task/TID/syscall while the thread is blocked, and lets a process read its own and
// its descendants' memory (process_vm_readv), so the path an open() waits on can be named. The
// other systems show neither: there the functions find nothing and do nothing.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "platform/os.hpp"
#include "platform/platform.hpp"

#if defined(FDBENCH_LINUX)
#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#endif

namespace fdbench::platform {

#if defined(FDBENCH_LINUX)
namespace {

// The numeric names in a /proc directory: pids or tids.
std::vector<int> numbers_in(const std::string& dir) {
  std::vector<int> numbers;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return numbers;
  while (const dirent* entry = readdir(d)) {
    char* end = nullptr;
    const long n = std::strtol(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0' && n > 0) numbers.push_back(static_cast<int>(n));
  }
  closedir(d);
  return numbers;
}

// The parent of `pid` from /proc/PID/stat (the field after the parenthesised name, which may
// itself hold spaces and parentheses), or 0.
int parent_of(int pid) {
  const auto stat = read_text_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return 0;
  const auto close = stat->rfind(')');
  if (close == std::string::npos || close + 4 > stat->size()) return 0;
  // ") S PPID ...": the state, then the parent.
  return std::atoi(stat->c_str() + close + 4);
}

// Every process descended from this one, parents before their children.
std::vector<int> descendants() {
  std::vector<std::pair<int, int>> parent_of_pid;
  for (const int pid : numbers_in("/proc")) parent_of_pid.emplace_back(pid, parent_of(pid));
  std::vector<int> found{getpid()};
  for (std::size_t i = 0; i < found.size(); ++i) {
    for (const auto& [pid, parent] : parent_of_pid) {
      if (parent == found[i] && std::find(found.begin(), found.end(), pid) == found.end()) {
        found.push_back(pid);
      }
    }
  }
  found.erase(found.begin());
  return found;
}

// A NUL-terminated string at `address` in process `pid`'s memory, read in pieces that do not
// cross a page, so that a string ending just before an unmapped page is still read.
std::string string_in(int pid, unsigned long address) {
  std::string text;
  const long page = sysconf(_SC_PAGESIZE);
  while (text.size() < PATH_MAX) {
    char buffer[256];
    const unsigned long to_page_end = page - (address % static_cast<unsigned long>(page));
    const std::size_t want = std::min<unsigned long>(sizeof buffer, to_page_end);
    iovec local{buffer, want};
    iovec remote{reinterpret_cast<void*>(address), want};  // NOLINT: an address in pid
    const ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (got <= 0) return {};
    const auto* nul =
        static_cast<const char*>(std::memchr(buffer, '\0', static_cast<std::size_t>(got)));
    if (nul != nullptr) return text.append(buffer, static_cast<std::size_t>(nul - buffer));
    text.append(buffer, static_cast<std::size_t>(got));
    address += static_cast<unsigned long>(got);
  }
  return {};  // no terminating NUL within PATH_MAX: not a path
}

std::string link_target(const std::string& link) {
  char target[PATH_MAX];
  const ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
  if (n <= 0) return {};
  return std::string(target, static_cast<std::size_t>(n));
}

// The path thread `tid` of process `pid` is opening (or looking at), made absolute, or empty
// when it is not in such a call (or no longer blocked in it).
std::string path_being_opened(int pid, int tid) {
  const auto syscall_line =
      read_text_file("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/syscall");
  if (!syscall_line) return {};
  // "NR ARG0 ARG1 ... SP PC" while blocked in a call; "running" or "-1 SP PC" otherwise.
  unsigned long nr = 0, arg0 = 0, arg1 = 0;
  if (std::sscanf(syscall_line->c_str(), "%lu 0x%lx 0x%lx", &nr, &arg0, &arg1) != 3) return {};
  int dir_fd = -1;
  unsigned long path_address = 0;
  bool known = false;
#if defined(SYS_open)
  if (nr == SYS_open) path_address = arg0, dir_fd = AT_FDCWD, known = true;
#endif
  if (nr == SYS_openat) path_address = arg1, dir_fd = static_cast<int>(arg0), known = true;
  // Looking at a path waits as opening it does (a --list's paths are examined first).
#if defined(SYS_stat)
  if (nr == SYS_stat) path_address = arg0, dir_fd = AT_FDCWD, known = true;
#endif
#if defined(SYS_lstat)
  if (nr == SYS_lstat) path_address = arg0, dir_fd = AT_FDCWD, known = true;
#endif
#if defined(SYS_newfstatat)
  if (nr == SYS_newfstatat) path_address = arg1, dir_fd = static_cast<int>(arg0), known = true;
#endif
#if defined(SYS_statx)
  if (nr == SYS_statx) path_address = arg1, dir_fd = static_cast<int>(arg0), known = true;
#endif
#if defined(SYS_openat2)
  if (nr == SYS_openat2) path_address = arg1, dir_fd = static_cast<int>(arg0), known = true;
#endif
  if (!known) return {};
  std::string path = string_in(pid, path_address);
  const std::string proc = "/proc/" + std::to_string(pid);
  // A path through a descriptor of its own (libuv opens the user's files by
  // /proc/self/fd/N/NAME): named by the directory that descriptor is.
  constexpr std::string_view kSelfFd = "/proc/self/fd/";
  if (path.starts_with(kSelfFd)) {
    const auto slash = path.find('/', kSelfFd.size());
    const std::string fd = path.substr(kSelfFd.size(), slash - kSelfFd.size());
    const std::string dir = link_target(proc + "/fd/" + fd);
    if (!dir.empty()) return slash == std::string::npos ? dir : dir + path.substr(slash);
  }
  if (path.empty() || path.front() == '/') return path;
  const std::string dir =
      link_target(dir_fd == AT_FDCWD ? proc + "/cwd" : proc + "/fd/" + std::to_string(dir_fd));
  return dir.empty() ? path : dir + "/" + path;
}

void park_forever(int /*signal*/) {
  for (;;) pause();
}

}  // namespace

std::optional<std::vector<std::string>> paths_being_opened() {
  std::vector<int> processes{getpid()};
  const auto below = descendants();
  processes.insert(processes.end(), below.begin(), below.end());
  std::vector<std::string> paths;
  for (const int pid : processes) {
    for (const int tid : numbers_in("/proc/" + std::to_string(pid) + "/task")) {
      std::string path = path_being_opened(pid, tid);
      if (!path.empty() && std::find(paths.begin(), paths.end(), path) == paths.end()) {
        paths.push_back(std::move(path));
      }
    }
  }
  return paths;
}

int park_other_threads() {
  struct sigaction action {};
  action.sa_handler = park_forever;
  sigfillset(&action.sa_mask);
  if (sigaction(SIGRTMIN, &action, nullptr) != 0) return 0;
  const int self = static_cast<int>(syscall(SYS_gettid));
  int parked = 0;
  for (const int tid : numbers_in("/proc/self/task")) {
    if (tid != self && syscall(SYS_tgkill, getpid(), tid, SIGRTMIN) == 0) ++parked;
  }
  return parked;
}

std::vector<int> kill_descendants() {
  const auto below = descendants();  // listed before any dies: its children are not orphaned yet
  std::vector<int> killed;
  for (const int pid : below) {
    if (kill(pid, SIGKILL) == 0) killed.push_back(pid);
  }
  return killed;
}

std::vector<StuckProcess> processes_not_ended(const std::vector<int>& pids,
                                              std::chrono::milliseconds grace) {
  // The state letter of a thread still there; gone or dead (Z, X) reads as none.
  const auto state_in = [](const std::string& stat_file) -> char {
    const auto stat = read_text_file(stat_file);
    if (!stat) return '\0';
    const auto close = stat->rfind(')');
    if (close == std::string::npos || close + 2 >= stat->size()) return '\0';
    const char state = (*stat)[close + 2];
    return state == 'Z' || state == 'X' ? '\0' : state;
  };
  // A process is there while any of its threads is: one killed while a thread of it waits in
  // the kernel shows its first thread dead (Z) and that one still waiting (D). A killed process
  // that was orphaned is reaped by whoever adopted it, so it may vanish meanwhile.
  const auto state_of = [&state_in](int pid) -> char {
    const std::string proc = "/proc/" + std::to_string(pid);
    for (const int tid : numbers_in(proc + "/task")) {
      if (const char state = state_in(proc + "/task/" + std::to_string(tid) + "/stat")) {
        return state;
      }
    }
    return '\0';
  };
  std::vector<StuckProcess> left;
  const auto deadline = std::chrono::steady_clock::now() + grace;
  for (;;) {
    left.clear();
    for (const int pid : pids) {
      if (const char state = state_of(pid); state != '\0') left.push_back({pid, state});
    }
    if (left.empty() || std::chrono::steady_clock::now() >= deadline) return left;
    usleep(10'000);
  }
}

#else

std::optional<std::vector<std::string>> paths_being_opened() {
  return std::nullopt;
}
int park_other_threads() {
  return 0;
}
std::vector<int> kill_descendants() {
  return {};
}
std::vector<StuckProcess> processes_not_ended(const std::vector<int>& /*pids*/,
                                              std::chrono::milliseconds /*grace*/) {
  return {};
}

#endif

// Portable: open() of "." and fchdir() are POSIX. O_DIRECTORY, and read permission on the
// directory, are all it needs.
WorkingDirectory::WorkingDirectory() noexcept
    : fd_(open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {}

WorkingDirectory::~WorkingDirectory() {
  if (fd_ >= 0) close(fd_);
}

bool WorkingDirectory::restore() const noexcept { return fd_ >= 0 && fchdir(fd_) == 0; }

}  // namespace fdbench::platform
