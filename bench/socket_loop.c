/* fdbench_socket_loop SOCKETS REPEAT WARMUP
 *
 * The reference for `fdbench socket --strategy threads --threads 1 --pregrow auto`: the seed's
 * socket experiment done minimally. Each repetition runs in a fresh child forked from a
 * process holding only fds 0-2, so it starts from the kernel's smallest descriptor table; the
 * child holds its report pipe as fd 3 (as fdbench's does), grows the table with one dup2 to
 * the fd fdbench's --pregrow auto picks, then creates SOCKETS TCP sockets and holds them
 * (timed), and closes them (untimed). Prints each timed repetition's nanoseconds on a line. */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reference.h"

#if !defined(SOCK_CLOEXEC)
#define SOCK_CLOEXEC 0 /* macOS: nothing here ever execs */
#endif

enum { kReportFd = 3 };

struct Report {
  int64_t ns;
  long failures;
  int error; /* errno of a failed set-up step, 0 if none */
};

static void report_and_exit(const struct Report* report) {
  const ssize_t written = write(kReportFd, report, sizeof *report);
  _exit(written == (ssize_t)sizeof *report ? 0 : 1);
}

static void child(int report_fd, long sockets) {
  struct Report report = {0, 0, 0};
  if (report_fd != kReportFd) {
    dup2(report_fd, kReportFd);
    close(report_fd);
  }
  /* --pregrow auto: room for the report fd, every descriptor of the run, and FDSize reads */
  const int highest = kReportFd + (int)sockets + 2;
  int* fds = malloc((size_t)sockets * sizeof *fds);
  if (fds == NULL || dup2(kReportFd, highest) < 0) {
    report.error = fds == NULL ? ENOMEM : errno;
    report_and_exit(&report);
  }
  close(highest);
  memset(fds, -1, (size_t)sockets * sizeof *fds);

  const int64_t start = reference_now_ns();
  for (long i = 0; i < sockets; ++i) fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  report.ns = reference_now_ns() - start;

  for (long i = 0; i < sockets; ++i) {
    if (fds[i] < 0) {
      ++report.failures;
    } else {
      close(fds[i]);
    }
  }
  report_and_exit(&report);
}

/* One repetition in a fresh child; exits with a one-line error if it could not run. */
static struct Report repetition(long sockets) {
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
    child(fds[1], sockets);
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
                                          : "socket() failed");
    exit(1);
  }
  return report;
}

/* Hold nothing but 0-2, so every child forked from here gets the smallest table. */
static void close_inherited(void) {
#if defined(__linux__)
  if (close_range(3, ~0U, 0) == 0) return;
#endif
  for (int fd = 3; fd < getdtablesize(); ++fd) close(fd);
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "Usage: %s SOCKETS REPEAT WARMUP\n", argv[0]);
    return 2;
  }
  const long sockets = reference_count(argv[1], "SOCKETS", 1, 1000000);
  const long repeat = reference_count(argv[2], "REPEAT", 1, 100000);
  const long warmup = reference_count(argv[3], "WARMUP", 0, 100000);
  close_inherited();
  for (long r = 0; r < warmup + repeat; ++r) {
    const struct Report report = repetition(sockets);
    if (r >= warmup) printf("%lld\n", (long long)report.ns);
  }
  return 0;
}
