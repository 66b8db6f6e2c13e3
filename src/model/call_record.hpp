#pragma once
// Per-call timing (--latency) as data: one record per item, its creation call and, where the
// workload closes at once, its close, timed on the worker that made them (engine/call_trace.hpp
// writes them). A strategy that submits its items in batches itself (io_uring) cannot time each
// call: it writes one submission record per batch, on the slot of the batch's first item, and
// leaves the batch's other slots "never run".
#include <cstddef>
#include <cstdint>

namespace fdbench {

// What a record times.
enum class CallKind : std::int16_t {
  call,  // one creation call of the workload's loop, and its close
  // One io_uring submission of a batch of creations: from just before it was submitted to
  // the reaping of its last completion; its close is the batch's separate submission of
  // closes, if it had one. `fd` is the highest descriptor of the process table the batch
  // returned, -1 if none did (all failed, or direct descriptors: ring slots, not the table's).
  submission,
};

struct CallRecord {
  std::int64_t start_ns = 0;    // when the creation call began (the monotonic clock)
  std::int64_t create_ns = -1;  // how long it took; -1: the item was never run
  std::int64_t close_ns = -1;   // its close (-1: held to the end of the repetition)
  std::int32_t fd = -1;         // the highest descriptor it returned; -1 when it failed
  std::int16_t worker = -1;     // which worker made it, numbered 0, 1, ... per repetition
  CallKind kind = CallKind::call;
};
// Small, as one is kept per item (and sent through a pipe by a fresh child): a worker number
// fits 16 bits (--threads is at most 1024).
static_assert(sizeof(CallRecord) == 32);
inline constexpr std::size_t kMaxCallWorkers = 1024;

}  // namespace fdbench
