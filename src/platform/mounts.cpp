// Mounts: which mount holds a directory and with what options (Linux: /proc/self/mountinfo).
#include "platform/mounts.hpp"

#include <climits>
#include <cstdlib>
#include <sstream>
#include <utility>

#include "platform/platform.hpp"
#include "platform/os.hpp"

#if defined(FDBENCH_LINUX)
#include <sys/statfs.h>
#elif defined(FDBENCH_BSD)
#include <sys/mount.h>
#include <sys/param.h>
#endif

namespace fdbench::platform {

namespace {

// mountinfo escapes space, tab, newline and backslash in paths as \ooo (octal).
std::string unescape(std::string_view field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    const auto octal = [&](std::size_t at) { return field[at] >= '0' && field[at] <= '7'; };
    if (field[i] == '\\' && i + 3 < field.size() && octal(i + 1) && octal(i + 2) && octal(i + 3)) {
      out += static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 +
                               (field[i + 3] - '0'));
      i += 3;
    } else {
      out += field[i];
    }
  }
  return out;
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

// Whether `mount_point` is `path` or one of its parent directories.
bool contains(const std::string& mount_point, const std::string& path) {
  if (mount_point == "/") return !path.empty() && path[0] == '/';
  return path.rfind(mount_point, 0) == 0 &&
         (path.size() == mount_point.size() || path[mount_point.size()] == '/');
}

}  // namespace

std::vector<Mount> parse_mountinfo(std::string_view text) {
  // "36 35 98:0 /root /mnt/point rw,noatime master:1 - ext4 /dev/sda1 rw,discard": the
  // optional fields before "-" vary in number.
  std::vector<Mount> mounts;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    const auto w = words(line);
    std::size_t dash = 6;
    while (dash < w.size() && w[dash] != "-") ++dash;
    if (dash + 1 >= w.size()) continue;  // not a mountinfo line
    mounts.push_back({unescape(w[3]), unescape(w[4]), w[5], w[dash + 1],
                      dash + 3 < w.size() ? w[dash + 3] : ""});
  }
  return mounts;
}

const Mount* mount_holding(const std::vector<Mount>& mounts, const std::string& path) {
  const Mount* best = nullptr;
  for (const Mount& m : mounts) {
    // The longest mount point wins; of equal ones the later, mounted on top of the other.
    if (contains(m.mount_point, path) &&
        (best == nullptr || m.mount_point.size() >= best->mount_point.size())) {
      best = &m;
    }
  }
  return best;
}

std::optional<std::string> mount_options_from(std::string_view mountinfo, const std::string& path) {
  const auto mounts = parse_mountinfo(mountinfo);
  const Mount* m = mount_holding(mounts, path);
  if (m == nullptr) return std::nullopt;
  // The mount's own options (rw, noatime) then the filesystem's (discard, data=ordered).
  std::string options = m->options;
  std::istringstream super(m->super_options);
  for (std::string option; std::getline(super, option, ',');) {
    if (("," + options + ",").find("," + option + ",") == std::string::npos) {
      options += "," + option;
    }
  }
  return options;
}

std::optional<std::string> read_mountinfo() {
#if defined(FDBENCH_LINUX)
  return read_text_file("/proc/self/mountinfo");
#else
  return std::nullopt;
#endif
}

std::optional<std::string> fs_mount_options(const std::string& path) {
  const auto mountinfo = read_mountinfo();
  if (!mountinfo) return std::nullopt;
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) == nullptr) return std::nullopt;
  return mount_options_from(*mountinfo, resolved);
}

std::optional<std::string> pseudo_filesystem(const std::string& path) {
#if defined(FDBENCH_LINUX)
  struct statfs info {};
  if (statfs(path.c_str(), &info) != 0) return std::nullopt;
  // linux/magic.h: the kernel's own filesystems, whose files are its interfaces.
  static constexpr std::pair<unsigned long, const char*> kPseudo[] = {
      {0x9FA0, "proc"},        {0x62656572, "sysfs"},      {0x74726163, "tracefs"},
      {0x64626720, "debugfs"}, {0x73636673, "securityfs"}, {0x27E0EB, "cgroup"},
      {0x63677270, "cgroup2"}, {0x62656570, "configfs"},   {0xCAFE4A11, "bpf"},
  };
  const auto type = static_cast<unsigned long>(info.f_type);
  for (const auto& [magic, name] : kPseudo) {
    if (magic == type) return name;
  }
  return std::nullopt;
#elif defined(FDBENCH_BSD)
  struct statfs info {};
  if (statfs(path.c_str(), &info) != 0) return std::nullopt;
  const std::string type = info.f_fstypename;
  if (type == "procfs" || type == "linprocfs" || type == "linsysfs") return type;
  return std::nullopt;
#else
  (void)path;
  return std::nullopt;
#endif
}

}  // namespace fdbench::platform
