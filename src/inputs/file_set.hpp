#pragma once
// A private, self-cleaning set of empty files: a fresh mkdtemp directory under a parent,
// marked with a marker file, removed on destruction. Removal works through the directory
// descriptor and only unlinks names this object created. A kept set (--keep-files) is made
// at a path the user names and outlives the run, its marker recording what it holds, so that
// later runs can check it and use it (--reuse-files) instead of making it again.
//
// Defined in parts: file_set_create.cpp (making a set, its files created in parallel),
// file_set.cpp (reusing a kept set, removing what was made), file_set_marker.cpp (the marker
// and the lock), file_set_clean.cpp (`fdbench clean`).
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fdbench/unique_fd.hpp"
#include "model/path_table.hpp"

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
  // `parent_name` is what messages call `parent`: "--dir", or "TMPDIR" when it was not given.
  static FileSet create(const std::string& parent, std::size_t count, std::size_t subdirs = 0,
                        const CreationProgress& progress = {},
                        const std::string& parent_name = "--dir");

  // --keep-files: the same files, made in `path` itself, which must not exist yet (fdbench
  // creates it); the marker records the count and the layout. The set is left in place when
  // this object goes, also on Ctrl-C; a creation that fails or is interrupted still removes
  // what it made. Throws Error (a kept set already there points to --reuse-files) or
  // Interrupted.
  static FileSet create_kept(const std::string& path, std::size_t count, std::size_t subdirs = 0,
                             const CreationProgress& progress = {});

  // --reuse-files: the set create_kept() left at `path`, checked before it is used: its
  // marker, its count and layout (against `count` and `subdirs` where they are given; else as
  // the marker says), every name a regular file. Creates, changes and removes nothing; throws
  // Error naming what does not match.
  static FileSet open_kept(const std::string& path, std::optional<std::size_t> count,
                           std::optional<std::size_t> subdirs);

  FileSet(FileSet&&) noexcept;
  FileSet& operator=(FileSet&&) = delete;
  FileSet(const FileSet&) = delete;
  FileSet& operator=(const FileSet&) = delete;
  ~FileSet();

  [[nodiscard]] int dir_fd() const { return dir_.get(); }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const PathTable& names() const { return names_; }
  [[nodiscard]] std::size_t size() const { return names_.size(); }
  [[nodiscard]] std::size_t subdirs() const { return layout_subdirs_; }  // 0: flat
  [[nodiscard]] bool kept() const { return kept_; }

  // Removes what this set created; the destructor calls it. Returns false (and leaves the
  // directory) if anything foreign is inside it. A kept set is never removed: this only lets
  // go of its descriptors (and returns false).
  bool remove() noexcept;
  // Whether a set of this process's was left because it could not be removed (its directory
  // read-only or immutable): said on stderr then, and the exit code is not 0.
  static bool left_unremoved() noexcept;

  struct CleanReport {
    std::vector<std::string> removed;  // private directories removed
    std::vector<std::string> kept;     // "<path>: <why it was left>"
  };
  // `fdbench clean`: removes leftover private directories under `parent` (after a SIGKILL),
  // recognized by their marker. Inside one, only names fdbench creates are removed
  // (N.txt, dK/N.txt, dK, the marker); a directory whose fdbench is still running, or that
  // holds anything else, is left as it is. Throws Error if `parent` cannot be read.
  static CleanReport clean_leftovers(const std::string& parent);
  // `fdbench clean SET`: removes the kept set at `path` with the same care (or a killed run's
  // private directory named directly). Left, and said so in `kept`: a directory without
  // fdbench's marker, a set another fdbench is using or still creating, one holding anything
  // fdbench does not create. A symlink at `path` is never followed.
  static CleanReport clean_kept(const std::string& path);

 private:
  FileSet() = default;
  // Says on stderr why the set's directory was left (`err`: why it could not be removed;
  // `emptied`: its files and marker went, only the directory itself stayed).
  void say_left(int err, bool emptied) const noexcept;
  // Where a set is made, for messages: "--dir /tmp" or "--keep-files /x/set".
  struct Place {
    std::string flag;
    std::string path;
  };
  // The steps of create(), in order; each removes what it made before it throws.
  void make_private_dir(const Place& parent);
  void make_kept_dir(const std::string& path, std::size_t count, std::size_t subdirs);
  void hold_new_dir(const std::string& path, const std::string& marker_text, const Place& place);
  void make_files(std::size_t count, std::size_t subdirs, const Place& place,
                  const CreationProgress& progress);
  void make_subdirs(std::size_t subdirs);
  void name_files(std::size_t count, std::size_t subdirs);
  void create_files(const Place& place, const CreationProgress& progress);
  void check_files(const std::string& path) const;
  std::string path_;
  UniqueFd parent_;
  UniqueFd dir_;
  PathTable names_;
  std::vector<std::pair<std::size_t, std::size_t>> created_;  // [begin, end) ranges of names_
  std::size_t subdirs_ = 0;                                   // d0 .. d<subdirs_-1> created
  bool marker_ = false;
  std::size_t layout_subdirs_ = 0;  // the layout: files spread over this many subdirectories
  bool kept_ = false;               // left in place: never removed by this object
};

// "flat" or "dirs:K", as --layout spells it.
std::string layout_name(std::size_t subdirs);

}  // namespace fdbench
