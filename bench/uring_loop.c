/* fdbench_uring_loop DIR FILES REPEAT WARMUP THREADS normal|direct-linked|direct-batched
 *
 * The reference for `fdbench open --strategy uring` (normal) and `--strategy uring-direct`
 * with `--uring-close linked` or `batched`, at `--threads THREADS`: the same work with nothing
 * around it, on the set fdbench builds (file_set.h). Prints each timed pass's nanoseconds on a
 * line of its own.
 *
 * As fdbench does (src/engine/strategies/uring_strategy.cpp, uring_direct_strategy.cpp): each
 * worker (the calling thread and THREADS-1 others, made before the first pass) sets up its own
 * ring on its own thread (ring.h), a contiguous 1/THREADS share of the names, 64 files a
 * submission.
 *   normal: a ring of 64; 64 OPENATs reaped together, then one CLOSE per descriptor returned.
 *   direct-linked: a ring of 128 and a sparse table of 64 slots; 64 pairs in one submission,
 *     each OPENAT into a slot with a CLOSE of that slot linked behind it.
 *   direct-batched: a ring of 64 and 64 slots; 64 OPENATs into slots, then the CLOSEs of the
 *     slots that opened.
 * A direct open may not carry O_CLOEXEC (the kernel refuses it), so it is dropped there. */
#define _GNU_SOURCE
#include <pthread.h>

#include "file_set.h"
#include "ring.h"
#include "start_line.h"

enum { kBatch = 64 };
enum Mode { kNormal, kDirectLinked, kDirectBatched };
static const uint64_t kCloseBit = (uint64_t)1 << 32;

struct Run;

struct Worker {
  _Alignas(64) struct Run* run;
  int index;
  struct io_uring ring;
  int ready; /* ring set up */
  int error; /* -errno of a failed set-up, submit or wait */
  long failures;
  int fds[kBatch];         /* normal: this batch's descriptors, -1 where none */
  unsigned opened[kBatch]; /* direct-batched: the slots that opened */
  unsigned count;
};

struct Run {
  const struct FileSet* set;
  long files;
  int threads;
  enum Mode mode;
  struct StartLine line;
  pthread_barrier_t set_up; /* every ring exists */
  struct Worker workers[kMaxWorkers];
};

static void count_failure(const struct io_uring_cqe* cqe, void* arg) {
  struct Worker* w = arg;
  const int cancelled_close = (cqe->user_data & kCloseBit) != 0 && cqe->res == -ECANCELED;
  if (cqe->res < 0 && !cancelled_close) ++w->failures;
}

static void keep_fd(const struct io_uring_cqe* cqe, void* arg) {
  struct Worker* w = arg;
  if (cqe->res < 0) {
    ++w->failures;
  } else {
    w->fds[cqe->user_data] = cqe->res;
  }
}

static void keep_slot(const struct io_uring_cqe* cqe, void* arg) {
  struct Worker* w = arg;
  if (cqe->res < 0) {
    ++w->failures;
  } else {
    w->opened[w->count++] = (unsigned)cqe->user_data;
  }
}

/* Names [first, first+count) of the set, 64 at most. */
static void normal_batch(struct Worker* w, long first, unsigned count) {
  const struct FileSet* set = w->run->set;
  for (unsigned k = 0; k < count; ++k) {
    struct io_uring_sqe* sqe = io_uring_get_sqe(&w->ring);
    io_uring_prep_openat(sqe, set->dir, set->names[first + k], kOpenFlags, 0);
    io_uring_sqe_set_data64(sqe, k);
    w->fds[k] = -1;
  }
  if ((w->error = submit_and_reap(&w->ring, count, keep_fd, w)) != 0) return;
  unsigned closes = 0;
  for (unsigned k = 0; k < count; ++k) {
    if (w->fds[k] < 0) continue;
    io_uring_prep_close(io_uring_get_sqe(&w->ring), w->fds[k]);
    ++closes;
  }
  if (closes != 0) w->error = submit_and_reap(&w->ring, closes, count_failure, w);
}

static void linked_batch(struct Worker* w, long first, unsigned count) {
  const struct FileSet* set = w->run->set;
  for (unsigned slot = 0; slot < count; ++slot) {
    struct io_uring_sqe* open = io_uring_get_sqe(&w->ring);
    io_uring_prep_openat_direct(open, set->dir, set->names[first + slot], kOpenFlags & ~O_CLOEXEC,
                                0, slot);
    io_uring_sqe_set_flags(open, IOSQE_IO_LINK);
    io_uring_sqe_set_data64(open, slot);
    struct io_uring_sqe* close = io_uring_get_sqe(&w->ring);
    io_uring_prep_close_direct(close, slot);
    io_uring_sqe_set_data64(close, kCloseBit);
  }
  w->error = submit_and_reap(&w->ring, 2 * count, count_failure, w);
}

static void batched_batch(struct Worker* w, long first, unsigned count) {
  const struct FileSet* set = w->run->set;
  for (unsigned slot = 0; slot < count; ++slot) {
    struct io_uring_sqe* sqe = io_uring_get_sqe(&w->ring);
    io_uring_prep_openat_direct(sqe, set->dir, set->names[first + slot], kOpenFlags & ~O_CLOEXEC, 0,
                                slot);
    io_uring_sqe_set_data64(sqe, slot);
  }
  w->count = 0;
  if ((w->error = submit_and_reap(&w->ring, count, keep_slot, w)) != 0 || w->count == 0) return;
  for (unsigned k = 0; k < w->count; ++k) {
    struct io_uring_sqe* close = io_uring_get_sqe(&w->ring);
    io_uring_prep_close_direct(close, w->opened[k]);
    io_uring_sqe_set_data64(close, kCloseBit);
  }
  w->error = submit_and_reap(&w->ring, w->count, count_failure, w);
}

static void run_share(struct Worker* w) {
  const struct Run* run = w->run;
  const long begin = run->files * w->index / run->threads;
  const long end = run->files * (w->index + 1) / run->threads;
  for (long first = begin; first < end && w->error == 0; first += kBatch) {
    const unsigned count = (unsigned)(end - first < kBatch ? end - first : kBatch);
    if (run->mode == kNormal) {
      normal_batch(w, first, count);
    } else if (run->mode == kDirectLinked) {
      linked_batch(w, first, count);
    } else {
      batched_batch(w, first, count);
    }
  }
}

/* On the worker's own thread, untimed: its ring, and for direct descriptors 64 slots. */
static void set_up(struct Worker* w) {
  const unsigned entries = w->run->mode == kDirectLinked ? 2 * kBatch : kBatch;
  if ((w->error = ring_setup(&w->ring, entries)) != 0) return;
  w->ready = 1;
  if (w->run->mode != kNormal) w->error = io_uring_register_files_sparse(&w->ring, kBatch);
}

static void tear_down(struct Worker* w) {
  if (!w->ready) return;
  if (w->run->mode != kNormal) io_uring_unregister_files(&w->ring);
  io_uring_queue_exit(&w->ring);
}

static void* worker_thread(void* arg) {
  struct Worker* w = arg;
  set_up(w);
  pthread_barrier_wait(&w->run->set_up);
  uint32_t seen = 0;
  while (start_line_wait(&w->run->line, &seen)) {
    run_share(w);
    start_line_finish(&w->run->line, w->index);
  }
  tear_down(w);
  return NULL;
}

static int64_t timed_pass(struct Run* run) {
  const int64_t start = start_line_release(&run->line, (uint32_t)run->threads - 1);
  run_share(&run->workers[0]);
  run->line.finish_ns[0] = reference_now_ns();
  return start_line_collect(&run->line, run->threads, &stop_signal) - start;
}

static void usage_error(const char* program, const char* why) {
  fprintf(stderr,
          "Error: %s (usage: %s DIR FILES REPEAT WARMUP THREADS "
          "normal|direct-linked|direct-batched)\n",
          why, program);
  exit(2);
}

static enum Mode parse_mode(const char* program, const char* text) {
  if (strcmp(text, "normal") == 0) return kNormal;
  if (strcmp(text, "direct-linked") == 0) return kDirectLinked;
  if (strcmp(text, "direct-batched") == 0) return kDirectBatched;
  usage_error(program, "the mode must be normal, direct-linked or direct-batched");
  return kNormal;
}

static struct Run run_state;

int main(int argc, char** argv) {
  if (argc != 7) usage_error(argv[0], "expected 6 arguments");
  const long files = reference_count(argv[2], "FILES", 1, 100000000);
  const long repeat = reference_count(argv[3], "REPEAT", 1, 100000);
  const long warmup = reference_count(argv[4], "WARMUP", 0, 100000);
  const int threads = (int)reference_count(argv[5], "THREADS", 1, kMaxWorkers);
  const enum Mode mode = parse_mode(argv[0], argv[6]);
  catch_stop_signals();

  struct FileSet set;
  make_set(&set, argv[1], files);
  int64_t* times = calloc((size_t)repeat, sizeof *times);
  if (times == NULL) fail_set(&set, "out of memory");
  struct Run* run = &run_state;
  run->set = &set;
  run->files = files;
  run->threads = threads;
  run->mode = mode;
  start_line_init(&run->line, 0, threads);
  pthread_barrier_init(&run->set_up, NULL, (unsigned)threads);
  pthread_t ids[kMaxWorkers];
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* the calling thread takes Ctrl-C */
  for (int w = 0; w < threads; ++w) {
    run->workers[w].run = run;
    run->workers[w].index = w;
    if (w == 0) continue;
    const int err = pthread_create(&ids[w], NULL, worker_thread, &run->workers[w]);
    if (err != 0) {
      errno = err;
      fail_set(&set, "cannot create a thread");
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  set_up(&run->workers[0]);
  pthread_barrier_wait(&run->set_up);
  int error = 0;
  for (int w = 0; w < threads; ++w) error = error != 0 ? error : run->workers[w].error;

  for (long r = 0; r < warmup + repeat && stop_signal == 0 && error == 0; ++r) {
    const int64_t ns = timed_pass(run);
    if (r >= warmup) times[r - warmup] = ns;
    for (int w = 0; w < threads; ++w) error = error != 0 ? error : run->workers[w].error;
  }
  start_line_stop(&run->line);
  for (int w = 1; w < threads; ++w) pthread_join(ids[w], NULL);
  tear_down(&run->workers[0]);
  remove_set(&set);
  die_of_stop_signal();
  if (error != 0) {
    fprintf(stderr, "Error: io_uring (%s): %s\n", argv[6], strerror(-error));
    return 1;
  }
  long failures = 0;
  for (int w = 0; w < threads; ++w) failures += run->workers[w].failures;
  if (failures != 0) {
    fprintf(stderr, "Error: %ld of %ld opens or closes failed\n", failures,
            files * (warmup + repeat));
    return 1;
  }
  for (long r = 0; r < repeat; ++r) printf("%lld\n", (long long)times[r]);
  return 0;
}
