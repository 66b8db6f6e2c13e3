#pragma once
// Reading a report from a child that may have died: never blocks a test for ever.
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>

namespace fdbench::testing {

// Reads exactly `size` bytes, waiting at most `limit` in all; false on EOF, error or timeout.
inline bool read_within(int fd, void* data, std::size_t size,
                        std::chrono::seconds limit = std::chrono::seconds(20)) {
  auto* p = static_cast<char*>(data);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (size > 0) {
    pollfd ready{fd, POLLIN, 0};
    if (poll(&ready, 1, 100) <= 0) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      continue;
    }
    const ssize_t n = read(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace fdbench::testing
