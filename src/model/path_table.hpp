#pragma once
// Many paths in one contiguous buffer: no per-file heap string, stable C strings by index.
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace fdbench {

class PathTable {
 public:
  void reserve(std::size_t paths, std::size_t bytes) {
    offsets_.reserve(paths);
    blob_.reserve(bytes);
  }
  void add(std::string_view path) {
    offsets_.push_back(blob_.size());
    blob_.append(path);
    blob_.push_back('\0');
  }
  [[nodiscard]] const char* operator[](std::size_t i) const { return blob_.data() + offsets_[i]; }
  [[nodiscard]] std::size_t size() const { return offsets_.size(); }
  [[nodiscard]] bool empty() const { return offsets_.empty(); }

 private:
  std::string blob_;
  std::vector<std::uint64_t> offsets_;
};

// The same files by their full paths: dir/name for every name, a name that is already
// absolute as it is. Built once, before any timing, for opens without a directory descriptor.
inline PathTable joined_paths(std::string_view dir, const PathTable& names) {
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < names.size(); ++i) bytes += dir.size() + 2 + std::strlen(names[i]);
  PathTable joined;
  joined.reserve(names.size(), bytes);
  std::string path;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string_view name = names[i];
    if (name.front() == '/') {
      joined.add(name);
      continue;
    }
    path.assign(dir).append(dir.ends_with('/') ? "" : "/").append(name);
    joined.add(path);
  }
  return joined;
}

// The user's files (--tree, --list) by directory: the directories they are in, as the scan
// found them (device and inode), and each file's last name and directory. Before each
// repetition (untimed) every directory is opened from its parent's descriptor (a top one name
// by name from "/"), no symlink followed, and checked to be the directory the scan found; each
// timed open is then one openat() of a last name relative to its directory's descriptor, so a
// directory swapped for a link after the scan leads nowhere else.
struct DirectoryTable {
  static constexpr std::uint32_t kTop = std::numeric_limits<std::uint32_t>::max();
  struct Dir {
    std::uint32_t parent = kTop;  // its parent's index (always lower), or kTop
    std::string name;             // one name below its parent; a top one's: its absolute path
    std::uint64_t dev = 0;
    std::uint64_t ino = 0;
  };
  std::vector<Dir> dirs;
  PathTable names;                    // each file's last name
  std::vector<std::uint32_t> dir_of;  // each file's directory (an index into dirs)

  std::uint32_t add_dir(std::uint32_t parent, std::string_view name, std::uint64_t dev,
                        std::uint64_t ino) {
    dirs.push_back({parent, std::string(name), dev, ino});
    return static_cast<std::uint32_t>(dirs.size() - 1);
  }
  void add_file(std::uint32_t dir, std::string_view name) {
    names.add(name);
    dir_of.push_back(dir);
  }
  [[nodiscard]] bool empty() const { return dirs.empty(); }
  // Drops the directories no file is in, below or at: only those are opened before a
  // repetition (one the scan could not read holds none).
  void keep_only_used() {
    std::vector<char> used(dirs.size(), 0);
    for (const std::uint32_t dir : dir_of) {
      for (std::uint32_t at = dir; at != kTop && used[at] == 0; at = dirs[at].parent) used[at] = 1;
    }
    std::vector<std::uint32_t> moved(dirs.size(), kTop);
    std::vector<Dir> kept;
    for (std::uint32_t i = 0; i < dirs.size(); ++i) {
      if (used[i] == 0) continue;
      moved[i] = static_cast<std::uint32_t>(kept.size());
      kept.push_back(std::move(dirs[i]));
      if (kept.back().parent != kTop) kept.back().parent = moved[kept.back().parent];
    }
    for (std::uint32_t& dir : dir_of) dir = moved[dir];
    dirs = std::move(kept);
  }
  // Directory `i`'s absolute path, as the scan found it.
  [[nodiscard]] std::string path_of(std::uint32_t i) const {
    std::string path = dirs[i].name;
    for (std::uint32_t at = dirs[i].parent; at != kTop; at = dirs[at].parent) {
      path.insert(0, dirs[at].name + (dirs[at].name.ends_with('/') ? "" : "/"));
    }
    return path;
  }
  // Every file's absolute path through the directories the scan found (no link on it).
  [[nodiscard]] PathTable full_paths() const {
    std::vector<std::string> dir_paths;
    dir_paths.reserve(dirs.size());
    for (std::uint32_t i = 0; i < dirs.size(); ++i) dir_paths.push_back(path_of(i));
    PathTable full;
    std::string path;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::string& dir = dir_paths[dir_of[i]];
      path.assign(dir).append(dir.ends_with('/') ? "" : "/").append(names[i]);
      full.add(path);
    }
    return full;
  }
};

}  // namespace fdbench
