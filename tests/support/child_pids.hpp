#pragma once
// The child processes of this test process, reaped or not (Linux: /proc/self/task/*/children
// lists zombies too), and a private scratch directory, for tests of strategies that fork.
#include <dirent.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

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

// A private directory under /tmp for one test, removed with its contents at the end.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = "/tmp/fdtest-strategy-XXXXXX";  // not "fdbench-": FileSet's prefix
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace fdbench::testing
