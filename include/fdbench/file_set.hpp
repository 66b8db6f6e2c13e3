#pragma once
// A private, self-cleaning set of empty files: a fresh mkdtemp directory under a parent,
// marked with a marker file, removed on destruction. Removal works through the directory
// descriptor and only unlinks names this object created.
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "fdbench/path_table.hpp"
#include "fdbench/unique_fd.hpp"

namespace fdbench {

class FileSet {
 public:
  static constexpr const char* kMarkerName = ".fdbench-private";
  static constexpr const char* kDirPrefix = "fdbench-";

  // Told now and then how many files exist so far, on the thread that called create().
  using CreationProgress = std::function<void(std::size_t made, std::size_t total)>;

  // Creates `count` empty files named 1.txt .. N.txt (as the seed does) in a new private
  // directory under `parent`; with `subdirs` > 0 they are spread round-robin over that many
  // subdirectories d0 .. d<K-1>. Throws Error (nothing left behind) or Interrupted.
  static FileSet create(const std::string& parent, std::size_t count, std::size_t subdirs = 0,
                        const CreationProgress& progress = {});

  FileSet(FileSet&&) noexcept;
  FileSet& operator=(FileSet&&) = delete;
  FileSet(const FileSet&) = delete;
  FileSet& operator=(const FileSet&) = delete;
  ~FileSet();

  [[nodiscard]] int dir_fd() const { return dir_.get(); }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const PathTable& names() const { return names_; }
  [[nodiscard]] std::size_t size() const { return names_.size(); }

  // Removes what this set created; the destructor calls it. Returns false (and leaves the
  // directory) if anything foreign is inside it.
  bool remove() noexcept;

  struct CleanReport {
    std::vector<std::string> removed;  // private directories removed
    std::vector<std::string> kept;     // "<path>: <why it was left>"
  };
  // `fdbench clean`: removes leftover private directories under `parent` (after a SIGKILL),
  // recognized by their marker. Inside one, only names fdbench creates are removed
  // (N.txt, dK/N.txt, dK, the marker); a directory whose fdbench is still running, or that
  // holds anything else, is left as it is. Throws Error if `parent` cannot be read.
  static CleanReport clean_leftovers(const std::string& parent);

 private:
  FileSet() = default;
  // The steps of create(), in order; each removes what it made before it throws.
  void make_private_dir(const std::string& parent);
  void make_subdirs(std::size_t subdirs);
  void name_files(std::size_t count, std::size_t subdirs);
  void create_files(const std::string& parent, const CreationProgress& progress);
  std::string path_;
  UniqueFd parent_;
  UniqueFd dir_;
  PathTable names_;
  std::vector<std::pair<std::size_t, std::size_t>> created_;  // [begin, end) ranges of names_
  std::size_t subdirs_ = 0;                                   // d0 .. d<subdirs_-1> created
  bool marker_ = false;
};

}  // namespace fdbench
