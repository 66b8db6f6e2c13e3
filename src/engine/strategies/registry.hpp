#pragma once
// Factories of the strategies; each is defined in its own file and registered in
// registry.cpp (one line each).
#include <map>
#include <memory>
#include <string>

#include "engine/strategy.hpp"

namespace fdbench {

std::unique_ptr<Strategy> make_threads_strategy(const StrategyConfig& config);
std::unique_ptr<Strategy> make_pool_strategy(const StrategyConfig& config);
std::unique_ptr<Strategy> make_pool_batch_strategy(const StrategyConfig& config);
std::unique_ptr<Strategy> make_fast_pool_strategy(const StrategyConfig& config);
std::unique_ptr<Strategy> make_process_strategy(const StrategyConfig& config);
// --harness published (published_strategies.cpp): the seeds' own threads and pool.
std::unique_ptr<Strategy> make_published_threads_strategy(const StrategyConfig& config);
std::unique_ptr<Strategy> make_published_pool_strategy(const StrategyConfig& config);
// Accepting servers (drain_strategies.cpp): epoll (Linux) and reuseport (Linux, TCP).
std::unique_ptr<Strategy> make_epoll_strategy(const StrategyConfig& config);
std::unique_ptr<Strategy> make_reuseport_strategy(const StrategyConfig& config);
std::string epoll_unavailable_reason();
std::string reuseport_unavailable_reason();
std::string drain_cannot_make(ItemSpec::Op op);  // accepted connections only
// libuv (libuv_strategy.cpp; unavailable when built without libuv).
std::unique_ptr<Strategy> make_libuv_strategy(const StrategyConfig& config);
std::string libuv_unavailable_reason();
std::string libuv_cannot_make(ItemSpec::Op op);  // files only
// io_uring (uring_strategy.cpp, uring_direct_strategy.cpp; uring_unavailable.cpp when built
// without liburing).
std::unique_ptr<Strategy> make_uring_strategy(const StrategyConfig& config);
std::unique_ptr<Strategy> make_uring_direct_strategy(const StrategyConfig& config);
std::string uring_unavailable_reason();
std::string uring_direct_unavailable_reason();
// Files and sockets only, sockets where the kernel has IORING_OP_SOCKET.
std::string uring_cannot_make(ItemSpec::Op op);
std::string uring_direct_cannot_make(ItemSpec::Op op);
// The ring features each would use with `config` here, and uring-direct's way of closing.
std::map<std::string, std::string> uring_parameters(const StrategyConfig& config, bool holds);
std::map<std::string, std::string> uring_direct_parameters(const StrategyConfig& config,
                                                           bool holds);

}  // namespace fdbench
