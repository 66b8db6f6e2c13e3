#pragma once
// FDBENCH_TEST_EVENTS=FILE: for the tests only, one line per step of a run appended to FILE, so
// that a test waits for what the run has done (a repetition finished, the files made) instead
// of sleeping and hoping. The lines, each written whole by one write(2), between timed regions
// (it is a Progress, which a Session calls only there):
//   plan RESULTS REPETITIONS         the command will make RESULTS results
//   creating-files MADE TOTAL        the private file set is being made
//   repetition-started RESULT REP    RESULT and REP count from 1
//   repetition-done RESULT REP
//   result-done                      a result is about to be reported
//   run-done                         the run is over (finished, interrupted or failed)
//   trace-attached                   fdbench trace: the events are attached, the trace runs
// Every call is passed on to the progress line, if there is one.
#include <cstddef>
#include <memory>
#include <string_view>

#include "fdbench/unique_fd.hpp"
#include "run/progress.hpp"

namespace fdbench::app {

// One line appended to FDBENCH_TEST_EVENTS' file, where it is set, for steps no Progress sees
// ("history-saving": a run's transaction is open in the history). Nothing otherwise.
void test_event(std::string_view line);

class TestEvents final : public Progress {
 public:
  // The events FDBENCH_TEST_EVENTS asks for, passing every call on to `inner` (nullptr: none;
  // not owned); nullptr when the variable is unset or its file cannot be opened.
  static std::unique_ptr<TestEvents> from_environment(Progress* inner);

  void plan(std::size_t results, int repetitions, double max_seconds_each) override;
  void creating_files(std::size_t made, std::size_t total) override;
  void repetition_started(std::string_view what, std::size_t result, int repetition) override;
  void rows(std::span<const TraceKey> planned, const TableLayout& layout) override;
  void repetition_done(const SoFar& so_far, bool stopped) override;
  void result_done() override;
  void clear() override;

 private:
  TestEvents(UniqueFd fd, Progress* inner) : fd_(std::move(fd)), inner_(inner) {}
  void line(const std::string& text) const;

  UniqueFd fd_;
  Progress* inner_;
  std::size_t result_ = 0;  // of the repetition under way
  int repetition_ = 0;
};

}  // namespace fdbench::app
