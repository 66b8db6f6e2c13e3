/* fdbench's C API: the library's descriptor calls for C, Zig, Rust, Go and anything else
 * with a C FFI. Plain structs, errno-style returns (0 or a positive errno value), no
 * exception ever crosses it. The C++ API (fdbench/fd_table.hpp, fdbench/open_many.hpp,
 * fdbench/tune.hpp) is the same functionality; each function below names its C++ counterpart.
 *
 * Structs may gain fields in later versions: initialize them with the *_init functions (or
 * zero them) and rebuild against the new header. */
#ifndef FDBENCH_FDBENCH_H
#define FDBENCH_FDBENCH_H

#include <stddef.h>
#include <stdint.h>

/* What the shared library exports: this API; everything else in it is hidden. */
#if defined(__GNUC__) && !defined(_WIN32)
#define FDBENCH_API __attribute__((visibility("default")))
#else
#define FDBENCH_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The descriptor table -------------------------------------------------------------- */

enum fdbench_pregrow_outcome {
  FDBENCH_PREGROW_GROWN = 0,         /* the table now holds max_fd */
  FDBENCH_PREGROW_ALREADY_LARGE = 1, /* it already did: nothing was done */
  FDBENCH_PREGROW_NOT_NEEDED = 2,    /* this OS grows tables without a stall (not Linux) */
  FDBENCH_PREGROW_FAILED = 3         /* see the return value */
};

typedef struct fdbench_pregrow_result {
  int outcome;       /* an fdbench_pregrow_outcome */
  int fdsize_before; /* table slots before the call (Linux FDSize), -1 where not shown */
  int fdsize_after;  /* table slots after the call, -1 where not shown */
} fdbench_pregrow_result;

/* Grows the calling process's descriptor table so that descriptor number max_fd fits.
 * Linux's table starts at 64 slots and doubles on demand; while threads share it, each
 * doubling waits milliseconds for an RCU grace period and stalls every thread creating
 * descriptors. Tables never shrink, so one call before the program starts its threads (an
 * io_uring io-wq worker counts as a thread) avoids every such stall. No descriptor stays open
 * and none of the caller's is touched. Elsewhere than Linux it does nothing.
 * Returns 0, EINVAL (max_fd < 0), EMFILE (max_fd is not below the soft RLIMIT_NOFILE: call
 * fdbench_raise_nofile_limit(max_fd + 1) first) or fcntl's errno. result may be NULL.
 * Cost: two reads of /proc/self/status and a dup+close, ~10-20 us.
 * Thread-safety: callable from any thread (after threads exist, the growth stalls once).
 * Fork-safety: not async-signal-safe (it reads /proc with stdio), so not between fork and
 * exec in a multi-threaded parent; a forked child's table is sized by the parent's highest
 * open descriptor, so a child that starts threads calls it again.
 * C++: fdbench::pregrow_fd_table. */
FDBENCH_API int fdbench_pregrow_fd_table(int max_fd, fdbench_pregrow_result* result);

typedef struct fdbench_nofile_result {
  uint64_t soft_before; /* as getrlimit reports them (RLIM_INFINITY for unlimited) */
  uint64_t soft_after;
  uint64_t hard;
  uint64_t ceiling; /* the highest soft limit allowed: hard, on macOS kern.maxfilesperproc */
} fdbench_nofile_result;

/* Raises the soft RLIMIT_NOFILE to wanted, or as close as the ceiling allows; never lowers
 * it, never touches the hard limit.
 * Returns 0 when the soft limit is now at least wanted; EPERM when the ceiling is below
 * wanted (the soft limit was raised to the ceiling; raising the hard limit needs privilege);
 * otherwise setrlimit's errno. result may be NULL.
 * Cost: a few getrlimit/setrlimit calls.
 * Thread-safety: concurrent calls are serialized, the highest wanted wins.
 * Fork-safety: children inherit the limit (also across exec). It takes a process-wide lock:
 * in the child of a multi-threaded parent, call it only if no other thread could have been
 * inside it at fork.
 * C++: fdbench::raise_nofile_limit. */
FDBENCH_API int fdbench_raise_nofile_limit(size_t wanted, fdbench_nofile_result* result);

/* ---- Opening many files ----------------------------------------------------------------- */

/* A cancellation source for fdbench_open_many: create one, pass it in the options, and call
 * fdbench_cancel_request from any thread to cancel every call using it. */
typedef struct fdbench_cancel fdbench_cancel;
/* NULL when out of memory. */
FDBENCH_API fdbench_cancel* fdbench_cancel_new(void);
/* Thread-safe; not async-signal-safe. Cancelling twice is harmless. */
FDBENCH_API void fdbench_cancel_request(fdbench_cancel* cancel);
/* After every call using it has returned. NULL is ignored. */
FDBENCH_API void fdbench_cancel_free(fdbench_cancel* cancel);

typedef struct fdbench_open_options {
  /* "threads" (openat(2) over `threads` workers, equal contiguous shares) or "uring" (the
   * same split, one io_uring per worker, `batch` opens per submission). NULL: "threads". */
  const char* strategy;
  int threads;            /* workers, the calling thread included; 0: one per logical CPU */
  int batch;              /* "uring": opens per submission and ring size */
  unsigned int mode;      /* for O_CREAT / O_TMPFILE */
  int pregrow;            /* nonzero: grow the descriptor table once before the workers start */
  fdbench_cancel* cancel; /* NULL: not cancellable */
} fdbench_open_options;

/* Defaults: "threads", 1 thread, batch 64, mode 0666, pregrow on, no cancellation. */
FDBENCH_API void fdbench_open_options_init(fdbench_open_options* options);

typedef struct fdbench_open_result {
  size_t count;      /* the number of paths */
  int* fds;          /* count descriptors in input order, -1 where that path failed */
  int* errors;       /* count errno values: 0, or why that path failed (ENOENT, EACCES, ...) */
  char message[256]; /* when the call fails as a whole: the cause, and the fix if any */
} fdbench_open_result;

/* Opens every path with openat(dir_fd, path, flags, mode) as fast as the chosen strategy
 * allows and returns the descriptors in input order. flags are used as given (add O_CLOEXEC
 * unless the descriptors are for a child). A path that fails does not stop the others.
 * options may be NULL (the defaults of fdbench_open_options_init).
 * Returns 0 (then result->fds and result->errors hold count entries each, the descriptors are
 * the caller's, and fdbench_open_result_free releases the arrays), or the call's failure:
 * ECANCELED, EINVAL (bad options), EOPNOTSUPP (strategy unavailable here, e.g. io_uring
 * disabled), ENOMEM, or the errno that stopped a worker. On failure every descriptor it had
 * opened is closed, result holds no arrays and result->message says why.
 * Cost: the opens, spread over the workers, plus starting threads - 1 threads.
 * Thread-safety: callable from several threads at once. paths must stay valid until it
 * returns.
 * Fork-safety: a fork from another thread while it runs gives the child the descriptors
 * opened so far (O_CLOEXEC keeps them from exec'd programs). In a forked child of a
 * multi-threaded parent use threads = 1, which starts no thread.
 * C++: fdbench::open_many. */
FDBENCH_API int fdbench_open_many(int dir_fd, const char* const* paths, size_t count, int flags,
                      const fdbench_open_options* options, fdbench_open_result* result);

/* Frees result's arrays (not the descriptors: close those you do not keep) and zeroes it.
 * NULL and an already freed result are fine. */
FDBENCH_API void fdbench_open_result_free(fdbench_open_result* result);

/* ---- What is fastest here ---------------------------------------------------------------- */

typedef struct fdbench_setting {
  char strategy[32]; /* as fdbench names it: "threads", "fast-pool", "uring", ... */
  int threads;
  int batch; /* items per task or submission; 1 where the strategy does not batch */
  double ops_per_sec;
} fdbench_setting;

enum { FDBENCH_MAX_ALTERNATIVES = 16 };

typedef struct fdbench_recommendation {
  fdbench_setting best; /* the fastest setting a program can adopt */
  /* The settings within noise of it (their medians' 95% intervals overlap, or too few
   * repetitions to tell them apart), fastest first; at most FDBENCH_MAX_ALTERNATIVES. */
  size_t within_noise_count;
  fdbench_setting within_noise[FDBENCH_MAX_ALTERNATIVES];
  /* The fewest threads of the fastest setting's strategy and batch within noise of it: the
   * fastest is best or within_noise[0]. The simplest setting (best) may use fewer threads. */
  int knee_threads;
  /* The descriptor the table must hold when the workload keeps its descriptors open (pass it
   * to fdbench_pregrow_fd_table before starting threads); -1 when it closes them as it goes. */
  int pregrow_to;
  char message[256]; /* when the call fails: the cause, and the fix if any */
} fdbench_recommendation;

typedef struct fdbench_tune_options {
  size_t files;          /* generated empty files to open */
  const char* dir;       /* where they are created; NULL: $TMPDIR or /tmp */
  double budget_seconds; /* the whole measurement (6 repetitions of each setting at least) */
  int keep_open;         /* nonzero: hold every descriptor, as a program keeping its files does */
} fdbench_tune_options;

/* Defaults: 2,000 files in $TMPDIR or /tmp, a budget of 3 seconds, opened and closed. */
FDBENCH_API void fdbench_tune_options_init(fdbench_tune_options* options);

/* Measures which strategy, thread count and batch open files fastest here (the sweep of
 * `fdbench tune`, bounded by options->budget_seconds) and fills result. options may be NULL
 * (the defaults). Returns 0; EINVAL (bad options, result NULL); EINTR (SIGINT or SIGTERM
 * arrived: fdbench's handlers are only installed by its own binary, so normally not); EIO
 * when nothing could be measured or the files not be created (result->message says why);
 * ENOMEM.
 * Cost: the budget, plus creating and removing the files. Its private directory is removed
 * again; nothing else is touched.
 * Thread-safety: it starts and joins threads and forks helper processes; call it at
 * start-up, not while other threads create descriptors (they would disturb the measurement).
 * Fork-safety: not in the child of a multi-threaded parent.
 * C++: fdbench::recommend. */
FDBENCH_API int fdbench_recommend(const fdbench_tune_options* options, fdbench_recommendation* result);

/* Reads a recommendation saved by `fdbench tune --save FILE` (or a whole
 * `fdbench tune --format json` document). Returns 0, the errno of opening the file (ENOENT,
 * EACCES, ...), or EINVAL when it is not a recommendation (result->message names what is
 * wrong). Cost: reading and parsing one small file. Thread-safe; fork-safe as any file read.
 * C++: fdbench::load_recommendation. */
FDBENCH_API int fdbench_load_recommendation(const char* path, fdbench_recommendation* result);

#ifdef __cplusplus
}
#endif

#endif /* FDBENCH_FDBENCH_H */
