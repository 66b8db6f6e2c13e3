#pragma once
// The host context stored with every set of results (engine/capture.hpp reads it).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fdbench {

// RLIMIT_NOFILE as it was.
struct NofileLimit {
  std::uint64_t soft = 0;
  std::uint64_t hard = 0;
  bool operator==(const NofileLimit&) const = default;
};

struct Environment {
  std::string os;
  std::string kernel;
  std::string cpu_model;
  int logical_cpus = 0;
  std::string fs_type;  // of the directory the file set lives in
  NofileLimit rlimit_nofile;
  std::optional<int> fdsize_at_start;
  std::optional<int> io_uring_disabled;  // Linux: /proc/sys/kernel/io_uring_disabled
  std::optional<int> rcu_expedited;      // Linux: /sys/kernel/rcu_expedited
  // --kernel-trace here: "available", or why not and what would enable it; nullopt: not known
  // (a document before schema 5).
  std::optional<std::string> kernel_trace;
  std::string build_type;                // of this fdbench: "Release", "Debug", ...
  std::string compiler;                  // "gcc 12.2.0", "clang 14.0.6"
  std::optional<std::string> liburing_version;  // nullopt: built without it
  std::optional<std::string> libuv_version;
  std::string virtualization = "unknown";  // "none", "kvm", "xen", ... (see platform.hpp)
  std::map<std::string, std::string> cpu_mitigations;  // Linux: vulnerability -> status
  std::optional<double> syscall_ns;                    // measured cost of getppid
  std::optional<int> cpus_allowed;                     // CPU affinity
  std::optional<double> cpu_quota;                     // cgroup v2 cpu.max, in CPUs
  std::optional<std::uint64_t> memory_bytes;
  std::optional<std::string> fs_mount_options;  // of the directory, like fs_type
  std::vector<std::string> warnings;            // what makes these results less trustworthy
};

}  // namespace fdbench
