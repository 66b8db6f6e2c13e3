#include "output/atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <random>

#include "fdbench/error.hpp"
#include "model/format.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"

namespace fdbench {

namespace {

constexpr int kMaxSymlinks = 40;  // as the kernel's own path walk allows

// What a temporary's name adds to its target's: "<target>.tmp-fdbench-<pid>-XXXXXX".
constexpr std::string_view kTemporaryMark = ".tmp-fdbench-";
constexpr std::size_t kSuffixLength = 6;

std::optional<struct stat> stat_of(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return std::nullopt;
  return info;
}

// fdbench's own stdout or stderr, if `info` is the file it writes: 1, 2, or -1.
int standard_stream_of(const struct stat& info) {
  for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat stream {};
    if (fstat(fd, &stream) == 0 && stream.st_dev == info.st_dev && stream.st_ino == info.st_ino) {
      return fd;
    }
  }
  return -1;
}

std::string random_suffix() {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937 random{std::random_device{}()};
  std::uniform_int_distribution<std::size_t> pick(0, sizeof(kChars) - 2);
  std::string suffix;
  for (std::size_t i = 0; i < kSuffixLength; ++i) suffix += kChars[pick(random)];
  return suffix;
}

// A fresh temporary name beside `target`, saying which run made it.
std::string temporary_name(const std::string& target) {
  return fmt::format("{}{}{}-{}", target, kTemporaryMark, getpid(), random_suffix());
}

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Why fdbench will not replace the existing regular file `info` describes ("" when it will).
std::string refusal_of(const struct stat& info) {
  if (info.st_nlink > 1) {
    return fmt::format("has {} hard links, which replacing it would break: name a file of its own",
                       info.st_nlink);
  }
  if (geteuid() != 0 && info.st_uid != geteuid()) {
    return fmt::format(
        "belongs to another user (uid {}), whose file fdbench would replace with its own: name "
        "a file of yours",
        info.st_uid);
  }
  return "";
}

// The caller's descriptor `path` names (/dev/fd/N, /proc/self/fd/N, /dev/stdout, /dev/stderr)
// where it is open and no directory, else -1. Written through that descriptor, never reopened
// by name: a file the caller opened for append (7>>log) keeps what it holds.
int descriptor_named(const std::string& path) {
  int fd = -1;
  if (path == "/dev/stdout") fd = STDOUT_FILENO;
  if (path == "/dev/stderr") fd = STDERR_FILENO;
  for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (!path.starts_with(prefix) || path.size() == prefix.size()) continue;
    const char* const first = path.data() + prefix.size();
    const char* const last = path.data() + path.size();
    const auto [end, ec] = std::from_chars(first, last, fd);
    if (ec != std::errc() || end != last) fd = -1;
  }
  struct stat info {};
  return fd >= 0 && fstat(fd, &info) == 0 && !S_ISDIR(info.st_mode) ? fd : -1;
}

// The null device takes any number of outputs: nothing written to it is kept.
bool is_null_device(const std::optional<struct stat>& info) {
  static const std::optional<struct stat> null = stat_of("/dev/null");
  return info && null && S_ISCHR(info->st_mode) && info->st_rdev == null->st_rdev;
}

// How an output at `path` is written in place: nullopt when it is not (it is replaced); else
// the descriptor (the caller's, such as 1 for stdout) that already writes it, or -1 to open it
// by its name.
std::optional<int> in_place(const std::string& path) {
  if (const int fd = descriptor_named(path); fd >= 0) return fd;
  const auto info = stat_of(path);
  if (!info || S_ISDIR(info->st_mode)) return std::nullopt;
  const int stream = standard_stream_of(*info);
  if (S_ISREG(info->st_mode) && stream < 0) return std::nullopt;
  return stream;
}

}  // namespace

std::string follow_symlinks(std::string path) {
  for (int hops = 0; hops < kMaxSymlinks; ++hops) {
    struct stat info {};
    if (lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return path;
    std::string target(static_cast<std::size_t>(info.st_size > 0 ? info.st_size : 4096) + 1, '\0');
    const ssize_t n = readlink(path.c_str(), target.data(), target.size());
    if (n < 0) return path;
    target.resize(static_cast<std::size_t>(n));
    if (target.front() == '/') {
      path = target;
    } else {
      const auto slash = path.find_last_of('/');
      path = slash == std::string::npos ? target : path.substr(0, slash + 1) + target;
    }
  }
  throw Error(fmt::format("{}: {}", path, errno_text(ELOOP)));
}

std::string output_refusal(const std::string& path) {
  if (in_place(path)) return "";
  const auto info = stat_of(follow_symlinks(path));
  return info ? refusal_of(*info) : "";
}

bool output_streams(const std::string& path) {
  return in_place(path).has_value();
}

namespace {

// `path` as a name to compare: absolute, every symlink on it followed and "." and ".." gone,
// as far as they can be; a loop of symlinks (which no open gets through) as it is written.
std::filesystem::path comparable_name(const std::string& path) {
  std::string followed = path;
  try {
    followed = follow_symlinks(path);
  } catch (const Error&) {
  }
  std::error_code error;
  auto name = std::filesystem::weakly_canonical(std::filesystem::absolute(followed), error);
  if (error) name = std::filesystem::absolute(followed).lexically_normal();
  return name;
}

}  // namespace

bool same_output(const std::string& a, const std::string& b) {
  const auto sa = stat_of(a);
  const auto sb = stat_of(b);
  if (is_null_device(sa) || is_null_device(sb)) return false;  // takes any number of outputs
  // By identity where both are there (a hard link, a symlink, /proc/self/fd/N), else by name.
  if (sa && sb) return sa->st_dev == sb->st_dev && sa->st_ino == sb->st_ino;
  return comparable_name(a) == comparable_name(b);
}

AtomicFile::AtomicFile(std::string path, std::string what)
    : path_(std::move(path)), what_(std::move(what)) {
  if (const auto stream = in_place(path_)) {
    in_place_ = true;
    // A FIFO's open waits for a reader: Ctrl-C does not end that wait, a second signal or a
    // SIGTERM does (the output is then given up), as for a write.
    for (;;) {
      // Once the run is to end without waiting, a FIFO nobody reads is not waited for (ENXIO).
      const int nonblocking = interrupt_ends_waits() ? O_NONBLOCK : 0;
      fd_.reset(*stream >= 0 ? fcntl(*stream, F_DUPFD_CLOEXEC, 0)
                             : open(path_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | nonblocking));
      if (fd_ || errno != EINTR || interrupt_ends_waits()) break;
    }
    if (!fd_ && (errno == EINTR || (errno == ENXIO && interrupt_ends_waits()))) {
      throw Error(fmt::format("cannot write {} {}: given up at the signal (nothing opened it for "
                              "reading)",
                              what_, path_));
    }
    if (!fd_) fail(errno);
  } else {
    open_beside();
  }
}

void AtomicFile::open_beside() {
  try {
    target_ = follow_symlinks(path_);
  } catch (const Error&) {
    fail(ELOOP);
  }
  const auto before = stat_of(target_);
  if (const std::string why = before ? refusal_of(*before) : ""; !why.empty()) {
    throw Error(fmt::format("cannot write {} {}: it {}", what_, path_, why));
  }
  existed_ = before.has_value();
  // 0666 less the umask, as a new file from any other program gets.
  fd_.reset(platform::open_unnamed_file(directory_of(target_), 0666));
  unnamed_ = fd_.valid();
  if (!unnamed_) open_named_temporary();  // says why when it cannot be made either
  // Held for as long as this object lives: clean_output_temporaries() leaves a locked one.
  // Best effort: a filesystem without locks still has the pid in the name.
  [[maybe_unused]] const int locked = flock(fd_.get(), LOCK_EX | LOCK_NB);
  // The file it replaces keeps its mode and owner: its readers stay who they were.
  if (before) {
    if (fchmod(fd_.get(), before->st_mode & 07777) != 0) fail(errno);
    if ((before->st_uid != geteuid() || before->st_gid != getegid()) &&
        fchown(fd_.get(), before->st_uid, before->st_gid) != 0) {
      fail(errno);
    }
  }
}

void AtomicFile::open_named_temporary() {
  for (int attempt = 0; attempt < 100 && !fd_; ++attempt) {
    tmp_ = temporary_name(target_);
    fd_.reset(open(tmp_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666));
    if (!fd_ && errno != EEXIST) break;
  }
  if (!fd_) {
    const int err = errno;
    tmp_.clear();
    fail(err);
  }
}

// The unnamed file gets its name: the target's own when there was none (no other name ever
// exists), else a temporary one that commit() renames over the target at once.
void AtomicFile::name_unnamed() {
  if (!existed_) {
    const int err = platform::name_unnamed_file(fd_.get(), target_);
    if (err == 0) return;
    if (err != EEXIST) fail(err);  // EEXIST: made meanwhile, and replaced like any other
  }
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = temporary_name(target_);
    const int err = platform::name_unnamed_file(fd_.get(), name);
    if (err == 0) {
      tmp_ = std::move(name);
      return;
    }
    if (err != EEXIST) fail(err);
  }
  fail(EEXIST);
}

namespace {

// Whether a write of up to PIPE_BUF bytes to `fd` returns at once (a pipe or FIFO with room, a
// file); false for a pipe its reader does not empty.
bool writable_now(int fd) {
  pollfd p{fd, POLLOUT, 0};
  return poll(&p, 1, 0) == 1 && (p.revents & POLLOUT) != 0;
}

}  // namespace

AtomicFile::~AtomicFile() {
  if (fd_ && !tmp_.empty()) unlink(tmp_.c_str());
}

std::string AtomicFile::message(int err) const {
  return fmt::format("cannot write {} {}: {}", what_, path_, errno_text(err));
}

void AtomicFile::fail(int err) {
  fd_.reset();
  if (!tmp_.empty()) unlink(tmp_.c_str());
  throw Error(message(err));
}

void AtomicFile::write(std::string_view content) {
  if (!fd_) fail(EBADF);  // committed, or failed already
  if (write_error_ != 0) throw Error(message(write_error_));
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    // Once the run is to end without waiting (below), only what does not block is written: a
    // signal that came before a write blocked would not interrupt it.
    const bool ending = interrupt_ends_waits();
    if (ending && !writable_now(fd_.get())) {
      write_error_ = EINTR;
      throw Error(fmt::format("cannot write {} {}: given up at the signal with {} bytes unwritten "
                              "(nothing was reading it)",
                              what_, path_, group_digits(left)));
    }
    const ssize_t n = ::write(fd_.get(), p, ending ? std::min<std::size_t>(left, PIPE_BUF) : left);
    // Ctrl-C finishes the output first (the run ends with its code then); a second signal, or
    // one SIGTERM (`timeout` and systemd send only one), gives it up, so that a reader who never
    // reads cannot keep fdbench alive.
    if (n < 0 && errno == EINTR && !interrupt_ends_waits()) continue;
    if (n < 0) {
      // The descriptor stays until commit() or the destructor, so a run's descriptors do not
      // change under it (a result's leak check counts them); the file gives back the space it
      // took at once (a full disk).
      write_error_ = errno;
      if (!in_place_) {
        [[maybe_unused]] const int emptied = ftruncate(fd_.get(), 0);
      }
      throw Error(message(write_error_));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void AtomicFile::commit() {
  if (!fd_) fail(EBADF);
  if (write_error_ != 0) fail(write_error_);
  if (in_place_) {  // nothing to rename
    fd_.reset();
    return;
  }
  if (fsync(fd_.get()) != 0) fail(errno);
  if (unnamed_) name_unnamed();
  if (!tmp_.empty() && std::rename(tmp_.c_str(), target_.c_str()) != 0) fail(errno);
  fd_.reset();
  tmp_.clear();
}

void write_file_atomically(const std::string& path, std::string_view content,
                           std::string_view what) {
  AtomicFile file(path, std::string(what));
  file.write(content);
  file.commit();
}

std::optional<int> output_temporary_owner(std::string_view name) {
  const auto mark = name.rfind(kTemporaryMark);
  if (mark == std::string_view::npos || mark == 0) return std::nullopt;
  const std::string_view rest = name.substr(mark + kTemporaryMark.size());
  const auto dash = rest.find('-');
  if (dash == std::string_view::npos || rest.size() - dash - 1 != kSuffixLength) {
    return std::nullopt;
  }
  for (const char c : rest.substr(dash + 1)) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) return std::nullopt;
  }
  int pid = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + dash, pid);
  if (ec != std::errc() || end != rest.data() + dash || pid <= 0) return std::nullopt;
  return pid;
}

namespace {

// Why the temporary `name` in `dir` stays ("" when it was removed). Only a regular file is
// ever opened (a device could act on an open), and never through a symlink.
std::string clean_temporary(int dir, const std::string& name, int pid) {
  struct stat seen {};
  if (fstatat(dir, name.c_str(), &seen, AT_SYMLINK_NOFOLLOW) != 0) return errno_text(errno);
  if (S_ISLNK(seen.st_mode)) return "a symlink (never followed), not a temporary fdbench made";
  if (!S_ISREG(seen.st_mode)) return "not a regular file, not a temporary fdbench made";
  UniqueFd fd(openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd) return errno_text(errno);
  struct stat info {};
  if (fstat(fd.get(), &info) != 0) return errno_text(errno);
  if (info.st_dev != seen.st_dev || info.st_ino != seen.st_ino) {
    return "changed while it was looked at";
  }
  if (info.st_nlink != 1) return fmt::format("has {} hard links", info.st_nlink);
  if (geteuid() != 0 && info.st_uid != geteuid()) {
    return fmt::format("belongs to another user (uid {})", info.st_uid);
  }
  // The lock its writer holds says whether that run is alive; the pid alone cannot (inside a
  // PID namespace it is 1, which always exists). Only where the filesystem has no flock does a
  // live pid keep it, which errs toward keeping.
  if (flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) return "a running fdbench is writing it";
    if (pid != getpid() && platform::process_running(pid)) {
      return fmt::format("fdbench (pid {}) may still be writing it", pid);
    }
  }
  // Still the same file under that name: nothing else is ever removed.
  struct stat now {};
  if (fstatat(dir, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0 || now.st_dev != info.st_dev ||
      now.st_ino != info.st_ino) {
    return "changed while it was looked at";
  }
  if (unlinkat(dir, name.c_str(), 0) != 0) return errno_text(errno);
  return "";
}

}  // namespace

CleanedTemporaries clean_output_temporaries(const std::string& dir) {
  UniqueFd dir_fd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir_fd) throw Error(fmt::format("{}: {}", dir, errno_text(errno)));
  const int listed = dup(dir_fd.get());
  DIR* listing = listed < 0 ? nullptr : fdopendir(listed);
  if (listing == nullptr) {
    const int err = errno;
    if (listed >= 0) close(listed);
    throw Error(fmt::format("{}: {}", dir, errno_text(err)));
  }
  std::vector<std::pair<std::string, int>> found;
  while (const dirent* entry = readdir(listing)) {
    if (const auto pid = output_temporary_owner(entry->d_name)) {
      found.emplace_back(entry->d_name, *pid);
    }
  }
  closedir(listing);
  CleanedTemporaries report;
  for (const auto& [name, pid] : found) {
    const std::string path = dir + "/" + name;
    if (const std::string why = clean_temporary(dir_fd.get(), name, pid); why.empty()) {
      report.removed.push_back(path);
    } else {
      report.kept.push_back(fmt::format("{}: {}", path, why));
    }
  }
  return report;
}

}  // namespace fdbench
