// The public face of tune (fdbench/tune.hpp): recommend() runs the sweep without output, and
// a measured setting becomes open_many's options in one place, so that no program matches
// strategy names itself.
#include <fmt/format.h>

#include <utility>

#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "fdbench/tune.hpp"
#include "run/tune_sweep.hpp"

namespace fdbench {

Recommendation recommend(const RecommendOptions& options) {
  TuneOptions tune = short_tune_options();
  tune.open.files = options.files;
  if (!options.dir.empty()) tune.open.dir = options.dir;
  tune.open.keep_open = options.keep_open;
  tune.budget_seconds = options.budget_seconds;
  const TuneSummary report = run_tune(tune);
  if (!report.recommendation) {
    std::string why = "no strategy ran without failures";
    for (const auto& r : report.sweep) {
      if (!r.ran() || !r.first_failure.empty()) {
        why += fmt::format(" ({} {} threads: {})", r.config.strategy, r.config.threads,
                           r.ran() ? r.first_failure : error_text(r));
        break;
      }
    }
    throw Error("nothing to recommend: " + why);
  }
  return *report.recommendation;
}

// The one place a strategy's name becomes open_many's: the C and C++ APIs' boundary.
std::optional<OpenStrategy> open_strategy(std::string_view name) {
  static constexpr std::pair<std::string_view, OpenStrategy> kOpenStrategies[] = {
      {"threads", OpenStrategy::threads}, {"uring", OpenStrategy::uring}};
  for (const auto& [spelling, strategy] : kOpenStrategies) {
    if (spelling == name) return strategy;
  }
  return std::nullopt;
}

std::optional<OpenManyOptions> open_many_options(const TunedSetting& setting) {
  // Descriptors in no process table (io_uring's direct ones) are none open_many could hand back.
  const StrategyInfo* strategy = find_strategy(setting.strategy);
  if (strategy != nullptr && strategy->fd_table == FdTable::none) return std::nullopt;
  OpenManyOptions options;
  options.strategy = open_strategy(setting.strategy).value_or(OpenStrategy::threads);
  options.threads = setting.threads;
  if (options.strategy == OpenStrategy::uring) options.batch = setting.batch;
  return options;
}

std::optional<OpenManyOptions> open_many_options(const Recommendation& recommendation) {
  // Exact matches first: a setting open_many runs as measured beats one it approximates.
  std::vector<const TunedSetting*> candidates{&recommendation.best};
  for (const auto& s : recommendation.within_noise) candidates.push_back(&s);
  for (const TunedSetting* s : candidates) {
    if (open_strategy(s->strategy)) return open_many_options(*s);
  }
  for (const TunedSetting* s : candidates) {
    if (auto options = open_many_options(*s)) return options;
  }
  return std::nullopt;
}

}  // namespace fdbench
