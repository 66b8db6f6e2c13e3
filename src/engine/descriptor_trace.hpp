#pragma once
// fdbench trace's reading of the kernel's records (platform::KernelTracer with
// descriptor_calls): each descriptor-creating call and close paired from its entry to its
// return on its thread, the time its thread spent off a CPU inside it by the cause the
// switch's call chain names (the same causes as --kernel-trace), the process's table size
// followed through the descriptors it is given, and its threads counted as they start and end.
// Pure: tested on hand-made records.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/kernel_attribution.hpp"
#include "model/trace_report.hpp"
#include "platform/platform.hpp"

namespace fdbench {

// Where a trace begins: the traced process, when, and its table and threads then.
struct TraceStart {
  int pid = 0;
  std::int64_t time_ns = 0;  // now_ns() as the events were attached
  std::optional<int> table_slots;
  int threads = 1;
  bool follow = true;  // its child processes' calls too (false: only its own)
};

class DescriptorTrace {
 public:
  DescriptorTrace(const TraceStart& start, SymbolOf symbol);
  // One drain's records. Those before `settled_ns` are read now; later ones wait for the next
  // drain, which may still bring earlier records from another CPU's buffer.
  void add(const platform::KernelRecords& records, std::int64_t settled_ns);
  // Reads what is left; the report of [start, end_ns). The caller fills in what the records
  // cannot say (command, exit code, the table at the end, rcu_expedited, how it ended).
  TraceReport finish(std::int64_t end_ns);

 private:
  struct Event {
    platform::KernelEvent::Kind kind;
    bool preempted = false;
    std::int32_t pid = 0;
    std::int32_t tid = 0;
    std::int64_t time_ns = 0;
    std::int32_t call = 0;
    std::int64_t value = 0;
    SwitchCause cause;  // a stack's, classified as it is drained
  };
  struct OpenCall {
    platform::DescriptorCall what;
    std::int64_t start_ns = 0;
    OffCpuByCause off{};
  };
  struct ThreadState {
    std::optional<OpenCall> call;
    SwitchCause pending;  // the last call chain seen, for its switch out
    bool has_pending = false;
    bool off = false;
    std::int64_t off_since = 0;
    OffCpuCause off_cause = OffCpuCause::other;
    std::string grace;
  };
  struct Kind {
    std::vector<std::int64_t> times;
    TracedCalls calls;
  };

  void read(const Event& e);
  void returned(const Event& e, ThreadState& t);
  void switched_in(const Event& e, ThreadState& t);
  void record(const Event& e, const OpenCall& call);
  void grew(const Event& e, const OpenCall& call);
  static TracedCalls summary(Kind& kind);

  TraceStart start_;
  SymbolOf symbol_;
  std::vector<Event> pending_;
  std::unordered_map<int, ThreadState> threads_;
  std::map<int, int> alive_;  // threads of each process, as they start and end
  int table_slots_ = 0;       // the traced process's table as followed (0: unknown)
  std::map<std::string, Kind, std::less<>> kinds_;
  Kind all_creating_;
  Kind closes_;
  std::map<int, TracedThread> callers_;
  std::vector<TableGrowth> growths_;
  std::map<int, bool> processes_;
  std::string grace_;
  std::uint64_t lost_ = 0;
};

}  // namespace fdbench
