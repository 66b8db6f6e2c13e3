#pragma once
// The "Recommendation" block of `fdbench tune`: the setting to use, the alternatives within
// noise, the knee, the descriptor-table and RLIMIT_NOFILE advice. The table reporter prints it
// under the sweep's findings; Markdown and HTML show it as a section of their own.
#include <string>
#include <string_view>

#include "analysis/tune_summary.hpp"

namespace fdbench {

// "the sweep took 21.6 s, more than its --budget of 1 s", or "" within the budget (and the 5%
// the combinations' last repetitions may add): every combination gets 6 repetitions at least,
// so a small budget can be overrun, and that is said.
inline constexpr double kBudgetSlack = 1.05;
std::string budget_overrun_text(const TuneSummary& summary);
// The option that makes a sweep of `workload` shorter a repetition: --files, or --connections.
std::string_view sizing_option(WorkloadKind workload);
// The block, from its "\nRecommendation\n" heading on (the table's words).
std::string tune_text(const TuneSummary& summary);
// The block without its heading: its lines, aligned for a fixed-width font.
std::string recommendation_block(const TuneSummary& summary);

}  // namespace fdbench
