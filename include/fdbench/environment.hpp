#pragma once
// The host context stored with every set of results.
#include <optional>
#include <string>

#include "fdbench/platform.hpp"

namespace fdbench {

struct Environment {
  std::string os;
  std::string kernel;
  std::string cpu_model;
  int logical_cpus = 0;
  std::string fs_type;  // of the directory the file set lives in
  platform::NofileLimit rlimit_nofile;
  std::optional<int> fdsize_at_start;
  std::optional<int> io_uring_disabled;  // Linux: /proc/sys/kernel/io_uring_disabled
  std::optional<int> rcu_expedited;      // Linux: /sys/kernel/rcu_expedited
};

// Reads the environment; `dir` is where files will be created (for fs_type).
Environment capture_environment(const std::string& dir);

}  // namespace fdbench
