#pragma once
// What every user of io_uring in fdbench shares (the io_uring strategies and the library's
// open_many): the once-per-process probe of what the kernel offers, how a ring is set up (the
// best flags it accepts, a registered ring descriptor), a ring owner (RAII) and the
// submit-then-reap step repeated per batch. Compiled only with liburing on Linux (CMake:
// FDBENCH_WITH_URING); the strategies' and the library's stubs stand in otherwise. What only
// the strategies need (per-worker rings, --latency timing) is engine/strategies/uring_workers.hpp.
#include <liburing.h>

#include <cerrno>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "platform/platform.hpp"
#include "uring/uring_options.hpp"

namespace fdbench::uring {

// What this kernel offers, probed once per process (thread-safe).
struct Support {
  std::string unavailable;  // empty when a ring can be set up here
  bool socket = false;      // IORING_OP_SOCKET (Linux 5.19)
  bool direct = false;      // sparse file tables and direct openat/close (Linux 5.19)
  unsigned best_flags = 0;  // the first of setup_flag_candidates() the kernel accepts
  bool ring_fd = false;     // io_uring_register_ring_fd (Linux 5.18)
};
const Support& support();

// Setup flag sets worth having, best first; the last is none (0). DEFER_TASKRUN runs
// completions' task work only when the submitting thread waits for them, which it does.
std::span<const unsigned> setup_flag_candidates();
// The first of `candidates` that try_setup(flags) accepts (returns 0). The kernel refuses
// flags it does not know with EINVAL, which means: try the next. Any other error ends the
// search, as does running out: 0 then.
unsigned first_accepted(std::span<const unsigned> candidates,
                        const std::function<int(unsigned flags)>& try_setup);
// try_setup for this kernel: sets up and tears down a small ring. 0 or -errno.
int try_ring_setup(unsigned flags) noexcept;

// How every ring of a run is set up: what the options ask for, as far as this kernel goes.
struct RingSetup {
  unsigned flags = 0;  // besides IORING_SETUP_CLAMP
  bool register_ring_fd = false;
};
RingSetup ring_setup(const UringOptions& options);
// What a result records of it: "ring_setup" (the flags, or "none") and "ring_fd".
std::map<std::string, std::string> describe(const RingSetup& setup);

// Sets up `ring` with at least `entries` slots (rounded up to a power of two, clamped to the
// kernel's maximum) as `setup` says. Call it on the thread that will submit to the ring: with
// SINGLE_ISSUER no other thread may, and a registered ring fd is its registering thread's
// alone. Returns 0 or -errno (no ring is left set up then).
int init_ring(io_uring* ring, unsigned entries, const RingSetup& setup) noexcept;
// Tears down a ring that init_ring() (or a probe) set up: every ring in fdbench goes this way.
void exit_ring(io_uring* ring) noexcept;
// The usual reasons a ring cannot be set up, and what to do about each.
std::string explain(int err);

// One io_uring, set up by init_ring(). Throws Error naming the cause. Destroy it on the thread
// that made it (PerWorker does): that also releases its registered descriptor.
class Ring {
 public:
  Ring(unsigned entries, const RingSetup& setup);
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;
  ~Ring() { exit_ring(&ring_); }

  [[nodiscard]] io_uring* get() noexcept { return &ring_; }
  [[nodiscard]] unsigned sq_entries() const noexcept { return ring_.sq.ring_entries; }

 private:
  io_uring ring_{};
};

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
    // With DEFER_TASKRUN this enters the kernel (GETEVENTS) when nothing is posted yet, which
    // is what runs the completions still pending.
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

// A NOP submitted and reaped from the calling thread, so the kernel's per-thread io_uring
// context exists before anything is timed. Throws Error.
void prime(Ring& ring);

}  // namespace fdbench::uring
