// Versions of the optional libraries the strategies use, as loaded at run time where the
// library can say so.
#include "platform/platform.hpp"

#if defined(FDBENCH_HAVE_LIBURING)
#include <liburing.h>
#endif
#if defined(FDBENCH_HAVE_LIBUV)
#include <uv.h>
#endif

namespace fdbench::platform {

std::optional<std::string> liburing_version() {
#if defined(FDBENCH_HAVE_LIBURING) && defined(IO_URING_VERSION_MAJOR)
  return std::to_string(io_uring_major_version()) + "." + std::to_string(io_uring_minor_version());
#elif defined(FDBENCH_LIBURING_BUILD_VERSION)
  // liburing before 2.4 cannot tell its version at run time: the one built against (its
  // soname fixes the major version of what loads).
  return FDBENCH_LIBURING_BUILD_VERSION;
#else
  return std::nullopt;
#endif
}

std::optional<std::string> libuv_version() {
#if defined(FDBENCH_HAVE_LIBUV)
  return uv_version_string();
#else
  return std::nullopt;
#endif
}

}  // namespace fdbench::platform
