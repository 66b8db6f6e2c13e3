/* What the fresh-child reference loops share: each repetition in a child forked from a process
 * holding only fds 0-2 (so the child starts from the kernel's smallest descriptor table), the
 * child's report pipe as fd 3 as fdbench's child has it, one fixed-size report back. Nothing
 * here runs inside a timed loop. */
#ifndef FDBENCH_BENCH_FRESH_CHILD_H
#define FDBENCH_BENCH_FRESH_CHILD_H

#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

#include "reference.h"

enum { kReportFd = 3 };

struct Report {
  int64_t ns;
  long failures;
  int error; /* errno of a failed set-up step, 0 if none */
};

/* Before each fork: waits for one RCU grace period (membarrier(MEMBARRIER_CMD_GLOBAL) is the
 * kernel's synchronize_rcu()), as fdbench does before a fresh child whose workload holds its
 * descriptors (platform::settle_rcu()). The previous repetition's child closed its sockets as
 * it ended, and a grace period under way for that shortens or lengthens this repetition's
 * first table growth's own; after it, the repetition starts from RCU at rest, as a program
 * run alone does. */
static inline void settle_rcu(void) {
#if defined(__linux__) && defined(SYS_membarrier)
  syscall(SYS_membarrier, 1 /* MEMBARRIER_CMD_GLOBAL */, 0, 0);
#endif
}

/* In the child: sends `report` to the parent and ends the child. */
static inline void report_and_exit(const struct Report* report) {
  const ssize_t written = write(kReportFd, report, sizeof *report);
  _exit(written == (ssize_t)sizeof *report ? 0 : 1);
}

/* One repetition: `child(arg)` runs in a fresh child holding fds 0-2 and kReportFd, and ends
 * with report_and_exit(). Exits with a one-line error if it could not run or `what` failed. */
static inline struct Report fresh_child_repetition(void (*child)(const void*), const void* arg,
                                                   const char* what) {
  int fds[2];
  if (pipe(fds) != 0) {
    fprintf(stderr, "Error: cannot create a pipe: %s\n", strerror(errno));
    exit(1);
  }
  const pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "Error: cannot fork: %s\n", strerror(errno));
    exit(1);
  }
  if (pid == 0) {
    close(fds[0]);
    if (fds[1] != kReportFd) {
      dup2(fds[1], kReportFd);
      close(fds[1]);
    }
    child(arg);
    _exit(1); /* a child that did not report */
  }
  close(fds[1]);
  struct Report report = {0, 0, -1};
  ssize_t got = 0;
  while ((got = read(fds[0], &report, sizeof report)) < 0 && errno == EINTR) {
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (got != (ssize_t)sizeof report || report.error != 0 || report.failures != 0) {
    fprintf(stderr, "Error: a repetition failed: %s\n",
            got != (ssize_t)sizeof report ? "the child did not report"
            : report.error != 0           ? strerror(report.error)
                                          : what);
    exit(1);
  }
  return report;
}

/* Hold nothing but 0-2, so every child forked from here gets the smallest table. */
static inline void close_inherited(void) {
#if defined(__linux__)
  if (close_range(3, ~0U, 0) == 0) return;
#endif
  for (int fd = 3; fd < getdtablesize(); ++fd) close(fd);
}

/* The whole run: fds 3 and up closed, then WARMUP + REPEAT repetitions, each in a fresh child
 * after a grace period; each timed one's nanoseconds printed on a line of its own. */
static inline int fresh_child_run(void (*child)(const void*), const void* arg, long repeat,
                                  long warmup, const char* what) {
  close_inherited();
  for (long r = 0; r < warmup + repeat; ++r) {
    settle_rcu();
    const struct Report report = fresh_child_repetition(child, arg, what);
    if (r >= warmup) printf("%lld\n", (long long)report.ns);
  }
  return 0;
}

/* The arguments of the loops whose workers each hold COUNT descriptors: THREADS COUNT
 * PREGROW REPEAT WARMUP, or a usage line and exit 2. */
struct HeldArgs {
  long threads;
  long count;
  long pregrow;
  long repeat;
  long warmup;
};

static inline struct HeldArgs held_args(int argc, char** argv, const char* count,
                                        long max_threads) {
  if (argc != 6) {
    fprintf(stderr, "Usage: %s THREADS %s PREGROW REPEAT WARMUP\n", argv[0], count);
    exit(2);
  }
  const struct HeldArgs args = {reference_count(argv[1], "THREADS", 1, max_threads),
                                reference_count(argv[2], count, 1, 100000),
                                reference_count(argv[3], "PREGROW", 0, 1),
                                reference_count(argv[4], "REPEAT", 1, 100000),
                                reference_count(argv[5], "WARMUP", 0, 100000)};
  return args;
}

#endif
