// The file set as an object: a kept set checked and opened for --reuse-files, moved, and what
// it made removed again when it goes. Its creation is in file_set_create.cpp, its marker and
// lock in file_set_marker.cpp, `fdbench clean` in file_set_clean.cpp.
#include "inputs/file_set.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "fdbench/error.hpp"
#include "inputs/file_set_marker.hpp"
#include "inputs/file_set_names.hpp"

namespace fdbench {

using file_sets::base_name;
using file_sets::looks_like_ours;
using file_sets::Marker;
using file_sets::read_marker;
using file_sets::subdir_name;
using file_sets::try_lock;
using file_sets::without_trailing_slashes;

namespace {

// 0, or the errno of an unlink of ours that failed (a read-only or immutable directory).
int unlink_if_ours(int dir, const char* name, bool empty) noexcept {
  struct stat info {};
  if (fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && looks_like_ours(info, empty) &&
      unlinkat(dir, name, 0) != 0) {
    return errno;
  }
  return 0;
}

// "/tmp" of "/tmp/fdbench-a1B2c3".
std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Whether a set that should have gone was left because it could not be removed.
std::atomic<bool> g_left_unremoved{false};

}  // namespace

std::string layout_name(std::size_t subdirs) {
  return subdirs == 0 ? "flat" : fmt::format("dirs:{}", subdirs);
}

FileSet FileSet::open_kept(const std::string& path, std::optional<std::size_t> count,
                           std::optional<std::size_t> subdirs) {
  FileSet set;
  set.kept_ = true;  // nothing of it is ever removed by this object
  set.path_ = without_trailing_slashes(path);
  set.dir_.reset(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!set.dir_) throw Error(fmt::format("--reuse-files {}: {}", path, errno_text(errno)));
  if (!try_lock(set.dir_.get(), LOCK_SH)) {
    throw Error(fmt::format(
        "--reuse-files {}: another fdbench is making or removing this set: wait for it", path));
  }
  const Marker m = read_marker(set.dir_.get());
  const std::string remake =
      fmt::format("remove it with fdbench clean {} and make it again with --keep-files", path);
  switch (m.kind) {
    case Marker::Kind::none:
      throw Error(fmt::format(
          "--reuse-files {}: no {} marker, so not a set fdbench kept: make one with fdbench "
          "open --keep-files NEW-DIR",
          path, kMarkerName));
    case Marker::Kind::private_dir:
      throw Error(fmt::format(
          "--reuse-files {}: a run's private directory, not a kept set: make one with fdbench "
          "open --keep-files NEW-DIR",
          path));
    case Marker::Kind::accept_dir:
    case Marker::Kind::other:
      throw Error(fmt::format(
          "--reuse-files {}: its {} is not the marker of a kept set: name a set made with "
          "--keep-files",
          path, kMarkerName));
    case Marker::Kind::kept:
      break;
  }
  if (!m.complete) {
    throw Error(fmt::format(
        "--reuse-files {}: its creation did not finish (interrupted or killed): {}", path, remake));
  }
  if (count && *count != m.files) {
    throw Error(fmt::format(
        "--reuse-files {} holds {} files, --files asks for {}: leave out --files to use the "
        "set as it is, or make another with --keep-files",
        path, m.files, *count));
  }
  if (subdirs && *subdirs != m.subdirs) {
    throw Error(fmt::format(
        "--reuse-files {} is laid out {}, --layout asks for {}: leave out --layout to use the "
        "set as it is, or make another with --keep-files",
        path, layout_name(m.subdirs), layout_name(*subdirs)));
  }
  set.layout_subdirs_ = m.subdirs;
  set.name_files(m.files, m.subdirs);
  set.check_files(remake);
  return set;
}

FileSet::FileSet(FileSet&& other) noexcept
    : path_(std::move(other.path_)),
      parent_(std::move(other.parent_)),
      dir_(std::move(other.dir_)),
      names_(std::move(other.names_)),
      created_(std::move(other.created_)),
      subdirs_(std::exchange(other.subdirs_, 0)),
      marker_(std::exchange(other.marker_, false)),
      layout_subdirs_(other.layout_subdirs_),
      kept_(other.kept_) {}

FileSet::~FileSet() {
  remove();
}

bool FileSet::remove() noexcept {
  if (kept_) {
    dir_.reset();
    parent_.reset();
    return false;
  }
  if (!dir_) return true;
  // Everything relative to a directory descriptor, never by a path resolved again: a symlink
  // put in place of one of our names, or of a subdirectory, is never followed.
  int failed = 0;  // the first errno of an unlink that failed
  const auto unlink_ours = [&failed](int dir, const char* name, bool empty) {
    if (const int err = unlink_if_ours(dir, name, empty); failed == 0) failed = err;
  };
  if (subdirs_ == 0) {
    for (const auto& [begin, end] : created_) {
      for (std::size_t i = begin; i < end; ++i) unlink_ours(dir_.get(), names_[i], true);
    }
  }
  for (std::size_t k = 0; k < subdirs_; ++k) {
    // Name i lives in d<i % K> as "dK/N.txt"; unlink "N.txt" through dK's own descriptor.
    const std::string sub = subdir_name(k);
    UniqueFd sub_fd(
        openat(dir_.get(), sub.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!sub_fd) continue;  // not our directory any more: leave it
    for (const auto& [begin, end] : created_) {
      for (std::size_t i = begin + (k + subdirs_ - begin % subdirs_) % subdirs_; i < end;
           i += subdirs_) {
        unlink_ours(sub_fd.get(), std::strchr(names_[i], '/') + 1, true);
      }
    }
    unlinkat(dir_.get(), sub.c_str(), AT_REMOVEDIR);  // only if empty
  }
  created_.clear();
  subdirs_ = 0;
  // The marker goes last, and only once the files went: a set left with files in it is known
  // to `fdbench clean` by it.
  if (marker_ && failed == 0) failed = unlink_if_ours(dir_.get(), kMarkerName, false);
  const bool emptied = failed == 0;
  marker_ = false;
  dir_.reset();
  bool removed = unlinkat(parent_.get(), base_name(path_).c_str(), AT_REMOVEDIR) == 0;
  if (!removed) say_left(failed != 0 ? failed : errno, emptied);
  parent_.reset();
  return removed;
}

// Why the set was left, in one line: files of someone else's in it (never removed), or what
// kept fdbench from removing its own (TMPDIR made read-only, chattr +i), with the way to
// remove it later; the run's exit code then says so too (left_unremoved()).
void FileSet::say_left(int err, bool emptied) const noexcept {
  if (err == ENOTEMPTY) {
    std::fprintf(stderr,
                 "fdbench: warning: left %s in place: it holds files fdbench did not create\n",
                 path_.c_str());
    return;
  }
  g_left_unremoved = true;
  if (emptied) {  // no marker left for clean to know it by; nothing in it either
    std::fprintf(stderr,
                 "fdbench: cannot remove its emptied directory %s: %s; remove it with rmdir %s "
                 "once that is possible\n",
                 path_.c_str(), errno_text(err).c_str(), path_.c_str());
    return;
  }
  std::fprintf(stderr,
               "fdbench: cannot remove its file set %s: %s; remove it with fdbench clean --dir "
               "%s once that is possible\n",
               path_.c_str(), errno_text(err).c_str(), directory_of(path_).c_str());
}

bool FileSet::left_unremoved() noexcept {
  return g_left_unremoved;
}

}  // namespace fdbench
