#pragma once
// What `fdbench trace` found in another program, as data: its descriptor-creating calls and
// closes by kind (counts, failures by errno, time inside them and off-CPU time by kernel
// cause), the threads that made them, and its descriptor table's growths. Made by
// engine/descriptor_trace.hpp from the kernel's records; written by output/trace_text.hpp.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/kernel_evidence.hpp"

namespace fdbench {

// One kind of call ("openat", "close"), or every descriptor-creating call together ("all").
struct TracedCalls {
  std::string call;
  std::uint64_t count = 0;
  std::map<std::string, std::uint64_t> failures_by_errno;  // "ENOENT" -> count
  std::int64_t total_ns = 0;  // time inside the calls, summed over threads
  std::int64_t p50_ns = 0;
  std::int64_t p99_ns = 0;
  std::int64_t p999_ns = 0;
  std::int64_t max_ns = 0;
  OffCpuByCause off_cpu{};  // time inside the calls their threads spent off a CPU, by cause
  [[nodiscard]] std::uint64_t failed() const;
};

// A thread that made traced calls.
struct TracedThread {
  int pid = 0;
  int tid = 0;
  std::uint64_t created = 0;  // descriptor-creating calls
  std::uint64_t closed = 0;
  std::int64_t creating_ns = 0;  // time inside the creating calls
};

// A call whose descriptor was at or past the end of its process's table: the table grew.
struct TableGrowth {
  std::int64_t at_ns = 0;  // when the call began, since the trace began
  int pid = 0;
  int tid = 0;
  std::string call;
  int fd = 0;
  int from_slots = 0;
  int to_slots = 0;  // the kernel's new size: the next power of two past fd
  std::int64_t call_ns = 0;
  int threads_sharing = 0;  // threads of the process as it grew (a table is shared by them)
  OffCpuByCause off_cpu{};  // inside this call
};

struct TraceReport {
  std::vector<std::string> command;   // what ran (empty for --pid)
  int pid = 0;                        // the traced process (the command's)
  bool follow = true;                 // its child processes traced too
  std::int64_t wall_ns = 0;           // from attaching to the end of the trace
  std::string ended;                  // "the command exited", "--duration ended", ...
  std::optional<int> exit_code;       // the command's, where it ended while traced
  std::optional<int> table_at_start;  // FDSize of the process when tracing began
  std::optional<int> table_at_end;    // ... and as it ended (nullopt: it had exited)
  std::optional<int> rcu_expedited;
  std::vector<TracedCalls> creating;  // by kind, most time first
  TracedCalls all_creating;           // "all" of them
  TracedCalls closes;                 // "close"
  std::vector<TracedThread> threads;  // most creating calls first
  std::vector<TableGrowth> growths;   // of the traced process's own table, in time order
  std::uint64_t processes = 0;        // processes that made traced calls
  std::uint64_t unfinished = 0;       // calls still inside the kernel when tracing ended
  std::uint64_t lost = 0;             // records the kernel dropped (full buffer, throttling)
  std::string grace_period;           // "normal" or "expedited", where a growth waited for one
  // Sum of `off_cpu` over the growths (the growing calls' own waits).
  [[nodiscard]] OffCpuByCause growth_off_cpu() const;
  // The largest number of threads that shared the table at a growth (0 without growths).
  [[nodiscard]] int most_threads_sharing() const;
};

}  // namespace fdbench
