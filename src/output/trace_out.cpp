#include "output/trace_out.hpp"

#include <fmt/format.h>

#include <iterator>

#include "fdbench/error.hpp"
#include "model/latency.hpp"

namespace fdbench {

namespace {

// Rows are written in pieces of about this size.
constexpr std::size_t kFlushBytes = 1 << 20;

}  // namespace

TraceOut::TraceOut(std::string path) : path_(std::move(path)), file_(path_, "--trace-out") {
  buffer_ = fmt::format("{}\n", kHeader);
}

void TraceOut::add(const TraceKey& key, int repetition, std::span<const CallRecord> calls) {
  if (!error_.empty()) return;
  const std::string prefix =
      fmt::format("{},{},{},{},{}", key.result, key.strategy, key.threads,
                  key.pregrow ? key.pregrow->label() : std::string(), repetition);
  auto out = std::back_inserter(buffer_);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const CallRecord& c = calls[i];
    if (c.create_ns < 0) continue;
    // A submission (io_uring) is one row for its batch, on the batch's first item.
    const bool batch = c.kind == CallKind::submission;
    fmt::format_to(out, "{},{},{},{},{},{},{}\n", prefix, c.worker, i,
                   batch ? kSubmitOp : key.create_op.c_str(), c.start_ns, c.create_ns, c.fd);
    ++rows_;
    if (c.close_ns >= 0) {
      fmt::format_to(out, "{},{},{},{},{},{},{}\n", prefix, c.worker, i,
                     batch ? kSubmitCloseOp : "close", c.start_ns + c.create_ns, c.close_ns, c.fd);
      ++rows_;
    }
    if (buffer_.size() >= kFlushBytes) {
      flush();
      if (!error_.empty()) return;
    }
  }
}

void TraceOut::flush() {
  try {
    file_.write(buffer_);
  } catch (const Error& e) {
    error_ = e.what();
  }
  buffer_.clear();
}

std::uint64_t TraceOut::commit() {
  if (error_.empty()) flush();
  if (!error_.empty()) throw Error(error_);
  file_.commit();
  return rows_;
}

}  // namespace fdbench
