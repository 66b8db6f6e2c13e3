// The open_many engine for the `uring` strategy: each worker sets up one io_uring (as the
// benchmark's rings are: the best flags the kernel accepts, its descriptor registered) and
// submits its share `batch` OPENATs at a time, reaping every completion of a batch before the
// next one, so no request is ever in flight when the engine returns. Compiled only with
// liburing (CMake: FDBENCH_WITH_URING); open_uring_unavailable.cpp stands in otherwise.
#include <liburing.h>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <string>

#include "common/errors.hpp"
#include "fdbench/error.hpp"
#include "library/open_engine.hpp"
#include "uring/ring.hpp"

namespace fdbench::library {

namespace {

// One worker's ring, set up and torn down on the worker's thread. Not a uring::Ring, so that
// the errno survives for the caller (open_many returns it).
class OwnRing {
 public:
  explicit OwnRing(unsigned entries) noexcept
      : error_(-uring::init_ring(&ring_, entries, uring::ring_setup(UringOptions{}))) {}
  OwnRing(const OwnRing&) = delete;
  OwnRing& operator=(const OwnRing&) = delete;
  ~OwnRing() {
    if (error_ == 0) uring::exit_ring(&ring_);
  }

  [[nodiscard]] int error() const noexcept { return error_; }
  [[nodiscard]] io_uring* get() noexcept { return &ring_; }
  [[nodiscard]] unsigned entries() const noexcept { return ring_.sq.ring_entries; }

 private:
  io_uring ring_{};
  int error_ = 0;
};

ShareOutcome failed(const char* what, int err) noexcept {
  try {
    return {err, std::string("open_many: ") + what + ": " + errno_text(err)};
  } catch (const std::exception&) {
    return {err, {}};
  }
}

// Submits openat for paths [first, last) and reaps all of them. Returns 0 or -errno.
int open_batch(io_uring* ring, const OpenJob& job, std::size_t first, std::size_t last) noexcept {
  for (std::size_t i = first; i < last; ++i) {
    io_uring_sqe* sqe = io_uring_get_sqe(ring);
    FDBENCH_ASSERT(sqe != nullptr);  // a batch never exceeds the ring, and each is drained
    io_uring_prep_openat(sqe, job.dir_fd, job.paths[i], job.flags, job.mode);
    io_uring_sqe_set_data64(sqe, i - first);
  }
  return uring::submit_and_reap(
      ring, static_cast<unsigned>(last - first), [&](const io_uring_cqe& cqe) {
        const std::size_t i = first + static_cast<std::size_t>(cqe.user_data);
        if (cqe.res < 0) {
          job.errors[i] = -cqe.res;
        } else {
          job.fds[i].reset(cqe.res);
        }
      });
}

}  // namespace

ShareOutcome open_share_uring(const OpenJob& job, std::size_t begin, std::size_t end,
                              unsigned batch) noexcept {
  OwnRing ring(static_cast<unsigned>(std::min<std::size_t>(batch, end - begin)));
  if (ring.error() != 0) return failed("cannot set up an io_uring", ring.error());
  const std::size_t chunk = std::min<std::size_t>(batch, ring.entries());
  for (std::size_t first = begin; first < end && !job.stop.stop_requested(); first += chunk) {
    const std::size_t last = std::min(end, first + chunk);
    if (const int ret = open_batch(ring.get(), job, first, last); ret < 0) {
      return failed("io_uring_enter failed", -ret);
    }
  }
  return {};
}

std::string uring_unavailable_reason() {
  return uring::support().unavailable;
}

}  // namespace fdbench::library
