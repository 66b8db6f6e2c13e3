/* fdbench_open_loop DIR FILES REPEAT WARMUP [threads|process WORKERS]
 *
 * The reference for `fdbench open --strategy threads|process --threads WORKERS` (threads 1 if
 * not given): the same work with nothing around it. It builds the set fdbench builds (see
 * file_set.h), then times WARMUP + REPEAT passes of openat(dir, name, fdbench's flags) + close
 * over precomputed names and prints each timed pass's nanoseconds on a line of its own.
 *
 * Each worker takes a contiguous 1/WORKERS share of the names, as fdbench splits them, and the
 * workers exist before the first pass: with `threads` the calling thread is worker 0 and
 * WORKERS-1 threads wait; with `process` WORKERS forked processes wait and the parent only
 * releases them. Every pass is timed from the release to the latest finish (start_line.h). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include "file_set.h"
#include "start_line.h"

struct Run {
  const struct FileSet* set;
  long files;
  int workers;
  struct StartLine* line;
  long failures[kMaxWorkers]; /* each worker writes its own */
};

static void open_share(struct Run* run, int w) {
  const long begin = run->files * w / run->workers;
  const long end = run->files * (w + 1) / run->workers;
  long failures = 0;
  for (long i = begin; i < end; ++i) {
    const int fd = openat(run->set->dir, run->set->names[i], kOpenFlags);
    if (fd < 0) {
      ++failures;
    } else {
      close(fd);
    }
  }
  run->failures[w] += failures;
}

struct Worker {
  struct Run* run;
  int index;
};

/* A worker thread or process: one share per release, until the line stops. A process says
 * when it is ready for the next one, as fdbench's process workers do. */
static void* worker_loop(void* arg) {
  const struct Worker* self = arg;
  uint32_t seen = 0;
  for (int first = 1;; first = 0) {
    if (self->run->line->shared || first) start_line_ready(self->run->line);
    if (!start_line_wait(self->run->line, &seen)) break;
    open_share(self->run, self->index);
    start_line_finish(self->run->line, self->index);
  }
  return NULL;
}

/* One pass; with `caller_works` the caller is worker 0 and `waiting` the others. */
static int64_t timed_pass(struct Run* run, int caller_works) {
  const uint32_t waiting = (uint32_t)(caller_works ? run->workers - 1 : run->workers);
  if (!caller_works) start_line_await_ready(run->line, waiting, &stop_signal);
  const int64_t start = start_line_release(run->line, waiting);
  if (caller_works) {
    open_share(run, 0);
    run->line->finish_ns[0] = reference_now_ns();
  }
  return start_line_collect(run->line, run->workers, &stop_signal) - start;
}

/* Starts the threads (signals blocked in them: the calling thread takes Ctrl-C). */
static void start_threads(struct Run* run, pthread_t* ids, struct Worker* workers) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  for (int w = 1; w < run->workers; ++w) {
    workers[w] = (struct Worker){run, w};
    const int err = pthread_create(&ids[w], NULL, worker_loop, &workers[w]);
    if (err != 0) {
      errno = err;
      fail_set((struct FileSet*)run->set, "cannot create a thread");
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Forks the worker processes; each ends when the line stops or its parent dies. */
static void start_processes(struct Run* run, pid_t* pids, struct Worker* workers) {
  for (int w = 0; w < run->workers; ++w) {
    workers[w] = (struct Worker){run, w};
    fflush(NULL);
    pids[w] = fork();
    if (pids[w] < 0) {
      for (int k = 0; k < w; ++k) kill(pids[k], SIGKILL);
      fail_set((struct FileSet*)run->set, "cannot fork a worker");
    }
    if (pids[w] == 0) {
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
#if defined(__linux__)
      prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
      worker_loop(&workers[w]);
      _exit(0);
    }
  }
}

static void usage_error(const char* program, const char* why) {
  fprintf(stderr, "Error: %s (usage: %s DIR FILES REPEAT WARMUP [threads|process WORKERS])\n", why,
          program);
  exit(2);
}

int main(int argc, char** argv) {
  if (argc != 5 && argc != 7) usage_error(argv[0], "expected 4 or 6 arguments");
  const long files = reference_count(argv[2], "FILES", 1, 100000000);
  const long repeat = reference_count(argv[3], "REPEAT", 1, 100000);
  const long warmup = reference_count(argv[4], "WARMUP", 0, 100000);
  int processes = 0;
  int workers = 1;
  if (argc == 7) {
    if (strcmp(argv[5], "process") == 0) {
      processes = 1;
    } else if (strcmp(argv[5], "threads") != 0) {
      usage_error(argv[0], "the strategy must be threads or process");
    }
    workers = (int)reference_count(argv[6], "WORKERS", 1, kMaxWorkers);
  }
  catch_stop_signals();

  struct FileSet set;
  make_set(&set, argv[1], files);
  int64_t* times = calloc((size_t)repeat, sizeof *times);
  /* The line: in a page shared with the worker processes, or in this process for threads. */
  struct StartLine* line =
      mmap(NULL, sizeof *line, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  struct Run* run =
      mmap(NULL, sizeof *run, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (times == NULL || line == MAP_FAILED || run == MAP_FAILED) fail_set(&set, "out of memory");
  start_line_init(line, processes, workers);
  *run = (struct Run){.set = &set, .files = files, .workers = workers, .line = line};
  pthread_t ids[kMaxWorkers];
  pid_t pids[kMaxWorkers];
  struct Worker started[kMaxWorkers];
  if (stop_signal == 0) {
    if (processes) {
      start_processes(run, pids, started);
    } else {
      start_threads(run, ids, started);
      start_line_await_ready(line, (uint32_t)workers - 1, &stop_signal);
    }
  }

  for (long r = 0; r < warmup + repeat && stop_signal == 0; ++r) {
    const int64_t ns = timed_pass(run, !processes);
    if (r >= warmup) times[r - warmup] = ns;
  }
  start_line_stop(line);
  for (int w = 0; w < workers; ++w) {
    if (processes) {
      if (stop_signal != 0) kill(pids[w], SIGKILL); /* one may be mid-share: no waiting */
      while (waitpid(pids[w], NULL, 0) < 0 && errno == EINTR) {
      }
    } else if (w > 0) {
      pthread_join(ids[w], NULL);
    }
  }
  remove_set(&set);
  die_of_stop_signal();
  long failures = 0;
  for (int w = 0; w < workers; ++w) failures += run->failures[w];
  if (failures != 0) {
    fprintf(stderr, "Error: %ld of %ld opens failed\n", failures, files * (warmup + repeat));
    return 1;
  }
  for (long r = 0; r < repeat; ++r) printf("%lld\n", (long long)times[r]);
  return 0;
}
