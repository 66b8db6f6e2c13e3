#pragma once
// The names in a set and of it: its subdirectories, what one of its files looks like, and the
// parts of a set's path. Private to the file set's parts (file_set_create.cpp, file_set.cpp,
// file_set_clean.cpp).
#include <sys/stat.h>

#include <cstddef>
#include <string>

namespace fdbench::file_sets {

// The layout's subdirectory j: "d0" .. "d<K-1>".
inline std::string subdir_name(std::size_t j) {
  return "d" + std::to_string(j);
}

// What create() makes under one of our names: a regular file with a single link (and, but for
// the marker, empty). Anything else there now was put there by someone else: a symlink, a
// hard link to their file, a file they wrote to. It is left alone, and so is the directory.
inline bool looks_like_ours(const struct stat& info, bool empty) {
  return S_ISREG(info.st_mode) && info.st_nlink == 1 && (!empty || info.st_size == 0);
}

// `path` without trailing slashes ("set/" -> "set"), so that its last component is the set.
inline std::string without_trailing_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// The last component of `path` ("/tmp/set" -> "set").
inline std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The directory `path` is in: "." for a bare name, "/" for one at the root.
inline std::string parent_path(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace fdbench::file_sets
