#pragma once
// The processes of one run, wherever they went. Every process fdbench starts begins with its
// environment (fork copies it, exec passes it on), so a marker put there (RunOptions::env)
// finds them in /proc even after they left fdbench's process group (setsid) or lost their
// parent, which a search by group or by parent would miss. Linux only (/proc); a zombie has no
// environment left to read, and is not counted: it holds nothing.
#include <dirent.h>
#include <limits.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace fdbench::testing {

// "FDBENCH_TEST_RUN=<this process>-<n>", new at each call: put it in RunOptions::env.
inline std::string new_run_marker() {
  static int runs = 0;
  return "FDBENCH_TEST_RUN=" + std::to_string(getpid()) + "-" + std::to_string(++runs);
}

// The processes of the process group `group` (a run started as a job), from /proc.
inline std::vector<int> processes_in_group(int group) {
  std::vector<int> pids;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return pids;
  while (const dirent* entry = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0' && getpgid(static_cast<pid_t>(pid)) == group) {
      pids.push_back(static_cast<int>(pid));
    }
  }
  closedir(proc);
  return pids;
}

// The processes whose environment holds `marker` ("NAME=value") as one of its entries.
inline std::vector<pid_t> processes_marked(const std::string& marker) {
  std::vector<pid_t> found;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return found;
  while (const dirent* entry = readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (pid <= 0) continue;
    // Entries end with a NUL each: match a whole one.
    const std::string entries =
        std::string(1, '\0') + read_text("/proc/" + std::to_string(pid) + "/environ");
    if (entries.find(std::string(1, '\0') + marker + std::string(1, '\0')) != std::string::npos) {
      found.push_back(pid);
    }
  }
  closedir(proc);
  return found;
}

// The process group of `pid` (from /proc/PID/stat), or -1 when it is gone.
inline pid_t process_group_of(pid_t pid) {
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  // "pid (comm) S ppid pgrp ...": comm may hold spaces and parentheses, so read after the last ')'
  const auto close = stat.rfind(')');
  char state = 0;
  int parent = 0;
  int group = -1;
  if (close == std::string::npos ||
      std::sscanf(stat.c_str() + close + 1, " %c %d %d", &state, &parent, &group) != 3) {
    return -1;
  }
  return group;
}

// How many of `pid`'s descriptors are perf events (anon_inode:[perf_event]): a process holding
// one keeps the kernel's tracing of fdbench's tasks alive.
inline int perf_event_descriptors(pid_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR* fds = opendir(dir.c_str());
  if (fds == nullptr) return 0;
  int count = 0;
  while (const dirent* entry = readdir(fds)) {
    if (entry->d_name[0] == '.') continue;
    char target[PATH_MAX];
    const ssize_t n = readlink((dir + "/" + entry->d_name).c_str(), target, sizeof target - 1);
    if (n > 0 && std::string(target, static_cast<std::size_t>(n)) == "anon_inode:[perf_event]") {
      ++count;
    }
  }
  closedir(fds);
  return count;
}

}  // namespace fdbench::testing
