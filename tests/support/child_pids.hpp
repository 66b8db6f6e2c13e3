#pragma once
// Child processes: those of this test process, reaped or not (Linux: /proc/self/task/*/children
// lists zombies too), and those of any process (from /proc/<n>/stat), for tests of what forks.
#include <dirent.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace fdbench::testing {

// Whether this kernel lists children (CONFIG_PROC_CHILDREN).
inline bool can_list_children() {
  std::ifstream probe("/proc/self/task/" + std::to_string(getpid()) + "/children");
  return probe.good();
}

// Every child of every thread of this process, sorted; zombies included.
inline std::vector<pid_t> child_pids() {
  std::vector<pid_t> pids;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return pids;
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    std::ifstream children(std::string("/proc/self/task/") + entry->d_name + "/children");
    for (pid_t pid = 0; children >> pid;) pids.push_back(pid);
  }
  closedir(tasks);
  std::sort(pids.begin(), pids.end());
  return pids;
}

// The children in `after` that are not in `before`.
inline std::vector<pid_t> new_children(const std::vector<pid_t>& before,
                                       const std::vector<pid_t>& after) {
  std::vector<pid_t> added;
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::back_inserter(added));
  return added;
}

// True when `pid` is no child of ours any more, not even a zombie.
inline bool reaped(pid_t pid) {
  int status = 0;
  return waitpid(pid, &status, WNOHANG) < 0 && errno == ECHILD;
}

// Processes whose parent is `pid` (from /proc/<n>/stat; empty where there is no /proc).
inline std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> found;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return found;
  while (const dirent* entry = readdir(proc)) {
    const pid_t candidate = static_cast<pid_t>(std::atoi(entry->d_name));
    if (candidate <= 0) continue;
    const std::string stat = read_text("/proc/" + std::string(entry->d_name) + "/stat");
    // "pid (comm) S ppid ...": comm may hold spaces, so parse after the last ')'
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == pid) {
      found.push_back(candidate);
    }
  }
  closedir(proc);
  return found;
}

}  // namespace fdbench::testing
