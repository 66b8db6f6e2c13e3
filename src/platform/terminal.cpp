// Whether a descriptor is a terminal, and how wide and tall it is: for the progress line and
// the live table.
#include <sys/ioctl.h>
#include <unistd.h>

#include "platform/platform.hpp"

namespace fdbench::platform {

std::optional<int> terminal_columns(int fd) noexcept {
  if (isatty(fd) != 1) return std::nullopt;
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return 80;  // a terminal all the same
  return static_cast<int>(size.ws_col);
}

std::optional<int> terminal_rows(int fd) noexcept {
  if (isatty(fd) != 1) return std::nullopt;
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_row == 0) return 24;
  return static_cast<int>(size.ws_row);
}

}  // namespace fdbench::platform
