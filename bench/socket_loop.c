/* fdbench_socket_loop threads|process|uring-direct WORKERS PER_WORKER PREGROW REPEAT WARMUP
 *
 * The reference for `fdbench socket --strategy S --threads WORKERS --per-thread PER_WORKER
 * --pregrow off|auto` (PREGROW 0 or 1): the same work with nothing around it. Each repetition
 * runs in a fresh child forked from a process holding only fds 0-2, so it starts from the
 * kernel's smallest descriptor table (64 slots); the child holds its report pipe as fd 3, as
 * fdbench's does. With PREGROW 1 it first grows the table with one dup2 to the fd fdbench's
 * --pregrow auto picks. Then, as fdbench does, the workers are made (untimed), released
 * together, and timed from the release to the latest finish (start_line.h); each creates a
 * contiguous share of WORKERS x PER_WORKER TCP sockets and holds them:
 *   threads: the calling thread is worker 0; each other thread ends with its share (fdbench's
 *     one-run worker group), so the table is shared only while more than one thread works.
 *   process: WORKERS forked processes, each its own table, grown as its parent's was (fdbench
 *     forks them so); the parent waits until each says it is ready, then only releases them.
 *   uring-direct: threads, each with its own ring (ring.h) and a sparse table of a slot per
 *     socket of its share; IORING_OP_SOCKET into explicit slots, 64 a submission. The process
 *     table never grows for them.
 * Everything is closed after the clock. Prints each timed repetition's nanoseconds on a line.
 * This is the same work as fdbench's, not the seed's program: stall_loop.c is that. */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fresh_child.h"
#include "start_line.h"
#if !defined(FDBENCH_BENCH_URING)
#define FDBENCH_BENCH_URING 0 /* CMake sets it to 1 where liburing is found */
#endif
#if FDBENCH_BENCH_URING
#include "ring.h"
#endif

#if !defined(SOCK_CLOEXEC)
#define SOCK_CLOEXEC 0 /* macOS: nothing here ever execs */
#endif

enum Strategy { kThreads, kProcess, kUringDirect };
enum { kBatch = 64 };

struct Settings {
  enum Strategy strategy;
  int workers;
  long per_worker;
  int pregrow;
};

/* What one repetition's workers share: in a MAP_SHARED page (process workers write into it). */
struct Run {
  struct StartLine line;
  const struct Settings* settings;
  int* fds; /* threads and process: one per socket, -1 where none */
  long failures[kMaxWorkers];
  int error[kMaxWorkers]; /* errno of a failed set-up, submit or wait */
  pthread_barrier_t set_up;
};

static long share_begin(const struct Run* run, int w) {
  return run->settings->per_worker * run->settings->workers * w / run->settings->workers;
}

static void create_share(struct Run* run, int w) {
  const long end = share_begin(run, w + 1);
  for (long i = share_begin(run, w); i < end; ++i) {
    run->fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  }
}

/* --pregrow auto: the report fd, every socket, and FDSize reads. */
static int grow_table(const struct Settings* s) {
  const int highest = kReportFd + (int)(s->workers * s->per_worker) + 2;
  if (dup2(kReportFd, highest) < 0) return errno;
  close(highest);
  return 0;
}

struct Worker {
  struct Run* run;
  int index;
};

/* A thread of `threads`: one share, then it ends. */
static void* socket_thread(void* arg) {
  const struct Worker* self = arg;
  uint32_t seen = 0;
  start_line_ready(&self->run->line);
  if (start_line_wait(&self->run->line, &seen)) {
    create_share(self->run, self->index);
    start_line_finish(&self->run->line, self->index);
  }
  return NULL;
}

static volatile sig_atomic_t never = 0; /* a fresh child dies of Ctrl-C: nothing to clean */

#if FDBENCH_BENCH_URING
static void count_failure(const struct io_uring_cqe* cqe, void* arg) {
  if (cqe->res < 0) ++*(long*)arg;
}

/* A ring of `uring-direct` worker w with a slot per socket of its share, on its own thread,
 * untimed; errno or 0 (no ring is left set up then). */
static int set_up_ring(struct Run* run, int w, struct io_uring* ring) {
  const long slots = share_begin(run, w + 1) - share_begin(run, w);
  const int ret = ring_setup(ring, kBatch);
  if (ret < 0) return -ret;
  const int registered = io_uring_register_files_sparse(ring, slots > 0 ? (unsigned)slots : 1);
  if (registered < 0) io_uring_queue_exit(ring);
  return registered < 0 ? -registered : 0;
}

/* Unregistering the table closes the sockets its slots hold. */
static void tear_down_ring(struct io_uring* ring) {
  io_uring_unregister_files(ring);
  io_uring_queue_exit(ring);
}

static void direct_share(struct Run* run, int w, struct io_uring* ring) {
  const long begin = share_begin(run, w);
  const long end = share_begin(run, w + 1);
  for (long first = begin; first < end && run->error[w] == 0; first += kBatch) {
    const unsigned count = (unsigned)(end - first < kBatch ? end - first : kBatch);
    for (unsigned k = 0; k < count; ++k) {
      struct io_uring_sqe* sqe = io_uring_get_sqe(ring);
      const unsigned slot = (unsigned)(first - begin) + k;
      io_uring_prep_socket_direct(sqe, AF_INET, SOCK_STREAM, 0, slot, 0); /* no CLOEXEC: EINVAL */
      io_uring_sqe_set_data64(sqe, slot);
    }
    run->error[w] = -submit_and_reap(ring, count, count_failure, &run->failures[w]);
  }
}

/* A thread of `uring-direct`: set up, one share when released, tear down when released again. */
static void* direct_thread(void* arg) {
  const struct Worker* self = arg;
  struct Run* run = self->run;
  const int w = self->index;
  struct io_uring ring;
  const int ready = (run->error[w] = set_up_ring(run, w, &ring)) == 0;
  pthread_barrier_wait(&run->set_up);
  uint32_t seen = 0;
  if (start_line_wait(&run->line, &seen)) {
    if (ready) direct_share(run, w, &ring);
    start_line_finish(&run->line, w);
    if (start_line_wait(&run->line, &seen)) start_line_finish(&run->line, w);
  }
  if (ready) tear_down_ring(&ring);
  return NULL;
}

/* The calling thread as worker 0 of `uring-direct`; returns the repetition's nanoseconds. */
static int64_t direct_repetition(struct Run* run) {
  const int workers = run->settings->workers;
  struct io_uring ring;
  const int ready = (run->error[0] = set_up_ring(run, 0, &ring)) == 0;
  pthread_barrier_wait(&run->set_up);
  const int64_t start = start_line_release(&run->line, (uint32_t)workers - 1);
  if (ready) direct_share(run, 0, &ring);
  run->line.finish_ns[0] = reference_now_ns();
  const int64_t ns = start_line_collect(&run->line, workers, &never) - start;
  start_line_release(&run->line, (uint32_t)workers - 1); /* untimed: the others tear down */
  if (ready) tear_down_ring(&ring);
  return ns;
}
#endif

/* threads and uring-direct: returns the repetition's nanoseconds. */
static int64_t thread_repetition(struct Run* run) {
  const int workers = run->settings->workers;
  const int direct = run->settings->strategy == kUringDirect;
  pthread_t ids[kMaxWorkers];
  struct Worker started[kMaxWorkers];
  pthread_barrier_init(&run->set_up, NULL, (unsigned)workers);
  for (int w = 1; w < workers; ++w) {
    started[w] = (struct Worker){run, w};
#if FDBENCH_BENCH_URING
    void* (*body)(void*) = direct ? direct_thread : socket_thread;
#else
    void* (*body)(void*) = socket_thread;
#endif
    const int err = pthread_create(&ids[w], NULL, body, &started[w]);
    if (err != 0) {
      run->error[0] = err;
      start_line_stop(&run->line);
      for (int k = 1; k < w; ++k) pthread_join(ids[k], NULL);
      return 0;
    }
  }
  int64_t ns = 0;
#if FDBENCH_BENCH_URING
  if (direct) ns = direct_repetition(run);
#endif
  if (!direct) {
    start_line_await_ready(&run->line, (uint32_t)workers - 1, &never);
    const int64_t start = start_line_release(&run->line, (uint32_t)workers - 1);
    create_share(run, 0);
    run->line.finish_ns[0] = reference_now_ns();
    ns = start_line_collect(&run->line, workers, &never) - start;
  }
  for (int w = 1; w < workers; ++w) pthread_join(ids[w], NULL);
  return ns;
}

/* process: returns the repetition's nanoseconds. */
static int64_t process_repetition(struct Run* run) {
  const struct Settings* s = run->settings;
  pid_t pids[kMaxWorkers];
  for (int w = 0; w < s->workers; ++w) {
    pids[w] = fork();
    if (pids[w] < 0) {
      run->error[0] = errno;
      start_line_stop(&run->line);
      for (int k = 0; k < w; ++k) waitpid(pids[k], NULL, 0);
      return 0;
    }
    if (pids[w] == 0) {
      /* fdbench grows a process worker's table to its parent's size: here one dup2 does */
      if (s->pregrow) run->error[w] = grow_table(s);
      const long begin = share_begin(run, w);
      memset(run->fds + begin, -1, (size_t)(share_begin(run, w + 1) - begin) * sizeof(int));
      uint32_t seen = 0;
      start_line_ready(&run->line);
      if (start_line_wait(&run->line, &seen)) {
        create_share(run, w);
        start_line_finish(&run->line, w);
      }
      _exit(0); /* closes the share's sockets */
    }
  }
  start_line_await_ready(&run->line, (uint32_t)s->workers, &never);
  const int64_t start = start_line_release(&run->line, (uint32_t)s->workers);
  const int64_t ns = start_line_collect(&run->line, s->workers, &never) - start;
  for (int w = 0; w < s->workers; ++w) {
    while (waitpid(pids[w], NULL, 0) < 0 && errno == EINTR) {
    }
  }
  return ns;
}

static void child(const void* arg) {
  const struct Settings* s = arg;
  struct Report report = {0, 0, 0};
  const long total = s->workers * s->per_worker;
  struct Run* run =
      mmap(NULL, sizeof *run, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  int* fds = mmap(NULL, (size_t)total * sizeof *fds, PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (run == MAP_FAILED || fds == MAP_FAILED) {
    report.error = ENOMEM;
    report_and_exit(&report);
  }
  memset(fds, -1, (size_t)total * sizeof *fds);
  run->settings = s;
  run->fds = fds;
  start_line_init(&run->line, s->strategy == kProcess, s->workers);
  if (s->pregrow && (report.error = grow_table(s)) != 0) report_and_exit(&report);

  report.ns = s->strategy == kProcess ? process_repetition(run) : thread_repetition(run);

  for (int w = 0; w < s->workers && report.error == 0; ++w) {
    report.error = run->error[w];
    report.failures += run->failures[w];
  }
  if (s->strategy != kUringDirect) {
    for (long i = 0; i < total; ++i) {
      if (fds[i] < 0) {
        ++report.failures;
      } else if (s->strategy == kThreads) {
        close(fds[i]); /* a process worker's ended with it */
      }
    }
  }
  report_and_exit(&report);
}

static void usage_error(const char* program, const char* why) {
  fprintf(stderr,
          "Error: %s (usage: %s threads|process|uring-direct WORKERS PER_WORKER PREGROW REPEAT "
          "WARMUP)\n",
          why, program);
  exit(2);
}

int main(int argc, char** argv) {
  if (argc != 7) usage_error(argv[0], "expected 6 arguments");
  struct Settings settings;
  if (strcmp(argv[1], "threads") == 0) {
    settings.strategy = kThreads;
  } else if (strcmp(argv[1], "process") == 0) {
    settings.strategy = kProcess;
  } else if (strcmp(argv[1], "uring-direct") == 0 && FDBENCH_BENCH_URING) {
    settings.strategy = kUringDirect;
  } else {
    usage_error(argv[0], FDBENCH_BENCH_URING
                             ? "the strategy must be threads, process or uring-direct"
                             : "the strategy must be threads or process (built without liburing)");
  }
  settings.workers = (int)reference_count(argv[2], "WORKERS", 1, kMaxWorkers);
  settings.per_worker = reference_count(argv[3], "PER_WORKER", 1, 100000);
  settings.pregrow = (int)reference_count(argv[4], "PREGROW", 0, 1);
  const long repeat = reference_count(argv[5], "REPEAT", 1, 100000);
  const long warmup = reference_count(argv[6], "WARMUP", 0, 100000);
  /* Every socket of the repetition, the report fd and the pre-grown slot must fit under the
   * soft limit: raise it to the hard one when they do not, as fdbench does. */
  struct rlimit limit;
  const rlim_t needed = (rlim_t)(settings.workers * settings.per_worker) + 8;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < needed) {
    limit.rlim_cur = limit.rlim_max < needed ? limit.rlim_max : needed;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur < needed) {
      fprintf(stderr, "Error: %ld sockets need RLIMIT_NOFILE >= %lu (ulimit -n)\n",
              (long)(settings.workers * settings.per_worker), (unsigned long)needed);
      return 1;
    }
  }
  return fresh_child_run(child, &settings, repeat, warmup, "socket() failed");
}
