#pragma once
// A tmpfs mounted for one test in a private directory (needs root or CAP_SYS_ADMIN; tests
// skip without), always unmounted at the end.
#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include "support/temp_dir.hpp"

namespace fdbench::testing {

class Tmpfs {
 public:
  explicit Tmpfs(const std::string& options) : path_(parent_ / "mnt") {
    mkdir(path_.c_str(), 0755);
    const std::string command =
        "mount -t tmpfs -o " + options + " fdbench-test '" + path_ + "' 2>/dev/null";
    mounted_ = std::system(command.c_str()) == 0;
  }
  Tmpfs(const Tmpfs&) = delete;
  Tmpfs& operator=(const Tmpfs&) = delete;
  ~Tmpfs() {
    if (!mounted_) return;
    if (std::system(("umount '" + path_ + "' 2>/dev/null").c_str()) != 0) {
      [[maybe_unused]] const int lazy = std::system(("umount -l '" + path_ + "'").c_str());
    }
  }
  [[nodiscard]] bool mounted() const { return mounted_; }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  TempDir parent_;
  std::string path_;
  bool mounted_ = false;
};

}  // namespace fdbench::testing
