#pragma once
// The size of this process's descriptor table as the kernel shows it (Linux: the "FDSize:" line
// of /proc/self/status), read here on its own so that tests can check fdbench's reading of it.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

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

}  // namespace fdbench::testing
