#pragma once
// The progress line: one line on a terminal, rewritten in place while a run is long ("uring,
// 2 threads: repetition 3/11, result 5 of 24, about 40 s left"), gone before any result is
// printed and at the end. fdbench shows it only when stderr is a terminal and --quiet is not
// given; it never writes while a repetition is timed (the Session calls it between them).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "run/progress.hpp"

namespace fdbench::app {

// `line` within `width` terminal columns, never cut inside a word: its last ", " clauses are
// dropped first, then its last words (an ellipsis says so); empty when no word fits.
std::string fitted(std::string line, std::size_t width);

class ProgressLine final : public Progress {
 public:
  using Clock = std::function<std::int64_t()>;  // nanoseconds, monotonic
  // Draws on `out`, a terminal `columns` wide (TIOCGWINSZ: platform::terminal_columns); a line
  // never wraps, or it could not be rewritten, and is never cut inside a word (fitted()).
  ProgressLine(std::ostream& out, int columns, Clock clock);
  ~ProgressLine() override;

  void plan(std::size_t results, int repetitions, double max_seconds_each) override;
  void creating_files(std::size_t made, std::size_t total) override;
  void repetition_started(std::string_view what, std::size_t result, int repetition) override;
  void repetition_done(const SoFar& so_far, bool stopped) override;
  void result_done() override;
  void clear() override;

  // The text the line shows now (without the terminal's control characters).
  [[nodiscard]] std::string text() const;

 private:
  void draw(bool now);
  [[nodiscard]] std::string time_left() const;

  std::ostream& out_;
  int columns_;
  Clock clock_;
  std::optional<std::int64_t> started_ns_;  // when the first repetition started
  std::int64_t drawn_ns_ = 0;
  bool shown_ = false;
  std::size_t results_ = 0;      // planned
  int repetitions_ = 0;          // each result's, warm-ups included; 0: --repeat auto
  double max_seconds_each_ = 0;  // with --repeat auto: the most one result takes
  std::size_t done_ = 0;         // repetitions finished, of every result
  std::string what_;             // the current result, or empty while files are created
  std::size_t result_ = 0;       // its number in the plan
  int repetition_ = 0;           // the current repetition's number
  std::size_t files_made_ = 0;
  std::size_t files_total_ = 0;
};

}  // namespace fdbench::app
