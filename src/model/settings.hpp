#pragma once
// What a result was measured with, as types: set by the engine from the strategy and the
// workload, written to JSON and read back, so that findings, reporters and compare decide by
// these and never by a strategy's or a workload's name.
#include <compare>
#include <string>
#include <string_view>

namespace fdbench {

// --pregrow: whether the descriptor table was grown before the clock started, and how far.
struct Pregrow {
  enum class Mode { off, automatic, fd } mode = Mode::off;
  int fd = 0;  // with Mode::fd: grow the table to hold this descriptor number

  [[nodiscard]] bool grows() const { return mode != Mode::off; }
  [[nodiscard]] std::string label() const;  // "off", "auto" or the number
  auto operator<=>(const Pregrow&) const = default;
};
// Parses "off", "auto" or a non-negative number; false if none of these.
bool parse_pregrow(std::string_view text, Pregrow& out);

// What a result's `batch` counts.
enum class BatchUnit {
  none,        // the strategy takes no batch (batch is 1)
  task,        // items per task handed to a pool's worker
  submission,  // operations per io_uring submission: one system call for the batch
  in_flight,   // requests in flight at once (libuv)
};
// The JSON spellings: "none", "task", "submission", "in-flight".
std::string_view to_string(BatchUnit unit);
bool parse_batch_unit(std::string_view text, BatchUnit& unit);

// What each item of a workload asks of the kernel.
enum class WorkloadKind {
  open,    // open an existing file by its path (the path walk included)
  create,  // create a new descriptor: a socket, a pipe, an eventfd
};
// The JSON spellings: "open", "create".
std::string_view to_string(WorkloadKind kind);
bool parse_workload_kind(std::string_view text, WorkloadKind& kind);

}  // namespace fdbench
