// Which of a command's strategy x harness pairs can run here, from the registry's data, and
// the lines that refuse a command none of whose pairs can, or name those that cannot.
#include "run/runnable.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

#include "common/errors.hpp"
#include "engine/measure.hpp"
#include "engine/strategy.hpp"
#include "engine/workload.hpp"
#include "fdbench/error.hpp"

namespace fdbench {

namespace {

bool can_run(const StrategyInfo& strategy, Harness harness, ItemSpec::Op op) {
  StrategyConfig config;
  config.harness = harness;
  return unavailable_reason(strategy, config, op).empty();
}

// `strategies` (every one when empty), each with every one of `harnesses`, making items of `op`.
Runnability runnability_of(const std::vector<std::string>& strategies,
                           const std::vector<Harness>& harnesses, ItemSpec::Op op) {
  Runnability r;
  const auto every = strategy_names_for(workload_kind_of(op));
  for (const auto& name : strategies.empty() ? every : strategies) {
    const StrategyInfo* strategy = find_strategy(name);
    FDBENCH_ASSERT(strategy != nullptr);  // the CLI validated the names
    for (const Harness harness : harnesses) {
      ++r.asked;
      StrategyConfig config;
      config.harness = harness;
      if (auto why = unavailable_reason(*strategy, config, op); !why.empty()) {
        r.cannot.push_back({strategy->name, harness, std::move(why)});
      }
    }
  }
  for (const auto& strategy : strategy_registry()) {
    if (strategy.accepts_only && op != ItemSpec::Op::accept_connection) continue;
    if (std::any_of(harnesses.begin(), harnesses.end(),
                    [&](Harness harness) { return can_run(strategy, harness, op); })) {
      r.instead.emplace_back(strategy.name);
    }
  }
  return r;
}

// The pairs that cannot run, those with the same harness and reason together, in their order:
// "pool-batch, process (--harness published): the published harness exists for ...; libuv: ...".
// Grouping only shortens the line: what cannot run was decided by the registry.
std::string reasons_text(const std::vector<Unrunnable>& cannot) {
  struct Group {
    std::vector<std::string_view> strategies;
    Harness harness;
    std::string_view why;
  };
  std::vector<Group> groups;
  for (const auto& u : cannot) {
    const auto same = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.harness == u.harness && g.why == u.why;
    });
    if (same == groups.end()) {
      groups.push_back({{u.strategy}, u.harness, u.why});
    } else {
      same->strategies.push_back(u.strategy);
    }
  }
  std::vector<std::string> parts;
  for (const auto& g : groups) {
    parts.push_back(fmt::format("{}{}: {}", fmt::join(g.strategies, ", "),
                                g.harness == Harness::published ? " (--harness published)" : "",
                                g.why));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

Runnability runnability(const OpenOptions& options) {
  // --keep-open measures the minimal harness alone (the published one closes each file).
  const std::vector<Harness> harnesses =
      options.keep_open ? std::vector<Harness>{Harness::minimal} : options.harness;
  return runnability_of(options.strategies, harnesses, ItemSpec::Op::open_file);
}

Runnability runnability(const SocketOptions& options) {
  Runnability r = runnability_of(options.strategies, options.harness, item_op(options.kind));
  r.workload_why = socket_kind_unavailable_reason(options.kind);
  return r;
}

Runnability runnability(const AcceptOptions& options) {
  return runnability_of(options.strategies, options.harness, ItemSpec::Op::accept_connection);
}

std::string nothing_runs_text(const Runnability& runnability) {
  if (!runnability.workload_why.empty()) return runnability.workload_why;
  std::string text = "nothing it asks for can run here: " + reasons_text(runnability.cannot);
  if (!runnability.instead.empty()) {
    text += fmt::format("; choose --strategy {} (these can)", fmt::join(runnability.instead, ","));
  }
  return text;
}

std::string unavailable_text(const Runnability& runnability) {
  if (runnability.cannot.empty() || runnability.nothing_runs()) return {};
  return "will be unavailable here (their rows say why): " + reasons_text(runnability.cannot);
}

}  // namespace fdbench
