#pragma once
// What the io_uring strategies share: the once-per-process probe of what the kernel offers,
// how a ring is set up (the best flags it accepts, a registered ring descriptor), a ring
// owner (RAII), per-worker state made and torn down on its own worker's thread, the
// submit-then-reap step both strategies repeat per batch, and its timing for --latency. Compiled
// only with liburing on Linux (CMake: FDBENCH_WITH_URING); uring_unavailable.cpp stands in
// otherwise.
#include <liburing.h>

#include <cerrno>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fdbench/call_trace.hpp"
#include "fdbench/platform.hpp"
#include "fdbench/uring_options.hpp"
#include "strategies/worker_group.hpp"

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
// The usual reasons a ring cannot be set up, and what to do about each.
std::string explain(int err);

// One io_uring, set up by init_ring(). Throws Error naming the cause. Destroy it on the thread
// that made it (PerWorker does): that also releases its registered descriptor.
class Ring {
 public:
  Ring(unsigned entries, const RingSetup& setup);
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;
  ~Ring() { io_uring_queue_exit(&ring_); }

  [[nodiscard]] io_uring* get() noexcept { return &ring_; }
  [[nodiscard]] unsigned sq_entries() const noexcept { return ring_.sq.ring_entries; }

 private:
  io_uring ring_{};
};

// Runs fn(w) on every worker w of `group` at once, untimed, and rethrows the first exception
// any of them threw on the calling thread.
void on_each_worker(WorkerGroup& group, const std::function<void(int)>& fn);

// One T per worker of `group`, each made, changed and destroyed on its own worker's thread,
// so that the rings inside belong to the threads that submit to them.
template <class T>
class PerWorker {
 public:
  // make(w) runs on worker w.
  PerWorker(WorkerGroup& group, const std::function<std::unique_ptr<T>(int)>& make)
      : group_(group), items_(static_cast<std::size_t>(group.size())) {
    try {
      on_each_worker(group_, [&](int w) { items_[static_cast<std::size_t>(w)] = make(w); });
    } catch (...) {
      clear();
      throw;
    }
  }
  PerWorker(const PerWorker&) = delete;
  PerWorker& operator=(const PerWorker&) = delete;
  ~PerWorker() { clear(); }

  T& operator[](int w) noexcept { return *items_[static_cast<std::size_t>(w)]; }
  [[nodiscard]] int size() const noexcept { return static_cast<int>(items_.size()); }

 private:
  void clear() noexcept {
    group_.run([this](int w) { items_[static_cast<std::size_t>(w)].reset(); });
  }

  WorkerGroup& group_;
  std::vector<std::unique_ptr<T>> items_;
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

// --latency for a worker that submits batches: one CallKind::submission record per batch of
// creations, on the slot of the batch's first item, timed from just before it is submitted to
// the reaping of its last completion (and the same for the batch's separate submission of
// closes, if it has one). Untraced (no trace) every member does nothing but test a pointer:
// one branch per submission. Traced, the records already exist: no allocation while timed.
class SubmissionClock {
 public:
  // On the submitting worker's thread, which it numbers in the trace.
  explicit SubmissionClock(CallTrace* trace) noexcept
      : trace_(trace), worker_(trace != nullptr ? trace->worker() : std::int16_t{-1}) {}

  // Just before the batch whose first item is `first` is submitted.
  void submitting(std::size_t first) noexcept {
    if (trace_ == nullptr) return;
    record_ = &trace_->at(first);
    start_ = platform::now_ns();
  }
  // Its last completion reaped; `highest_fd`: the highest descriptor of the process table it
  // returned (-1: none).
  void reaped(int highest_fd) noexcept {
    if (record_ == nullptr) return;
    const std::int64_t now = platform::now_ns();
    record_->start_ns = start_;
    record_->create_ns = now - start_;
    record_->fd = highest_fd;
    record_->worker = worker_;
    record_->kind = CallKind::submission;
  }
  // The same batch's closes: just before their submission, and their last completion reaped.
  void submitting_closes() noexcept {
    if (record_ != nullptr) start_ = platform::now_ns();
  }
  void closes_reaped() noexcept {
    if (record_ != nullptr) record_->close_ns = platform::now_ns() - start_;
  }

 private:
  CallTrace* trace_;
  std::int16_t worker_;
  CallRecord* record_ = nullptr;
  std::int64_t start_ = 0;
};

// A NOP submitted and reaped from the calling thread, so the kernel's per-thread io_uring
// context exists before anything is timed. Throws Error.
void prime(Ring& ring);

}  // namespace fdbench::uring
