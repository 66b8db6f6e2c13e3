/* fdbench_syscall_loop CALLS REPEAT
 *
 * The cost of entering and leaving the kernel for nothing: CALLS getppid(2) calls (glibc
 * does not cache it, and it does no work), timed REPEAT times. Prints each repetition's
 * nanoseconds per call on a line. An open+close pair pays this twice, an io_uring
 * submission once for a whole batch: it is the part of a descriptor's cost that batching
 * can remove. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, with -std=c11 too */
#include <unistd.h>

#include "reference.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "Usage: %s CALLS REPEAT\n", argv[0]);
    return 2;
  }
  const long calls = reference_count(argv[1], "CALLS", 1, 1000000000);
  const long repeat = reference_count(argv[2], "REPEAT", 1, 100000);
  for (long r = 0; r < repeat; ++r) {
    volatile pid_t sink = 0;
    const int64_t start = reference_now_ns();
    for (long i = 0; i < calls; ++i) sink = getppid();
    const int64_t end = reference_now_ns();
    (void)sink;
    printf("%.1f\n", (double)(end - start) / (double)calls);
  }
  return 0;
}
