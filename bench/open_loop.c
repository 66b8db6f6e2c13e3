/* fdbench_open_loop DIR FILES REPEAT WARMUP
 *
 * The reference for `fdbench open --strategy threads --threads 1`: the same work with nothing
 * around it. It builds the set fdbench builds (empty files 1.txt .. N.txt in a private
 * DIR/fdbench-XXXXXX directory carrying fdbench's marker, so `fdbench clean` removes it after
 * a SIGKILL), then times WARMUP + REPEAT passes of openat(dir, name, fdbench's flags) + close
 * over precomputed names and prints each timed pass's nanoseconds on a line of its own. */
#define _GNU_SOURCE
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

struct FileSet {
  char path[4096];
  int dir;
  char** names;
  long created;
  int marked;
};

static void remove_set(struct FileSet* set) {
  for (long i = 0; i < set->created; ++i) unlinkat(set->dir, set->names[i], 0);
  if (set->marked) unlinkat(set->dir, kMarker, 0);
  close(set->dir);
  rmdir(set->path);
}

static void fail(struct FileSet* set, const char* what) {
  const int err = errno;
  if (set->dir >= 0) remove_set(set);
  fprintf(stderr, "Error: %s in %s: %s\n", what, set->path, strerror(err));
  exit(1);
}

/* "1.txt" .. "N.txt" in one block, as fdbench precomputes them. */
static char** make_names(long files) {
  char** names = malloc((size_t)files * sizeof *names);
  char* blob = malloc((size_t)files * 24);
  if (names == NULL || blob == NULL) return NULL;
  for (long i = 0; i < files; ++i) {
    names[i] = blob;
    blob += sprintf(blob, "%ld.txt", i + 1) + 1;
  }
  return names;
}

static void write_marker(struct FileSet* set) {
  const int fd = openat(set->dir, kMarker, kCreateFlags, 0644);
  if (fd < 0) fail(set, "cannot write the marker");
  set->marked = 1;
  dprintf(fd, "fdbench private directory\npid %ld\n", (long)getpid());
  close(fd);
}

static void make_set(struct FileSet* set, const char* parent, long files) {
  set->dir = -1;
  snprintf(set->path, sizeof set->path, "%s/fdbench-XXXXXX", parent);
  if (mkdtemp(set->path) == NULL) fail(set, "cannot create a private directory");
  set->dir = open(set->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (set->dir < 0) fail(set, "cannot open the private directory");
  write_marker(set);
  set->names = make_names(files);
  if (set->names == NULL) fail(set, "out of memory for the names");
  for (; set->created < files; ++set->created) {
    if ((set->created & 1023) == 0 && stop_signal != 0) return;
    const int fd = openat(set->dir, set->names[set->created], kCreateFlags, 0644);
    if (fd < 0) fail(set, "cannot create a file");
    close(fd);
  }
  syncfs(set->dir); /* writeback of the new inodes must not land in a timed pass */
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "Usage: %s DIR FILES REPEAT WARMUP\n", argv[0]);
    return 2;
  }
  const long files = reference_count(argv[2], "FILES", 1, 100000000);
  const long repeat = reference_count(argv[3], "REPEAT", 1, 100000);
  const long warmup = reference_count(argv[4], "WARMUP", 0, 100000);
  struct sigaction action = {.sa_handler = on_signal};
  sigaction(SIGINT, &action, NULL);
  sigaction(SIGTERM, &action, NULL);

  struct FileSet set = {.created = 0};
  make_set(&set, argv[1], files);
  int64_t* times = calloc((size_t)repeat, sizeof *times);
  if (times == NULL) fail(&set, "out of memory for the times");
  long failures = 0;
  for (long r = 0; r < warmup + repeat && stop_signal == 0; ++r) {
    const int64_t start = reference_now_ns();
    for (long i = 0; i < files; ++i) {
      const int fd = openat(set.dir, set.names[i], kOpenFlags);
      if (fd < 0) {
        ++failures;
      } else {
        close(fd);
      }
    }
    const int64_t end = reference_now_ns();
    if (r >= warmup) times[r - warmup] = end - start;
  }
  remove_set(&set);
  if (stop_signal != 0) {
    signal(stop_signal, SIG_DFL);
    raise(stop_signal);
  }
  if (failures != 0) {
    fprintf(stderr, "Error: %ld of %ld opens failed\n", failures, files * (warmup + repeat));
    return 1;
  }
  for (long r = 0; r < repeat; ++r) printf("%lld\n", (long long)times[r]);
  return 0;
}
