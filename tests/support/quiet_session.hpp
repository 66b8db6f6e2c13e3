#pragma once
// A Session for tests that read its results, not its output: its one reporter discards
// everything, and its environment is captured for `dir`.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/capture.hpp"
#include "model/environment.hpp"
#include "output/reporter.hpp"
#include "run/session.hpp"

namespace fdbench::testing {

class DiscardReporter final : public Reporter {
 public:
  void begin(const Environment& /*env*/) override {}
  void add(const Result& /*result*/) override {}
  void end(std::span<const Result> /*all*/, std::span<const Finding> /*findings*/,
           bool /*complete*/) override {}
};

inline std::unique_ptr<Session> quiet_session(const std::string& dir) {
  std::vector<std::unique_ptr<Reporter>> reporters;
  reporters.push_back(std::make_unique<DiscardReporter>());
  return std::make_unique<Session>(capture_environment(dir), std::move(reporters));
}

}  // namespace fdbench::testing
