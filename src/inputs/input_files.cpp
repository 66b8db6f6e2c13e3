#include "inputs/input_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/errors.hpp"
#include "fdbench/error.hpp"
#include "fdbench/unique_fd.hpp"
#include "model/format.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"

namespace fdbench {

namespace {

// What to do with a directory entry of this mode: "" = keep (regular file), "dir" = descend,
// anything else = the skip category.
std::string classify(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "dir";
  if (S_ISLNK(mode)) return "symlink";
  if (S_ISFIFO(mode)) return "fifo";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "device";
  return "other";
}

std::string classify(unsigned char d_type) {
  switch (d_type) {
    case DT_REG: return "";
    case DT_DIR: return "dir";
    case DT_LNK: return "symlink";
    case DT_FIFO: return "fifo";
    case DT_SOCK: return "socket";
    case DT_CHR:
    case DT_BLK: return "device";
    default: return "?";
  }
}

// Whether this user has the read permission bit the kernel would check: the owner's where the
// file is theirs, else the group's where they are in it, else everyone's. Root gets no pass:
// a file whose mode says "not for reading" (sysfs's and tracefs's write-only triggers, such
// as tracing/free_buffer) is never opened, though root could.
class ReadPermission {
 public:
  ReadPermission() : uid_(geteuid()), groups_{getegid()} {
    const int n = getgroups(0, nullptr);
    if (n <= 0) return;
    std::vector<gid_t> more(static_cast<std::size_t>(n));
    const int got = getgroups(n, more.data());
    if (got > 0) groups_.insert(groups_.end(), more.begin(), more.begin() + got);
  }
  [[nodiscard]] bool allows(const struct stat& info) const {
    if (info.st_uid == uid_) return (info.st_mode & S_IRUSR) != 0;
    if (std::find(groups_.begin(), groups_.end(), info.st_gid) != groups_.end()) {
      return (info.st_mode & S_IRGRP) != 0;
    }
    return (info.st_mode & S_IROTH) != 0;
  }

 private:
  uid_t uid_;
  std::vector<gid_t> groups_;
};

std::string joined(const std::string& root, const std::string& rel) {
  return root.ends_with('/') ? root + rel : root + "/" + rel;
}

// Throws the one line that refuses `path` (the --tree root itself, or a mount below it that
// --cross-mounts would descend into) when it is on a pseudo-filesystem.
void refuse_pseudo_fs(const std::string& root, const std::string& path, bool below) {
  const auto pseudo = platform::pseudo_filesystem(path);
  if (!pseudo) return;
  constexpr const char* kWhy =
      "a pseudo-filesystem of the kernel's, where opening and closing a file can change the "
      "kernel's state";
  if (!below) {
    throw Error(fmt::format("--tree {} is on {}, {}: not walked (give --allow-pseudo-fs to walk it "
                            "anyway)",
                            root, *pseudo, kWhy));
  }
  throw Error(fmt::format("--tree {}: {} is {}, {}: not walked (give --allow-pseudo-fs to descend "
                          "into it anyway, or leave out --cross-mounts)",
                          root, path, *pseudo, kWhy));
}

}  // namespace

InputFiles scan_tree(const std::string& root, const TreeWalk& walk) {
  InputFiles input;
  input.source = "tree";
  input.origin = root;
  input.dir_path = root;
  if (!walk.allow_pseudo_fs) refuse_pseudo_fs(root, root, false);
  UniqueFd root_fd(open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK));
  struct stat root_info {};
  if (!root_fd || fstat(root_fd.get(), &root_info) != 0) {
    throw Error(fmt::format("--tree {}: {}", root, errno_text(errno)));
  }
  const ReadPermission readable;
  // The filesystems the walk may be on: the root's, and with --cross-mounts each one below it
  // once looked at.
  std::set<dev_t> walked{root_info.st_dev};
  // One directory open at a time: a deep tree cannot run us out of descriptors.
  std::vector<std::pair<std::string, dev_t>> pending{{"", root_info.st_dev}};
  std::size_t visited = 0;
  while (!pending.empty()) {
    if ((++visited & 255) == 0) throw_if_interrupted();
    const auto [rel, dev] = std::move(pending.back());
    pending.pop_back();
    const int fd = rel.empty() ? dup(root_fd.get())
                               : openat(root_fd.get(), rel.c_str(),
                                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC |
                                            O_NONBLOCK);
    struct stat opened {};
    if (fd >= 0 && fstat(fd, &opened) == 0 && opened.st_dev != dev) {
      close(fd);  // something was mounted there since it was looked at
      ++input.skipped["other filesystem"];
      continue;
    }
    // Closed on every way out, a refusal's throw included.
    const std::unique_ptr<DIR, int (*)(DIR*)> listing(fd >= 0 ? fdopendir(fd) : nullptr,
                                                      closedir);
    DIR* dir = listing.get();
    if (dir == nullptr) {
      if (fd >= 0) close(fd);
      ++input.skipped["unreadable directory"];
      continue;
    }
    while (const dirent* entry = readdir(dir)) {
      const std::string_view name = entry->d_name;
      if (name == "." || name == "..") continue;
      const std::string path = rel.empty() ? std::string(name) : rel + "/" + std::string(name);
      std::string what = classify(entry->d_type);
      // Files and directories are looked at before anything opens them: which filesystem they
      // are on (a mount point's is the mounted one's), and a file's read permission.
      struct stat info {};
      if (what == "" || what == "dir" || what == "?") {
        what = fstatat(dirfd(dir), entry->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0
                   ? classify(info.st_mode)
                   : "other";
      }
      if ((what.empty() || what == "dir") && !walked.contains(info.st_dev)) {
        if (!walk.cross_mounts) {
          ++input.skipped["other filesystem"];
          continue;
        }
        if (!walk.allow_pseudo_fs) refuse_pseudo_fs(root, joined(root, path), true);
        walked.insert(info.st_dev);
      }
      if (what.empty() && !readable.allows(info)) what = "no read permission";
      if (what.empty()) {
        input.paths.add(path);
      } else if (what == "dir") {
        pending.emplace_back(path, info.st_dev);
      } else {
        ++input.skipped[what];
      }
    }
  }
  return input;
}

std::string list_separator_mistake(const std::string& list_file, std::string_view head,
                                   bool nul_separated) {
  const bool has_nul = head.find('\0') != std::string_view::npos;
  if (!nul_separated && has_nul) {
    return fmt::format("--list {}: the paths are NUL-separated (as find -print0 writes them); "
                       "add --list0",
                       list_file);
  }
  if (nul_separated && !has_nul && head.find('\n') != std::string_view::npos) {
    return fmt::format("--list0: {} has one path per line and no NUL between them; drop --list0",
                       list_file);
  }
  return "";
}

namespace {

// The paths of a --list, entry by entry, from a regular file or a pipe read in pieces: never
// more than kMaxListEntries entries nor an entry longer than a path can be, so that no input
// (a FIFO fed by `yes`, a file of zeros) makes a run read without end.
class ListReader {
 public:
  ListReader(const std::string& list_file, bool nul_separated)
      : list_file_(list_file), separator_(nul_separated ? '\0' : '\n') {
    platform::InputFile input = platform::open_input_file(list_file);
    if (!input.fd && input.error != 0) {
      throw Error(fmt::format("--list {}: {}", list_file, errno_text(input.error)));
    }
    if (!input.fd) {
      throw UsageError(fmt::format("--list {} is {}; --list reads a file of paths, or a pipe",
                                   list_file, platform::file_type_words(input.mode)));
    }
    fd_ = std::move(input.fd);
  }

  // The next entry into `entry`, and whether the list ended it (false: the list ended first).
  // False with `entry` empty at the end.
  bool next(std::string& entry, bool& ended_by_separator) {
    entry.clear();
    for (;;) {
      if (at_ == got_ && !fill()) {
        ended_by_separator = false;
        return !entry.empty();
      }
      const char* begin = buffer_.data() + at_;
      const char* end = buffer_.data() + got_;
      const char* found = std::find(begin, end, separator_);
      entry.append(begin, found);
      at_ = static_cast<std::size_t>(found - buffer_.data());
      if (entry.size() > static_cast<std::size_t>(PATH_MAX)) {
        throw Error(fmt::format(
            "--list {}: entry {} is longer than a path can be ({} bytes): not a list of paths",
            list_file_, group_digits(entries_ + 1), PATH_MAX));
      }
      if (found != end) {
        ++at_;
        ended_by_separator = true;
        return true;
      }
    }
  }

  // Counts an entry read, and ends a list that has more than a run can open.
  void count() {
    if (++entries_ > kMaxListEntries) {
      throw Error(
          fmt::format("--list {}: more than {} entries, more than a run opens; "
                      "give a shorter list",
                      list_file_, group_digits(kMaxListEntries)));
    }
    if ((entries_ & 1023) == 0) throw_if_interrupted();
  }
  [[nodiscard]] std::uint64_t entries() const { return entries_; }

 private:
  bool fill() {
    try {
      got_ = platform::read_input(fd_.get(), buffer_.data(), buffer_.size());
    } catch (const Error& e) {
      throw Error(fmt::format("--list {}: {}", list_file_, e.what()));
    }
    at_ = 0;
    return got_ > 0;
  }

  // As many entries as --files allows files: a list longer than that is no run's input.
  static constexpr std::uint64_t kMaxListEntries = 10'000'000;
  std::string list_file_;
  char separator_;
  UniqueFd fd_;
  std::vector<char> buffer_ = std::vector<char>(1 << 16);
  std::size_t at_ = 0;
  std::size_t got_ = 0;
  std::uint64_t entries_ = 0;
};

}  // namespace

InputFiles read_list(const std::string& list_file, bool nul_separated) {
  InputFiles input;
  input.source = "list";
  input.origin = list_file;
  char cwd[4096];
  input.dir_path = getcwd(cwd, sizeof cwd) != nullptr ? cwd : ".";
  ListReader list(list_file, nul_separated);
  const ReadPermission readable;
  const char separator = nul_separated ? '\0' : '\n';
  std::string entry;
  bool ended = false;
  while (list.next(entry, ended)) {
    list.count();
    if (list.entries() == 1) {  // the first entry and what ended it: enough to tell the separator
      const std::string head = ended ? entry + separator : entry;
      if (auto why = list_separator_mistake(list_file, head, nul_separated); !why.empty()) {
        throw UsageError(why);
      }
    }
    if (!nul_separated && !entry.empty() && entry.back() == '\r') entry.pop_back();
    if (entry.empty()) continue;
    struct stat info {};
    if (lstat(entry.c_str(), &info) != 0) {
      ++input.missing[errno_text(errno)];
      continue;
    }
    std::string what = classify(info.st_mode);
    if (what.empty() && !readable.allows(info)) what = "no read permission";
    if (what.empty()) {
      input.paths.add(entry);
    } else {
      ++input.skipped[what == "dir" ? "directory" : what];
    }
  }
  return input;
}

}  // namespace fdbench
