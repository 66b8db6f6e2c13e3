#pragma once
// Many paths in one contiguous buffer: no per-file heap string, stable C strings by index.
#include <cstdint>
#include <cstring>
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

}  // namespace fdbench
