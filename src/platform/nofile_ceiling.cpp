// How far a process may raise its own soft RLIMIT_NOFILE. Only macOS caps it below the hard
// limit (which it often reports as unlimited).
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>

#include "fdbench/platform.hpp"

#if defined(__APPLE__)
#include <sys/sysctl.h>
#include <sys/syslimits.h>  // OPEN_MAX
#endif

namespace fdbench::platform {

std::uint64_t nofile_ceiling() noexcept {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  auto ceiling = static_cast<std::uint64_t>(limit.rlim_max);
#if defined(__APPLE__)
  // setrlimit(RLIMIT_NOFILE) with rlim_cur above kern.maxfilesperproc fails with EINVAL, even
  // when rlim_max is RLIM_INFINITY; setrlimit(2) names OPEN_MAX as the portable bound.
  int per_process = 0;
  std::size_t size = sizeof per_process;
  const bool known =
      sysctlbyname("kern.maxfilesperproc", &per_process, &size, nullptr, 0) == 0 && per_process > 0;
  ceiling = std::min<std::uint64_t>(ceiling, known ? static_cast<std::uint64_t>(per_process)
                                                   : static_cast<std::uint64_t>(OPEN_MAX));
#endif
  return ceiling;
}

}  // namespace fdbench::platform
