#pragma once
// Factories of the strategies; each is defined in its own file and registered in
// registry.cpp (one line each).
#include <memory>

#include "fdbench/strategy.hpp"

namespace fdbench {

std::unique_ptr<Strategy> make_threads_strategy(const StrategyConfig& config);
std::unique_ptr<Strategy> make_pool_strategy(const StrategyConfig& config);
std::unique_ptr<Strategy> make_pool_batch_strategy(const StrategyConfig& config);

}  // namespace fdbench
