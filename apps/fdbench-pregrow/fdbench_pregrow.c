/* fdbench-pregrow N CMD [ARGS...]: grows this process's descriptor table to at least N slots,
 * then execs CMD, which keeps the grown table (Linux keeps an unshared table's size across
 * execve). A multi-threaded server started so never waits for an RCU grace period when its
 * first burst of connections would have doubled its shared table. Standalone on purpose: no
 * library, for a systemd unit, a container entrypoint or a supervisor. `fdbench pregrow` does
 * the same. Exit 127 when CMD is not found and 126 when it cannot be run, as a shell does; 2
 * for a bad N or one above RLIMIT_NOFILE. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int usage(const char *why) {
  fprintf(stderr, "fdbench-pregrow: %s\nusage: fdbench-pregrow N [--] CMD [ARGS...]\n", why);
  return 2;
}

/* Occupies descriptor n - 1 and frees it again: the table then holds n slots or more. F_DUPFD,
 * not dup2, so that a descriptor already open at that number is never closed. */
static int grow(long n) {
  int source = -1;
  for (int fd = 0; fd < 3 && source < 0; ++fd) {
    if (fcntl(fd, F_GETFD) != -1) source = fd;
  }
  int own = source < 0 ? open("/dev/null", O_RDONLY | O_CLOEXEC) : -1;
  if (source < 0) source = own;
  if (source < 0) return errno;
  int err = 0;
  if (fcntl((int)(n - 1), F_GETFD) == -1) {
    int borrowed = fcntl(source, F_DUPFD_CLOEXEC, (int)(n - 1));
    if (borrowed < 0) err = errno;
    else close(borrowed);
  }
  if (own >= 0) close(own);
  return err;
}

int main(int argc, char **argv) {
  if (argc < 3) return usage("needs N and a command");
  char *end = NULL;
  errno = 0;
  long n = strtol(argv[1], &end, 10);
  if (errno != 0 || end == argv[1] || *end != '\0' || n < 1 || n > (1L << 30)) {
    fprintf(stderr, "fdbench-pregrow: N '%s' is not a table size (a whole number from 1)\n",
            argv[1]);
    return 2;
  }
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      (rlim_t)n > limit.rlim_cur) {
    fprintf(stderr,
            "fdbench-pregrow: N %ld is above the descriptor limit (ulimit -n) %llu: raise the "
            "limit (ulimit -n %ld) or give a smaller N\n",
            n, (unsigned long long)limit.rlim_cur, n);
    return 2;
  }
  int first = strcmp(argv[2], "--") == 0 ? 3 : 2;
  if (first >= argc) return usage("needs a command after --");
  int err = grow(n);
  if (err != 0) {
    fprintf(stderr, "fdbench-pregrow: cannot grow the table to %ld: %s\n", n, strerror(err));
    return 1;
  }
  execvp(argv[first], argv + first);
  err = errno;
  if (err == ENOENT || err == ENOTDIR) {
    fprintf(stderr, "fdbench-pregrow: %s: command not found\n", argv[first]);
    return 127;
  }
  fprintf(stderr, "fdbench-pregrow: %s: cannot run it: %s\n", argv[first], strerror(err));
  return 126;
}
