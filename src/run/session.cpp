// Session: runs a command's sweep (strategies x thread counts x pregrow settings), tells the
// reporters what the next results measure, and hands each result to them as it finishes.
#include "run/session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/findings.hpp"
#include "engine/child_process.hpp"
#include "engine/descriptor_budget.hpp"
#include "engine/measure.hpp"
#include "engine/measurement.hpp"
#include "fdbench/error.hpp"
#include "inputs/open_input.hpp"
#include "model/call_trace.hpp"
#include "output/trace_out.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"
#include "run/repetition_runner.hpp"

namespace fdbench {

namespace {

const StrategyInfo& strategy_named(const std::string& name) {
  const StrategyInfo* strategy = find_strategy(name);
  FDBENCH_ASSERT(strategy != nullptr);  // the CLI validated the names
  return *strategy;
}

// "uring, 2 threads, pregrow auto": the progress line's name for a result.
std::string progress_label(const TraceKey& key) {
  std::string label =
      fmt::format("{}, {} thread{}", key.strategy, key.threads, key.threads == 1 ? "" : "s");
  if (!key.pregrow.empty()) label += ", pregrow " + key.pregrow;
  return label;
}

// Call durations (8 bytes each) and call records (32 bytes each) that --latency may keep of
// interleaved results at once; beyond it, the results are measured one after another.
constexpr std::uint64_t kInterleavedLatencyBytes = 512ULL << 20;

// What --latency keeps of one result while it is measured: its call durations (two per item
// where it closes at once) and, measured in this process, a record per item.
std::uint64_t latency_bytes_of(bool latency, std::uint64_t items, int repeat, bool in_process) {
  if (!latency) return 0;
  const std::uint64_t records = in_process ? items * sizeof(CallRecord) : 0;
  return records + items * 2 * sizeof(std::int64_t) * static_cast<std::uint64_t>(repeat);
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

// One result of a sweep: what it is (--trace-out's columns and the progress line's name; the
// result's index is added when it starts), how its measurement starts, and what the session
// adds to its result (the input, the path mode).
struct Session::Planned {
  TraceKey key;
  // Workers: how an in-process measurement keeps its workers (measure_plan decides).
  std::function<std::unique_ptr<Measurement>(const MeasureExtras&, Workers)> start;
  std::function<void(Result&)> complete = [](Result&) {};
};

struct Session::PlanSettings {
  Order order = Order::interleaved;
  bool latency = false;             // --latency
  std::uint64_t latency_bytes = 0;  // what --latency keeps of one result while it is measured
  double timeout_s = 0;             // --timeout: a repetition's limit in seconds; 0: none
  std::string doing;                // what the work does, should a repetition hang
};

Session::Session(Environment env, std::vector<std::unique_ptr<Reporter>> reporters)
    : env_(std::move(env)), reporters_(std::move(reporters)) {
  for (auto& reporter : reporters_) reporter->begin(env_);
}

void Session::emit(Result result) {
  if (progress_ != nullptr) progress_->result_done();
  if (rcu_block_) result.rcu_expedited = *rcu_block_;
  results_.push_back(std::move(result));
  for (auto& reporter : reporters_) reporter->add(results_.back());
}

void Session::plan_progress(std::size_t results, int repetitions) {
  progress_started_ = 0;
  if (progress_ != nullptr) progress_->plan(results, repetitions);
}

void Session::announce(const Section& section) {
  for (auto& reporter : reporters_) reporter->section(section);
}

void Session::finish(bool complete) {
  if (progress_ != nullptr) progress_->clear();
  if (finished_) return;
  finished_ = true;
  const auto concluded = findings(results_, env_);
  for (auto& reporter : reporters_) reporter->end(results_, concluded, complete);
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
  plan_progress(blocks * strategies.size() * per_strategy, options.repeat + options.warmup);
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

  const std::uint64_t latency_bytes =
      latency_bytes_of(options.latency, recipe.facts.ops, options.repeat, !options.keep_open);
  std::vector<Planned> plan;
  for (const auto& name : strategies) {
    const StrategyInfo& strategy = strategy_named(name);
    const auto complete = [&in, &options, &strategy](Result& r) {
      r.input = in.summary;
      record_paths(r, options.paths, strategy);
    };
    for (const int threads : options.threads) {
      const StrategyConfig config{threads, options.batch, options.uring};
      if (!options.keep_open) {
        plan.push_back({{0, name, threads, "", std::string(to_string(recipe.facts.workload_kind))},
                        [&, config](const MeasureExtras& with, Workers workers) {
                          return in_process_measurement(make_open_workload(spec), strategy, config,
                                                        options.repeat, options.warmup, with,
                                                        workers);
                        },
                        complete});
        continue;
      }
      for (const auto& pregrow : options.pregrow) {
        plan.push_back({{0, name, threads, pregrow.label(), std::string(to_string(recipe.facts.workload_kind))},
                        [&, config](const MeasureExtras& with, Workers /*each in a child*/) {
                          return fresh_child_measurement(recipe, strategy, config, pregrow,
                                                         options.repeat, options.warmup, with);
                        },
                        complete});
      }
    }
  }
  const PlanSettings settings{options.order, options.latency, latency_bytes, options.timeout_s,
                              "opening files under " + in.dir_path};
  each_rcu_setting(options.rcu_expedited, [&] { measure_plan(plan, settings); });
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
  plan_progress(std::max<std::size_t>(1, options.rcu_expedited.size()) * options.strategies.size() *
                    options.threads.size() * options.pregrow.size(),
                options.repeat + options.warmup);
  Section section = section_of(one_thread, options.repeat, options.warmup);
  section.per_thread = options.per_thread;
  section.held = true;
  section.fresh_child = true;
  announce(section);
  std::vector<WorkloadRecipe> recipes;  // one per thread count, alive while measured
  for (const int threads : options.threads) {
    recipes.push_back(socket_workload_recipe(
        options.kind, static_cast<std::size_t>(threads) * options.per_thread));
  }
  std::vector<Planned> plan;
  for (const auto& name : options.strategies) {
    const StrategyInfo& strategy = strategy_named(name);
    for (std::size_t t = 0; t < options.threads.size(); ++t) {
      const StrategyConfig config{options.threads[t], options.batch, options.uring};
      for (const auto& pregrow : options.pregrow) {
        plan.push_back({{0, name, config.threads, pregrow.label(), std::string(to_string(WorkloadKind::create))},
                        [&, t, config](const MeasureExtras& with, Workers /*each in a child*/) {
                          return fresh_child_measurement(recipes[t], strategy, config, pregrow,
                                                         options.repeat, options.warmup, with);
                        }});
      }
    }
  }
  // The most --latency keeps of one result: the most threads' calls.
  const std::uint64_t latency_bytes = latency_bytes_of(
      options.latency, static_cast<std::uint64_t>(most_threads) * options.per_thread,
      options.repeat, false);
  const PlanSettings settings{options.order, options.latency, latency_bytes, options.timeout_s,
                              fmt::format("creating {} descriptors", to_string(options.kind))};
  each_rcu_setting(options.rcu_expedited, [&] { measure_plan(plan, settings); });
}

void Session::measure_plan(const std::vector<Planned>& plan, const PlanSettings& settings) {
  // Declared first, so that it outlives every measurement below: a worker process dies with
  // the thread that forked it, and with --timeout that is the runner's.
  RepetitionRunner runner(settings.timeout_s, settings.doing);
  // Interleaved, every result's measurement is open at once (or as many as --latency's
  // records fit in kInterleavedLatencyBytes); one at a time otherwise.
  std::size_t window = 1;
  std::string order_text(to_string(settings.order));
  if (settings.order == Order::interleaved && !plan.empty()) {
    const std::uint64_t each = std::max<std::uint64_t>(1, settings.latency_bytes);
    window = static_cast<std::size_t>(
        std::clamp<std::uint64_t>(kInterleavedLatencyBytes / each, 1, plan.size()));
    if (window < plan.size()) {
      order_text = fmt::format(
          "interleaved in groups of {} (what --latency keeps of more would "
          "exceed {} MiB)",
          window, kInterleavedLatencyBytes >> 20);
    }
  }
  const auto stamp = [&](std::size_t planned, Result& r) {
    plan[planned].complete(r);
    r.parameters["order"] = order_text;
    if (runner.limited()) r.parameters["timeout"] = format_seconds(settings.timeout_s);
  };
  for (std::size_t first = 0; first < plan.size(); first += window) {
    const std::size_t last = std::min(plan.size(), first + window);
    std::vector<std::unique_ptr<Measurement>> running;
    // Results that take turns make their workers per repetition, so that only one result's
    // workers exist at a time; a result measured alone keeps its workers throughout.
    const Workers workers = last - first > 1 ? Workers::per_repetition : Workers::kept;
    for (std::size_t i = first; i < last; ++i) {
      MeasureExtras extras{settings.latency, {}};
      if (trace_out_ != nullptr && settings.latency) {
        TraceKey key = plan[i].key;
        key.result = results_.size() + (i - first);  // results are emitted in plan order
        extras.on_calls = [out = trace_out_, key](int repetition,
                                                  std::span<const CallRecord> calls) {
          out->add(key, repetition, calls);
        };
      }
      running.push_back(plan[i].start(extras, workers));
    }
    const auto emit_from = [&](std::size_t k) {
      Result r = running[k]->finish();
      stamp(first + k, r);
      emit(std::move(r));
    };
    // After Ctrl-C or a hung repetition: the results with timed repetitions, cut short, and
    // the one that hung, in the plan's order.
    const auto emit_started = [&] {
      std::optional<Result> hung = runner.take_hung();
      for (std::size_t k = 0; k < running.size(); ++k) {
        if (hung && runner.hung_index() == k) {
          stamp(first + k, *hung);
          emit(std::move(*hung));
        } else if (running[k] && (running[k]->done() || running[k]->timed_repetitions_run() > 0)) {
          emit_from(k);
        }
      }
    };
    try {
      for (bool more = true; more;) {
        more = false;
        for (std::size_t k = 0; k < running.size(); ++k) {
          Measurement& m = *running[k];
          if (m.done()) continue;
          if (progress_ != nullptr) {
            progress_->repetition_started(progress_label(plan[first + k].key),
                                          progress_started_ + k + 1, m.repetitions_run() + 1);
          }
          runner.run_next(running, k, progress_label(plan[first + k].key));
          if (progress_ != nullptr) progress_->repetition_done();
          more = true;
        }
      }
    } catch (const Interrupted&) {
      emit_started();
      throw;
    } catch (const TimedOut&) {
      emit_started();
      throw;
    }
    for (std::size_t k = 0; k < running.size(); ++k) emit_from(k);
    progress_started_ += running.size();
  }
}

}  // namespace fdbench
