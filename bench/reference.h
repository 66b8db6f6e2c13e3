/* What the reference loops share: fdbench's clock and strict argument parsing. Nothing
 * here runs inside a timed loop. */
#ifndef FDBENCH_BENCH_REFERENCE_H
#define FDBENCH_BENCH_REFERENCE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The clock fdbench times its repetitions with. */
static inline int64_t reference_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A whole number in [min, max], or a one-line usage error (exit 2). */
static inline long reference_count(const char* text, const char* what, long min, long max) {
  char* end = NULL;
  errno = 0;
  const long value = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < min || value > max) {
    fprintf(stderr, "Error: %s must be a whole number from %ld to %ld, not '%s'\n", what, min, max,
            text);
    exit(2);
  }
  return value;
}

#endif
