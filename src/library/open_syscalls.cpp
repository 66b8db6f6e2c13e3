// The open_many engine for the `threads` strategy: plain openat(2), one path after another.
#include <fcntl.h>

#include <cerrno>

#include "library/open_engine.hpp"

namespace fdbench::library {

ShareOutcome open_share_syscalls(const OpenJob& job, std::size_t begin, std::size_t end) noexcept {
  for (std::size_t i = begin; i < end && !job.stop.stop_requested(); ++i) {
    int fd = -1;
    do {  // a signal can interrupt an open that blocks (a FIFO, a network filesystem)
      fd = openat(job.dir_fd, job.paths[i], job.flags, job.mode);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
      job.errors[i] = errno;
    } else {
      job.fds[i].reset(fd);
    }
  }
  return {};
}

}  // namespace fdbench::library
