#include "inputs/input_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

namespace {

// A directory still to be read: its path below the root, and the device and inode it had when
// it was looked at, so that what is opened later is known to be the same directory.
struct PendingDir {
  std::string rel;
  dev_t dev;
  ino_t ino;
  std::uint32_t index;  // in InputFiles::by_directory
};

// Opens `rel` below `root_fd` one component at a time, none of them followed if it is a
// symlink: a directory swapped for a link after it was looked at leads nowhere else. -1 with
// errno on failure.
int open_directory_below(int root_fd, const std::string& rel) {
  constexpr int kFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
  if (rel.empty()) return dup(root_fd);
  UniqueFd at;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = rel.find('/', begin);
    const std::string name = rel.substr(begin, end == std::string::npos ? end : end - begin);
    const int fd = openat(at ? at.get() : root_fd, name.c_str(), kFlags);
    if (fd < 0) return -1;
    at.reset(fd);
    if (end == std::string::npos) return at.release();
    begin = end + 1;
  }
}

// The walk of one tree: every directory opened below the root's descriptor, every kept file
// opened once (without following a link, and without blocking: O_PATH where there is one) and
// its descriptor checked to be the regular file that was looked at. What the walk finds
// changed between looking and opening is counted "changed during the scan", never kept.
class TreeScan {
 public:
  TreeScan(const std::string& root, const TreeWalk& walk, InputFiles& input)
      : root_(root), walk_(walk), input_(input) {
    root_fd_.reset(open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK));
    struct stat root_info {};
    if (!root_fd_ || fstat(root_fd_.get(), &root_info) != 0) {
      throw Error(fmt::format("--tree {}: {}", root, errno_text(errno)));
    }
    walked_.insert(root_info.st_dev);
    // The root by the path it has with every link resolved: the timed opens reach it name by
    // name from "/", following none.
    char* resolved = realpath(root.c_str(), nullptr);
    const std::string canonical = resolved != nullptr ? resolved : "";
    std::free(resolved);
    struct stat canonical_info {};
    if (canonical.empty() || stat(canonical.c_str(), &canonical_info) != 0 ||
        canonical_info.st_dev != root_info.st_dev || canonical_info.st_ino != root_info.st_ino) {
      throw Error(fmt::format("--tree {}: changed while it was being looked at", root));
    }
    const std::uint32_t top = input_.by_directory.add_dir(
        DirectoryTable::kTop, canonical, root_info.st_dev, root_info.st_ino);
    pending_.push_back({"", root_info.st_dev, root_info.st_ino, top});
  }

  void run() {
    std::size_t visited = 0;
    while (!pending_.empty()) {
      if ((++visited & 255) == 0) throw_if_interrupted();
      const PendingDir next = std::move(pending_.back());
      pending_.pop_back();
      read_directory(next);
    }
  }

 private:
  void read_directory(const PendingDir& at) {
    const int fd = open_directory_below(root_fd_.get(), at.rel);
    if (fd < 0) {
      ++input_.skipped[errno == ELOOP || errno == ENOTDIR ? kChanged : "unreadable directory"];
      return;
    }
    struct stat opened {};
    if (fstat(fd, &opened) == 0 && (opened.st_dev != at.dev || opened.st_ino != at.ino)) {
      close(fd);
      // Something was mounted there since it was looked at, or it is another directory now.
      ++input_.skipped[opened.st_dev != at.dev ? "other filesystem" : kChanged];
      return;
    }
    // Closed on every way out, a refusal's throw included.
    const std::unique_ptr<DIR, int (*)(DIR*)> listing(fdopendir(fd), closedir);
    if (!listing) {
      close(fd);
      ++input_.skipped["unreadable directory"];
      return;
    }
    while (const dirent* entry = readdir(listing.get())) {
      const std::string_view name = entry->d_name;
      if (name == "." || name == "..") continue;
      look_at(dirfd(listing.get()), *entry, at,
              at.rel.empty() ? std::string(name) : at.rel + "/" + std::string(name));
    }
  }

  // One entry of the directory open at `dir_fd`, named `path` below the root.
  void look_at(int dir_fd, const dirent& entry, const PendingDir& in, const std::string& path) {
    std::string what = classify(entry.d_type);
    // Files and directories are looked at before anything opens them: which filesystem they
    // are on (a mount point's is the mounted one's), and a file's read permission.
    struct stat info {};
    if (what == "" || what == "dir" || what == "?") {
      what = fstatat(dir_fd, entry.d_name, &info, AT_SYMLINK_NOFOLLOW) == 0
                 ? classify(info.st_mode)
                 : "other";
    }
    if ((what.empty() || what == "dir") && !walked_.contains(info.st_dev)) {
      if (!walk_.cross_mounts) {
        ++input_.skipped["other filesystem"];
        return;
      }
      if (!walk_.allow_pseudo_fs) refuse_pseudo_fs(root_, joined(root_, path), true);
      walked_.insert(info.st_dev);
    }
    if (what.empty() && !readable_.allows(info)) what = "no read permission";
    if (walk_.looked_at) walk_.looked_at(path);
    if (what.empty() && !platform::is_the_regular_file(dir_fd, entry.d_name, info.st_dev,
                                                       info.st_ino)) {
      what = kChanged;
    }
    if (what.empty()) {
      input_.paths.add(path);
      input_.by_directory.add_file(in.index, entry.d_name);
    } else if (what == "dir") {
      pending_.push_back({path, info.st_dev, info.st_ino,
                          input_.by_directory.add_dir(in.index, entry.d_name, info.st_dev,
                                                      info.st_ino)});
    } else {
      ++input_.skipped[what];
    }
  }

  static constexpr const char* kChanged = "changed during the scan";
  const std::string& root_;
  const TreeWalk& walk_;
  InputFiles& input_;
  UniqueFd root_fd_;
  const ReadPermission readable_;
  // The filesystems the walk may be on: the root's, and with --cross-mounts each one below it
  // once looked at.
  std::set<dev_t> walked_;
  // One directory open at a time: a deep tree cannot run us out of descriptors.
  std::vector<PendingDir> pending_;
};

}  // namespace

InputFiles scan_tree(const std::string& root, const TreeWalk& walk) {
  InputFiles input;
  input.source = InputSource::tree;
  input.origin = root;
  input.dir_path = root;
  if (!walk.allow_pseudo_fs) refuse_pseudo_fs(root, root, false);
  TreeScan(root, walk, input).run();
  input.by_directory.keep_only_used();
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

namespace {

// The filesystems a list's files are on, each looked at once (by device): a pseudo-filesystem
// refused as --tree refuses it, and the others' names kept for the header.
class ListedFilesystems {
 public:
  ListedFilesystems(const std::string& list_file, bool allow_pseudo_fs)
      : list_file_(list_file), allow_pseudo_fs_(allow_pseudo_fs) {}

  // `path`, a regular file on device `dev`: throws Error if that is a pseudo-filesystem not
  // allowed.
  void check(const std::string& path, dev_t dev) {
    if (!seen_.insert(dev).second) return;
    if (const auto pseudo = platform::pseudo_filesystem(path); pseudo && !allow_pseudo_fs_) {
      throw Error(fmt::format(
          "--list {}: {} is on {}, a pseudo-filesystem of the kernel's, where opening and "
          "closing a file can change the kernel's state: not opened (give --allow-pseudo-fs to "
          "open it anyway)",
          list_file_, path, *pseudo));
    }
    const std::string type = platform::fs_type(path);
    if (std::find(types_.begin(), types_.end(), type) == types_.end()) types_.push_back(type);
  }
  // "ext4", or "ext4, tmpfs": each filesystem the kept files are on, in the list's order.
  [[nodiscard]] std::string names() const { return fmt::format("{}", fmt::join(types_, ", ")); }

 private:
  const std::string& list_file_;
  bool allow_pseudo_fs_;
  std::set<dev_t> seen_;
  std::vector<std::string> types_;
};

}  // namespace

namespace {

// A listed path as the list scan found it: its directory (an index into the table), its last
// name, and whether it could be looked at.
struct ListedEntry {
  int error = 0;              // errno where it could not be looked at
  bool link_on_path = false;  // a directory on its path is a symlink: never followed
  std::uint32_t dir = 0;
  std::string name;
};

// The directories a list's paths are in, each reached name by name from "/" (a relative path
// from the current directory, whose path getcwd() gives without links), no symlink followed on
// the way: a path through a link is skipped ("symlink on its path"), as a link itself is. Each
// directory is looked at once, by its path as listed; the last one stays open, since a list
// names many files of one directory in a row.
class ListedDirectories {
 public:
  ListedDirectories(const std::string& cwd, DirectoryTable& table) : cwd_(cwd), table_(table) {}

  // Where `entry` is, and what it is into `info` (not followed if it is a symlink).
  ListedEntry look_up(const std::string& entry, struct stat& info) {
    ListedEntry listed;
    const auto slash = entry.find_last_of('/');
    listed.name = slash == std::string::npos ? entry : entry.substr(slash + 1);
    const std::string dir = slash == std::string::npos ? "" : entry.substr(0, slash);
    const std::string absolute =
        entry.front() == '/' ? (dir.empty() ? "/" : dir) : (dir.empty() ? cwd_ : cwd_ + "/" + dir);
    if (listed.name.empty() || listed.name == "." || listed.name == "..") {
      // A directory named by itself ("a/", "a/.."): whatever it is, it is no file to open.
      if (lstat(entry.c_str(), &info) != 0) listed.error = errno;
      return listed;
    }
    if (absolute != open_path_) {
      open_fd_.reset(platform::open_absolute_directory_nofollow(absolute));
      open_path_ = absolute;
      open_error_ = open_fd_ ? 0 : errno;
      struct stat dir_info {};
      if (open_fd_ && fstat(open_fd_.get(), &dir_info) != 0) open_error_ = errno;
      if (open_error_ == 0) {
        const auto [at, added] = known_.try_emplace(absolute, 0);
        if (added) {
          at->second = table_.add_dir(DirectoryTable::kTop, absolute, dir_info.st_dev,
                                      dir_info.st_ino);
        }
        open_index_ = at->second;
      }
    }
    if (open_error_ == ELOOP) {
      listed.link_on_path = true;
      return listed;
    }
    if (open_error_ != 0) {
      listed.error = open_error_;
      return listed;
    }
    if (fstatat(open_fd_.get(), listed.name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
      listed.error = errno;
    }
    listed.dir = open_index_;
    return listed;
  }

 private:
  const std::string& cwd_;
  DirectoryTable& table_;
  std::map<std::string, std::uint32_t> known_;
  std::string open_path_;
  UniqueFd open_fd_;
  int open_error_ = 0;
  std::uint32_t open_index_ = 0;
};

}  // namespace

InputFiles read_list(const std::string& list_file, bool nul_separated, bool allow_pseudo_fs) {
  InputFiles input;
  input.source = InputSource::list;
  input.origin = list_file;
  char cwd[4096];
  input.dir_path = getcwd(cwd, sizeof cwd) != nullptr ? cwd : ".";
  ListReader list(list_file, nul_separated);
  const ReadPermission readable;
  ListedDirectories directories(input.dir_path, input.by_directory);
  ListedFilesystems filesystems(list_file, allow_pseudo_fs);
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
    const ListedEntry listed = directories.look_up(entry, info);
    if (listed.error != 0) {
      ++input.missing[errno_text(listed.error)];
      continue;
    }
    std::string what = listed.link_on_path ? "symlink on its path" : classify(info.st_mode);
    if (what.empty() && !readable.allows(info)) what = "no read permission";
    if (what.empty()) {
      filesystems.check(entry, info.st_dev);
      input.paths.add(entry);
      input.by_directory.add_file(listed.dir, listed.name);
    } else {
      ++input.skipped[what == "dir" ? "directory" : what];
    }
  }
  input.fs_type = filesystems.names();
  input.by_directory.keep_only_used();
  return input;
}

}  // namespace fdbench
