// Which limit stopped the system from creating a thread or a process: the message that says
// "cannot create 3 threads" also says where to look; and the one for memory that ran out.
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <exception>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "platform/mounts.hpp"
#include "platform/os.hpp"
#include "platform/platform.hpp"

namespace fdbench::platform {

namespace {

// RLIMIT_NPROC, unless it does not bind: unlimited, or root (the kernel never applies it to
// uid 0).
std::optional<std::string> nproc_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NPROC, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY || getuid() == 0) {
    return std::nullopt;
  }
  return "ulimit -u is " + std::to_string(limit.rlim_cur) + " for this user";
}

#if defined(FDBENCH_LINUX)
std::optional<long long> number_in(const std::string& path) {
  const auto text = read_text_file(path);
  if (!text) return std::nullopt;
  try {
    return std::stoll(*text);
  } catch (const std::exception&) {  // "max": no limit
    return std::nullopt;
  }
}

// The first word of a one-line pseudo-file, or "?".
std::string first_word(const std::string& path) {
  const std::string text = read_text_file(path).value_or("?");
  return text.substr(0, text.find_first_of(" \n"));
}

// The pids controller's cgroup of this process: its path and the directory that shows it
// (cgroup v2: "0::/path" under a cgroup2 mount; v1: "N:pids:/path" under the pids mount).
std::optional<std::string> pids_cgroup_dir() {
  std::ifstream in("/proc/self/cgroup");
  std::optional<std::string> v2;
  std::optional<std::string> v1;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("0::", 0) == 0) v2 = line.substr(3);
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = "," + line.substr(first + 1, second - first - 1) + ",";
    if (controllers.find(",pids,") != std::string::npos) v1 = line.substr(second + 1);
  }
  const auto mountinfo = read_mountinfo();
  if (!mountinfo) return std::nullopt;
  for (const Mount& m : parse_mountinfo(*mountinfo)) {
    const bool pids_v1 = m.fs_type == "cgroup" && v1 &&
                         ("," + m.super_options + ",").find(",pids,") != std::string::npos;
    const bool pids_v2 = m.fs_type == "cgroup2" && v2 && !v1;
    if (!pids_v1 && !pids_v2) continue;
    const std::string& path = pids_v1 ? *v1 : *v2;
    // In a cgroup namespace the mount's root is the cgroup the path is relative to.
    if (m.root != "/" && path != m.root && path.rfind(m.root + "/", 0) != 0) continue;
    return m.mount_point + (m.root == "/" ? path : path.substr(m.root.size()));
  }
  return std::nullopt;
}

// The tightest pids.max along this process's cgroup and its parents, with what it holds.
std::optional<std::string> pids_limit() {
  auto dir = pids_cgroup_dir();
  if (!dir) return std::nullopt;
  while (!dir->empty() && dir->back() == '/') dir->pop_back();
  std::optional<std::string> tightest;
  long long room = 0;
  for (std::string at = *dir; !at.empty();) {
    const auto max = number_in(at + "/pids.max");
    if (!max) {
      if (!read_text_file(at + "/pids.max")) break;  // above the controller's hierarchy
    } else {
      const long long current = number_in(at + "/pids.current").value_or(0);
      if (!tightest || *max - current < room) {
        room = *max - current;
        tightest = "pids.max is " + std::to_string(*max) + " in cgroup " + at + " (" +
                   std::to_string(current) + " in use)";
      }
    }
    at.erase(at.find_last_of('/'));
  }
  return tightest;
}
#endif

}  // namespace

std::string task_limit_text() {
  std::vector<std::string> limits;
  if (auto nproc = nproc_limit()) limits.push_back(std::move(*nproc));
#if defined(FDBENCH_LINUX)
  if (auto pids = pids_limit()) limits.push_back(std::move(*pids));
  if (limits.empty()) {
    return "neither ulimit -u nor a cgroup's pids.max limits it: kernel.threads-max is " +
           first_word("/proc/sys/kernel/threads-max") + ", kernel.pid_max " +
           first_word("/proc/sys/kernel/pid_max") + ", or memory ran out";
  }
#else
  if (limits.empty())
    return "no ulimit -u limits it: the system's own limit on processes, or memory";
#endif
  std::string text = limits.front();
  for (std::size_t i = 1; i < limits.size(); ++i) text += ", " + limits[i];
  return text;
}

std::string out_of_memory_text(std::string_view when) {
  rlimit as{};
  // Only the limit's text is built here: memory has just run out, and it fits in a small one.
  const bool limited = getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY;
  const std::string during = when.empty() ? "" : " " + std::string(when);
  if (!limited) {
    return fmt::format("out of memory{}: an allocation failed (lower --files or --threads)",
                       during);
  }
  return fmt::format(
      "out of memory{}: an allocation failed under the address-space limit (ulimit -v) of {} "
      "KiB: raise it, or lower --files or --threads",
      during, as.rlim_cur / 1024);
}

}  // namespace fdbench::platform
