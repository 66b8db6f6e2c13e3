#pragma once
// open_many: open a list of paths as fast as this machine allows, with the strategy and
// thread count fdbench measured as fastest for it, and get the descriptors back in input
// order. Built for the programs fdbench measures for: bundlers, package managers, search
// tools and build systems that open thousands of files at start-up.
#include <sys/types.h>

#include <cstddef>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "fdbench/export.hpp"
#include "fdbench/unique_fd.hpp"

namespace fdbench {

// How open_many spreads the opens, named as fdbench measures them. fdbench's other strategies
// do not apply: a pool or processes spread the same work over the same number of workers at a
// higher cost, and uring-direct's descriptors live in the ring, not the process's table, so
// there would be nothing to return. fdbench/tune.hpp turns a measured setting into these.
enum class OpenStrategy {
  threads,  // `threads` workers, each opening an equal contiguous share with openat(2)
  uring,    // the same split, each worker submitting its share to its own io_uring, `batch`
            // openat requests per submission (Linux, built with liburing)
};

// "threads" or "uring".
FDBENCH_EXPORT std::string_view to_string(OpenStrategy strategy) noexcept;

struct OpenManyOptions {
  OpenStrategy strategy = OpenStrategy::threads;
  // Workers, the calling thread included (so 1 starts no thread); 0: one per logical CPU.
  // Never more than there are paths.
  int threads = 1;
  // "uring": requests per submission, which is also each worker's ring size.
  int batch = 64;
  // For O_CREAT and O_TMPFILE, as openat(2) takes it.
  mode_t mode = 0666;
  // Grow the descriptor table once for everything this call will open, before any worker
  // starts (see pregrow_fd_table). Costs a read of /proc/self/fd and /proc/self/status; turn
  // it off for calls that open a handful of files.
  bool pregrow = true;
  // Cancellation: once stop is requested, workers stop at their next path (uring: their
  // next batch) and the call closes everything it opened and returns ECANCELED.
  std::stop_token stop;
};

struct OpenManyResult {
  // One per path, in input order: the descriptor, or invalid where that path failed.
  std::vector<UniqueFd> fds;
  // One per path: 0, or the errno its open failed with (ENOENT, EACCES, ...).
  std::vector<int> errors;
  // The call as a whole: 0; ECANCELED; EINVAL (bad options); EOPNOTSUPP (the strategy cannot
  // run here, e.g. io_uring disabled); or the errno that stopped a worker (ENOMEM, ...).
  // When not 0, fds and errors are empty: everything the call had opened is closed again.
  int error = 0;
  // When error is not 0: one line naming the cause and, where there is one, the fix.
  std::string message;

  [[nodiscard]] bool ok() const noexcept { return error == 0; }
  // How many paths were opened.
  [[nodiscard]] FDBENCH_EXPORT std::size_t opened() const noexcept;
};

// Opens every path with openat(dir_fd, path, flags, options.mode) and returns the
// descriptors in input order. `flags` are passed as given: add O_CLOEXEC unless the
// descriptors are meant for a child process. dir_fd may be AT_FDCWD; absolute paths
// ignore it.
// Per-path failures (a missing or unreadable file) are reported in `errors` and do not stop
// the others. The result owns every descriptor; release() the ones to keep beyond it.
// Throws only std::bad_alloc, and leaves nothing open when it does.
// Cost: the opens themselves, spread over the workers, plus starting threads-1 threads
//   (tens of microseconds each) and, with pregrow, one table growth.
// Thread-safety: safe to call from several threads at once; each call has its own workers
//   and rings. The paths must stay valid and unchanged until it returns.
// Fork: a fork from another thread while it runs gives the child the descriptors opened so
//   far (O_CLOEXEC keeps them from an exec'd program). In a forked child of a multi-threaded
//   parent, use threads = 1, which starts no thread.
FDBENCH_EXPORT OpenManyResult open_many(int dir_fd, std::span<const char* const> paths,
                                        int flags, const OpenManyOptions& options = {});
FDBENCH_EXPORT OpenManyResult open_many(int dir_fd, std::span<const std::string> paths,
                                        int flags, const OpenManyOptions& options = {});

}  // namespace fdbench
