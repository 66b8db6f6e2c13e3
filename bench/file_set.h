/* What the open reference loops share: the file set fdbench builds (empty files 1.txt .. N.txt
 * in a private DIR/fdbench-XXXXXX directory carrying fdbench's marker, so `fdbench clean`
 * removes it after a SIGKILL), fdbench's open flags, and removal of the set on Ctrl-C or
 * SIGTERM: the handlers only record the signal; the loops stop between passes, remove the set
 * and then die of the signal. Nothing here runs inside a timed loop. */
#ifndef FDBENCH_BENCH_FILE_SET_H
#define FDBENCH_BENCH_FILE_SET_H

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "reference.h"

/* fdbench's open workload (--flags rdonly) and its file-set creation. */
static const int kOpenFlags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
static const int kCreateFlags = O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY;
static const char kMarker[] = ".fdbench-private";

static volatile sig_atomic_t stop_signal = 0;
static void on_signal(int sig) {
  stop_signal = sig;
}

/* SIGINT and SIGTERM only set stop_signal (no SA_RESTART: a blocked wait returns EINTR). */
static inline void catch_stop_signals(void) {
  struct sigaction action = {.sa_handler = on_signal};
  sigaction(SIGINT, &action, NULL);
  sigaction(SIGTERM, &action, NULL);
}

struct FileSet {
  char path[4096];
  int dir;
  char** names;
  long created;
  int marked;
};

static inline void remove_set(struct FileSet* set) {
  for (long i = 0; i < set->created; ++i) unlinkat(set->dir, set->names[i], 0);
  if (set->marked) unlinkat(set->dir, kMarker, 0);
  close(set->dir);
  set->dir = -1;
  rmdir(set->path);
}

/* A one-line error naming the set and errno; the set is removed first. */
static inline void fail_set(struct FileSet* set, const char* what) {
  const int err = errno;
  if (set->dir >= 0) remove_set(set);
  fprintf(stderr, "Error: %s in %s: %s\n", what, set->path, strerror(err));
  exit(1);
}

/* "1.txt" .. "N.txt" in one block, as fdbench precomputes them. */
static inline char** make_names(long files) {
  char** names = malloc((size_t)files * sizeof *names);
  char* blob = malloc((size_t)files * 24);
  if (names == NULL || blob == NULL) return NULL;
  for (long i = 0; i < files; ++i) {
    names[i] = blob;
    blob += sprintf(blob, "%ld.txt", i + 1) + 1;
  }
  return names;
}

static inline void write_marker(struct FileSet* set) {
  const int fd = openat(set->dir, kMarker, kCreateFlags, 0644);
  if (fd < 0) fail_set(set, "cannot write the marker");
  set->marked = 1;
  dprintf(fd, "fdbench private directory\npid %ld\n", (long)getpid());
  close(fd);
}

/* Stops early (fewer files created) when a signal came; the caller checks stop_signal. */
static inline void make_set(struct FileSet* set, const char* parent, long files) {
  set->dir = -1;
  set->created = 0;
  set->marked = 0;
  snprintf(set->path, sizeof set->path, "%s/fdbench-XXXXXX", parent);
  if (mkdtemp(set->path) == NULL) fail_set(set, "cannot create a private directory");
  set->dir = open(set->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (set->dir < 0) fail_set(set, "cannot open the private directory");
  write_marker(set);
  set->names = make_names(files);
  if (set->names == NULL) fail_set(set, "out of memory for the names");
  for (; set->created < files; ++set->created) {
    if ((set->created & 1023) == 0 && stop_signal != 0) return;
    const int fd = openat(set->dir, set->names[set->created], kCreateFlags, 0644);
    if (fd < 0) fail_set(set, "cannot create a file");
    close(fd);
  }
  syncfs(set->dir); /* writeback of the new inodes must not land in a timed pass */
}

/* After the set is removed: a signal that stopped the run ends the process as it would have. */
static inline void die_of_stop_signal(void) {
  if (stop_signal == 0) return;
  signal(stop_signal, SIG_DFL);
  raise(stop_signal);
  exit(128 + stop_signal);
}

#endif
