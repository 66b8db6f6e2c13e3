#pragma once
// Many paths in one contiguous buffer: no per-file heap string, stable C strings by index.
#include <cstdint>
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

}  // namespace fdbench
