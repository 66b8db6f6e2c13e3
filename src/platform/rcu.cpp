// Setting /sys/kernel/rcu_expedited (Linux, root): what --rcu-expedited changes for the
// results that ask for it. Reading it lives with the other host facts (host.cpp).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "platform/platform.hpp"
#include "platform/os.hpp"

namespace fdbench::platform {

namespace {
[[maybe_unused]] constexpr const char* kRcuExpedited = "/sys/kernel/rcu_expedited";
}

std::string rcu_expedited_unsettable() {
#if defined(FDBENCH_LINUX)
  if (access(kRcuExpedited, F_OK) != 0) return "this kernel has no /sys/kernel/rcu_expedited";
  if (access(kRcuExpedited, W_OK) != 0) {
    return "writing /sys/kernel/rcu_expedited needs root (it is a system-wide setting)";
  }
  return {};
#else
  return "rcu_expedited is a Linux setting";
#endif
}

int set_rcu_expedited(int value) noexcept {
#if defined(FDBENCH_LINUX)
  const int fd = open(kRcuExpedited, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const char text[2] = {value != 0 ? '1' : '0', '\n'};
  const ssize_t written = write(fd, text, sizeof text);
  const int err = written == static_cast<ssize_t>(sizeof text) ? 0 : (written < 0 ? errno : EIO);
  close(fd);
  return err;
#else
  (void)value;
  return ENOTSUP;
#endif
}

}  // namespace fdbench::platform
