#include "engine/descriptor_budget.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/errors.hpp"
#include "fdbench/error.hpp"
#include "model/format.hpp"
#include "platform/platform.hpp"

namespace fdbench {

namespace {

// The highest RLIMIT_NOFILE this process may set without CAP_SYS_RESOURCE.
std::uint64_t nofile_ceiling_now() {
  return std::min(platform::nofile_limit().hard, platform::nofile_ceiling());
}

// Raises RLIMIT_NOFILE to `needed` (the hard limit too where it is below): 0, or the errno of
// the raise that failed.
int raise_nofile_to(std::uint64_t needed) {
  if (platform::nofile_limit().soft >= needed) return 0;
  return needed <= nofile_ceiling_now() ? platform::raise_nofile_soft(needed)
                                        : platform::raise_nofile_hard(needed);
}

// A run never meets EMFILE because of fdbench's own arithmetic: refused up front instead.
void ensure_descriptor_budget(const DescriptorBudget& budget, std::string_view what_to_lower) {
  const std::uint64_t needed = budget.needed();
  const int err = raise_nofile_to(needed);
  if (err == 0) return;
  const auto limit = platform::nofile_limit();
  const std::uint64_t ceiling = nofile_ceiling_now();
  std::string who = fmt::format("{} holds {}, the workload {}, fdbench {}", budget.strategy_config,
                                budget.strategy, budget.workload, budget.own(needed));
  if (budget.slot_table > 0) {
    who += fmt::format("; each ring registers {} direct-descriptor slots", budget.slot_table);
  }
  if (needed > ceiling) {
    throw Error(fmt::format(
        "needs {} descriptors ({}), soft limit is {}, hard limit is {}: raise it with ulimit -Hn "
        "as root, or lower {}",
        needed, who, limit.soft, ceiling, what_to_lower));
  }
  throw Error(fmt::format("needs {} descriptors ({}), soft limit is {} and raising it failed: {}",
                          needed, who, limit.soft, errno_text(err)));
}

DescriptorReservation reserved_now() {
  return {platform::nofile_limit().soft, nofile_ceiling_now()};
}

bool needs_less(const DescriptorBudget& a, const DescriptorBudget& b) {
  return a.needed() < b.needed();
}

}  // namespace

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
  return std::max({limit_for(held, strategy + workload + kOwnDescriptors),
                   pregrow_fd + kOwnDescriptors, slot_table});
}

DescriptorBudget budget_of(const StrategyInfo& strategy, const StrategyConfig& config,
                           const Pregrow& pregrow, std::uint64_t workload, std::vector<int> held) {
  DescriptorBudget budget;
  const DescriptorUse use = strategy.descriptors(config);
  budget.strategy = use.total(config.threads);
  budget.slot_table = use.slot_table;
  budget.strategy_config =
      fmt::format("{} --threads {}{}", strategy.name, config.threads,
                  strategy.uses_batch() ? fmt::format(" --batch {}", config.batch) : "");
  budget.workload = workload;
  budget.held = std::move(held);
  if (pregrow.mode == Pregrow::Mode::fd) budget.pregrow_fd = pregrow.fd + 1ULL;
  return budget;
}

std::string DescriptorReservation::skip_reason(const DescriptorBudget& budget) const {
  const std::uint64_t needed = budget.needed();
  const std::string where = platform::uses_linux_interfaces()
                                ? fmt::format(
                                      "as root `ulimit -Hn {}`, or nofile in "
                                      "/etc/security/limits.conf",
                                      needed)
                                : fmt::format("as root `ulimit -Hn {}`", needed);
  return fmt::format("needs {} descriptors; the hard limit is {}: raise it to {} ({})",
                     group_digits(needed), group_digits(hard), group_digits(needed), where);
}

DescriptorReservation reserve_descriptors(std::span<const DescriptorBudget> combinations,
                                          std::string_view what_to_lower) {
  FDBENCH_ASSERT(!combinations.empty());
  const auto most = std::max_element(combinations.begin(), combinations.end(), needs_less);
  if (raise_nofile_to(most->needed()) == 0) return reserved_now();
  // The hard limit is too low for some: refused when not even the one that needs least fits
  // (its numbers are the ones to change), otherwise those under it run.
  ensure_descriptor_budget(*std::min_element(combinations.begin(), combinations.end(), needs_less),
                           what_to_lower);
  const std::uint64_t ceiling = nofile_ceiling_now();
  const DescriptorBudget* largest_fit = nullptr;
  for (const auto& budget : combinations) {
    if (budget.needed() <= ceiling &&
        (largest_fit == nullptr || needs_less(*largest_fit, budget))) {
      largest_fit = &budget;
    }
  }
  FDBENCH_ASSERT(largest_fit != nullptr);  // the least one fits
  ensure_descriptor_budget(*largest_fit, what_to_lower);
  return reserved_now();
}

}  // namespace fdbench
