// `fdbench clean`: finding the sets fdbench left (a killed run's private directories, a kept
// set named on the command line) and removing them, name by name, only where nothing foreign
// is inside and no running fdbench holds them.
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "engine/workload.hpp"
#include "fdbench/error.hpp"
#include "inputs/file_set.hpp"
#include "inputs/file_set_marker.hpp"
#include "inputs/file_set_names.hpp"
#include "platform/platform.hpp"

namespace fdbench {

using file_sets::base_name;
using file_sets::looks_like_ours;
using file_sets::Marker;
using file_sets::parent_path;
using file_sets::read_marker;
using file_sets::without_trailing_slashes;

namespace {

bool is_number(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}
bool is_our_file(std::string_view name) {
  return name.size() > 4 && name.substr(name.size() - 4) == ".txt" &&
         is_number(name.substr(0, name.size() - 4));
}
bool is_our_subdir(std::string_view name) {
  return name.size() > 1 && name[0] == 'd' && is_number(name.substr(1));
}

// Removes the listening socket accept --kind unix left in its directory `dir`; returns what
// else is there (empty = all gone).
std::string remove_socket(int dir) {
  DIR* listing = fdopendir(dup(dir));
  if (listing == nullptr) return "cannot be read";
  std::string foreign;
  while (const dirent* entry = readdir(listing)) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == ".." || name == FileSet::kMarkerName) continue;
    struct stat info {};
    if (name == kAcceptSocketName && fstatat(dir, entry->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISSOCK(info.st_mode)) {
      unlinkat(dir, entry->d_name, 0);
    } else if (foreign.empty()) {
      foreign = fmt::format("holds {}, which fdbench did not create", name);
    }
  }
  closedir(listing);
  return foreign;
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

// Removes the set `name` in `parent_fd` (`path` in messages) if fdbench's marker is in it and
// nothing foreign; says in `report` what became of it. `named`: the user named this directory
// (`fdbench clean SET`): a kept set is removed too, and what is not removed is said. Otherwise
// it was found by its name among others: only a killed run's private directory is removed,
// and what is not fdbench's is not mentioned.
void clean_one(int parent_fd, const std::string& name, const std::string& path, bool named,
               FileSet::CleanReport& report) {
  UniqueFd dir(openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir) {  // not a directory (or a symlink to one): not ours
    if (named) {
      const int err = errno;
      report.kept.push_back(fmt::format("{}: {}", path,
                                        err == ENOTDIR || err == ELOOP
                                            ? "not a directory (a symlink is never followed)"
                                            : errno_text(err)));
    }
    return;
  }
  const Marker marker = read_marker(dir.get());
  const bool ours = marker.kind == Marker::Kind::private_dir ||
                    marker.kind == Marker::Kind::accept_dir ||
                    (named && marker.kind == Marker::Kind::kept);
  if (!ours) {
    if (named) {
      report.kept.push_back(fmt::format(
          "{}: not a set fdbench made (no {} marker of a kept set or a run): nothing removed", path,
          FileSet::kMarkerName));
    }
    return;
  }
  // Whether the run that made it is alive is the lock's to say: a run holds its set locked from
  // mkdtemp to removal, and the kernel lets go when it dies. The pid alone cannot say: inside a
  // PID namespace a killed run's pid is 1, which always exists.
  const file_sets::LockResult lock = file_sets::lock(dir.get(), LOCK_EX);
  if (lock == file_sets::LockResult::busy) {
    report.kept.push_back(fmt::format("{}: a running fdbench is using it or making it", path));
    return;
  }
  // No flock on this filesystem: a live pid keeps the set, which errs only toward keeping it.
  if (lock == file_sets::LockResult::unsupported && marker.kind != Marker::Kind::kept &&
      marker.pid != getpid() && platform::process_running(marker.pid)) {
    report.kept.push_back(fmt::format(
        "{}: fdbench (pid {}) may still be using it (this filesystem has no locks to tell)", path,
        marker.pid));
    return;
  }
  const std::string foreign = marker.kind == Marker::Kind::accept_dir
                                  ? remove_socket(dir.get())
                                  : remove_our_names(dir.get(), true);
  if (!foreign.empty()) {
    report.kept.push_back(fmt::format("{}: {}", path, foreign));
    return;
  }
  unlinkat(dir.get(), FileSet::kMarkerName, 0);
  dir.reset();
  if (unlinkat(parent_fd, name.c_str(), AT_REMOVEDIR) == 0) {
    report.removed.push_back(path);
  } else {
    report.kept.push_back(fmt::format("{}: {}", path, errno_text(errno)));
  }
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
    clean_one(parent_fd.get(), name, parent + "/" + name, false, report);
  }
  return report;
}

FileSet::CleanReport FileSet::clean_kept(const std::string& path) {
  CleanReport report;
  const std::string set = without_trailing_slashes(path);
  const std::string name = base_name(set);
  UniqueFd parent_fd(open(parent_path(set).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  // "/" has no name in a parent ("" once its slashes go): it was "/: No such file or directory".
  if (!parent_fd || name.empty() || name == "." || name == ".." || name == "/") {
    report.kept.push_back(fmt::format("{}: not a set fdbench made: nothing removed", path));
    return report;
  }
  clean_one(parent_fd.get(), name, set, true, report);
  return report;
}

}  // namespace fdbench
