// pregrow_fd_table and raise_nofile_limit: policy on top of the platform facade.
#include "fdbench/fd_table.hpp"

#include <algorithm>
#include <cerrno>
#include <mutex>

#include "platform/platform.hpp"

namespace fdbench {

PregrowResult pregrow_fd_table(int max_fd) noexcept {
  PregrowResult r;
  if (max_fd < 0) {
    r.error = EINVAL;
    return r;
  }
  // Only Linux stalls on growth; elsewhere (and in the portable build) this is a no-op.
  if (!platform::uses_linux_interfaces()) {
    r.outcome = PregrowOutcome::not_needed;
    return r;
  }
  const auto before = platform::fd_table_size();
  r.fdsize_before = before.value_or(-1);
  if (before && max_fd < *before) {
    r.outcome = PregrowOutcome::already_large;
    r.fdsize_after = *before;
    return r;
  }
  if (static_cast<std::uint64_t>(max_fd) >= platform::nofile_limit().soft) {
    r.error = EMFILE;
    return r;
  }
  if (const int err = platform::grow_fd_table(max_fd); err != 0) {
    r.error = err;
    return r;
  }
  r.outcome = PregrowOutcome::grown;
  r.fdsize_after = platform::fd_table_size().value_or(-1);
  return r;
}

NofileResult raise_nofile_limit(std::size_t wanted) noexcept {
  // Read-then-set is not atomic: without the lock, a concurrent call asking for less could
  // set its lower value after ours.
  static std::mutex serialize;
  const std::lock_guard lock(serialize);
  NofileResult r;
  const auto before = platform::nofile_limit();
  r.soft_before = before.soft;
  r.hard = before.hard;
  r.ceiling = platform::nofile_ceiling();
  const std::uint64_t target = std::min<std::uint64_t>(wanted, r.ceiling);
  if (target > before.soft) r.error = platform::raise_nofile_soft(target);
  r.soft_after = platform::nofile_limit().soft;
  if (r.error == 0 && r.soft_after < wanted) r.error = EPERM;
  return r;
}

}  // namespace fdbench
