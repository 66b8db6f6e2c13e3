#pragma once
// HOW the work is spread. A Strategy object owns its workers: they are created by the
// factory (untimed) and joined by the destructor; run() times one repetition from the
// moment the workers are released to the moment the last item is done.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/workload.hpp"
#include "model/result.hpp"
#include "uring/uring_options.hpp"

namespace fdbench {

struct StrategyConfig {
  int threads = 1;
  int batch = 64;        // items per task, where the strategy batches
  UringOptions uring{};  // read by the io_uring strategies only
  // The runner does one repetition and is gone (a fresh child's): workers whose only job is
  // their share end with it, as the seed's threads do. The kernel shares the descriptor table
  // only while more than one thread holds it, so a worker kept waiting for a next repetition
  // that never comes would make the other's last table growth wait for a grace period too.
  bool one_repetition = false;
  // --harness: fdbench's minimal harness, or the seed's own (StrategyInfo::published).
  Harness harness = Harness::minimal;
};

// Descriptors a strategy holds at once beyond the workload's own: its rings, channels, helper
// processes' descriptors and the items its workers have in flight. Counted as if every process
// of the strategy shared one table, so the sum is an upper bound for each of them.
struct DescriptorUse {
  std::uint64_t per_thread = 0;  // each worker's (thread or process)
  std::uint64_t fixed = 0;       // the strategy's own besides (a helper's loop and channel)
  // Slots of the io_uring direct-descriptor table each worker's ring registers: no
  // descriptors, but the kernel refuses a table larger than RLIMIT_NOFILE (EMFILE).
  std::uint64_t slot_table = 0;

  [[nodiscard]] std::uint64_t total(int threads) const {
    return per_thread * static_cast<std::uint64_t>(threads) + fixed;
  }
};

struct Repetition {
  std::int64_t ns = 0;
  Tally tally;
  // What the timed region took (page faults, context switches), summed over the workers, each
  // read around its own timed part; nullopt where the strategy's workers cannot be counted here.
  std::optional<TimedRegion> usage;
  // When the clock started (platform::now_ns()): where the timed region lies, for the kernel's
  // records of it (--kernel-trace).
  std::int64_t start_ns = 0;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  // One timed repetition over every item of `work`.
  virtual Repetition run(Workload& work) = 0;
};

// Makes a strategy's workers for a configuration, untimed.
using MakeStrategy = std::unique_ptr<Strategy> (*)(const StrategyConfig&);

// What a strategy is and how it is made: constant data (plain function pointers, no state),
// so that the registry is one constant table.
struct StrategyInfo {
  std::string_view name;
  std::string_view summary;                // one line for --help and `strategies`
  BatchUnit batch_unit = BatchUnit::none;  // what --batch counts; none: it changes nothing
  MakeStrategy make = nullptr;
  // Empty when the strategy can run here; otherwise why not ("io_uring_disabled is 2",
  // "built without liburing"). Cheap enough to call once per result.
  std::string (*unavailable_reason)() = [] { return std::string(); };
  // Empty when it can make items of `op` here; otherwise why not: an item its workers have no
  // call for ("libuv opens files only"), or one this kernel lacks (io_uring's socket op). Read
  // before a command starts, so that what cannot run is refused or said up front.
  std::string (*cannot_make)(ItemSpec::Op) = [](ItemSpec::Op) { return std::string(); };
  // Recorded with every result (JSON "parameters"): how work reaches the workers, and what
  // --batch means for this strategy (empty when it means nothing).
  std::string_view dispatch{};
  std::string_view batch_means{};
  // Parameters that depend on the configuration and on this machine, recorded beside those
  // (io_uring: the ring features the kernel accepted, which the strategy then uses exactly).
  // `holds` says whether the workload holds its descriptors. Must not throw.
  std::map<std::string, std::string> (*parameters)(const StrategyConfig&, bool holds) = nullptr;
  // Opens files by full path only (no *at() calls): --paths relative cannot apply to it.
  bool full_paths_only = false;
  // What findings and reporters need to know of it, recorded with every result so that they
  // never go by its name: what its workers are, whose descriptor table they fill (and, when
  // it is not a shared one, how: a few words for the findings' advice), and whether it is
  // the reference, the seed's plain loop the others are compared with (exactly one is).
  WorkerKind workers = WorkerKind::threads;
  FdTable fd_table = FdTable::shared;
  bool reference = false;
  // The most descriptors it holds at once with `config` (the descriptor budget adds the
  // workload's held ones, any pregrow and fdbench's own, and raises RLIMIT_NOFILE to fit).
  DescriptorUse (*descriptors)(const StrategyConfig&) = [](const StrategyConfig&) {
    return DescriptorUse{};
  };
  // Threads or processes that can be on a CPU during its timed region with `config`: more
  // than --threads where a caller waits beside the workers or a loop thread drives them.
  int (*runnable_threads)(const StrategyConfig&) = [](const StrategyConfig& config) {
    return config.threads;
  };
  // Whether tune may recommend it: a way a program can adopt. False for a strategy measured
  // only to show what it costs (the seed's naive pool).
  bool recommendable = true;
  // --latency: why its calls cannot be timed, for a strategy whose calls neither the
  // workload's loop nor the strategy itself times (a result's "latency" parameter says it).
  std::string_view latency_not_recorded{};
  // --harness published: the seed's own harness for this strategy, by the workload it comes
  // from (the first seed opened files with direct threads and a pool; the second created
  // sockets with threads). Empty where no seed had one: such a result is unavailable and says
  // so (published_unavailable_reason), never measured with the minimal harness instead.
  MakeStrategy published_open = nullptr;
  MakeStrategy published_create = nullptr;

  // accept: each worker accepts on a listener of its own, all sharing one port (SO_REUSEPORT),
  // so the workload makes one per worker.
  bool listener_per_worker = false;
  // Made for accept alone (epoll, reuseport): left out where another workload's "every
  // strategy" is meant (open, socket, tune), which it could only report unavailable.
  bool accepts_only = false;

  // Whether --batch changes what it does.
  [[nodiscard]] bool uses_batch() const { return batch_unit != BatchUnit::none; }
};

// Why `strategy` cannot make items of `op` with `config.harness` here (its own
// unavailable_reason(), its cannot_make(op), or no published harness for such a workload);
// empty when it can.
std::string unavailable_reason(const StrategyInfo& strategy, const StrategyConfig& config,
                               ItemSpec::Op op);
// Its workers for `config` (config.harness chooses the harness), untimed; only where
// unavailable_reason() is empty.
std::unique_ptr<Strategy> make_strategy(const StrategyInfo& strategy, const StrategyConfig& config,
                                        WorkloadKind kind);

// Every strategy, in the order they are listed and run by default.
std::span<const StrategyInfo> strategy_registry();
// nullptr if `name` is unknown.
const StrategyInfo* find_strategy(std::string_view name);
std::vector<std::string> strategy_names();
// Every strategy that is one for a workload of `kind` (all, or --strategy all): not those made
// for accept alone where the workload is another.
std::vector<std::string> strategy_names_for(WorkloadKind kind);

}  // namespace fdbench
