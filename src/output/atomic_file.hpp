#pragma once
#include <string>
#include <string_view>

#include "fdbench/unique_fd.hpp"

namespace fdbench {

// A file written beside `path` under a temporary name and renamed over `path` by commit():
// readers see the old file or the complete new one, never half of it. Destroyed without a
// commit, the temporary file is removed. Errors throw Error naming the file as `what` calls
// it (the flag that asked for it: "--output", "--export-json", "--trace-out").
class AtomicFile {
 public:
  AtomicFile(std::string path, std::string what);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  void write(std::string_view content);
  // Syncs the file and renames it into place; once.
  void commit();

 private:
  [[noreturn]] void fail(int err);
  std::string path_;
  std::string what_;
  std::string tmp_;
  UniqueFd fd_;
};

// The whole of `content` through an AtomicFile.
void write_file_atomically(const std::string& path, std::string_view content,
                           std::string_view what);

}  // namespace fdbench
