#include "fdbench/file_set.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "fdbench/error.hpp"
#include "fdbench/interrupt.hpp"
#include "fdbench/platform.hpp"

namespace fdbench {

namespace {

constexpr int kCreateFlags = O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY;

std::string subdir_name(std::size_t j) { return "d" + std::to_string(j); }

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Creates names [begin, end) until the first failure; returns how many it created and the
// errno that stopped it (0 if none). Polls for Ctrl-C every 1,024 files.
// Creates names [begin, end); adds to `made` as it goes, and the caller's thread (the one
// given `progress`) reports every few thousand files.
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

// Says up front, before creating anything, when the filesystem cannot hold the set.
void check_space(int dir, const std::string& parent, std::size_t inodes) {
  struct statvfs info {};
  if (fstatvfs(dir, &info) != 0) return;
  // Filesystems without inode accounting (btrfs, some network ones) report 0 files.
  if (info.f_files != 0 && info.f_favail < inodes) {
    throw Error(fmt::format("--dir {} has {} free inodes, the file set needs {}: free some, "
                            "choose another --dir, or lower --files",
                            parent, info.f_favail, inodes));
  }
  // Empty files take no data blocks, but their directory entries do (~64 bytes each).
  const auto need = static_cast<unsigned long long>(inodes) * 64 + (1ULL << 20);
  const auto have = static_cast<unsigned long long>(info.f_bavail) * info.f_frsize;
  if (have < need) {
    throw Error(fmt::format("--dir {} has {} KiB free, the file set needs about {} KiB: free "
                            "space, choose another --dir, or lower --files",
                            parent, have / 1024, need / 1024));
  }
}

}  // namespace

FileSet FileSet::create(const std::string& parent, std::size_t count, std::size_t subdirs,
                        const CreationProgress& progress) {
  FileSet set;
  set.make_private_dir(parent);
  set.make_subdirs(subdirs);
  check_space(set.dir_.get(), parent, count + subdirs);
  set.name_files(count, subdirs);
  set.create_files(parent, progress);
  // Untimed: ext4 writes the new inodes back some seconds later, which would otherwise land
  // inside the first repetitions. A failed writeback leaves only that noise: the set is made.
  platform::sync_filesystem(set.dir_.get());
  return set;
}

// mkdtemp in `parent`, both directories held open, and the marker written.
void FileSet::make_private_dir(const std::string& parent) {
  std::string tmpl = (parent.empty() ? std::string(".") : parent) + "/" + kDirPrefix + "XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    const int err = errno;
    throw Error(fmt::format("cannot create a private directory in --dir {}: {}{}", parent,
                            errno_text(err),
                            err == EROFS || err == EACCES || err == EPERM
                                ? " (choose a writable directory with --dir)"
                                : ""));
  }
  path_ = tmpl;
  const auto slash = tmpl.find_last_of('/');
  const std::string parent_path = slash == 0 ? "/" : tmpl.substr(0, slash);
  parent_.reset(open(parent_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  dir_.reset(open(tmpl.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
  if (!parent_ || !dir_) {
    const int err = errno;
    rmdir(tmpl.c_str());
    throw Error(fmt::format("cannot open the private directory {}: {}", tmpl, errno_text(err)));
  }
  // The marker says "fdbench made this" to `fdbench clean` and to people.
  const int marker = openat(dir_.get(), kMarkerName, kCreateFlags, 0644);
  if (marker < 0) {
    const int err = errno;
    remove();
    throw Error(fmt::format("cannot write in --dir {}: {}", parent, errno_text(err)));
  }
  const std::string text = fmt::format(
      "fdbench private directory\npid {}\n"
      "fdbench created this directory and holds only its own empty files in it.\n"
      "If no fdbench is running, `fdbench clean` removes it.\n",
      getpid());
  [[maybe_unused]] const auto written = write(marker, text.data(), text.size());
  close(marker);
  marker_ = true;
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

void FileSet::create_files(const std::string& parent, const CreationProgress& progress) {
  // Setup is not the measured work; two creators halve it on a slow filesystem.
  const std::size_t count = names_.size();
  const std::size_t half = count / 2;
  std::pair<std::size_t, int> second{0, 0};
  std::atomic<std::size_t> so_far{0};
  std::thread helper;
  if (count >= 2048) {
    helper = std::thread(
        [&] { second = create_range(dir_.get(), names_, half, count, so_far, nullptr); });
  }
  const std::size_t first_end = helper.joinable() ? half : count;
  const auto first =
      create_range(dir_.get(), names_, 0, first_end, so_far, progress ? &progress : nullptr);
  if (helper.joinable()) helper.join();
  created_.emplace_back(0, first.first);
  if (first_end < count) created_.emplace_back(half, half + second.first);

  const int err = first.second != 0 ? first.second : second.second;
  if (err == 0) return;
  const std::size_t made = first.first + second.first;
  remove();
  throw_if_interrupted();
  if (err == ENOSPC || err == EDQUOT) {
    throw Error(fmt::format(
        "no space left in --dir {} after {} of {} files (each needs an inode): free space "
        "or inodes there, choose another --dir, or lower --files",
        parent, made, count));
  }
  throw Error(fmt::format("cannot create file {} of {} in {}: {}", made + 1, count, path_,
                          errno_text(err)));
}

FileSet::FileSet(FileSet&& other) noexcept
    : path_(std::move(other.path_)),
      parent_(std::move(other.parent_)),
      dir_(std::move(other.dir_)),
      names_(std::move(other.names_)),
      created_(std::move(other.created_)),
      subdirs_(std::exchange(other.subdirs_, 0)),
      marker_(std::exchange(other.marker_, false)) {}

FileSet::~FileSet() { remove(); }

namespace {

// What create() makes under one of our names: a regular file with a single link (and, but for
// the marker, empty). Anything else there now was put there by someone else: a symlink, a
// hard link to their file, a file they wrote to. It is left alone, and so is the directory.
bool looks_like_ours(const struct stat& info, bool empty) {
  return S_ISREG(info.st_mode) && info.st_nlink == 1 && (!empty || info.st_size == 0);
}

void unlink_if_ours(int dir, const char* name, bool empty) noexcept {
  struct stat info {};
  if (fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && looks_like_ours(info, empty)) {
    unlinkat(dir, name, 0);
  }
}

}  // namespace

bool FileSet::remove() noexcept {
  if (!dir_) return true;
  // Everything relative to a directory descriptor, never by a path resolved again: a symlink
  // put in place of one of our names, or of a subdirectory, is never followed.
  if (subdirs_ == 0) {
    for (const auto& [begin, end] : created_) {
      for (std::size_t i = begin; i < end; ++i) unlink_if_ours(dir_.get(), names_[i], true);
    }
  }
  for (std::size_t k = 0; k < subdirs_; ++k) {
    // Name i lives in d<i % K> as "dK/N.txt"; unlink "N.txt" through dK's own descriptor.
    const std::string sub = subdir_name(k);
    UniqueFd sub_fd(openat(dir_.get(), sub.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                                        O_CLOEXEC));
    if (!sub_fd) continue;  // not our directory any more: leave it
    for (const auto& [begin, end] : created_) {
      for (std::size_t i = begin + (k + subdirs_ - begin % subdirs_) % subdirs_; i < end;
           i += subdirs_) {
        unlink_if_ours(sub_fd.get(), std::strchr(names_[i], '/') + 1, true);
      }
    }
    unlinkat(dir_.get(), sub.c_str(), AT_REMOVEDIR);  // only if empty
  }
  created_.clear();
  subdirs_ = 0;
  if (marker_) unlink_if_ours(dir_.get(), kMarkerName, false);
  marker_ = false;
  dir_.reset();
  bool removed = unlinkat(parent_.get(), base_name(path_).c_str(), AT_REMOVEDIR) == 0;
  if (!removed && errno == ENOTEMPTY) {
    std::fprintf(stderr,
                 "fdbench: warning: left %s in place: it holds files fdbench did not create\n",
                 path_.c_str());
  }
  parent_.reset();
  return removed;
}

}  // namespace fdbench

namespace fdbench {

namespace {

bool is_number(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}
bool is_our_file(std::string_view name) {
  return name.size() > 4 && name.substr(name.size() - 4) == ".txt" &&
         is_number(name.substr(0, name.size() - 4));
}
bool is_our_subdir(std::string_view name) { return name.size() > 1 && name[0] == 'd' && is_number(name.substr(1)); }

// The pid written in a marker, or 0.
pid_t marker_pid(int dir) {
  const int fd = openat(dir, FileSet::kMarkerName, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return -1;
  char buf[256] = {};
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  constexpr std::string_view kHead = "fdbench private directory\npid ";
  if (n <= 0 || std::string_view(buf).substr(0, kHead.size()) != kHead) return -1;
  return static_cast<pid_t>(std::atol(buf + kHead.size()));
}

// Removes our names inside `dir`; returns what else is there (empty = all gone).
std::string remove_our_names(int dir, bool top) {
  DIR* listing = fdopendir(dup(dir));
  if (listing == nullptr) return "cannot be read";
  std::string foreign;
  std::vector<std::string> subdirs;
  while (const dirent* entry = readdir(listing)) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == ".." || (top && name == FileSet::kMarkerName)) continue;
    struct stat info {};
    if (fstatat(dir, entry->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (is_our_file(name) && looks_like_ours(info, true)) {
      unlinkat(dir, entry->d_name, 0);
    } else if (top && S_ISDIR(info.st_mode) && is_our_subdir(name)) {
      subdirs.emplace_back(name);
    } else if (foreign.empty()) {
      foreign = fmt::format("holds {}, which fdbench did not create", name);
    }
  }
  closedir(listing);
  for (const auto& sub : subdirs) {
    const int fd = openat(dir, sub.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    const std::string inner = remove_our_names(fd, false);
    close(fd);
    if (!inner.empty() && foreign.empty()) foreign = sub + " " + inner;
    if (inner.empty()) unlinkat(dir, sub.c_str(), AT_REMOVEDIR);
  }
  return foreign;
}

}  // namespace

FileSet::CleanReport FileSet::clean_leftovers(const std::string& parent) {
  CleanReport report;
  UniqueFd parent_fd(open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parent_fd) throw Error(fmt::format("--dir {}: {}", parent, errno_text(errno)));
  DIR* listing = fdopendir(dup(parent_fd.get()));
  if (listing == nullptr) throw Error(fmt::format("--dir {}: {}", parent, errno_text(errno)));
  std::vector<std::string> candidates;
  while (const dirent* entry = readdir(listing)) {
    if (std::strncmp(entry->d_name, kDirPrefix, std::strlen(kDirPrefix)) == 0) {
      candidates.emplace_back(entry->d_name);
    }
  }
  closedir(listing);
  for (const auto& name : candidates) {
    const std::string path = parent + "/" + name;
    UniqueFd dir(openat(parent_fd.get(), name.c_str(),
                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir) continue;  // not a directory (or a symlink to one): not ours
    const pid_t pid = marker_pid(dir.get());
    if (pid < 0) continue;  // no marker: not ours, not mentioned
    if (pid != getpid() && platform::process_running(pid)) {
      report.kept.push_back(fmt::format("{}: fdbench (pid {}) may still be using it", path, pid));
      continue;
    }
    const std::string foreign = remove_our_names(dir.get(), true);
    if (!foreign.empty()) {
      report.kept.push_back(fmt::format("{}: {}", path, foreign));
      continue;
    }
    unlinkat(dir.get(), kMarkerName, 0);
    dir.reset();
    if (unlinkat(parent_fd.get(), name.c_str(), AT_REMOVEDIR) == 0) {
      report.removed.push_back(path);
    } else {
      report.kept.push_back(fmt::format("{}: {}", path, errno_text(errno)));
    }
  }
  return report;
}

}  // namespace fdbench
