/* The C API, called from C: every function, the per-path errors, cancellation, and no
 * descriptor left behind. Prints each failed check and exits 1 if any failed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdbench/fdbench.h"

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

enum { kFiles = 300 };

static int open_descriptor_count(void) {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == NULL) dir = opendir("/dev/fd");
  if (dir == NULL) return -1;
  int count = 0;
  for (struct dirent* entry = readdir(dir); entry != NULL; entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++count;
  }
  closedir(dir);
  return count - 1; /* the directory's own descriptor */
}

/* paths[0..kFiles-1]: files in dir; paths[kFiles]: a name that does not exist. */
static void make_files(const char* dir, char paths[kFiles + 1][64]) {
  for (int i = 0; i <= kFiles; ++i) {
    snprintf(paths[i], sizeof paths[i], "%s/f%d", dir, i);
    if (i == kFiles) break;
    const int fd = open(paths[i], O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
  }
}

static void check_opened_in_order(const fdbench_open_result* r, char paths[kFiles + 1][64]) {
  CHECK(r->count == kFiles + 1);
  for (size_t i = 0; i < kFiles; ++i) {
    struct stat by_fd;
    struct stat by_path;
    CHECK(r->fds[i] >= 0 && r->errors[i] == 0);
    if (r->fds[i] < 0) continue;
    CHECK(fstat(r->fds[i], &by_fd) == 0 && stat(paths[i], &by_path) == 0);
    CHECK(by_fd.st_ino == by_path.st_ino);
  }
  CHECK(r->fds[kFiles] == -1 && r->errors[kFiles] == ENOENT);
}

static void close_all(fdbench_open_result* r) {
  for (size_t i = 0; i < r->count; ++i) {
    if (r->fds[i] >= 0) close(r->fds[i]);
  }
  fdbench_open_result_free(r);
  CHECK(r->fds == NULL && r->errors == NULL && r->count == 0);
}

/* Whether FDBENCH_TEST_REQUIRE (tests/support/require.hpp) names the uring feature. */
static int uring_required(void) {
  const char* list = getenv("FDBENCH_TEST_REQUIRE");
  if (list == NULL) return 0;
  for (const char* at = strstr(list, "uring"); at != NULL; at = strstr(at + 1, "uring")) {
    const char after = at[strlen("uring")];
    if ((at == list || at[-1] == ',') && (after == '\0' || after == ',')) return 1;
  }
  return 0;
}

static void test_open_many(const char* strategy, char paths[kFiles + 1][64]) {
  const char* list[kFiles + 1];
  for (int i = 0; i <= kFiles; ++i) list[i] = paths[i];
  fdbench_open_options options;
  fdbench_open_options_init(&options);
  options.strategy = strategy;
  options.threads = 2;
  fdbench_open_result result;
  const int err =
      fdbench_open_many(AT_FDCWD, list, kFiles + 1, O_RDONLY | O_CLOEXEC, &options, &result);
  if (err == EOPNOTSUPP) { /* io_uring disabled here, or built without liburing */
    printf("%s: unavailable here: %s\n", strategy, result.message);
    CHECK(result.fds == NULL && result.message[0] != '\0');
    CHECK(!uring_required()); /* FDBENCH_TEST_REQUIRE names uring: it must run */
    return;
  }
  CHECK(err == 0);
  if (err != 0) {
    fprintf(stderr, "%s: %s\n", strategy, result.message);
    return;
  }
  check_opened_in_order(&result, paths);
  close_all(&result);
}

static void test_open_many_failures(char paths[kFiles + 1][64]) {
  const char* list[kFiles + 1];
  for (int i = 0; i <= kFiles; ++i) list[i] = paths[i];
  fdbench_open_options options;
  fdbench_open_options_init(&options);
  fdbench_open_result result;

  options.strategy = "no-such-strategy";
  CHECK(fdbench_open_many(AT_FDCWD, list, kFiles, O_RDONLY, &options, &result) == EINVAL);
  CHECK(result.fds == NULL && strstr(result.message, "no-such-strategy") != NULL);

  options.strategy = "uring-direct";
  CHECK(fdbench_open_many(AT_FDCWD, list, kFiles, O_RDONLY, &options, &result) == EOPNOTSUPP);

  fdbench_cancel* cancel = fdbench_cancel_new();
  CHECK(cancel != NULL);
  fdbench_cancel_request(cancel);
  options.strategy = NULL; /* the default, "threads" */
  options.cancel = cancel;
  CHECK(fdbench_open_many(AT_FDCWD, list, kFiles, O_RDONLY, &options, &result) == ECANCELED);
  CHECK(result.fds == NULL && result.count == 0);
  fdbench_cancel_free(cancel);

  /* NULL options: the defaults; no paths: nothing to do. */
  CHECK(fdbench_open_many(AT_FDCWD, list, 0, O_RDONLY, NULL, &result) == 0);
  CHECK(result.count == 0 && result.fds == NULL);
  fdbench_open_result_free(&result);
  CHECK(fdbench_open_many(AT_FDCWD, list, 1, O_RDONLY, NULL, NULL) == EINVAL);
}

/* In a child, so this process's table stays as it was. */
static void test_pregrow(void) {
  fflush(NULL);
  const pid_t pid = fork();
  if (pid == 0) {
    fdbench_pregrow_result r;
    if (fdbench_pregrow_fd_table(900, &r) != 0) _exit(1);
    if (r.outcome == FDBENCH_PREGROW_NOT_NEEDED) _exit(0); /* not Linux */
    if (r.outcome != FDBENCH_PREGROW_GROWN && r.outcome != FDBENCH_PREGROW_ALREADY_LARGE) _exit(2);
    if (r.fdsize_after != -1 && r.fdsize_after <= 900) _exit(3);
    if (fdbench_pregrow_fd_table(10, &r) != 0 || r.outcome == FDBENCH_PREGROW_GROWN) _exit(4);
    if (fdbench_pregrow_fd_table(-1, &r) != EINVAL || r.outcome != FDBENCH_PREGROW_FAILED) _exit(5);
    _exit(0);
  }
  int status = 0;
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_raise_nofile(void) {
  fdbench_nofile_result r;
  CHECK(fdbench_raise_nofile_limit(1, &r) == 0); /* never lowers */
  CHECK(r.soft_after == r.soft_before && r.soft_after >= 1);
  CHECK(r.ceiling <= r.hard);
}

static void write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  CHECK(f != NULL);
  if (f == NULL) return;
  fputs(text, f);
  fclose(f);
}

/* What `fdbench tune --save` writes, read back; malformed and missing files are errors. */
static void test_load_recommendation(const char* dir) {
  char path[96];
  snprintf(path, sizeof path, "%s/rec.json", dir);
  write_file(path,
             "{\"strategy\": \"uring\", \"threads\": 2, \"batch\": 64, \"ops_per_sec\": 5e5,"
             " \"within_noise\": [{\"strategy\": \"threads\", \"threads\": 4, \"batch\": 1,"
             " \"ops_per_sec\": 4.9e5}], \"knee_threads\": 2, \"pregrow_to\": 2064}");
  fdbench_recommendation r;
  CHECK(fdbench_load_recommendation(path, &r) == 0);
  CHECK(strcmp(r.best.strategy, "uring") == 0 && r.best.threads == 2 && r.best.batch == 64);
  CHECK(r.best.ops_per_sec == 5e5);
  CHECK(r.within_noise_count == 1 && strcmp(r.within_noise[0].strategy, "threads") == 0);
  CHECK(r.within_noise[0].threads == 4 && r.knee_threads == 2 && r.pregrow_to == 2064);

  write_file(path, "{\"strategy\": \"uring\", \"threads\": 0}");
  CHECK(fdbench_load_recommendation(path, &r) == EINVAL);
  CHECK(strstr(r.message, "threads") != NULL);
  unlink(path);
  CHECK(fdbench_load_recommendation(path, &r) == ENOENT);
  CHECK(strstr(r.message, "rec.json") != NULL);
  CHECK(fdbench_load_recommendation(path, NULL) == EINVAL);
}

/* A real, short tune over a few hundred files in the test's directory. */
static void test_recommend(const char* dir) {
  fdbench_tune_options options;
  fdbench_tune_options_init(&options);
  CHECK(options.files > 0 && options.budget_seconds > 0 && options.keep_open == 0);
  options.files = 300;
  options.dir = dir;
  options.budget_seconds = 1;
  fdbench_recommendation r;
  const int err = fdbench_recommend(&options, &r);
  CHECK(err == 0);
  if (err != 0) fprintf(stderr, "fdbench_recommend: %s\n", r.message);
  CHECK(r.best.strategy[0] != '\0' && r.best.threads >= 1 && r.best.ops_per_sec > 0);
  /* The knee is the fastest setting's: the fewest threads of its strategy and batch within
   * noise of it. The recommendation (best) is the simplest setting within noise, which may use
   * fewer threads than the knee, so the knee is checked against the fastest. */
  const fdbench_setting* fastest = &r.best;
  for (size_t i = 0; i < r.within_noise_count; ++i) {
    if (r.within_noise[i].ops_per_sec > fastest->ops_per_sec) fastest = &r.within_noise[i];
  }
  CHECK(r.knee_threads >= 1 && r.knee_threads <= fastest->threads);
  int knee_measured = r.knee_threads == fastest->threads;
  for (size_t i = 0; i < r.within_noise_count; ++i) {
    const fdbench_setting* s = &r.within_noise[i];
    if (strcmp(s->strategy, fastest->strategy) == 0 && s->batch == fastest->batch &&
        s->threads == r.knee_threads) {
      knee_measured = 1;
    }
  }
  if (strcmp(r.best.strategy, fastest->strategy) == 0 && r.best.batch == fastest->batch &&
      r.best.threads == r.knee_threads) {
    knee_measured = 1;
  }
  CHECK(knee_measured || r.within_noise_count == FDBENCH_MAX_ALTERNATIVES);
  CHECK(r.pregrow_to == -1); /* opened and closed: nothing held */
  options.files = 0;
  CHECK(fdbench_recommend(&options, &r) == EINVAL);
}

int main(void) {
  char dir[] = "/tmp/fdtest-c-XXXXXX";
  if (mkdtemp(dir) == NULL) {
    perror("mkdtemp");
    return 1;
  }
  static char paths[kFiles + 1][64];
  make_files(dir, paths);
  const int before = open_descriptor_count();

  test_open_many("threads", paths);
  test_open_many("uring", paths);
  test_open_many_failures(paths);
  test_pregrow();
  test_raise_nofile();
  test_load_recommendation(dir);
  test_recommend(dir);
  CHECK(open_descriptor_count() == before);

  for (int i = 0; i < kFiles; ++i) unlink(paths[i]);
  rmdir(dir);
  if (failures != 0) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("C API: every check passed\n");
  return 0;
}
