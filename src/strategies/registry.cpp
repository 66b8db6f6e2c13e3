#include "strategies/registry.hpp"

namespace fdbench {

const std::vector<StrategyInfo>& strategy_registry() {
  static const std::vector<StrategyInfo> registry = {
      {.name = "threads",
       .summary = "T workers, each a contiguous 1/T share of the list",
       .make = make_threads_strategy,
       .dispatch = "T threads (the caller included), a contiguous share each, released together",
       .reference = true},
      {.name = "pool",
       .summary = "the seed's mutex+condvar pool, one task and one future per item",
       .make = make_pool_strategy,
       .dispatch = "one mutex+condvar queue; std::function + packaged_task + future per item",
       .recommendable = false},
      {.name = "pool-batch",
       .summary = "the same pool, one task per --batch items",
       .uses_batch = true,
       .make = make_pool_batch_strategy,
       .dispatch = "one mutex+condvar queue; std::function + packaged_task + future per task",
       .batch_means = "items per task"},
      {.name = "fast-pool",
       .summary = "one task per item, claimed from per-worker ranges with stealing, no lock",
       .make = make_fast_pool_strategy,
       .dispatch = "per-worker ranges, one atomic claim per item, single-item stealing"},
      {.name = "process",
       .summary = "T forked worker processes, one descriptor table each, a 1/T share each",
       .make = make_process_strategy,
       .dispatch = "T forked processes (own descriptor tables), a contiguous share each",
       .workers = WorkerKind::processes,
       .fd_table = FdTable::per_worker,
       .unshared_by = "separate processes"},
      {.name = "uring",
       .summary = "io_uring, a ring per thread: --batch openat SQEs, then their closes",
       .uses_batch = true,
       .make = make_uring_strategy,
       .unavailable_reason = uring_unavailable_reason,
       .dispatch = "T threads, one io_uring ring each (normal descriptors)",
       .batch_means = "SQEs per submission; ring entries = batch"},
      {.name = "uring-direct",
       .summary = "io_uring direct descriptors in ring slots: open+linked close, no fd table",
       .uses_batch = true,
       .make = make_uring_direct_strategy,
       .unavailable_reason = uring_direct_unavailable_reason,
       .dispatch = "T threads, one io_uring ring each, direct descriptors in registered slots",
       .batch_means = "open+close pairs per submission; ring entries = 2 x batch",
       .fd_table = FdTable::none,
       .unshared_by = "io_uring direct descriptors"},
      {.name = "libuv",
       .summary = "libuv's pool of T threads, uv_fs_open+uv_fs_close, --batch in flight",
       .uses_batch = true,
       .make = make_libuv_strategy,
       .unavailable_reason = libuv_unavailable_reason,
       .dispatch = "libuv threadpool of T (UV_THREADPOOL_SIZE) in a helper process, one loop",
       .batch_means = "requests in flight"},
  };
  return registry;
}

const StrategyInfo* find_strategy(std::string_view name) {
  for (const auto& info : strategy_registry()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const auto& info : strategy_registry()) names.emplace_back(info.name);
  return names;
}

}  // namespace fdbench
