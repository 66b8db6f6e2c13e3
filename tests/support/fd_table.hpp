#pragma once
// The size of this process's descriptor table as the kernel shows it (Linux: the "FDSize:" line
// of /proc/self/status), read here on its own so that tests can check fdbench's reading of it.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace fdbench::testing {

// nullopt where there is no /proc/self/status. Plain read(2), so it is safe in any process,
// forked workers included; uses one descriptor while it reads.
inline std::optional<int> fdsize_in_proc_status() {
  const int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<std::size_t>(n));
  close(fd);
  const auto line = text.find("\nFDSize:");
  if (line == std::string::npos) return std::nullopt;
  return std::atoi(text.c_str() + line + 8);
}

// What `pid` holds open under `dir` (Linux, /proc/PID/fd): the paths, and
// "<dir>/#<inode> (deleted)" for an unnamed file.
inline std::vector<std::string> open_under(pid_t pid, const std::string& dir) {
  std::vector<std::string> found;
  const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
  for (const auto& name : list_names(fds)) {
    char target[4096];
    const ssize_t n = readlink((fds + "/" + name).c_str(), target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    if (std::string(target).rfind(dir + "/", 0) == 0) found.emplace_back(target);
  }
  return found;
}

}  // namespace fdbench::testing
