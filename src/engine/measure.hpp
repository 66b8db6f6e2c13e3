#pragma once
// Measuring one (workload, strategy, threads) combination: warm-up and timed repetitions,
// all in this process, or each in a fresh child process.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "engine/call_trace.hpp"
#include "engine/strategy.hpp"
#include "engine/workload.hpp"
#include "model/result.hpp"

namespace fdbench {

// Told each timed repetition's call records (--latency), numbered from 0 as in times_ns;
// called between repetitions, on the measuring thread.
using CallsDone = std::function<void(int repetition, std::span<const CallRecord> calls)>;

// What a measurement does besides timing repetitions.
// --kernel-trace: the run's tracer, attached before any worker existed (Result::kernel); or,
// when asked without one, why kernel evidence is unavailable, which each result says.
struct KernelTraceRequest {
  bool asked = false;
  platform::KernelTracer* tracer = nullptr;  // not owned
  std::string unavailable;
};

struct MeasureExtras {
  bool latency = false;  // --latency: time every call (Result::latency)
  CallsDone on_calls;    // with latency: where each repetition's records go too
  KernelTraceRequest kernel;  // --kernel-trace
};

// Runs `warmup` untimed and `repeat` timed repetitions of `work` with one strategy in this
// process. The strategy's workers are created before and joined after the repetitions.
Result measure(Workload& work, const StrategyInfo& strategy, const StrategyConfig& config,
               int repeat, int warmup, const MeasureExtras& extras = {});

// Builds the workload inside the child process.
using WorkloadFactory = std::function<std::unique_ptr<Workload>()>;

// What a result records of a workload; known without making one.
struct WorkloadFacts {
  std::string name;                // Workload::name()
  DescriptorKind kind = DescriptorKind::file;  // Workload::kind()
  std::uint64_t ops = 0;           // Workload::ops()
  int descriptors_per_item = 1;    // Workload::descriptors_per_item()
  std::string unit = "fds";        // Workload::unit()
  bool holds_descriptors = false;  // Workload::holds_descriptors()
  WorkloadKind workload_kind = WorkloadKind::create;  // Workload::spec().op, as a kind
  ItemSpec::Op op = ItemSpec::Op::other;              // Workload::spec().op

  bool operator==(const WorkloadFacts&) const = default;
};
WorkloadFacts facts_of(const Workload& work);
// What an item of `op` asks of the kernel, as a result records it.
WorkloadKind workload_kind_of(ItemSpec::Op op);

// A workload to be made in a child, with its facts for the parent's result, so the parent
// never makes one. The child checks that what it made has these facts.
struct WorkloadRecipe {
  WorkloadFacts facts;
  WorkloadFactory make;
};

// The open workload of `spec`; the child holds only fds 0-2, so it opens the directory itself.
WorkloadRecipe open_workload_recipe(OpenSpec spec);
// The socket workload: `count` creation calls of `kind`.
WorkloadRecipe socket_workload_recipe(SocketKind kind, std::size_t count);
// The accept workload: a burst of `connections` queued on `listeners` listeners of `kind`.
WorkloadRecipe accept_workload_recipe(AcceptKind kind, std::size_t connections, int listeners);

// Like measure(), but every repetition runs in a freshly forked child that holds only
// fds 0-2 and its channel to the parent, so each starts from the kernel's smallest descriptor
// table; `pregrow` is applied in the child before any worker thread exists.
Result measure_in_fresh_child(const WorkloadRecipe& work, const StrategyInfo& strategy,
                              const StrategyConfig& config, const Pregrow& pregrow, int repeat,
                              int warmup, const MeasureExtras& extras = {});

}  // namespace fdbench
