#include "inputs/file_set.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "fdbench/error.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"

namespace fdbench {

namespace {

constexpr int kCreateFlags = O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY;

std::string subdir_name(std::size_t j) { return "d" + std::to_string(j); }

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

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

// ---- Markers: what a directory's .fdbench-private says it is

constexpr std::string_view kPrivateHead = "fdbench private directory\n";
constexpr std::string_view kKeptHead = "fdbench kept file set\n";
// Appended to a kept set's marker once every file exists: without it the set is unfinished.
constexpr std::string_view kCompleteLine = "complete\n";

std::string private_marker_text() {
  return fmt::format(
      "{}pid {}\n"
      "fdbench created this directory and holds only its own empty files in it.\n"
      "If no fdbench is running, `fdbench clean` removes it.\n",
      kPrivateHead, getpid());
}

std::string kept_marker_text(std::size_t count, std::size_t subdirs) {
  return fmt::format(
      "{}files {}\nlayout {}\n"
      "fdbench created this directory with `fdbench open --keep-files` and holds only its own\n"
      "empty files in it: `fdbench open --reuse-files DIR` uses them, `fdbench clean DIR`\n"
      "removes it.\n",
      kKeptHead, count, layout_name(subdirs));
}

struct Marker {
  enum class Kind {
    none,         // no marker: not fdbench's
    private_dir,  // a run's private directory
    kept,         // a kept set
    other,        // a marker fdbench does not write
  } kind = Kind::none;
  pid_t pid = 0;          // private_dir: the fdbench that made it
  std::size_t files = 0;  // kept: the set's count and layout
  std::size_t subdirs = 0;
  bool complete = false;  // kept: every file was made
};

std::optional<std::size_t> number(std::string_view text) {
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// A kept set's marker: its head, "files N", "layout flat|dirs:K", then text for people, and
// "complete" last once the set was finished.
Marker parse_kept_marker(std::string_view text) {
  Marker m;
  m.kind = Marker::Kind::other;
  std::optional<std::size_t> files;
  std::optional<std::size_t> subdirs;
  std::size_t at = kKeptHead.size();
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    if (line.starts_with("files ")) files = number(line.substr(6));
    if (line == "layout flat") subdirs = 0;
    if (line.starts_with("layout dirs:")) subdirs = number(line.substr(12));
    at = end + 1;
  }
  if (!files || !subdirs || *files == 0) return m;
  m.kind = Marker::Kind::kept;
  m.files = *files;
  m.subdirs = *subdirs;
  m.complete = text.ends_with(kCompleteLine);
  return m;
}

Marker read_marker(int dir) {
  const int fd = openat(dir, FileSet::kMarkerName, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return {errno == ENOENT ? Marker::Kind::none : Marker::Kind::other};
  char buf[4096];
  const ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  const std::string_view text(buf, static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
  if (text.starts_with(kKeptHead)) return parse_kept_marker(text);
  Marker m;
  m.kind = Marker::Kind::other;
  constexpr std::string_view kPid = "pid ";
  if (!text.starts_with(kPrivateHead)) return m;
  const std::string_view rest = text.substr(kPrivateHead.size());
  if (!rest.starts_with(kPid)) return m;
  if (const auto pid = number(rest.substr(kPid.size(), rest.find('\n') - kPid.size()))) {
    m.kind = Marker::Kind::private_dir;
    m.pid = static_cast<pid_t>(*pid);
  }
  return m;
}

// Sets are flock()ed: exclusively while they are made (and removed by `fdbench clean`), shared
// while a run reuses a kept one, so that clean never removes a set a running fdbench uses.
// False only when another holds a conflicting lock: a filesystem without flock (some network
// ones) goes without.
bool try_lock(int dir, int how) {
  return flock(dir, how | LOCK_NB) == 0 || errno != EWOULDBLOCK;
}

// Why --keep-files refuses `path`, which exists: a kept set there is for --reuse-files.
std::string already_there(const std::string& path, std::size_t count, std::size_t subdirs) {
  const UniqueFd dir(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
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

// `path` without trailing slashes ("set/" -> "set"), so that its last component is the set.
std::string without_trailing_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

}  // namespace

std::string layout_name(std::size_t subdirs) {
  return subdirs == 0 ? "flat" : fmt::format("dirs:{}", subdirs);
}

FileSet FileSet::create(const std::string& parent, std::size_t count, std::size_t subdirs,
                        const CreationProgress& progress) {
  FileSet set;
  set.make_private_dir(parent);
  set.make_files(count, subdirs, {"--dir", parent}, progress);
  return set;
}

FileSet FileSet::create_kept(const std::string& path, std::size_t count, std::size_t subdirs,
                             const CreationProgress& progress) {
  FileSet set;
  set.make_kept_dir(without_trailing_slashes(path), count, subdirs);
  set.make_files(count, subdirs, {"--keep-files", set.path_}, progress);
  // Complete only now: a run killed before this leaves a set --reuse-files refuses.
  const int marker =
      openat(set.dir_.get(), kMarkerName, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  const bool finished = marker >= 0 && write(marker, kCompleteLine.data(), kCompleteLine.size()) ==
                                           static_cast<ssize_t>(kCompleteLine.size());
  const int err = errno;
  if (marker >= 0) close(marker);
  if (!finished) {
    throw Error(
        fmt::format("cannot finish the marker of --keep-files {}: {}", set.path_, errno_text(err)));
  }
  try_lock(set.dir_.get(), LOCK_SH);  // others may reuse it from now on
  set.kept_ = true;
  return set;
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

// mkdtemp in `parent`, then held and marked.
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
  hold_new_dir(tmpl, private_marker_text(), {"--dir", parent});
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
  const auto slash = path.find_last_of('/');
  const std::string parent_path =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  parent_.reset(open(parent_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
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
  if (kept_) {
    dir_.reset();
    parent_.reset();
    return false;
  }
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
  const bool ours =
      marker.kind == Marker::Kind::private_dir || (named && marker.kind == Marker::Kind::kept);
  if (!ours) {
    if (named) {
      report.kept.push_back(fmt::format(
          "{}: not a set fdbench made (no {} marker of a kept set or a run): nothing removed", path,
          FileSet::kMarkerName));
    }
    return;
  }
  if (marker.kind == Marker::Kind::private_dir && marker.pid != getpid() &&
      platform::process_running(marker.pid)) {
    report.kept.push_back(
        fmt::format("{}: fdbench (pid {}) may still be using it", path, marker.pid));
    return;
  }
  if (!try_lock(dir.get(), LOCK_EX)) {
    report.kept.push_back(fmt::format("{}: a running fdbench is using it or making it", path));
    return;
  }
  const std::string foreign = remove_our_names(dir.get(), true);
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
  const auto slash = set.find_last_of('/');
  const std::string parent =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : set.substr(0, slash));
  const std::string name = slash == std::string::npos ? set : set.substr(slash + 1);
  UniqueFd parent_fd(open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parent_fd || name == "." || name == ".." || name == "/") {
    report.kept.push_back(fmt::format("{}: not a set fdbench made: nothing removed", path));
    return report;
  }
  clean_one(parent_fd.get(), name, set, true, report);
  return report;
}

}  // namespace fdbench
