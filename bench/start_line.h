/* Workers released together and timed as fdbench's are (src/engine/strategies/worker_group.cpp
 * and process_strategy.cpp): the releaser reads the clock, lets every waiting worker go with
 * one futex wake, each worker stamps its own finish, the last one to finish wakes the
 * releaser, and the repetition is the latest finish stamp minus the start. Process workers
 * also say when they are ready, and the releaser waits for all of them before it reads the
 * clock, as fdbench's process strategy does (its threads have no such step). The same line
 * serves threads (private futexes) and forked processes (the line in a MAP_SHARED page,
 * shared futexes, as fdbench's process workers wait). Elsewhere than Linux the waits poll. */
#ifndef FDBENCH_BENCH_START_LINE_H
#define FDBENCH_BENCH_START_LINE_H

#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

#include "reference.h"

enum { kMaxWorkers = 64 };

struct StartLine {
  _Atomic uint32_t epoch;   /* moves on once per release */
  _Atomic uint32_t pending; /* workers released and not finished yet */
  _Atomic uint32_t ready;   /* workers waiting for the next release (processes) */
  _Atomic int stopped;      /* waiting workers give up instead of working */
  int shared;               /* between processes: shared futexes */
  int64_t spin_ns;          /* how long a waiter watches its word before it sleeps */
  int64_t finish_ns[kMaxWorkers];
};

/* `workers`: how many will wait on the line. Processes watch their word 50 µs before they
 * sleep, as fdbench's process workers do; threads 200 µs where each has a CPU of its own (of
 * those the process may run on) and not at all where they outnumber them, as fdbench's
 * WorkerGroup does. */
static inline void start_line_init(struct StartLine* line, int shared, int workers) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
#if defined(__linux__) && defined(CPU_COUNT)
  cpu_set_t allowed; /* the CPUs this process may run on, as fdbench counts them */
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) cpus = CPU_COUNT(&allowed);
#endif
  line->spin_ns = shared ? 50000 : workers <= (cpus > 0 ? cpus : 1) ? 200000 : 0;
  atomic_init(&line->epoch, 0);
  atomic_init(&line->pending, 0);
  atomic_init(&line->ready, 0);
  atomic_init(&line->stopped, 0);
  line->shared = shared;
}

#if defined(__linux__)
static inline void futex_call(const struct StartLine* line, _Atomic uint32_t* word, int op,
                              uint32_t value) {
  syscall(SYS_futex, (uint32_t*)word, line->shared ? op : op | FUTEX_PRIVATE_FLAG, value, NULL,
          NULL, 0);
}
#endif

/* Waits (EINTR and spurious wake-ups included) while *word is `seen`, or until `give_up` is
 * set when it is given; spins `spin_ns` first. */
static inline void start_line_wait_while(const struct StartLine* line, _Atomic uint32_t* word,
                                         uint32_t seen, volatile sig_atomic_t* give_up,
                                         int64_t spin_ns) {
  const int64_t spin_until = spin_ns > 0 ? reference_now_ns() + spin_ns : 0;
  while (atomic_load(word) == seen && (give_up == NULL || *give_up == 0)) {
    if (reference_now_ns() < spin_until) continue;
#if defined(__linux__)
    futex_call(line, word, FUTEX_WAIT, seen);
#else
    (void)line;
    sched_yield();
#endif
  }
}

/* In the releaser: `waiting` workers go; returns the start of the repetition. */
static inline int64_t start_line_release(struct StartLine* line, uint32_t waiting) {
  atomic_store(&line->pending, waiting);
  const int64_t start = reference_now_ns();
  if (waiting == 0) return start; /* alone: no futex on the clock, as fdbench */
  atomic_fetch_add(&line->epoch, 1);
#if defined(__linux__)
  futex_call(line, &line->epoch, FUTEX_WAKE, INT32_MAX);
#endif
  return start;
}

/* In a worker: waits for the release after `*seen`; 0 once start_line_stop() was called.
 * It watches the epoch line->spin_ns before it sleeps (start_line_init()). */
static inline int start_line_wait(struct StartLine* line, uint32_t* seen) {
  while (atomic_load(&line->epoch) == *seen) {
    if (atomic_load(&line->stopped)) return 0;
    start_line_wait_while(line, &line->epoch, *seen, NULL, line->spin_ns);
  }
  *seen = atomic_load(&line->epoch);
  return !atomic_load(&line->stopped);
}

/* In a process worker, just before each start_line_wait(); in a thread, once, before its first:
 * the releaser then knows every worker has run (start_line_await_ready()), so that a new
 * thread's first scheduling is not on the clock, as fdbench's WorkerGroup has it. */
static inline void start_line_ready(struct StartLine* line) {
  atomic_fetch_add(&line->ready, 1);
#if defined(__linux__)
  futex_call(line, &line->ready, FUTEX_WAKE, 1);
#endif
}

/* In the releaser, before start_line_release(): waits until `workers` are ready (or for
 * `give_up`), then counts afresh for the next release. */
static inline void start_line_await_ready(struct StartLine* line, uint32_t workers,
                                          volatile sig_atomic_t* give_up) {
  for (uint32_t now = atomic_load(&line->ready); now < workers && *give_up == 0;
       now = atomic_load(&line->ready)) {
    start_line_wait_while(line, &line->ready, now, give_up, line->spin_ns);
  }
  atomic_store(&line->ready, 0);
}

/* In a worker, once its share is done. */
static inline void start_line_finish(struct StartLine* line, int worker) {
  line->finish_ns[worker] = reference_now_ns();
  if (atomic_fetch_sub(&line->pending, 1) == 1) {
#if defined(__linux__)
    futex_call(line, &line->pending, FUTEX_WAKE, 1);
#endif
  }
}

/* In the releaser: waits for every released worker (or for `give_up`); returns the latest of
 * the `workers` finish stamps. */
static inline int64_t start_line_collect(struct StartLine* line, int workers,
                                         volatile sig_atomic_t* give_up) {
  for (uint32_t left = atomic_load(&line->pending); left != 0 && *give_up == 0;
       left = atomic_load(&line->pending)) {
    start_line_wait_while(line, &line->pending, left, give_up, 0);
  }
  int64_t end = 0;
  for (int w = 0; w < workers; ++w) end = line->finish_ns[w] > end ? line->finish_ns[w] : end;
  return end;
}

/* Every waiting worker gives up. */
static inline void start_line_stop(struct StartLine* line) {
  atomic_store(&line->stopped, 1);
  atomic_fetch_add(&line->epoch, 1);
#if defined(__linux__)
  futex_call(line, &line->epoch, FUTEX_WAKE, INT32_MAX);
#endif
}

#endif
