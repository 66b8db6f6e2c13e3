// Why a write to a descriptor failed, told after the fact: a stream (std::cout) that failed
// keeps no errno, so what the descriptor is now says the rest.
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>

#include "fdbench/error.hpp"
#include "platform/platform.hpp"

namespace fdbench::platform {

namespace {

// The errno values a write itself fails with; any other errno found then was left by another
// call and says nothing about the write.
bool is_write_error(int err) {
  switch (err) {
    case EPIPE:
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
    case EIO:
    case EAGAIN:
    case EBADF:
    case EROFS:
      return true;
    default:
      return false;
  }
}

// A regular file that cannot grow: its filesystem full, or the file at RLIMIT_FSIZE.
std::string full_file_cause(int fd, const struct stat& info) {
  rlimit limit{};
  if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      static_cast<rlim_t>(info.st_size) >= limit.rlim_cur) {
    return errno_text(EFBIG) + " (the file size limit, ulimit -f)";
  }
  struct statvfs fs {};
  if (fstatvfs(fd, &fs) == 0 && (geteuid() == 0 ? fs.f_bfree : fs.f_bavail) == 0) {
    return errno_text(ENOSPC);
  }
  return "";
}

}  // namespace

std::string write_failure_cause(int fd, int err) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0) return "it is closed (" + errno_text(EBADF) + ")";
  if ((flags & O_ACCMODE) == O_RDONLY) return "it is open for reading only";
  struct stat info {};
  if (fstat(fd, &info) == 0 && (S_ISFIFO(info.st_mode) || S_ISSOCK(info.st_mode))) {
    pollfd p{fd, POLLOUT, 0};
    if (poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0) {
      return "nothing reads it any more (" + errno_text(EPIPE) + ")";
    }
  }
  if (is_write_error(err)) return errno_text(err);
  if (S_ISREG(info.st_mode)) return full_file_cause(fd, info);
  return "";
}

bool filesystem_full(const std::string& path) noexcept {
  struct statvfs fs {};
  return statvfs(path.c_str(), &fs) == 0 && (geteuid() == 0 ? fs.f_bfree : fs.f_bavail) == 0;
}

}  // namespace fdbench::platform
