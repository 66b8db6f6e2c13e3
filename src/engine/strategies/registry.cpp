#include "engine/strategies/registry.hpp"

#include <algorithm>
#include <cstdint>

#include "common/errors.hpp"
#include "fdbench/error.hpp"

namespace fdbench {

namespace {

// T workers and one more thread that runs beside them while timed: a pool's caller, which
// waits on the futures, or libuv's loop thread, which reaps completions and issues requests.
int threads_plus_one(const StrategyConfig& config) {
  return config.threads + 1;
}

// io_uring's largest ring (IORING_MAX_ENTRIES): rings are set up with IORING_SETUP_CLAMP, so a
// bigger --batch has at most this many SQEs in flight.
constexpr std::uint64_t kMaxRingEntries = 32768;

std::uint64_t batch_of(const StrategyConfig& config) {
  return static_cast<std::uint64_t>(std::max(1, config.batch));
}

// Every strategy, one row each: constant, so it exists before any code runs.
constexpr StrategyInfo kRegistry[] = {
    {.name = "threads",
     .summary = "T workers, each a contiguous 1/T share of the list",
     .make = make_threads_strategy,
     .dispatch = "T threads (the caller included), a contiguous share each, released together",
     .reference = true,
     .published_open = make_published_threads_strategy,
     .published_create = make_published_threads_strategy},
    {.name = "pool",
     .summary = "the seed's mutex+condvar pool, one task and one future per item",
     .make = make_pool_strategy,
     .dispatch = "one mutex+condvar queue; std::function + packaged_task + future per item",
     .runnable_threads = threads_plus_one,
     .recommendable = false,
     .published_open = make_published_pool_strategy},
    {.name = "pool-batch",
     .summary = "the same pool, one task per --batch items",
     .batch_unit = BatchUnit::task,
     .make = make_pool_batch_strategy,
     .dispatch = "one mutex+condvar queue; std::function + packaged_task + future per task",
     .batch_means = "items per task",
     .runnable_threads = threads_plus_one},
    {.name = "fast-pool",
     .summary = "one task per item, claimed from per-worker ranges with stealing, no lock",
     .make = make_fast_pool_strategy,
     .dispatch = "per-worker ranges, one atomic claim per item, single-item stealing"},
    // fast-pool's runnable_threads: T, the caller is worker 0.
    {.name = "process",
     .summary = "T forked worker processes, one descriptor table each, a 1/T share each",
     .make = make_process_strategy,
     .dispatch = "T forked processes (own descriptor tables), a contiguous share each",
     .workers = WorkerKind::processes,
     .fd_table = FdTable::per_worker,
     // Each worker: both ends of its channel (the parent's and its own). The release is a
     // word of shared memory, or a byte on that same channel: no descriptor of its own.
     .descriptors =
         [](const StrategyConfig&) {
           return DescriptorUse{2, 0, 0};
         },
     .latency_not_recorded = "the calls are made in the worker processes, whose records are "
                             "not sent back"},
    {.name = "uring",
     .summary = "io_uring, a ring per thread: --batch openat SQEs, then their closes",
     .batch_unit = BatchUnit::submission,
     .make = make_uring_strategy,
     .unavailable_reason = uring_unavailable_reason,
     .cannot_make = uring_cannot_make,
     .dispatch = "T threads, one io_uring ring each, set up on it (normal descriptors)",
     .batch_means = "SQEs per submission; ring entries = batch",
     .parameters = uring_parameters,
     // runnable_threads: T. The io-wq workers an open may be punted to are the kernel's
     // threads, not fdbench's: they are not counted (for uring-direct too).
     // Each worker: its ring, and a batch of opened descriptors before their closes.
     .descriptors =
         [](const StrategyConfig& config) {
           return DescriptorUse{std::min(batch_of(config), kMaxRingEntries) + 1, 0, 0};
         }},
    {.name = "uring-direct",
     .summary = "io_uring direct descriptors in ring slots: open+linked close, no fd table",
     .batch_unit = BatchUnit::submission,
     .make = make_uring_direct_strategy,
     .unavailable_reason = uring_direct_unavailable_reason,
     .cannot_make = uring_direct_cannot_make,
     .dispatch = "T threads, one io_uring ring each, set up on it, direct descriptors in "
                 "registered slots",
     .batch_means = "open+close pairs per submission, ring entries = 2 x batch (--uring-close "
                    "batched: opens per submission, ring entries = batch)",
     .parameters = uring_direct_parameters,
     .fd_table = FdTable::none,
     // Each worker: its ring. Direct descriptors live in the ring, not in the table, but
     // its slots for a batch (open+close; held ones: a share, which the workload counts)
     // may not outnumber RLIMIT_NOFILE.
     .descriptors =
         [](const StrategyConfig& config) {
           return DescriptorUse{1, 0, std::min(batch_of(config), kMaxRingEntries)};
         }},
    {.name = "epoll",
     .summary = "accept: T threads, an epoll instance each (EPOLLEXCLUSIVE), accept4 until EAGAIN",
     .make = make_epoll_strategy,
     .unavailable_reason = epoll_unavailable_reason,
     .cannot_make = drain_cannot_make,
     .dispatch = "T threads (the caller included), each waits on its own epoll instance holding "
                 "the one listener (EPOLLEXCLUSIVE), then accepts until it is empty",
     // Each worker: its epoll instance.
     .descriptors =
         [](const StrategyConfig&) {
           return DescriptorUse{1, 0, 0};
         },
     .accepts_only = true},
    {.name = "reuseport",
     .summary = "accept: T listeners sharing the port (SO_REUSEPORT), a thread draining each",
     .make = make_reuseport_strategy,
     .unavailable_reason = reuseport_unavailable_reason,
     .cannot_make = drain_cannot_make,
     .dispatch = "T threads (the caller included), each accepts from a listener of its own until "
                 "it is empty; the kernel spreads the connections over the listeners",
     .listener_per_worker = true,
     .accepts_only = true},
    {.name = "libuv",
     .summary = "libuv's pool of T threads, uv_fs_open+uv_fs_close, --batch in flight",
     .batch_unit = BatchUnit::in_flight,
     .make = make_libuv_strategy,
     .unavailable_reason = libuv_unavailable_reason,
     .cannot_make = libuv_cannot_make,
     .dispatch = "libuv threadpool of T (UV_THREADPOOL_SIZE) in a helper process, one loop",
     .batch_means = "requests in flight",
     .full_paths_only = true,
     // The helper: --batch opened files in flight, its loop (epoll, an eventfd, the two
     // signal pipes libuv makes) and its channel to us, both ends. The pool threads hold none.
     .descriptors =
         [](const StrategyConfig& config) {
           return DescriptorUse{0, batch_of(config) + 8, 0};
         },
     .runnable_threads = threads_plus_one,
     .latency_not_recorded =
         "libuv's pool threads make the calls in a helper process; only their completions "
         "reach the loop, which would time the queue and the wake-ups, not the calls"},
};

}  // namespace

std::span<const StrategyInfo> strategy_registry() {
  return kRegistry;
}

std::string unavailable_reason(const StrategyInfo& strategy, const StrategyConfig& config,
                               ItemSpec::Op op) {
  if (auto reason = strategy.unavailable_reason(); !reason.empty()) return reason;
  if (auto reason = strategy.cannot_make(op); !reason.empty()) return reason;
  if (config.harness == Harness::minimal) return {};
  if (op == ItemSpec::Op::accept_connection) {
    return "no seed accepted connections: the published harness exists for open and socket";
  }
  const bool opens = op == ItemSpec::Op::open_file;
  if (opens && !strategy.published_open) {
    return "the published harness exists for threads and pool (the first seed's two programs)";
  }
  if (!opens && !strategy.published_create) {
    return "the published harness exists for threads (the second seed's program)";
  }
  return {};
}

std::unique_ptr<Strategy> make_strategy(const StrategyInfo& strategy, const StrategyConfig& config,
                                        WorkloadKind kind) {
  if (config.harness == Harness::minimal) return strategy.make(config);
  const auto& published =
      kind == WorkloadKind::open ? strategy.published_open : strategy.published_create;
  FDBENCH_ASSERT(published);  // unavailable_reason() said so first
  return published(config);
}

const StrategyInfo* find_strategy(std::string_view name) {
  for (const auto& info : strategy_registry()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::vector<std::string> strategy_names_for(WorkloadKind kind) {
  std::vector<std::string> names;
  for (const auto& info : strategy_registry()) {
    if (!info.accepts_only || kind == WorkloadKind::accept) names.emplace_back(info.name);
  }
  return names;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const auto& info : strategy_registry()) names.emplace_back(info.name);
  return names;
}

}  // namespace fdbench
