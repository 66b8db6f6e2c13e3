#pragma once
// Private scratch directories for one test, removed with everything in it when the test ends,
// and small file helpers. Tests never touch anything outside the directories they made
// themselves.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "inputs/file_set.hpp"

namespace fdbench::testing {

class TempDir {
 public:
  TempDir() {
    // Not "fdbench-": that prefix belongs to FileSet, and tests look for leftovers by it.
    std::string tmpl = "/tmp/fdtest-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    // Give back write permission first, so a test that made a read-only subdirectory
    // still leaves nothing behind.
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path_, ignored)) {
      if (entry.is_directory(ignored)) {
        std::filesystem::permissions(entry.path(), std::filesystem::perms::owner_all,
                                     std::filesystem::perm_options::add, ignored);
      }
    }
    std::filesystem::remove_all(path_, ignored);
  }

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string operator/(std::string_view name) const {
    return path_ + "/" + std::string(name);
  }

 private:
  std::string path_;
};

inline void write_text(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path);
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `text` split at newlines, without them.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Whether anything (a link included, not followed) is at `path`.
inline bool exists(const std::string& path) {
  struct stat info {};
  return lstat(path.c_str(), &info) == 0;
}

// Names in `dir` (not recursive), sorted.
inline std::vector<std::string> list_names(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ignored)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Every name under `dir`, recursively, as "d0/1.txt", sorted: what a file set holds.
inline std::vector<std::string> tree_of(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    names.push_back(std::filesystem::relative(entry.path(), dir).string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Names in `dir` that look like a FileSet's private directory.
inline std::vector<std::string> private_dirs(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& name : list_names(dir)) {
    if (name.rfind(FileSet::kDirPrefix, 0) == 0) found.push_back(name);
  }
  return found;
}

// A scratch directory on a RAM filesystem where there is one (/dev/shm), else under /tmp:
// creating 100,000 files there takes a fraction of the time it takes on a disk.
class FastTempDir {
 public:
  FastTempDir() {
    struct stat info {};
    const bool shm = stat("/dev/shm", &info) == 0 && S_ISDIR(info.st_mode) &&
                     access("/dev/shm", W_OK | X_OK) == 0;
    std::string tmpl = std::string(shm ? "/dev/shm" : "/tmp") + "/fdtest-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  FastTempDir(const FastTempDir&) = delete;
  FastTempDir& operator=(const FastTempDir&) = delete;
  ~FastTempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);  // never follows symlinks
  }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string operator/(std::string_view name) const {
    return path_ + "/" + std::string(name);
  }

 private:
  std::string path_;
};

}  // namespace fdbench::testing
