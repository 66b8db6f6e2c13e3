#pragma once
// A Session runs commands (a sweep of strategies, thread counts and pregrow settings), tells
// its reporters what the next results measure, and hands each finished Result to them.
#include <memory>
#include <span>
#include <vector>

#include "fdbench/environment.hpp"
#include "fdbench/options.hpp"
#include "fdbench/reporter.hpp"
#include "fdbench/result.hpp"

namespace fdbench {

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
