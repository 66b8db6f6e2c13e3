#pragma once
// Per-call timing (--latency): every item's creation call and, where the workload closes at
// once, its close, timed on the worker that made them (model/call_record.hpp). The buffer holds
// one record per item and is allocated before the clock starts; inside the timed region a
// worker only reads the clock and writes its own items' records: no allocation, no lock, no
// I/O. A trace keeps one record per item whoever writes it, and a fresh child sends it to its
// parent the same way.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "model/call_record.hpp"
#include "platform/platform.hpp"

namespace fdbench {

class CallTrace {
 public:
  explicit CallTrace(std::size_t items) : records_(items), serial_(next_serial()) {}
  CallTrace(const CallTrace&) = delete;
  CallTrace& operator=(const CallTrace&) = delete;

  // Untimed, before each repetition: every record back to "never run", and workers numbered
  // from 0 again. Workers may be new threads each repetition (--order interleaved makes them
  // per repetition), so a number names a worker within one repetition: 0 ... T-1.
  void reset() noexcept {
    for (auto& r : records_) r = CallRecord{};
    serial_ = next_serial();
    next_worker_.store(0, std::memory_order_relaxed);
    tids_.fill(0);
  }
  // --kernel-trace: each worker also notes its thread id as it is numbered (one gettid per
  // worker per repetition, on its first call), so that a slow call's own thread can be found
  // among the kernel's records.
  void name_threads(bool on) noexcept { name_threads_ = on; }
  // Worker w's thread id in this repetition, 0 where not noted; as many as were numbered.
  [[nodiscard]] std::span<const std::int32_t> worker_tids() const noexcept {
    const auto n = std::min<std::size_t>(
        static_cast<std::size_t>(next_worker_.load(std::memory_order_relaxed)), tids_.size());
    return {tids_.data(), name_threads_ ? n : 0};
  }
  [[nodiscard]] CallRecord& at(std::size_t i) noexcept { return records_[i]; }
  // Item i's creation, timed on its worker: begun at `start_ns`, returned at `end_ns`, its
  // highest descriptor `fd` (-1: it failed, or made none in the process's table). Its close,
  // if timed, is the record's close_ns, written by the caller.
  void created(std::size_t i, std::int64_t start_ns, std::int64_t end_ns, std::int16_t worker,
               std::int32_t fd, CallKind kind = CallKind::call) noexcept {
    CallRecord& record = records_[i];
    record.start_ns = start_ns;
    record.create_ns = end_ns - start_ns;
    record.fd = fd;
    record.worker = worker;
    record.kind = kind;
  }
  [[nodiscard]] const std::vector<CallRecord>& records() const noexcept { return records_; }
  [[nodiscard]] std::vector<CallRecord>& records() noexcept { return records_; }

  // The calling thread's worker number in this repetition of the trace: given on its first
  // call (one atomic increment per thread per repetition), the same from then on.
  [[nodiscard]] std::int16_t worker() noexcept {
    // By serial, not address: a later trace may be allocated where an earlier one was.
    thread_local std::uint64_t owner = 0;
    thread_local std::int16_t id = -1;
    if (owner != serial_) {
      owner = serial_;
      id = static_cast<std::int16_t>(next_worker_.fetch_add(1, std::memory_order_relaxed));
      if (name_threads_ && static_cast<std::size_t>(id) < tids_.size()) {
        tids_[static_cast<std::size_t>(id)] = platform::thread_id();
      }
    }
    return id;
  }

 private:
  static std::uint64_t next_serial() noexcept {
    static std::atomic<std::uint64_t> serial{0};
    return serial.fetch_add(1, std::memory_order_relaxed) + 1;
  }

  std::vector<CallRecord> records_;
  std::uint64_t serial_;
  std::atomic<std::int32_t> next_worker_{0};
  bool name_threads_ = false;
  std::array<std::int32_t, kMaxCallWorkers> tids_{};
};

}  // namespace fdbench
