#pragma once
// Kernel evidence's attribution (--kernel-trace): the records of platform::KernelTracer read
// into one KernelSample (model/kernel_evidence.hpp) per timed repetition: which measuring
// thread was off its CPU when, and why, from the kernel call chain at each switch.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/kernel_evidence.hpp"
#include "platform/platform.hpp"

namespace fdbench {

// Which traced threads measure: in a fresh child, the child's (any process but this one); in
// this process, all but the harness's threads (those there when tracing began, bar the one
// that runs the repetitions) — and only those that ran during the timed region, so that the
// idle workers of results interleaved with this one are not counted, and that waited in it
// for no child process to end (wait4, waitid: a fresh child's middle process, which forks the
// one that measures when its inherited table is too big, and waits for it).
struct MeasuringThreads {
  int own_pid = 0;
  bool in_child = false;
  std::vector<int> harness;  // sorted
  [[nodiscard]] bool may_measure(int pid, int tid) const;
};

using SymbolOf = std::function<std::string_view(std::uint64_t)>;

// What a switch's kernel call chain says of why the thread left its CPU.
struct SwitchCause {
  std::optional<OffCpuCause> cause;  // nullopt: the thread ended
  std::string stack;                 // its first frames past the scheduler's, for "other"
  std::string grace;                 // fd-table growth: the grace period's kind
  bool reaping = false;              // waiting in wait4/waitid for a child process to end
};
// The cause of the switch whose call chain is `stack` (a Kind::stack event of `records`).
SwitchCause classify_switch(const platform::KernelRecords& records,
                            const platform::KernelEvent& stack, bool preempted,
                            const SymbolOf& symbol);

// Follows a measurement's threads across repetitions: what each was doing when a repetition
// began is known from the records before it.
class KernelAttribution {
 public:
  KernelAttribution(MeasuringThreads who, SymbolOf symbol);
  // Each sample of during() keeps its off-CPU stretches too (KernelSample::spans).
  void keep_spans(bool keep) { keep_spans_ = keep; }
  // Records between repetitions: only each thread's state is kept.
  void before(const platform::KernelRecords& records);
  // The records of a repetition whose timed region was [start_ns, end_ns).
  KernelSample during(const platform::KernelRecords& records, std::int64_t start_ns,
                      std::int64_t end_ns);

 private:
  struct ThreadState {
    bool off = false;
    bool exited = false;
    std::int64_t since = 0;
    OffCpuCause cause = OffCpuCause::other;
    std::string stack;  // for "other"
    std::string grace;  // the grace period's kind, for fd-table growth
    bool reaping = false;  // off in wait4/waitid: waiting for a child process to end
  };
  using Classified = SwitchCause;
  class Window;  // one during() call: the repetition's region and what was seen in it
  Classified classify(const platform::KernelRecords& records, const platform::KernelEvent& stack,
                      bool preempted) const;
  void step(const platform::KernelRecords& records, const platform::KernelEvent& e,
            std::unordered_map<int, const platform::KernelEvent*>& stacks);

  MeasuringThreads who_;
  SymbolOf symbol_;
  std::unordered_map<int, ThreadState> threads_;
  bool keep_spans_ = false;
};

}  // namespace fdbench
