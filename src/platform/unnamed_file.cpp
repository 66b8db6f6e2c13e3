// Files that get their name only once they are whole (Linux: O_TMPFILE, then linkat), so that
// a process killed while it writes one leaves nothing behind.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "platform/os.hpp"
#include "platform/platform.hpp"

namespace fdbench::platform {

int open_unnamed_file(const std::string& dir, unsigned mode) noexcept {
#if defined(FDBENCH_LINUX) && defined(O_TMPFILE)
  // Naming it goes through /proc/self/fd where AT_EMPTY_PATH is not allowed (it needs
  // CAP_DAC_READ_SEARCH): without /proc the file could never be named.
  if (access("/proc/self/fd", X_OK) != 0) {
    errno = ENOTSUP;
    return -1;
  }
  // Old kernels take O_TMPFILE for O_DIRECTORY and say EISDIR; filesystems without it
  // EOPNOTSUPP: the caller falls back to a named file either way.
  return open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, static_cast<mode_t>(mode));
#else
  (void)dir;
  (void)mode;
  errno = ENOTSUP;
  return -1;
#endif
}

int name_unnamed_file(int fd, const std::string& path) noexcept {
#if defined(FDBENCH_LINUX) && defined(O_TMPFILE)
  if (linkat(fd, "", AT_FDCWD, path.c_str(), AT_EMPTY_PATH) == 0) return 0;
  if (errno == EEXIST) return EEXIST;
  char self[64];
  std::snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
  return linkat(AT_FDCWD, self, AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
#else
  (void)fd;
  (void)path;
  return ENOTSUP;
#endif
}

}  // namespace fdbench::platform
