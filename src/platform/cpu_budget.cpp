// How much CPU this process may use: the CPUs its affinity allows and a cgroup's quota.
// Either can be far below logical_cpus() in a container, which changes the best thread count.
#include <sched.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "platform/platform.hpp"
#include "platform/mounts.hpp"
#include "platform/os.hpp"

namespace fdbench::platform {

std::optional<int> cpus_allowed() {
#if defined(FDBENCH_LINUX)
  // A cpu_set_t holds 1,024 CPUs; a larger machine needs a larger set (EINVAL until then).
  for (int cpus = CPU_SETSIZE; cpus <= (1 << 16); cpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(static_cast<unsigned>(cpus));
    if (set == nullptr) return std::nullopt;
    const std::size_t size = CPU_ALLOC_SIZE(static_cast<unsigned>(cpus));
    const int rc = sched_getaffinity(0, size, set);
    const int count = CPU_COUNT_S(size, set);
    CPU_FREE(set);
    if (rc == 0) return count;
    if (errno != EINVAL) return std::nullopt;
  }
#endif
  return std::nullopt;
}

std::optional<double> cpu_quota_from(std::string_view cpu_max) {
  // cgroup v2 cpu.max: "$MAX $PERIOD" in microseconds, "max" for no limit.
  std::istringstream in{std::string(cpu_max)};
  std::string quota;
  double period = 0;
  if (!(in >> quota >> period) || quota == "max" || period <= 0) return std::nullopt;
  char* end = nullptr;
  const double max = std::strtod(quota.c_str(), &end);
  if (end == quota.c_str() || *end != '\0' || max <= 0) return std::nullopt;
  return max / period;
}

#if defined(FDBENCH_LINUX)
namespace {

// The process's cgroup v2 path ("0::/user.slice/..."), from /proc/self/cgroup.
std::optional<std::string> cgroup_v2_path() {
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  }
  return std::nullopt;
}

// Whether the cgroup `path` lies in the tree that a cgroup2 mount with this root shows.
bool shows(const Mount& m, const std::string& path) {
  return m.fs_type == "cgroup2" &&
         (m.root == "/" || path == m.root || path.rfind(m.root + "/", 0) == 0);
}

}  // namespace
#endif

std::optional<double> cgroup_cpu_quota() {
#if defined(FDBENCH_LINUX)
  const auto path = cgroup_v2_path();
  const auto mountinfo = read_mountinfo();
  if (!path || !mountinfo) return std::nullopt;
  const auto mounts = parse_mountinfo(*mountinfo);
  for (const Mount& m : mounts) {
    if (!shows(m, *path)) continue;
    // In a cgroup namespace the mount's root is the cgroup the path is relative to.
    std::string relative = m.root == "/" ? *path : path->substr(m.root.size());
    // A parent's limit binds its children too: the tightest along the path counts.
    std::optional<double> tightest;
    while (true) {
      const auto cpu_max = read_text_file(m.mount_point + relative + "/cpu.max");
      const auto quota = cpu_max ? cpu_quota_from(*cpu_max) : std::nullopt;
      if (quota && (!tightest || *quota < *tightest)) tightest = quota;
      const auto slash = relative.rfind('/');
      if (relative.empty() || slash == std::string::npos) break;
      relative.erase(slash);
    }
    return tightest;
  }
#endif
  return std::nullopt;
}

}  // namespace fdbench::platform
