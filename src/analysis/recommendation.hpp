#pragma once
// The recommendation a sweep of measured results supports (what `tune` and recommend() hand a
// program), and its JSON form (declared with the public API in fdbench/tune.hpp).
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fdbench/tune.hpp"
#include "model/result.hpp"

namespace fdbench {

// Which strategies a recommendation may name, by whose table their descriptors go into
// (StrategyInfo::fd_table, recorded with every result). A program calling fdbench can use as
// descriptors only those made in its own table (FdTable::shared: threads, the pools, libuv,
// uring); the others only where it says it can (tune's --allow-process, --allow-direct).
struct Eligibility {
  bool processes = false;  // FdTable::per_worker: made in worker processes, a table each
  bool direct = false;     // FdTable::none: io_uring direct descriptors, in the ring's table

  [[nodiscard]] bool allows(FdTable table) const;
};

// Strategies that ran but that `eligibility` keeps out of the recommendation, those with the
// same kind of table together, and why, with the flag that lets them in.
struct Ineligible {
  std::vector<std::string> strategies;  // in the sweep's order
  std::string why;
};
std::vector<Ineligible> ineligible(std::span<const Result> sweep, const Eligibility& eligibility);

// Only results that ran without failure, of strategies the registry marks recommendable (a
// strategy measured for comparison only, such as the seed's naive pool, never is), whose
// descriptors `eligibility` allows. nullopt when no such result is left. The fastest's ties go
// to the earlier result of the sweep.
std::optional<Recommendation> recommend_from(std::span<const Result> sweep,
                                             const Eligibility& eligibility = {});

// The recommendation as the JSON object recommendation_json() writes as text: `tune`'s
// "recommendation", the whole of a --save file.
nlohmann::json recommendation_object(const Recommendation& recommendation);

}  // namespace fdbench
