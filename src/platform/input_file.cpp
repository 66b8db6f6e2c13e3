// Files a user names as input (compare's and report's results files, --list): opened only
// when they are something a stream of text can be read from, and read in pieces that a signal
// can end.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "platform/os.hpp"
#if defined(FDBENCH_LINUX)
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

#include "fdbench/error.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"

namespace fdbench::platform {

std::string_view file_type_words(unsigned mode) {
  const auto m = static_cast<mode_t>(mode);
  if (S_ISREG(m)) return "a regular file";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISLNK(m)) return "a symbolic link";
  return "a file of another kind";
}

InputFile open_input_file(const std::string& path) {
  InputFile input;
  struct stat info {};
  // Followed: a shell's <(...) names a pipe through the symlink /dev/fd/63.
  if (stat(path.c_str(), &info) != 0) {
    input.error = errno;
    return input;
  }
  input.mode = info.st_mode;
  if (!S_ISREG(info.st_mode) && !S_ISFIFO(info.st_mode)) return input;  // never opened
  for (;;) {
    // A FIFO's open waits for a writer: Ctrl-C ends the wait.
    input.fd.reset(open(path.c_str(), O_RDONLY | O_NOCTTY | O_CLOEXEC));
    if (input.fd || errno != EINTR) break;
    throw_if_interrupted();
  }
  if (!input.fd) {
    input.error = errno;
    return input;
  }
  // What was opened, not what was looked at: the name may have changed in between.
  if (fstat(input.fd.get(), &info) != 0 || (!S_ISREG(info.st_mode) && !S_ISFIFO(info.st_mode))) {
    input.mode = info.st_mode;
    input.fd.reset();
    return input;
  }
  input.mode = info.st_mode;
  input.size = S_ISREG(info.st_mode) ? static_cast<std::uint64_t>(info.st_size) : 0;
  return input;
}

std::size_t read_input(int fd, char* buffer, std::size_t size) {
  for (;;) {
    throw_if_interrupted();  // a signal taken before the read would not end its wait
    const ssize_t n = read(fd, buffer, size);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR) throw Error(errno_text(errno));
  }
}

bool is_the_regular_file(int dir_fd, const char* name, std::uint64_t dev, std::uint64_t ino) {
#if defined(O_PATH)
  constexpr int kLook = O_PATH;
#else
  constexpr int kLook = O_RDONLY | O_NONBLOCK | O_NOCTTY;
#endif
  const UniqueFd fd(openat(dir_fd, name, kLook | O_NOFOLLOW | O_CLOEXEC));
  struct stat info {};
  if (!fd || fstat(fd.get(), &info) != 0) return false;
  return S_ISREG(info.st_mode) && static_cast<std::uint64_t>(info.st_dev) == dev &&
         static_cast<std::uint64_t>(info.st_ino) == ino;
}

int open_directory_nofollow(int at, std::string_view rel) {
  constexpr int kFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  UniqueFd here(fcntl(at, F_DUPFD_CLOEXEC, 0));
  if (!here) return -1;
  std::size_t begin = 0;
  while (begin <= rel.size()) {
    const std::size_t end = std::min(rel.find('/', begin), rel.size());
    const std::string name(rel.substr(begin, end - begin));
    begin = end + 1;
    if (name.empty() || name == ".") continue;
    const int fd = openat(here.get(), name.c_str(), kFlags);
    if (fd < 0) {
      const int err = errno;
      struct stat info {};
      // O_DIRECTORY says ENOTDIR of a symlink before O_NOFOLLOW says ELOOP.
      const bool link = fstatat(here.get(), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
                        S_ISLNK(info.st_mode);
      errno = link ? ELOOP : err;
      return -1;
    }
    here.reset(fd);
  }
  return here.release();
}

int open_absolute_directory_nofollow(const std::string& path) {
  const UniqueFd root(open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK));
  if (!root) return -1;
  return open_directory_nofollow(root.get(), path);
}

bool is_regular_descriptor(int fd) noexcept {
  struct stat info {};
  return fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
}

#if defined(FDBENCH_LINUX) && defined(SYS_openat2)
int open_resolved(int dir_fd, const char* path, int flags, std::uint64_t resolve) noexcept {
  open_how how{};
  how.flags = static_cast<std::uint64_t>(static_cast<unsigned>(flags));
  how.resolve = resolve;
  return static_cast<int>(syscall(SYS_openat2, dir_fd, path, &how, sizeof how));
}
std::uint64_t no_links_resolve() noexcept {
  return RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
}
bool has_open_resolved() {
  static const bool has = [] {
    const int fd = open_resolved(AT_FDCWD, "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC,
                                 no_links_resolve());
    if (fd < 0) return false;
    close(fd);
    return true;
  }();
  return has;
}
#else
int open_resolved(int /*dir_fd*/, const char* /*path*/, int /*flags*/,
                  std::uint64_t /*resolve*/) noexcept {
  errno = ENOSYS;
  return -1;
}
std::uint64_t no_links_resolve() noexcept {
  return 0;
}
bool has_open_resolved() {
  return false;
}
#endif

}  // namespace fdbench::platform
