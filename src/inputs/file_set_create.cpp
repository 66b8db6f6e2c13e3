// Making a file set: its directory (private under --dir, or kept at --keep-files DIR), held
// and marked, then its files named for the layout and created in parallel, spread over the
// CPUs; and the same parallel pass checking the files of a reused set.
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "fdbench/error.hpp"
#include "inputs/file_set.hpp"
#include "inputs/file_set_marker.hpp"
#include "inputs/file_set_names.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"

namespace fdbench {

using file_sets::kept_marker_text;
using file_sets::mark_complete;
using file_sets::Marker;
using file_sets::parent_path;
using file_sets::private_marker_text;
using file_sets::read_marker;
using file_sets::subdir_name;
using file_sets::try_lock;
using file_sets::without_trailing_slashes;

namespace {

constexpr int kCreateFlags = O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY;

// Creates names [begin, end) until the first failure; returns how many it created and the
// errno that stopped it (0 if none). Polls for Ctrl-C every 1,024 files, adds to `made` as it
// goes, and the caller's thread (the one given `progress`) reports every few thousand files.
std::pair<std::size_t, int> create_range(int dir, const PathTable& names, std::size_t begin,
                                         std::size_t end, std::atomic<std::size_t>& made,
                                         const FileSet::CreationProgress* progress) {
  for (std::size_t i = begin; i < end; ++i) {
    if ((i & 1023) == 0 && i != begin) {
      if (interrupted() != 0) return {i - begin, EINTR};
      const std::size_t now = made.fetch_add(1024, std::memory_order_relaxed) + 1024;
      if (progress != nullptr && (i & 4095) == 0) (*progress)(now, names.size());
    }
    const int fd = openat(dir, names[i], kCreateFlags, 0644);
    if (fd < 0) return {i - begin, errno};
    close(fd);
  }
  return {end - begin, 0};
}

// How many threads make (or check) a set of `count` files: setup is not the measured work, but
// a large set keeps one thread busy for long. One per 1,024 files, up to the CPUs this process
// may use; past 16, creators in one directory only queue on its lock.
std::size_t workers_for(std::size_t count) {
  const int cpus = platform::cpus_allowed().value_or(platform::logical_cpus());
  return std::clamp<std::size_t>(count / 1024, 1,
                                 std::clamp<std::size_t>(static_cast<std::size_t>(cpus), 1, 16));
}

// Splits [0, count) into `parts` equal ranges and runs work(part, begin, end) on each: part 0
// on the calling thread, the others on threads of their own (or, where the system will not
// start one, after part 0 on the caller). Returns when every part is done.
void for_each_part(std::size_t count, std::size_t parts,
                   const std::function<void(std::size_t, std::size_t, std::size_t)>& work) {
  const auto start = [&](std::size_t part) { return count * part / parts; };
  std::vector<std::thread> helpers;
  std::vector<std::size_t> on_caller{0};
  for (std::size_t part = 1; part < parts; ++part) {
    try {
      helpers.emplace_back(work, part, start(part), start(part + 1));
    } catch (const std::system_error&) {
      on_caller.push_back(part);
    }
  }
  for (const std::size_t part : on_caller) work(part, start(part), start(part + 1));
  for (auto& helper : helpers) helper.join();
}

// Says up front, before creating anything, when the filesystem cannot hold the set.
void check_space(int dir, const std::string& flag, const std::string& where, std::size_t inodes) {
  struct statvfs info {};
  if (fstatvfs(dir, &info) != 0) return;
  // Filesystems without inode accounting (btrfs, some network ones) report 0 files.
  if (info.f_files != 0 && info.f_favail < inodes) {
    throw Error(
        fmt::format("{} {} has {} free inodes, the file set needs {}: free some, "
                    "choose another {}, or lower --files",
                    flag, where, info.f_favail, inodes, flag));
  }
  // Empty files take no data blocks, but their directory entries do (~64 bytes each).
  const auto need = static_cast<unsigned long long>(inodes) * 64 + (1ULL << 20);
  const auto have = static_cast<unsigned long long>(info.f_bavail) * info.f_frsize;
  if (have < need) {
    throw Error(
        fmt::format("{} {} has {} KiB free, the file set needs about {} KiB: free "
                    "space, choose another {}, or lower --files",
                    flag, where, have / 1024, need / 1024, flag));
  }
}

// Whether directory `dir` holds nothing at all.
bool holds_nothing(int dir) {
  const int listed = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* listing = listed >= 0 ? fdopendir(listed) : nullptr;
  if (listing == nullptr) {
    if (listed >= 0) close(listed);
    return false;
  }
  bool empty = true;
  while (const dirent* entry = readdir(listing)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") empty = false;
  }
  closedir(listing);  // `listed` with it
  return empty;
}

// Whether another run holds `dir` while it makes a set there: the exclusive lock a creating
// run holds (a run that is gone holds none, whatever its marker says). A directory so new that
// its maker has not locked it yet (it is empty) is given a moment to be.
bool being_made(int dir) {
  for (int waited_ms = 0;; waited_ms += 10) {
    if (file_sets::lock(dir, LOCK_SH) == file_sets::LockResult::busy) return true;
    flock(dir, LOCK_UN);
    if (waited_ms >= 1000 || read_marker(dir).kind != Marker::Kind::none || !holds_nothing(dir)) {
      return false;
    }
    usleep(10'000);
  }
}

// Why --keep-files refuses `path`, which exists: a kept set there is for --reuse-files.
std::string already_there(const std::string& path, std::size_t count, std::size_t subdirs) {
  const UniqueFd dir(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
  if (dir && being_made(dir.get())) {
    return fmt::format(
        "--keep-files {}: another fdbench run, still alive, is making a set there now: wait for "
        "it to finish and use the set with --reuse-files {}, or name another directory",
        path, path);
  }
  const Marker m = dir ? read_marker(dir.get()) : Marker{};
  if (m.kind == Marker::Kind::kept && !m.complete) {
    return fmt::format(
        "--keep-files {} holds a kept set whose creation did not finish: remove it with "
        "fdbench clean {} and run again",
        path, path);
  }
  if (m.kind == Marker::Kind::kept) {
    return fmt::format(
        "--keep-files {} already holds {} kept set ({} files, {}): use it with --reuse-files "
        "{}, or remove it with fdbench clean {}",
        path, m.files == count && m.subdirs == subdirs ? "this" : "a different", m.files,
        layout_name(m.subdirs), path, path);
  }
  return fmt::format(
      "--keep-files {} exists and is not a set fdbench kept: name a new directory (fdbench "
      "creates it)",
      path);
}

}  // namespace

FileSet FileSet::create(const std::string& parent, std::size_t count, std::size_t subdirs,
                        const CreationProgress& progress, const std::string& parent_name) {
  FileSet set;
  const Place place{parent_name, parent};
  set.make_private_dir(place);
  set.make_files(count, subdirs, place, progress);
  return set;
}

FileSet FileSet::create_kept(const std::string& path, std::size_t count, std::size_t subdirs,
                             const CreationProgress& progress) {
  FileSet set;
  set.make_kept_dir(without_trailing_slashes(path), count, subdirs);
  set.make_files(count, subdirs, {"--keep-files", set.path_}, progress);
  // Complete only now: a run killed before this leaves a set --reuse-files refuses.
  if (!mark_complete(set.dir_.get())) {
    throw Error(fmt::format("cannot finish the marker of --keep-files {}: {}", set.path_,
                            errno_text(errno)));
  }
  try_lock(set.dir_.get(), LOCK_SH);  // others may reuse it from now on
  set.kept_ = true;
  return set;
}

// mkdtemp in `parent`, then held and marked.
void FileSet::make_private_dir(const Place& parent) {
  std::string tmpl =
      (parent.path.empty() ? std::string(".") : parent.path) + "/" + kDirPrefix + "XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    const int err = errno;
    throw Error(fmt::format("cannot create a private directory in {} {}: {}{}", parent.flag,
                            parent.path, errno_text(err),
                            err == EROFS || err == EACCES || err == EPERM
                                ? " (choose a writable directory with --dir)"
                                : ""));
  }
  hold_new_dir(tmpl, private_marker_text(), parent);
}

// `path` itself, made now: a directory that exists already is refused, whatever it holds.
void FileSet::make_kept_dir(const std::string& path, std::size_t count, std::size_t subdirs) {
  if (mkdir(path.c_str(), 0755) != 0) {
    const int err = errno;
    if (err == EEXIST) throw Error(already_there(path, count, subdirs));
    throw Error(fmt::format("--keep-files {}: cannot create it: {}{}", path, errno_text(err),
                            err == EROFS || err == EACCES || err == EPERM
                                ? " (name a place in a writable directory)"
                                : ""));
  }
  hold_new_dir(path, kept_marker_text(count, subdirs), {"--keep-files", path});
}

// The new directory `path` and its parent held open, locked while it is made, and the marker
// written: it says "fdbench made this" to `fdbench clean`, to --reuse-files and to people.
void FileSet::hold_new_dir(const std::string& path, const std::string& marker_text,
                           const Place& place) {
  path_ = path;
  parent_.reset(open(parent_path(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  dir_.reset(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
  if (!parent_ || !dir_) {
    const int err = errno;
    rmdir(path.c_str());
    throw Error(fmt::format("cannot open the new directory {}: {}", path, errno_text(err)));
  }
  try_lock(dir_.get(), LOCK_EX);  // new: nobody else can hold it yet
  const int marker = openat(dir_.get(), kMarkerName, kCreateFlags, 0644);
  if (marker < 0) {
    const int err = errno;
    remove();
    throw Error(fmt::format("cannot write in {} {}: {}", place.flag, place.path, errno_text(err)));
  }
  marker_ = true;
  const bool written = write(marker, marker_text.data(), marker_text.size()) ==
                       static_cast<ssize_t>(marker_text.size());
  const int err = errno;
  close(marker);
  if (!written) {
    remove();
    throw Error(fmt::format("cannot write in {} {}: {}", place.flag, place.path, errno_text(err)));
  }
}

void FileSet::make_files(std::size_t count, std::size_t subdirs, const Place& place,
                         const CreationProgress& progress) {
  layout_subdirs_ = subdirs;
  make_subdirs(subdirs);
  check_space(dir_.get(), place.flag, place.path, count + subdirs);
  name_files(count, subdirs);
  create_files(place, progress);
  // Untimed: ext4 writes the new inodes back some seconds later, which would otherwise land
  // inside the first repetitions. A failed writeback leaves only that noise: the set is made.
  platform::sync_filesystem(dir_.get());
}

void FileSet::make_subdirs(std::size_t subdirs) {
  for (; subdirs_ < subdirs; ++subdirs_) {
    if (mkdirat(dir_.get(), subdir_name(subdirs_).c_str(), 0755) != 0) {
      const int err = errno;
      remove();
      throw Error(fmt::format("cannot create a subdirectory in {}: {}", path_, errno_text(err)));
    }
  }
}

// N.txt, or dK/N.txt spread over the subdirectories, in one allocation.
void FileSet::name_files(std::size_t count, std::size_t subdirs) {
  const std::size_t prefix = subdirs > 0 ? subdir_name(subdirs).size() + 1 : 0;
  std::size_t bytes = 0;
  for (std::size_t i = 1; i <= count; ++i) bytes += std::to_string(i).size() + 5 + prefix;
  names_.reserve(count, bytes);
  char name[64];
  for (std::size_t i = 1; i <= count; ++i) {
    if (subdirs > 0) {
      std::snprintf(name, sizeof name, "d%zu/%zu.txt", (i - 1) % subdirs, i);
    } else {
      std::snprintf(name, sizeof name, "%zu.txt", i);
    }
    names_.add(name);
  }
}

void FileSet::create_files(const Place& place, const CreationProgress& progress) {
  const std::size_t count = names_.size();
  const std::size_t parts = workers_for(count);
  std::vector<std::size_t> begins(parts);
  std::vector<std::pair<std::size_t, int>> made(parts);  // each part's files made, its errno
  std::atomic<std::size_t> so_far{0};
  // Said at once (a large set takes seconds before its first report) and when done.
  if (progress) progress(0, count);
  for_each_part(count, parts, [&](std::size_t part, std::size_t begin, std::size_t end) {
    begins[part] = begin;
    made[part] = create_range(dir_.get(), names_, begin, end, so_far,
                              part == 0 && progress ? &progress : nullptr);
  });
  int err = 0;
  std::size_t total = 0;
  for (std::size_t part = 0; part < parts; ++part) {
    created_.emplace_back(begins[part], begins[part] + made[part].first);
    total += made[part].first;
    if (err == 0) err = made[part].second;
  }
  if (progress) progress(total, count);
  if (err == 0) return;
  remove();
  throw_if_interrupted();
  if (err == ENOSPC || err == EDQUOT) {
    throw Error(
        fmt::format("no space left in {} {} after {} of {} files (each needs an inode): free space "
                    "or inodes there, choose another {}, or lower --files",
                    place.flag, place.path, total, count, place.flag));
  }
  throw Error(fmt::format("cannot create file {} of {} in {}: {}", total + 1, count, path_,
                          errno_text(err)));
}

// A reused set's every subdirectory a directory and every name a regular file; `remake` says
// what to do when not.
void FileSet::check_files(const std::string& remake) const {
  for (std::size_t k = 0; k < layout_subdirs_; ++k) {
    struct stat info {};
    if (fstatat(dir_.get(), subdir_name(k).c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISDIR(info.st_mode)) {
      throw Error(fmt::format("--reuse-files {}: {} is missing or not a directory: {}", path_,
                              subdir_name(k), remake));
    }
  }
  const std::size_t count = names_.size();
  const std::size_t parts = workers_for(count);
  std::vector<std::size_t> missing(parts, 0);
  std::vector<std::size_t> first(parts, count);
  for_each_part(count, parts, [&](std::size_t part, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      if ((i & 1023) == 0 && interrupted() != 0) return;
      struct stat info {};
      if (fstatat(dir_.get(), names_[i], &info, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISREG(info.st_mode)) {
        continue;
      }
      if (missing[part]++ == 0) first[part] = i;
    }
  });
  throw_if_interrupted();
  std::size_t total = 0;
  for (const std::size_t n : missing) total += n;
  if (total == 0) return;
  throw Error(fmt::format(
      "--reuse-files {}: {} of {} files are missing or not regular files ({} is the first): {}",
      path_, total, count, names_[*std::min_element(first.begin(), first.end())], remake));
}

}  // namespace fdbench
