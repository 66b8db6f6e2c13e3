// The one planner of the measuring commands (planner.hpp): combinations, their descriptors,
// the files prepared once, and how each result starts.
#include "run/planner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "common/errors.hpp"
#include "model/format.hpp"
#include "platform/platform.hpp"

namespace fdbench {

namespace {

// "uring, 2 threads, pregrow auto": the progress line's name for a result (", published
// harness" after it with --harness published).
std::string progress_label(const TraceKey& key, Harness harness) {
  std::string label = fmt::format("{}, {}", key.strategy, thread_count_text(key.threads));
  if (key.pregrow) label += ", pregrow " + key.pregrow->label();
  if (harness == Harness::published) label += ", published harness";
  return label;
}

bool asks_published_harness(const std::vector<Harness>& harnesses) {
  return std::find(harnesses.begin(), harnesses.end(), Harness::published) != harnesses.end();
}

const StrategyInfo& registered_strategy(const std::string& name) {
  const StrategyInfo* strategy = find_strategy(name);
  FDBENCH_ASSERT(strategy != nullptr);  // the CLI validated the names
  return *strategy;
}

// What a generated set will hold, before it is made: known up front but for a tree's, a
// list's or a reused set's size (0 until then).
std::uint64_t expected_held(const OpenOptions& options) {
  const bool generated = options.tree.empty() && options.list.empty();
  return options.keep_open && generated ? options.files.value_or(0) : 0;
}

SweepDescriptors reserved_for(std::span<const Combination> combinations, const OpenOptions& options,
                              std::string_view what_to_lower) {
  SweepDescriptors descriptors;
  descriptors.reserve(combinations, expected_held(options), what_to_lower);
  return descriptors;
}

}  // namespace

SweepDescriptors::SweepDescriptors() : held_(platform::open_descriptors()) {}

DescriptorBudget SweepDescriptors::budget(const Combination& c, std::uint64_t workload) const {
  return budget_of(*c.strategy, c.config, c.pregrow, workload, held_);
}

void SweepDescriptors::reserve(std::span<const Combination> combinations, std::uint64_t workload,
                               std::string_view what_to_lower) {
  std::vector<DescriptorBudget> budgets;
  for (const auto& c : combinations) budgets.push_back(budget(c, workload));
  reserve(budgets, what_to_lower);
}

void SweepDescriptors::reserve(std::span<const DescriptorBudget> budgets,
                               std::string_view what_to_lower) {
  reserved_ = reserve_descriptors(budgets, what_to_lower);
}

bool SweepDescriptors::fits(const Combination& c, std::uint64_t workload) const {
  return reserved_.fits(budget(c, workload)) || !c.strategy->unavailable_reason().empty();
}

MeasurementStarter SweepDescriptors::or_skipped(MeasurementStarter measured,
                                                const WorkloadFacts& facts, const Combination& c,
                                                std::uint64_t workload) const {
  if (fits(c, workload)) return measured;
  return [&facts, &strategy = *c.strategy, config = c.config, pregrow = c.pregrow,
          why = reserved_.skip_reason(budget(c, workload))](const MeasurementStart& how) {
    return skipped_measurement(facts, strategy, config, pregrow, how.repeat, how.warmup, why);
  };
}

MeasurementStarter in_fresh_children(const WorkloadRecipe& recipe, const Combination& c) {
  return [&recipe, &strategy = *c.strategy, config = c.config,
          pregrow = c.pregrow](const MeasurementStart& how) {
    return fresh_child_measurement(recipe, strategy, config, pregrow, how.repeat, how.warmup,
                                   how.extras);
  };
}

PlannedResult planned_result(const Combination& c, TraceKey key, MeasurementStarter start,
                             std::function<void(Result&)> complete) {
  std::string label = c.label.empty() ? progress_label(key, c.config.harness) : c.label;
  Contest contest{key.strategy, c.config.threads, c.config.batch, key.pregrow, c.config.harness};
  return {std::move(key), std::move(label), std::move(start), std::move(complete),
          std::move(contest)};
}

LatencyBytes latency_bytes_of(bool latency, std::uint64_t items, bool in_process) {
  if (!latency) return {};
  return {in_process ? items * sizeof(CallRecord) : 0, items * 2 * sizeof(std::int64_t)};
}

Section section_of(const WorkloadRecipe& work, const Repeat& repeat, int warmup) {
  Section s;
  s.workload = work.facts.name;
  s.kind = work.facts.kind;
  s.descriptors_per_item = work.facts.descriptors_per_item;
  s.repeat = repeat;
  s.warmup = warmup;
  return s;
}

std::vector<Combination> open_combinations(const OpenOptions& options) {
  const auto names =
      options.strategies.empty() ? strategy_names_for(WorkloadKind::open) : options.strategies;
  std::vector<Combination> combinations;
  for (const auto& name : names) {
    const StrategyInfo& strategy = registered_strategy(name);
    for (const int threads : options.threads) {
      StrategyConfig config{threads, options.batch, options.uring};
      for (const Harness harness : options.keep_open ? std::vector<Harness>{} : options.harness) {
        config.harness = harness;
        combinations.push_back({&strategy, config, Pregrow{}, ""});
      }
      config.harness = Harness::minimal;
      for (const auto& pregrow : options.keep_open ? options.pregrow : std::vector<Pregrow>{}) {
        combinations.push_back({&strategy, config, pregrow, ""});
      }
    }
  }
  return combinations;
}

namespace {

// The combinations of a sweep whose items are held (socket, accept): strategy × threads ×
// pregrow × harness, in that order.
std::vector<Combination> held_combinations(const SweepOptions& options) {
  std::vector<Combination> combinations;
  for (const auto& name : options.strategies) {
    const StrategyInfo& strategy = registered_strategy(name);
    for (const int threads : options.threads) {
      for (const auto& pregrow : options.pregrow) {
        for (const Harness harness : options.harness) {
          StrategyConfig config{threads, options.batch, options.uring};
          config.harness = harness;
          combinations.push_back({&strategy, config, pregrow, ""});
        }
      }
    }
  }
  return combinations;
}

}  // namespace

std::vector<Combination> socket_combinations(const SocketOptions& options) {
  return held_combinations(options);
}

std::vector<Combination> accept_combinations(const AcceptOptions& options) {
  return held_combinations(options);
}

OpenPlan::OpenPlan(const OpenOptions& options, std::vector<Combination> combinations,
                   std::string_view what_to_lower, const FileSet::CreationProgress& progress)
    : options_(options),
      combinations_(std::move(combinations)),
      descriptors_(reserved_for(combinations_, options, what_to_lower)),
      in_(prepare_input(options, options.timeout_s, progress)),
      spec_(open_spec(options, in_)),
      recipe_(open_workload_recipe(spec_)) {
  // A tree's size, or a reused set's, is known only now.
  if (expected_held(options) != held()) {
    descriptors_.reserve(combinations_, held(),
                         "the number of files, or of the directories they are in (use --list "
                         "with fewer paths)");
  }
}

Section OpenPlan::section() const {
  Section section = section_of(recipe_, options_.repeat, options_.warmup);
  section.paths = options_.paths;
  for (const auto& c : combinations_) {
    const auto& name = c.strategy->name;
    const bool listed = std::find(section.by_full_path.begin(), section.by_full_path.end(), name) !=
                        section.by_full_path.end();
    if (options_.paths == PathMode::relative && c.strategy->full_paths_only && !listed) {
      section.by_full_path.emplace_back(name);
    }
  }
  section.input = in_.summary;
  section.fs_type = in_.fs_type();
  section.subdirs = in_.generated ? in_.generated->subdirs() : 0;
  section.held = options_.keep_open;
  // Only a fresh process shows a held table's growth; the user's files are opened in one too,
  // which fdbench can abandon when an open never returns (measured_in_fresh_children).
  section.fresh_child = measured_in_fresh_children(options_, in_);
  section.harness_column = asks_published_harness(options_.harness);
  return section;
}

SchedulerSettings OpenPlan::settings() const {
  return {options_.order, options_.latency,
          latency_bytes_of(options_.latency, recipe_.facts.ops,
                           !measured_in_fresh_children(options_, in_)),
          options_.timeout_s, opening_text(options_, in_)};
}

// Held descriptors are measured from the kernel's smallest table in a fresh child, and so are
// the user's files, in a child fdbench can abandon (measured_in_fresh_children); the rest in
// this process, by fdbench's workload or the seed's own harness.
PlannedResult OpenPlan::planned(const Combination& c) const {
  MeasurementStarter start = [this, &strategy = *c.strategy,
                              config = c.config](const MeasurementStart& how) {
    auto work = config.harness == Harness::published
                    ? make_published_open_workload(in_.dir_path, in_.paths())
                    : make_open_workload(spec_);
    return in_process_measurement(std::move(work), strategy, config, how.repeat, how.warmup,
                                  how.extras, how.workers);
  };
  if (measured_in_fresh_children(options_, in_)) start = in_fresh_children(recipe_, c);
  start = descriptors_.or_skipped(std::move(start), recipe_.facts, c, held());
  TraceKey key{0, std::string(c.strategy->name), c.config.threads,
               options_.keep_open ? std::optional<Pregrow>(c.pregrow) : std::nullopt,
               std::string(to_string(recipe_.facts.workload_kind))};
  return planned_result(c, std::move(key), std::move(start),
                        [this, &strategy = *c.strategy](Result& r) {
                          r.input = in_.summary;
                          record_paths(r, options_.paths, strategy, !in_.generated);
                        });
}

std::vector<PlannedResult> SweepPlan::planned() const {
  std::vector<PlannedResult> plan;
  for (const auto& c : combinations()) plan.push_back(planned(c));
  return plan;
}

namespace {

// The listeners a combination's accept workload makes.
int listeners_of(const Combination& c) {
  return c.strategy->listener_per_worker ? c.config.threads : 1;
}

}  // namespace

AcceptPlan::AcceptPlan(const AcceptOptions& options, std::vector<Combination> combinations)
    : options_(options), combinations_(std::move(combinations)) {
  std::vector<DescriptorBudget> budgets;
  for (const auto& c : combinations_) {
    const int listeners = listeners_of(c);
    if (!recipes_.contains(listeners)) {
      recipes_.emplace(listeners,
                       accept_workload_recipe(options.kind, options.connections, listeners));
    }
    budgets.push_back(descriptors_.budget(c, held_by(c)));
  }
  descriptors_.reserve(budgets, "--connections or --pregrow");
}

const WorkloadRecipe& AcceptPlan::recipe_of(const Combination& c) const {
  const auto it = recipes_.find(listeners_of(c));
  FDBENCH_ASSERT(it != recipes_.end());  // a combination of the plan, or one like it
  return it->second;
}

std::uint64_t AcceptPlan::held_by(const Combination& c) const {
  return options_.connections + accept_fixed_descriptors(listeners_of(c), options_.kind);
}

bool AcceptPlan::fits(const Combination& c) const { return descriptors_.fits(c, held_by(c)); }

Section AcceptPlan::section() const {
  FDBENCH_ASSERT(!recipes_.empty());
  Section section = section_of(recipes_.begin()->second, options_.repeat, options_.warmup);
  section.burst = options_.connections;
  section.held = true;
  section.fresh_child = true;
  return section;
}

SchedulerSettings AcceptPlan::settings() const {
  return {options_.order, options_.latency,
          latency_bytes_of(options_.latency, options_.connections, false), options_.timeout_s,
          fmt::format("accepting {} connections", to_string(options_.kind))};
}

PlannedResult AcceptPlan::planned(const Combination& c) const {
  const WorkloadRecipe& recipe = recipe_of(c);
  auto start = descriptors_.or_skipped(in_fresh_children(recipe, c), recipe.facts, c, held_by(c));
  return planned_result(c,
                        {0, std::string(c.strategy->name), c.config.threads, c.pregrow,
                         std::string(to_string(WorkloadKind::accept))},
                        std::move(start));
}

}  // namespace fdbench
