#pragma once
// The engines behind open_many: each opens one worker's contiguous share of the paths and
// writes only that share of the result, so workers never share anything but read-only input.
// Deliberately separate from the benchmark's Strategy interface: nothing here is timed, and
// every descriptor goes back to the caller.
#include <sys/types.h>

#include <cstddef>
#include <span>
#include <stop_token>
#include <string>

#include "fdbench/unique_fd.hpp"

namespace fdbench::library {

struct OpenJob {
  int dir_fd = -1;
  std::span<const char* const> paths;
  int flags = 0;
  mode_t mode = 0;
  std::stop_token stop;
  std::span<UniqueFd> fds;  // one per path, filled in by the engines
  std::span<int> errors;    // one per path: 0 or errno
};

// How one worker's share ended: error 0 when every path was tried or stop was requested;
// otherwise the errno that stopped the engine, and a one-line message.
struct ShareOutcome {
  int error = 0;
  std::string message;
};

// openat(2) for each path in [begin, end), checking for stop before each.
ShareOutcome open_share_syscalls(const OpenJob& job, std::size_t begin, std::size_t end) noexcept;

// The same through one io_uring of `batch` entries owned by the calling worker, checking for
// stop before each batch. Defined in open_uring.cpp (with liburing) or open_uring_unavailable.cpp.
ShareOutcome open_share_uring(const OpenJob& job, std::size_t begin, std::size_t end,
                              unsigned batch) noexcept;
// Empty when open_share_uring can run here; otherwise why not, and what to do.
std::string uring_unavailable_reason();

}  // namespace fdbench::library
