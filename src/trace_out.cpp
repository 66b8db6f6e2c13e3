#include "fdbench/trace_out.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "fdbench/error.hpp"
#include "fdbench/latency.hpp"

namespace fdbench {

namespace {

Error cannot_write(const std::string& path, int err) {
  return Error(fmt::format("cannot write --trace-out {}: {}", path, errno_text(err)));
}

}  // namespace

TraceOut::TraceOut(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp-XXXXXX") {
  const int fd = mkstemp(tmp_.data());
  if (fd < 0) throw cannot_write(path_, errno);
  fchmod(fd, 0644);
  file_ = fdopen(fd, "w");
  if (file_ == nullptr) {
    const int err = errno;
    close(fd);
    unlink(tmp_.c_str());
    throw cannot_write(path_, err);
  }
  fmt::print(file_, "{}\n", kHeader);
}

TraceOut::~TraceOut() {
  if (file_ == nullptr) return;
  std::fclose(file_);
  unlink(tmp_.c_str());
}

void TraceOut::add(const TraceKey& key, int repetition, std::span<const CallRecord> calls) {
  if (file_ == nullptr) return;
  const std::string prefix =
      fmt::format("{},{},{},{},{}", key.result, key.strategy, key.threads, key.pregrow, repetition);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const CallRecord& c = calls[i];
    if (c.create_ns < 0) continue;
    // A submission (io_uring) is one row for its batch, on the batch's first item.
    const bool batch = c.kind == CallKind::submission;
    fmt::print(file_, "{},{},{},{},{},{},{}\n", prefix, c.worker, i,
               batch ? kSubmitOp : key.create_op.c_str(), c.start_ns, c.create_ns, c.fd);
    ++rows_;
    if (c.close_ns < 0) continue;
    fmt::print(file_, "{},{},{},{},{},{},{}\n", prefix, c.worker, i,
               batch ? kSubmitCloseOp : "close", c.start_ns + c.create_ns, c.close_ns, c.fd);
    ++rows_;
  }
}

std::uint64_t TraceOut::commit() {
  FDBENCH_ASSERT(file_ != nullptr);
  std::FILE* file = file_;
  file_ = nullptr;
  const bool written = std::fflush(file) == 0 && std::ferror(file) == 0 && fsync(fileno(file)) == 0;
  const int err = errno;
  if (std::fclose(file) != 0 || !written) {
    unlink(tmp_.c_str());
    throw cannot_write(path_, written ? errno : err);
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int rename_err = errno;
    unlink(tmp_.c_str());
    throw cannot_write(path_, rename_err);
  }
  return rows_;
}

}  // namespace fdbench
