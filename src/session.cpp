// Session: runs a command's sweep (strategies x thread counts x pregrow settings), tells the
// reporters what the next results measure, and hands each result to them as it finishes.
#include "fdbench/session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string_view>

#include "descriptor_budget.hpp"
#include "fdbench/error.hpp"
#include "fdbench/measure.hpp"
#include "fdbench/platform.hpp"
#include "open_input.hpp"

namespace fdbench {

namespace {

const StrategyInfo& strategy_named(const std::string& name) {
  const StrategyInfo* strategy = find_strategy(name);
  FDBENCH_ASSERT(strategy != nullptr);  // the CLI validated the names
  return *strategy;
}

// "uring, 2 threads, pregrow auto": the progress line's name for a result.
std::string progress_label(std::string_view strategy, int threads, const Pregrow* pregrow) {
  std::string label = fmt::format("{}, {} thread{}", strategy, threads, threads == 1 ? "" : "s");
  if (pregrow != nullptr) label += ", pregrow " + pregrow->label();
  return label;
}

Section section_of(const WorkloadRecipe& work, int repeat, int warmup) {
  Section s;
  s.workload = work.facts.name;
  s.kind = work.facts.kind;
  s.descriptors_per_item = work.facts.descriptors_per_item;
  s.repeat = repeat;
  s.warmup = warmup;
  return s;
}

// --rcu-expedited: sets /sys/kernel/rcu_expedited for the results that ask for it, and puts
// the original value back on every way out: the normal end, an Error, Ctrl-C and SIGTERM
// (their handlers only record the signal; the run unwinds through this destructor).
class RcuSetting {
 public:
  RcuSetting() = default;
  RcuSetting(const RcuSetting&) = delete;
  RcuSetting& operator=(const RcuSetting&) = delete;
  ~RcuSetting() {
    if (original_) platform::set_rcu_expedited(*original_);
  }

  void set(int value) {
    if (!original_) {
      original_ = platform::rcu_expedited();
      if (!original_) throw Error("cannot read /sys/kernel/rcu_expedited");
    }
    if (const int err = platform::set_rcu_expedited(value)) {
      throw Error(
          fmt::format("cannot set /sys/kernel/rcu_expedited to {}: {}", value, errno_text(err)));
    }
  }

 private:
  std::optional<int> original_;
};

}  // namespace

Session::Session(Environment env, std::vector<std::unique_ptr<Reporter>> reporters)
    : env_(std::move(env)), reporters_(std::move(reporters)) {
  for (auto& reporter : reporters_) reporter->begin(env_);
}

void Session::emit(Result result) {
  if (progress_ != nullptr) progress_->result_done();
  if (rcu_block_) result.parameters["rcu_expedited"] = std::to_string(*rcu_block_);
  results_.push_back(std::move(result));
  for (auto& reporter : reporters_) reporter->add(results_.back());
}

void Session::announce(const Section& section) {
  for (auto& reporter : reporters_) reporter->section(section);
}

RepetitionDone Session::starting(std::string_view what, int repetitions) {
  if (progress_ == nullptr) return {};
  progress_->start_result(what, repetitions);
  return [progress = progress_](int done) { progress->repetition_done(done); };
}

void Session::finish(bool complete) {
  if (progress_ != nullptr) progress_->clear();
  if (finished_) return;
  finished_ = true;
  for (auto& reporter : reporters_) reporter->end(results_, complete);
}

void Session::each_rcu_setting(const std::vector<int>& values, const std::function<void()>& block) {
  if (values.empty()) return block();
  RcuSetting setting;
  for (const int value : values) {
    setting.set(value);
    rcu_block_ = value;
    block();
  }
  rcu_block_.reset();
}

void Session::run_open(const OpenOptions& options) {
  const auto strategies = options.strategies.empty() ? strategy_names() : options.strategies;
  const bool generated = options.tree.empty() && options.list.empty();
  DescriptorBudget budget = budget_of(strategies, options.threads, options.batch, options.pregrow);
  if (options.keep_open && generated && options.files_given) budget.workload = options.files;
  ensure_descriptor_budget(budget, "--batch, --threads, --files or --pregrow");
  const std::size_t per_strategy =
      options.threads.size() * (options.keep_open ? options.pregrow.size() : 1);
  const std::size_t blocks = std::max<std::size_t>(1, options.rcu_expedited.size());
  if (progress_ != nullptr) progress_->plan(blocks * strategies.size() * per_strategy);
  FileSet::CreationProgress creating;
  if (progress_ != nullptr) {
    creating = [progress = progress_](std::size_t made, std::size_t total) {
      progress->creating_files(made, total);
    };
  }
  const OpenInput in = prepare_input(options, creating);
  // A tree's size, or a reused set's, is known only now.
  if (options.keep_open && budget.workload != in.summary.files) {
    budget.workload = in.summary.files;
    ensure_descriptor_budget(budget, "the number of files (use --list with fewer paths)");
  }
  const OpenSpec spec = open_spec(options, in);
  const WorkloadRecipe recipe = open_workload_recipe(spec);
  Section section = section_of(recipe, options.repeat, options.warmup);
  section.input = in.summary;
  section.fs_type = in.fs_type();
  section.subdirs = in.generated ? in.generated->subdirs() : 0;
  section.held = options.keep_open;
  section.fresh_child = options.keep_open;  // only a fresh process shows a held table's growth
  announce(section);

  const int repetitions = options.repeat + options.warmup;
  each_rcu_setting(options.rcu_expedited, [&] {
    for (const auto& name : strategies) {
      const StrategyInfo& strategy = strategy_named(name);
      for (const int threads : options.threads) {
        const StrategyConfig config{threads, options.batch, options.uring};
        if (!options.keep_open) {
          const auto work = make_open_workload(spec);
          Result r = measure(
              *work, strategy, config, options.repeat, options.warmup,
              {options.latency, starting(progress_label(name, threads, nullptr), repetitions)});
          r.input = in.summary;
          record_paths(r, options.paths, strategy);
          emit(std::move(r));
          continue;
        }
        for (const auto& pregrow : options.pregrow) {
          Result r = measure_in_fresh_child(
              recipe, strategy, config, pregrow, options.repeat, options.warmup,
              {options.latency, starting(progress_label(name, threads, &pregrow), repetitions)});
          r.input = in.summary;
          record_paths(r, options.paths, strategy);
          emit(std::move(r));
        }
      }
    }
  });
}

void Session::run_socket(const SocketOptions& options) {
  const int most_threads = *std::max_element(options.threads.begin(), options.threads.end());
  const WorkloadRecipe one_thread = socket_workload_recipe(options.kind, options.per_thread);
  const std::uint64_t per_thread =
      one_thread.facts.ops * static_cast<std::uint64_t>(one_thread.facts.descriptors_per_item);
  DescriptorBudget budget =
      budget_of(options.strategies, options.threads, options.batch, options.pregrow);
  budget.workload = static_cast<std::uint64_t>(most_threads) * per_thread;
  ensure_descriptor_budget(budget, "--threads, --per-thread, --batch or --pregrow");
  if (progress_ != nullptr) {
    progress_->plan(std::max<std::size_t>(1, options.rcu_expedited.size()) *
                    options.strategies.size() * options.threads.size() * options.pregrow.size());
  }
  Section section = section_of(one_thread, options.repeat, options.warmup);
  section.per_thread = options.per_thread;
  section.held = true;
  section.fresh_child = true;
  announce(section);
  each_rcu_setting(options.rcu_expedited, [&] {
    for (const auto& name : options.strategies) {
      const StrategyInfo& strategy = strategy_named(name);
      for (const int threads : options.threads) {
        const auto count = static_cast<std::size_t>(threads) * options.per_thread;
        for (const auto& pregrow : options.pregrow) {
          emit(measure_in_fresh_child(
              socket_workload_recipe(options.kind, count), strategy,
              {threads, options.batch, options.uring}, pregrow, options.repeat, options.warmup,
              {options.latency, starting(progress_label(name, threads, &pregrow),
                                         options.repeat + options.warmup)}));
        }
      }
    }
  });
}

}  // namespace fdbench
