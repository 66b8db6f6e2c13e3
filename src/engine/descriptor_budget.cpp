#include "engine/descriptor_budget.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "platform/platform.hpp"

namespace fdbench {

std::uint64_t limit_for(std::span<const int> held, std::uint64_t more) {
  // Below the limit L there are L - (held numbers below L) free ones; the smallest L with
  // `more` of them. Walk the held numbers in order: each below the answer pushes it up one.
  std::uint64_t limit = more;
  for (const int fd : held) {
    if (fd < 0) continue;
    if (static_cast<std::uint64_t>(fd) < limit) ++limit;
  }
  return limit;
}

std::uint64_t DescriptorBudget::needed() const {
  return std::max(limit_for(held, strategy + workload + kOwnDescriptors),
                  pregrow_fd + kOwnDescriptors);
}

DescriptorBudget budget_of(const std::vector<std::string>& strategies,
                           const std::vector<int>& threads, int batch,
                           const std::vector<Pregrow>& pregrow) {
  DescriptorBudget budget;
  for (const auto& name : strategies) {
    const StrategyInfo* info = find_strategy(name);
    FDBENCH_ASSERT(info != nullptr);  // the CLI validated the names
    for (const int t : threads) {
      const std::uint64_t held = info->descriptors(StrategyConfig{t, batch}).total(t);
      if (held <= budget.strategy && !budget.strategy_config.empty()) continue;
      budget.strategy = held;
      budget.strategy_config =
          fmt::format("{} --threads {}{}", name, t,
                      info->uses_batch() ? fmt::format(" --batch {}", batch) : "");
    }
  }
  budget.held = platform::open_descriptors();
  for (const auto& p : pregrow) {
    if (p.mode == Pregrow::Mode::fd) {
      budget.pregrow_fd = std::max<std::uint64_t>(budget.pregrow_fd, p.fd + 1ULL);
    }
  }
  return budget;
}

// A run never meets EMFILE because of fdbench's own arithmetic: refused up front instead.
void ensure_descriptor_budget(const DescriptorBudget& budget, std::string_view what_to_lower) {
  const std::uint64_t needed = budget.needed();
  const auto limit = platform::nofile_limit();
  if (limit.soft >= needed) return;
  const std::uint64_t ceiling = std::min(limit.hard, platform::nofile_ceiling());
  const int err =
      needed <= ceiling ? platform::raise_nofile_soft(needed) : platform::raise_nofile_hard(needed);
  if (err == 0) return;
  const std::string who =
      fmt::format("{} holds {}, the workload {}, fdbench {}", budget.strategy_config,
                  budget.strategy, budget.workload, budget.own());
  if (needed > ceiling) {
    throw Error(fmt::format(
        "needs {} descriptors ({}), soft limit is {}, hard limit is {}: raise it with ulimit -Hn "
        "as root, or lower {}",
        needed, who, limit.soft, ceiling, what_to_lower));
  }
  throw Error(fmt::format("needs {} descriptors ({}), soft limit is {} and raising it failed: {}",
                          needed, who, limit.soft, errno_text(err)));
}

}  // namespace fdbench
