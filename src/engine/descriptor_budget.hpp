#pragma once
// The descriptor budget: how many descriptors one combination of a sweep holds at once (its
// strategy's own, the workload's, any pregrow, fdbench's), and RLIMIT_NOFILE raised to fit
// before anything runs. Where the hard limit is too low for some combinations, those that fit
// run and the others are skipped, each saying why; when none fits, one line that names the
// numbers and what to lower.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/strategy.hpp"

namespace fdbench {

// fdbench's own descriptors opened after the check, besides those it holds already: the file
// set's directory and its parent, output files, brief /proc reads, a fresh child's channel.
inline constexpr std::uint64_t kOwnDescriptors = 16;

// The most descriptors a combination holds at once, by whom.
struct DescriptorBudget {
  std::uint64_t strategy = 0;    // what the strategy holds (DescriptorUse)
  std::string strategy_config;   // which one: "uring --threads 1 --batch 2000"
  std::uint64_t workload = 0;    // descriptors the workload holds (--keep-open, sockets)
  std::vector<int> held;         // fdbench's descriptors now, ascending
  std::uint64_t pregrow_fd = 0;  // the highest fd a --pregrow asks for, + 1
  std::uint64_t slot_table = 0;  // the largest io_uring direct-descriptor table (DescriptorUse)

  // fdbench's own that take a number below `limit`: those it holds below it (one held above,
  // such as a shell's 255, takes none: it was counted, off by one, in "needs 20 (... fdbench
  // 21)") and kOwnDescriptors.
  [[nodiscard]] std::uint64_t own(std::uint64_t limit) const {
    const auto below = std::count_if(held.begin(), held.end(), [limit](int fd) {
      return fd >= 0 && static_cast<std::uint64_t>(fd) < limit;
    });
    return static_cast<std::uint64_t>(below) + kOwnDescriptors;
  }
  // The RLIMIT_NOFILE the run needs: room for the strategy's, the workload's and fdbench's
  // new descriptors in the lowest free numbers beside those held (limit_for), for the
  // --pregrow descriptor, and no less than a ring's slot table.
  [[nodiscard]] std::uint64_t needed() const;
};

// The lowest RLIMIT_NOFILE under which `more` new descriptors fit beside `held` (ascending):
// a new descriptor takes the lowest free number, so what counts is where the `more`-th free
// number is, not how high the highest one held is (a shell's fd 255, inherited, costs one).
std::uint64_t limit_for(std::span<const int> held, std::uint64_t more);

// One combination's budget: what `strategy` holds with `config` (its registry entry's
// `descriptors`), the highest fd `pregrow` asks for, beside fdbench's `held` (measured once
// per sweep, platform::open_descriptors()); `workload`: what the workload holds at once.
DescriptorBudget budget_of(const StrategyInfo& strategy, const StrategyConfig& config,
                           const Pregrow& pregrow, std::uint64_t workload, std::vector<int> held);

// What a sweep reserved: RLIMIT_NOFILE raised as far as its combinations need and the hard
// limit allows. A combination that needs more than the soft limit set is skipped.
struct DescriptorReservation {
  std::uint64_t soft = 0;  // the soft RLIMIT_NOFILE now, raised for those that fit
  std::uint64_t hard = 0;  // the highest this process can have (the hard limit)

  [[nodiscard]] bool fits(const DescriptorBudget& budget) const { return budget.needed() <= soft; }
  // Why a combination that does not fit is skipped, and the fix: "needs 1,300 descriptors;
  // the hard limit is 1,024: raise it to 1,300 (as root `ulimit -Hn 1300`, or nofile in
  // /etc/security/limits.conf)".
  [[nodiscard]] std::string skip_reason(const DescriptorBudget& budget) const;
};

// For a sweep, one budget per combination: RLIMIT_NOFILE raised to fit every one (the hard
// limit too, with CAP_SYS_RESOURCE), or, where the hard limit is too low for some, to fit
// those under it; the others are the caller's to skip (DescriptorReservation::fits). Throws
// Error when none fits, naming who holds what in the one that needs least and
// `what_to_lower`; or when raising the soft limit fails.
DescriptorReservation reserve_descriptors(std::span<const DescriptorBudget> combinations,
                                          std::string_view what_to_lower);

}  // namespace fdbench
