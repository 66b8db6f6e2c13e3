#include "fdbench/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include <fmt/format.h>

#include "fdbench/error.hpp"
#include "fdbench/unique_fd.hpp"

namespace fdbench {

void write_file_atomically(const std::string& path, std::string_view content,
                           std::string_view what) {
  std::string tmp = path + ".tmp-XXXXXX";
  UniqueFd fd(mkstemp(tmp.data()));
  if (!fd) {
    throw Error(fmt::format("cannot write {} {}: {}", what, path, errno_text(errno)));
  }
  fchmod(fd.get(), 0644);
  auto fail = [&](int err) {
    unlink(tmp.c_str());
    return Error(fmt::format("cannot write {} {}: {}", what, path, errno_text(err)));
  };
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = write(fd.get(), p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw fail(errno);
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (fsync(fd.get()) != 0) throw fail(errno);
  fd.reset();
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw fail(errno);
}

}  // namespace fdbench
