#pragma once
// Two calls for programs that create many descriptors.
//
// pregrow_fd_table: Linux's descriptor table starts at 64 slots and doubles when a higher
// descriptor is first needed. While more than one thread shares the table, every doubling
// waits for an RCU grace period (milliseconds; expand_fdtable() in fs/file.c), and the other
// threads creating descriptors wait with it. Tables never shrink, so growing the table once,
// before the program starts its threads, avoids every one of those stalls.
//
// raise_nofile_limit: RLIMIT_NOFILE bounds descriptor numbers; its soft limit is often 1,024
// while the hard limit allows far more. Go and Deno raise it at start-up; this does the same,
// portably.
#include <cstddef>
#include <cstdint>

#include "fdbench/export.hpp"

namespace fdbench {

enum class PregrowOutcome {
  grown,          // the table now holds max_fd
  already_large,  // the table already held max_fd: nothing was done
  not_needed,     // this OS grows its table without a stall (anything but Linux): nothing done
  failed,         // see PregrowResult::error
};

struct PregrowResult {
  PregrowOutcome outcome = PregrowOutcome::failed;
  int fdsize_before = -1;  // table slots before the call (Linux FDSize); -1 where not shown
  int fdsize_after = -1;   // table slots after the call; -1 where not shown
  // 0, or why it failed: EINVAL (max_fd < 0), EMFILE (max_fd is not below the soft
  // RLIMIT_NOFILE: raise_nofile_limit(max_fd + 1) first), or fcntl's errno.
  int error = 0;

  [[nodiscard]] bool grown() const noexcept { return outcome == PregrowOutcome::grown; }
};

// Grows the calling process's descriptor table so that descriptor number `max_fd` fits, by
// borrowing that slot (fcntl F_DUPFD_CLOEXEC) and closing it again; no descriptor stays open
// and none of the caller's is touched.
// When: once, before the program starts any thread (an io_uring io-wq worker counts as one).
//   Called later it still works, but that one growth then stalls once.
// Cost: two reads of /proc/self/status and a dup+close, ~10-20 us; a no-op returns after
//   the first read.
// Thread-safety: safe to call from any thread. Fork: a forked child starts with a table
//   sized for its parent's highest open descriptor, not the parent's table size, so a child
//   that will start threads calls this again.
FDBENCH_EXPORT PregrowResult pregrow_fd_table(int max_fd) noexcept;

struct NofileResult {
  // As getrlimit reports them (RLIM_INFINITY for unlimited).
  std::uint64_t soft_before = 0;
  std::uint64_t soft_after = 0;
  std::uint64_t hard = 0;
  // The highest soft limit this process may set: the hard limit, on macOS also
  // kern.maxfilesperproc (setrlimit above it fails there).
  std::uint64_t ceiling = 0;
  // 0 when soft_after >= wanted. EPERM when the ceiling is below `wanted` (the soft limit
  // was raised to the ceiling; raising the hard limit needs privilege). Otherwise
  // setrlimit's errno.
  int error = 0;
};

// Raises the soft RLIMIT_NOFILE to `wanted`, or as close to it as the ceiling allows. Never
// lowers it and never touches the hard limit.
// Cost: two getrlimit and at most one setrlimit call (plus one sysctl on macOS).
// Thread-safety: the limit is per process; concurrent calls are serialized by a lock, so the
//   highest wanted wins (a setrlimit elsewhere in the program is not covered).
// Fork: the new limit is inherited by children and kept across exec (select() users break
//   above 1,024: raise it where it is needed). In the child of a multi-threaded parent, do
//   not call it unless no other thread could have been inside it at fork (the lock).
FDBENCH_EXPORT NofileResult raise_nofile_limit(std::size_t wanted) noexcept;

}  // namespace fdbench
