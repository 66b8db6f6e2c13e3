#include "output/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "fdbench/error.hpp"

namespace fdbench {

AtomicFile::AtomicFile(std::string path, std::string what)
    : path_(std::move(path)), what_(std::move(what)), tmp_(path_ + ".tmp-XXXXXX") {
  fd_.reset(mkstemp(tmp_.data()));
  if (!fd_) {
    throw Error(fmt::format("cannot write {} {}: {}", what_, path_, errno_text(errno)));
  }
  fchmod(fd_.get(), 0644);
}

AtomicFile::~AtomicFile() {
  if (fd_) unlink(tmp_.c_str());
}

void AtomicFile::fail(int err) {
  fd_.reset();
  unlink(tmp_.c_str());
  throw Error(fmt::format("cannot write {} {}: {}", what_, path_, errno_text(err)));
}

void AtomicFile::write(std::string_view content) {
  if (!fd_) fail(EBADF);  // an earlier write failed, or the file is committed
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_.get(), p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(errno);
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void AtomicFile::commit() {
  if (!fd_) fail(EBADF);
  if (fsync(fd_.get()) != 0) fail(errno);
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) fail(errno);
  fd_.reset();
}

void write_file_atomically(const std::string& path, std::string_view content,
                           std::string_view what) {
  AtomicFile file(path, std::string(what));
  file.write(content);
  file.commit();
}

}  // namespace fdbench
