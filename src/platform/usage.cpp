// What a thread or a process has taken so far: its page faults and context switches
// (getrusage). A measurement reads them at the edges of a worker's timed part, off the clock.
#include <sys/resource.h>

#include "platform/os.hpp"
#include "platform/platform.hpp"

namespace fdbench::platform {

namespace {

std::optional<Usage> usage_of(int who) noexcept {
  rusage u{};
  if (getrusage(who, &u) != 0) return std::nullopt;
  return Usage{static_cast<std::uint64_t>(u.ru_minflt), static_cast<std::uint64_t>(u.ru_majflt),
               static_cast<std::uint64_t>(u.ru_nvcsw), static_cast<std::uint64_t>(u.ru_nivcsw)};
}

}  // namespace

std::optional<Usage> thread_usage() noexcept {
// Linux and FreeBSD count each thread's own; macOS, the other BSDs and the portable build
// count only whole processes.
#if defined(RUSAGE_THREAD) && (defined(FDBENCH_LINUX) || defined(__FreeBSD__))
  return usage_of(RUSAGE_THREAD);
#else
  return std::nullopt;
#endif
}

std::optional<Usage> process_usage() noexcept {
  return usage_of(RUSAGE_SELF);
}

}  // namespace fdbench::platform
