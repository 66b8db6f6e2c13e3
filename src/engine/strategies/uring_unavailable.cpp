// Stands in for the io_uring strategies when fdbench is built without liburing (or not for
// Linux): they are still listed, and say why they cannot run.
#include "engine/strategies/registry.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "platform/unavailable.hpp"

namespace fdbench {

namespace {
constexpr const char* kReason = "built without liburing";
}  // namespace

std::unique_ptr<Strategy> make_uring_strategy(const StrategyConfig& /*config*/) {
  throw Unavailable(kReason);
}
std::unique_ptr<Strategy> make_uring_direct_strategy(const StrategyConfig& /*config*/) {
  throw Unavailable(kReason);
}
std::string uring_unavailable_reason() {
  return kReason;
}
std::string uring_direct_unavailable_reason() {
  return kReason;
}
// Unavailable as a whole (above), whatever the items.
std::string uring_cannot_make(ItemSpec::Op /*op*/) {
  return {};
}
std::string uring_direct_cannot_make(ItemSpec::Op /*op*/) {
  return {};
}
std::map<std::string, std::string> uring_parameters(const StrategyConfig& /*config*/,
                                                    bool /*holds*/) {
  return {};
}
std::map<std::string, std::string> uring_direct_parameters(const StrategyConfig& /*config*/,
                                                           bool /*holds*/) {
  return {};
}

}  // namespace fdbench
