#include "output/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <random>

#include "fdbench/error.hpp"

namespace fdbench {

namespace {

constexpr int kMaxSymlinks = 40;  // as the kernel's own path walk allows

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

// The name `path` leads to once every symlink on it is followed, a dangling one included (its
// target is the file to create). Gives up after kMaxSymlinks links, as open() would (ELOOP).
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

std::string random_suffix() {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937 random{std::random_device{}()};
  std::uniform_int_distribution<std::size_t> pick(0, sizeof(kChars) - 2);
  std::string suffix;
  for (int i = 0; i < 6; ++i) suffix += kChars[pick(random)];
  return suffix;
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

// How an output at `path` is written in place: nullopt when it is not (it is replaced); else
// the standard stream (1 or 2) that already writes it, or -1 to open it by its name.
std::optional<int> in_place(const std::string& path) {
  const auto info = stat_of(path);
  if (!info || S_ISDIR(info->st_mode)) return std::nullopt;
  const int stream = standard_stream_of(*info);
  if (S_ISREG(info->st_mode) && stream < 0) return std::nullopt;
  return stream;
}

}  // namespace

std::string output_refusal(const std::string& path) {
  if (in_place(path)) return "";
  const auto info = stat_of(follow_symlinks(path));
  return info ? refusal_of(*info) : "";
}

bool output_streams(const std::string& path) {
  return in_place(path).has_value();
}

bool same_output(const std::string& a, const std::string& b) {
  std::error_code ea;
  std::error_code eb;
  const auto ca =
      std::filesystem::weakly_canonical(std::filesystem::absolute(follow_symlinks(a)), ea);
  const auto cb =
      std::filesystem::weakly_canonical(std::filesystem::absolute(follow_symlinks(b)), eb);
  if (!ea && !eb && ca == cb) return true;
  const auto sa = stat_of(a);
  const auto sb = stat_of(b);
  return sa && sb && sa->st_dev == sb->st_dev && sa->st_ino == sb->st_ino;
}

AtomicFile::AtomicFile(std::string path, std::string what)
    : path_(std::move(path)), what_(std::move(what)) {
  if (const auto stream = in_place(path_)) {
    fd_.reset(*stream >= 0 ? fcntl(*stream, F_DUPFD_CLOEXEC, 0)
                           : open(path_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC));
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
  for (int attempt = 0; attempt < 100 && !fd_; ++attempt) {
    tmp_ = target_ + ".tmp-" + random_suffix();
    // 0666 less the umask, as a new file from any other program gets.
    fd_.reset(open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666));
    if (!fd_ && errno != EEXIST) break;
  }
  if (!fd_) {
    const int err = errno;
    tmp_.clear();
    fail(err);
  }
  // The file it replaces keeps its mode and owner: its readers stay who they were.
  if (before) {
    if (fchmod(fd_.get(), before->st_mode & 07777) != 0) fail(errno);
    if ((before->st_uid != geteuid() || before->st_gid != getegid()) &&
        fchown(fd_.get(), before->st_uid, before->st_gid) != 0) {
      fail(errno);
    }
  }
}

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
    const ssize_t n = ::write(fd_.get(), p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      // The descriptor stays until commit() or the destructor, so a run's descriptors do not
      // change under it (a result's leak check counts them); the file gives back the space it
      // took at once (a full disk).
      write_error_ = errno;
      if (!tmp_.empty()) {
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
  if (tmp_.empty()) {  // written in place: nothing to rename
    fd_.reset();
    return;
  }
  if (fsync(fd_.get()) != 0) fail(errno);
  if (std::rename(tmp_.c_str(), target_.c_str()) != 0) fail(errno);
  fd_.reset();
  tmp_.clear();
}

void write_file_atomically(const std::string& path, std::string_view content,
                           std::string_view what) {
  AtomicFile file(path, std::string(what));
  file.write(content);
  file.commit();
}

}  // namespace fdbench
