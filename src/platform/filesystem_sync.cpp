// Writing a filesystem's cached changes back before a measurement, so that the kernel's
// writeback does not land inside the timed repetitions.
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

#include "platform/platform.hpp"
#include "platform/os.hpp"

namespace fdbench::platform {

namespace {
std::atomic<std::uint64_t> syncs{0};
}  // namespace

int sync_filesystem(int fd) noexcept {
  syncs.fetch_add(1, std::memory_order_relaxed);
#if defined(FDBENCH_LINUX)
  return syncfs(fd) == 0 ? 0 : errno;
#else
  (void)fd;
  sync();  // no syncfs: every filesystem, and it may return before the writes are done
  return 0;
#endif
}

std::uint64_t filesystem_syncs() noexcept {
  return syncs.load(std::memory_order_relaxed);
}

}  // namespace fdbench::platform
