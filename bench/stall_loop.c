/* fdbench_stall_loop THREADS PER_THREAD PREGROW REPEAT WARMUP
 *
 * The reference for `fdbench socket --strategy threads --threads T --per-thread N --pregrow
 * off|auto`: the second seed's experiment done minimally. Each repetition runs in a fresh child
 * forked from a process holding only fds 0-2, so it starts from the kernel's smallest
 * descriptor table (64 slots); the child holds its report pipe as fd 3, as fdbench's does.
 * With PREGROW 1 it first grows the table with one dup2 to the fd fdbench's --pregrow auto
 * picks. The clock starts before the first pthread_create and stops after the last
 * pthread_join, as the seed's program has it: the calling thread is one of the T, and each
 * creates PER_THREAD TCP sockets and holds them. The sockets are closed after the clock.
 * Prints each timed repetition's nanoseconds on a line. */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fresh_child.h"

enum { kMaxThreads = 64 };

struct Share {
  int* fds;
  long count;
};

static void* create_sockets(void* arg) {
  const struct Share* share = arg;
  for (long i = 0; i < share->count; ++i) {
    share->fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  }
  return NULL;
}

struct Settings {
  long threads;
  long per_thread;
  long pregrow;
};

static void child(const void* arg) {
  const struct Settings* s = arg;
  const long threads = s->threads;
  const long per_thread = s->per_thread;
  const long pregrow = s->pregrow;
  struct Report report = {0, 0, 0};
  const long total = threads * per_thread;
  int* fds = malloc((size_t)total * sizeof *fds);
  if (fds == NULL) {
    report.error = ENOMEM;
    report_and_exit(&report);
  }
  memset(fds, -1, (size_t)total * sizeof *fds);
  if (pregrow) { /* --pregrow auto: the report fd, every socket, and FDSize reads */
    const int highest = kReportFd + (int)total + 2;
    if (dup2(kReportFd, highest) < 0) {
      report.error = errno;
      report_and_exit(&report);
    }
    close(highest);
  }
  struct Share shares[kMaxThreads];
  pthread_t ids[kMaxThreads];
  for (long t = 0; t < threads; ++t) {
    shares[t].fds = fds + t * per_thread;
    shares[t].count = per_thread;
  }

  const int64_t start = reference_now_ns();
  for (long t = 1; t < threads; ++t) {
    const int err = pthread_create(&ids[t], NULL, create_sockets, &shares[t]);
    if (err != 0) {
      report.error = err;
      report_and_exit(&report);
    }
  }
  create_sockets(&shares[0]);
  for (long t = 1; t < threads; ++t) pthread_join(ids[t], NULL);
  report.ns = reference_now_ns() - start;

  for (long i = 0; i < total; ++i) {
    if (fds[i] < 0) {
      ++report.failures;
    } else {
      close(fds[i]);
    }
  }
  report_and_exit(&report);
}

int main(int argc, char** argv) {
  const struct HeldArgs args = held_args(argc, argv, "PER_THREAD", kMaxThreads);
  const struct Settings settings = {args.threads, args.count, args.pregrow};
  return fresh_child_run(child, &settings, args.repeat, args.warmup, "socket() failed");
}
