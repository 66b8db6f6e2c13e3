#pragma once
// A Session runs commands (a sweep of strategies, thread counts and pregrow settings), tells
// its reporters what the next results measure, and hands each finished Result to them.
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "fdbench/environment.hpp"
#include "fdbench/measure.hpp"
#include "fdbench/options.hpp"
#include "fdbench/progress.hpp"
#include "fdbench/reporter.hpp"
#include "fdbench/result.hpp"

namespace fdbench {

class Session {
 public:
  Session(Environment env, std::vector<std::unique_ptr<Reporter>> reporters);
  // Tells `progress` (nullptr: no one; not owned) where the run is, between timed regions.
  void set_progress(Progress* progress) { progress_ = progress; }
  void run_open(const OpenOptions& options);
  void run_socket(const SocketOptions& options);
  // Lets every reporter write what it has; call once, also after Interrupted or Error.
  void finish(bool complete);
  [[nodiscard]] std::span<const Result> results() const { return results_; }
  [[nodiscard]] const Environment& environment() const { return env_; }

 private:
  void emit(Result result);
  // What to tell measure() after each repetition of a result named `what`.
  RepetitionDone starting(std::string_view what, int repetitions);
  // Runs `block` once per --rcu-expedited value with it set (once, as it is, without any).
  void each_rcu_setting(const std::vector<int>& values, const std::function<void()>& block);
  void announce(const Section& section);
  Environment env_;
  std::vector<std::unique_ptr<Reporter>> reporters_;
  std::vector<Result> results_;
  bool finished_ = false;
  Progress* progress_ = nullptr;
  std::optional<int> rcu_block_;  // the rcu_expedited value set for the results now measured
};

}  // namespace fdbench
