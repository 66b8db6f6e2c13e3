// How far a process may raise its own RLIMIT_NOFILE. Only macOS caps the soft limit below the
// hard one (which it often reports as unlimited); only Linux is asked to raise the hard one.
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

#include "platform/platform.hpp"
#include "platform/os.hpp"

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

int raise_nofile_hard(std::uint64_t needed) {
#if defined(FDBENCH_LINUX)
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return errno;
  if (limit.rlim_max == RLIM_INFINITY || limit.rlim_max >= needed) return raise_nofile_soft(needed);
  // setrlimit says EPERM both without CAP_SYS_RESOURCE and beyond fs.nr_open.
  if (const auto nr_open = read_int_file("/proc/sys/fs/nr_open");
      nr_open && static_cast<std::uint64_t>(*nr_open) < needed) {
    return EPERM;
  }
  limit.rlim_max = static_cast<rlim_t>(needed);
  limit.rlim_cur = static_cast<rlim_t>(needed);
  return setrlimit(RLIMIT_NOFILE, &limit) == 0 ? 0 : errno;
#else
  // Elsewhere no raise: macOS caps the soft limit anyway, and fs.nr_open's like is not known.
  (void)needed;
  return ENOTSUP;
#endif
}

}  // namespace fdbench::platform
