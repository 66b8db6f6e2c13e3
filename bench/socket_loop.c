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
#include <unistd.h>

#include "fresh_child.h"

#if !defined(SOCK_CLOEXEC)
#define SOCK_CLOEXEC 0 /* macOS: nothing here ever execs */
#endif

static void child(const void* arg) {
  const long sockets = *(const long*)arg;
  struct Report report = {0, 0, 0};
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
    const struct Report report = fresh_child_repetition(child, &sockets, "socket() failed");
    if (r >= warmup) printf("%lld\n", (long long)report.ns);
  }
  return 0;
}
