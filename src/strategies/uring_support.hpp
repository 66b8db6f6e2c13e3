#pragma once
// What the io_uring strategies share: the once-per-process availability probe, a ring owner
// (RAII), and the submit-then-reap step both strategies repeat per batch. Compiled only with
// liburing on Linux (CMake: FDBENCH_WITH_URING); uring_unavailable.cpp stands in otherwise.
#include <liburing.h>

#include <cerrno>
#include <functional>
#include <string>

#include "strategies/worker_group.hpp"

namespace fdbench::uring {

// What this kernel offers, probed once per process (thread-safe).
struct Support {
  std::string unavailable;  // empty when a ring can be set up here
  bool socket = false;      // IORING_OP_SOCKET (Linux 5.19)
  bool direct = false;      // sparse file tables and direct openat/close (Linux 5.19)
};
const Support& support();

// One io_uring, set up with at least `entries` submission slots (rounded up to a power of
// two, clamped to the kernel's maximum). Throws Error naming the cause.
class Ring {
 public:
  explicit Ring(unsigned entries);
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;
  ~Ring() { io_uring_queue_exit(&ring_); }

  [[nodiscard]] io_uring* get() noexcept { return &ring_; }
  [[nodiscard]] unsigned sq_entries() const noexcept { return ring_.sq.ring_entries; }

  // A NOP submitted and reaped from the calling thread, so the kernel's per-thread io_uring
  // context exists before anything is timed. Returns 0 or -errno.
  int prime() noexcept;

 private:
  io_uring ring_{};
};

// Primes ring_of(w) from worker w of `group`, outside any timed region. Throws Error.
void prime_rings(WorkerGroup& group, const std::function<Ring&(int)>& ring_of);

// Submits every prepared SQE and waits until `count` completions are in; calls on_cqe for
// each and marks it seen. Returns 0 or -errno (the ring can no longer be trusted then).
template <class OnCqe>
int submit_and_reap(io_uring* ring, unsigned count, OnCqe&& on_cqe) noexcept {
  // Without IORING_SETUP_SUBMIT_ALL the kernel stops consuming SQEs after one that fails
  // early (it still posts that one's CQE), so submit until none is left.
  do {
    const int ret = io_uring_submit_and_wait(ring, count);
    if (ret < 0 && ret != -EINTR) return ret;
  } while (io_uring_sq_ready(ring) > 0);
  unsigned done = 0;
  while (done < count) {
    io_uring_cqe* cqe = nullptr;
    const int ret = io_uring_wait_cqe(ring, &cqe);
    if (ret == -EINTR) continue;
    if (ret < 0) return ret;
    unsigned head = 0;
    unsigned seen = 0;
    io_uring_for_each_cqe(ring, head, cqe) {
      on_cqe(*cqe);
      ++seen;
    }
    io_uring_cq_advance(ring, seen);
    done += seen;
  }
  return 0;
}

}  // namespace fdbench::uring
