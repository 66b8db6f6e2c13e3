/* fdbench_accept_loop THREADS CONNECTIONS PREGROW REPEAT WARMUP
 *
 * The reference for `fdbench accept --strategy threads --threads T --connections N --pregrow
 * off|auto`: a fresh server's first burst done minimally. Each repetition runs in a fresh child
 * forked from a process holding only fds 0-2 (its report pipe as fd 3), so it starts from the
 * kernel's smallest descriptor table. The child listens on 127.0.0.1 at a port the kernel
 * picks (fd 4) with a backlog of N; a grandchild connects all N and holds them, and the child
 * waits until every one is queued (tcp_info's tcpi_unacked on a listener). With PREGROW 1 it
 * first grows its table with one dup2 to the fd fdbench's --pregrow auto picks. Then, as
 * fdbench does, the T-1 other threads are made (untimed), released together with the calling
 * one, and timed from the release to the latest finish (start_line.h): each accepts N/T
 * connections with blocking accept4 and holds them. Prints each timed repetition's
 * nanoseconds on a line. */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fresh_child.h"
#include "start_line.h"

enum { kMaxThreads = 64 };

struct Share {
  int listener;
  int* fds;
  long count;
  int index;               /* the worker's index on the line */
  struct StartLine* line;  /* released together, each stamping its finish */
};

static void accept_all(const struct Share* share) {
  for (long i = 0; i < share->count; ++i) {
    share->fds[i] = accept4(share->listener, NULL, NULL, SOCK_CLOEXEC);
  }
}

static volatile sig_atomic_t never = 0; /* a fresh child dies of Ctrl-C: nothing to clean */

/* A thread besides the calling one: ready, its share once released, then it ends. */
static void* accept_share(void* arg) {
  const struct Share* share = arg;
  uint32_t seen = 0;
  start_line_ready(share->line);
  if (start_line_wait(share->line, &seen)) {
    accept_all(share);
    start_line_finish(share->line, share->index);
  }
  return NULL;
}

struct Settings {
  long threads;
  long connections;
  long pregrow;
};

/* The listener on 127.0.0.1 and where it is; -1 on failure (errno). */
static int listen_loopback(struct sockaddr_in* where, long backlog) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  memset(where, 0, sizeof *where);
  where->sin_family = AF_INET;
  where->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof *where;
  if (bind(fd, (struct sockaddr*)where, sizeof *where) != 0 || listen(fd, (int)backlog) != 0 ||
      getsockname(fd, (struct sockaddr*)where, &size) != 0) {
    return -1;
  }
  return fd;
}

/* The client: connects `n` times and holds them until its parent is gone. */
static pid_t start_client(const struct sockaddr_in* where, long n, int listener) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  close(listener);
  close(kReportFd);
  for (long i = 0; i < n; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (const struct sockaddr*)where, sizeof *where) != 0) _exit(1);
  }
  pause(); /* until SIGKILL */
  _exit(0);
}

/* Waits until `n` connections are queued on `listener` (at most 5 s). */
static void wait_queued(int listener, long n) {
  for (int tries = 0; tries < 50000; ++tries) {
    struct tcp_info info;
    socklen_t size = sizeof info;
    if (getsockopt(listener, IPPROTO_TCP, TCP_INFO, &info, &size) != 0) return;
    if ((long)info.tcpi_unacked >= n) return;
    const struct timespec pause_100us = {0, 100000};
    nanosleep(&pause_100us, NULL);
  }
}

static void child(const void* arg) {
  const struct Settings* s = arg;
  const long threads = s->threads;
  const long total = s->connections;
  struct Report report = {0, 0, 0};
  int* fds = malloc((size_t)total * sizeof *fds);
  struct sockaddr_in where;
  const int listener = listen_loopback(&where, total);
  if (fds == NULL || listener < 0) {
    report.error = fds == NULL ? ENOMEM : errno;
    report_and_exit(&report);
  }
  const pid_t client = start_client(&where, total, listener);
  wait_queued(listener, total);
  if (s->pregrow) { /* --pregrow auto: the report fd, listener, channel, every connection */
    const int highest = kReportFd + 2 + (int)total + 2;
    if (dup2(kReportFd, highest) < 0) {
      report.error = errno;
      report_and_exit(&report);
    }
    close(highest);
  }
  struct StartLine line;
  start_line_init(&line, 0, (int)threads);
  struct Share shares[kMaxThreads];
  pthread_t ids[kMaxThreads];
  for (long t = 0; t < threads; ++t) {
    shares[t].listener = listener;
    shares[t].fds = fds + total * t / threads;
    shares[t].count = total * (t + 1) / threads - total * t / threads;
    shares[t].index = (int)t;
    shares[t].line = &line;
  }
  for (long t = 1; t < threads; ++t) {
    const int err = pthread_create(&ids[t], NULL, accept_share, &shares[t]);
    if (err != 0) {
      report.error = err;
      report_and_exit(&report);
    }
  }
  start_line_await_ready(&line, (uint32_t)threads - 1, &never);
  const int64_t start = start_line_release(&line, (uint32_t)threads - 1);
  accept_all(&shares[0]);
  line.finish_ns[0] = reference_now_ns();
  report.ns = start_line_collect(&line, (int)threads, &never) - start;
  for (long t = 1; t < threads; ++t) pthread_join(ids[t], NULL);
  for (long i = 0; i < total; ++i) {
    if (fds[i] < 0) ++report.failures;
  }
  kill(client, SIGKILL);
  waitpid(client, NULL, 0);
  report_and_exit(&report);
}

int main(int argc, char** argv) {
  const struct HeldArgs args = held_args(argc, argv, "CONNECTIONS", kMaxThreads);
  const struct Settings settings = {args.threads, args.count, args.pregrow};
  return fresh_child_run(child, &settings, args.repeat, args.warmup, "accept4() failed");
}
