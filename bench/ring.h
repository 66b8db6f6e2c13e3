/* What the io_uring reference loops share: a ring set up as fdbench sets up each worker's
 * (src/uring/ring.cpp) and its submit-then-reap step. Set-up runs on the thread that submits,
 * before any clock: IORING_SETUP_CLAMP with the first of fdbench's setup flag sets the kernel
 * accepts (EINVAL means: try the next), the ring's descriptor registered, one NOP submitted
 * and reaped. Needs liburing (CMake builds these loops only where it is found). */
#ifndef FDBENCH_BENCH_RING_H
#define FDBENCH_BENCH_RING_H

#include <liburing.h>

#include "reference.h"

/* fdbench's candidates, best first (src/uring/ring.cpp); the last is none. */
static const unsigned kSetupFlags[] = {
    IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
    IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
    IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
    0,
};

/* Submits every prepared SQE and reaps `count` completions, calling on_cqe(cqe, arg) for each:
 * fdbench's uring::submit_and_reap. Returns 0 or -errno. */
static inline int submit_and_reap(struct io_uring* ring, unsigned count,
                                  void (*on_cqe)(const struct io_uring_cqe*, void*), void* arg) {
  do {
    const int ret = io_uring_submit_and_wait(ring, count);
    if (ret < 0 && ret != -EINTR) return ret;
  } while (io_uring_sq_ready(ring) > 0);
  unsigned done = 0;
  while (done < count) {
    struct io_uring_cqe* cqe = NULL;
    const int ret = io_uring_wait_cqe(ring, &cqe);
    if (ret == -EINTR) continue;
    if (ret < 0) return ret;
    unsigned head = 0;
    unsigned seen = 0;
    io_uring_for_each_cqe(ring, head, cqe) {
      on_cqe(cqe, arg);
      ++seen;
    }
    io_uring_cq_advance(ring, seen);
    done += seen;
  }
  return 0;
}

static inline void ignore_cqe(const struct io_uring_cqe* cqe, void* arg) {
  (void)cqe;
  (void)arg;
}

/* Sets up `ring` with `entries` slots on the calling thread; returns 0 or -errno. */
static inline int ring_setup(struct io_uring* ring, unsigned entries) {
  int ret = -EINVAL;
  for (size_t i = 0; i < sizeof kSetupFlags / sizeof kSetupFlags[0] && ret == -EINVAL; ++i) {
    struct io_uring_params params;
    memset(&params, 0, sizeof params);
    params.flags = IORING_SETUP_CLAMP | kSetupFlags[i];
    ret = io_uring_queue_init_params(entries, ring, &params);
  }
  if (ret < 0) return ret;
  if ((ret = io_uring_register_ring_fd(ring)) != 1) {
    io_uring_queue_exit(ring);
    return ret < 0 ? ret : -EBUSY;
  }
  io_uring_prep_nop(io_uring_get_sqe(ring));
  if ((ret = submit_and_reap(ring, 1, ignore_cqe, NULL)) < 0) io_uring_queue_exit(ring);
  return ret;
}

#endif
