#pragma once
// Linux's mount table, parsed. Private to src/platform/.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fdbench::platform {

struct Mount {
  std::string root;           // the directory of the filesystem mounted here (bind mounts)
  std::string mount_point;    // where it is mounted
  std::string options;        // per-mount options: "rw,relatime"
  std::string fs_type;        // "ext4", "cgroup2", ...
  std::string super_options;  // the filesystem's own options: "rw,discard"
};

// Every line of /proc/self/mountinfo text, in order; lines that do not parse are left out.
std::vector<Mount> parse_mountinfo(std::string_view text);
// The mount holding the absolute, symlink-free `path`, or nullptr.
const Mount* mount_holding(const std::vector<Mount>& mounts, const std::string& path);
// /proc/self/mountinfo, or nullopt where there is none.
std::optional<std::string> read_mountinfo();

}  // namespace fdbench::platform
