#include "strategies/registry.hpp"

namespace fdbench {

const std::vector<StrategyInfo>& strategy_registry() {
  static const std::vector<StrategyInfo> registry = {
      {"threads", "T workers, each a contiguous 1/T share of the list", false,
       make_threads_strategy},
      {"pool", "the seed's mutex+condvar pool, one task and one future per item", false,
       make_pool_strategy},
      {"pool-batch", "the same pool, one task per --batch items", true, make_pool_batch_strategy},
      {"fast-pool", "one task per item, claimed from per-worker ranges with stealing, no lock",
       false, make_fast_pool_strategy},
      {"process", "T forked worker processes, one descriptor table each, a 1/T share each",
       false, make_process_strategy},
      {"uring", "io_uring, a ring per thread: --batch openat SQEs, then their closes", true,
       make_uring_strategy, uring_unavailable_reason},
      {"uring-direct", "io_uring direct descriptors in ring slots: open+linked close, no fd table",
       true, make_uring_direct_strategy, uring_direct_unavailable_reason},
      {"libuv", "libuv's pool of T threads, uv_fs_open+uv_fs_close, --batch in flight", true,
       make_libuv_strategy, libuv_unavailable_reason},
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
