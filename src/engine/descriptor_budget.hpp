#pragma once
// The descriptor budget: how many descriptors a sweep holds at once (its strategies' own, the
// workload's, any pregrow, fdbench's) and RLIMIT_NOFILE raised to fit before anything runs,
// or one line that names the numbers and what to lower.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/options.hpp"

namespace fdbench {

// fdbench's own descriptors opened after the check, besides those it holds already: the file
// set's directory and its parent, output files, brief /proc reads, a fresh child's channel.
inline constexpr std::uint64_t kOwnDescriptors = 16;

// The most descriptors a sweep holds at once, by whom.
struct DescriptorBudget {
  std::uint64_t strategy = 0;    // the most any strategy of the sweep holds (DescriptorUse)
  std::string strategy_config;   // which one: "uring --threads 1 --batch 2000"
  std::uint64_t workload = 0;    // descriptors the workload holds (--keep-open, sockets)
  std::vector<int> held;         // fdbench's descriptors now, ascending
  std::uint64_t pregrow_fd = 0;  // the highest fd a --pregrow asks for, + 1

  // fdbench's own: what it holds now and kOwnDescriptors.
  [[nodiscard]] std::uint64_t own() const { return held.size() + kOwnDescriptors; }
  // The RLIMIT_NOFILE the run needs: room for the strategy's, the workload's and fdbench's
  // new descriptors in the lowest free numbers beside those held (limit_for), and for the
  // --pregrow descriptor.
  [[nodiscard]] std::uint64_t needed() const;
};

// The lowest RLIMIT_NOFILE under which `more` new descriptors fit beside `held` (ascending):
// a new descriptor takes the lowest free number, so what counts is where the `more`-th free
// number is, not how high the highest one held is (a shell's fd 255, inherited, costs one).
std::uint64_t limit_for(std::span<const int> held, std::uint64_t more);

// The most any of `strategies` (registered names) holds with any of `threads` at `batch`,
// fdbench's own (measured now) and the highest fd a --pregrow asks for; `workload` is the
// caller's to fill in.
DescriptorBudget budget_of(const std::vector<std::string>& strategies,
                           const std::vector<int>& threads, int batch,
                           const std::vector<Pregrow>& pregrow);

// Raises RLIMIT_NOFILE to fit `budget` (the hard limit too, with CAP_SYS_RESOURCE), or throws
// Error naming who holds what and `what_to_lower`.
void ensure_descriptor_budget(const DescriptorBudget& budget, std::string_view what_to_lower);

}  // namespace fdbench
