/* server_pregrow: a program whose threads create many sockets, using fdbench's C API to do
 * what such a program should do at start-up, before it starts any thread:
 *   1. raise the soft RLIMIT_NOFILE to what it will need, and
 *   2. grow the descriptor table once, so that no thread ever waits for it to grow.
 * On Linux each growth of a table shared by threads waits for an RCU grace period
 * (milliseconds), and every thread creating descriptors meanwhile waits with it. Run it
 * with "no-pregrow" as the third argument to see the difference.
 *
 *   server_pregrow [THREADS [SOCKETS_PER_THREAD [no-pregrow]]]      (default: 2 256) */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fdbench/fdbench.h"

typedef struct worker {
  pthread_t thread;
  int count;
  int* fds;
  int failed_errno;
} worker;

static void* create_sockets(void* arg) {
  worker* w = arg;
  for (int i = 0; i < w->count; ++i) {
    w->fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (w->fds[i] < 0 && w->failed_errno == 0) w->failed_errno = errno;
  }
  return NULL;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char* outcome_text(int outcome) {
  switch (outcome) {
    case FDBENCH_PREGROW_GROWN:
      return "grown";
    case FDBENCH_PREGROW_ALREADY_LARGE:
      return "already large enough";
    case FDBENCH_PREGROW_NOT_NEEDED:
      return "not needed on this OS";
    default:
      return "failed";
  }
}

/* Before any thread exists: enough descriptors allowed, and a table that holds them all. */
static int prepare(int total, int pregrow) {
  /* The sockets take the lowest free numbers; 64 covers what the program holds already. */
  const int highest = total + 64;
  fdbench_nofile_result limit;
  int err = fdbench_raise_nofile_limit((size_t)highest + 1, &limit);
  if (err != 0) {
    fprintf(stderr, "server_pregrow: needs %d descriptors, RLIMIT_NOFILE allows %llu: %s\n",
            highest + 1, (unsigned long long)limit.soft_after, strerror(err));
    return err;
  }
  if (!pregrow) return 0;
  fdbench_pregrow_result grown;
  err = fdbench_pregrow_fd_table(highest, &grown);
  printf("pregrow to fd %d: %s (table %d -> %d slots)\n", highest, outcome_text(grown.outcome),
         grown.fdsize_before, grown.fdsize_after);
  if (err != 0) fprintf(stderr, "server_pregrow: pregrow failed: %s\n", strerror(err));
  return err;
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 2;
  const int per_thread = argc > 2 ? atoi(argv[2]) : 256;
  const int pregrow = !(argc > 3 && strcmp(argv[3], "no-pregrow") == 0);
  if (threads < 1 || per_thread < 1) {
    fprintf(stderr, "usage: server_pregrow [THREADS [SOCKETS_PER_THREAD [no-pregrow]]]\n");
    return 2;
  }
  if (prepare(threads * per_thread, pregrow) != 0) return 1;

  worker* workers = calloc((size_t)threads, sizeof *workers);
  int* fds = malloc(sizeof(int) * (size_t)threads * (size_t)per_thread);
  if (workers == NULL || fds == NULL) return 1;
  const double start = now_ms();
  int started = 0;
  for (int t = 0; t < threads; ++t) {
    workers[t] = (worker){.count = per_thread, .fds = fds + (size_t)t * (size_t)per_thread};
    if (pthread_create(&workers[t].thread, NULL, create_sockets, &workers[t]) != 0) break;
    ++started;
  }
  int failed = started == threads ? 0 : EAGAIN;
  for (int t = 0; t < started; ++t) {
    pthread_join(workers[t].thread, NULL);
    if (workers[t].failed_errno != 0) failed = workers[t].failed_errno;
  }
  const double elapsed = now_ms() - start;
  for (int t = 0; t < started; ++t) {
    for (int i = 0; i < per_thread; ++i) {
      if (workers[t].fds[i] >= 0) close(workers[t].fds[i]);
    }
  }
  free(fds);
  free(workers);
  if (failed != 0) {
    fprintf(stderr, "server_pregrow: could not create every socket: %s\n", strerror(failed));
    return 1;
  }
  printf("%d threads x %d sockets: %.2f ms (%s)\n", threads, per_thread, elapsed,
         pregrow ? "table grown first" : "table grown on demand");
  return 0;
}
