#pragma once
// Warm-up, repetitions, timing and per-run results. A Session runs commands and hands each
// finished Result to its reporters.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fdbench/environment.hpp"
#include "fdbench/options.hpp"
#include "fdbench/reporter.hpp"
#include "fdbench/result.hpp"
#include "fdbench/strategy.hpp"
#include "fdbench/workload.hpp"

namespace fdbench {

// Runs `warmup` untimed and `repeat` timed repetitions of `work` with one strategy in this
// process. The strategy's workers are created before and joined after the repetitions.
Result measure(Workload& work, const StrategyInfo& strategy, const StrategyConfig& config,
               int repeat, int warmup);

// Builds the workload inside the child process.
using WorkloadFactory = std::function<std::unique_ptr<Workload>()>;

// Like measure(), but every repetition runs in a freshly forked child that holds only
// fds 0-2 and the result pipe, so each starts from the kernel's smallest descriptor table;
// `pregrow` is applied in the child before any worker thread exists.
Result measure_in_fresh_child(const WorkloadFactory& make_work, const StrategyInfo& strategy,
                              const StrategyConfig& config, const Pregrow& pregrow, int repeat,
                              int warmup);

class Session {
 public:
  Session(Environment env, std::vector<std::unique_ptr<Reporter>> reporters);
  void run_open(const OpenOptions& options);
  void run_socket(const SocketOptions& options);
  // Lets every reporter write what it has; call once, also after Interrupted or Error.
  void finish(bool complete);
  [[nodiscard]] std::span<const Result> results() const { return results_; }
  [[nodiscard]] const Environment& environment() const { return env_; }

 private:
  void emit(Result result);
  void announce(const Section& section);
  Environment env_;
  std::vector<std::unique_ptr<Reporter>> reporters_;
  std::vector<Result> results_;
  bool finished_ = false;
};

}  // namespace fdbench
