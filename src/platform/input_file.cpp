// Files a user names as input (compare's and report's results files, --list): opened only
// when they are something a stream of text can be read from, and read in pieces that a signal
// can end.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

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

}  // namespace fdbench::platform
