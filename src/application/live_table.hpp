#pragma once
// The live table: while stdout is a terminal, a section's table is drawn with every planned
// row and fills in place as repetitions land (running median, ±95%, repetitions; "running"
// or "done" after the row), under the rows the table reporter has printed already. It writes
// only between timed repetitions (a Session calls a Progress only there), and erases only its
// own block (cursor up, erase below) before the reporter prints a finished row or fdbench
// says anything, then draws it again. A block taller than the terminal is not drawn: the
// progress line on stderr shows the run instead, as when stdout is no terminal. While the
// block is drawn the progress line is quiet. fdbench uses it only for the table format on a
// terminal stdout, without --output or --quiet.
#include <signal.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "application/progress_line.hpp"
#include "output/table_rows.hpp"
#include "output/trace_out.hpp"
#include "run/progress.hpp"

namespace fdbench::app {

class LiveTable final : public Progress {
 public:
  using Clock = ProgressLine::Clock;
  // The terminal's columns and lines now (TIOCGWINSZ); nullopt where it cannot tell.
  using Size = std::function<std::optional<std::pair<int, int>>()>;
  // Draws on `out`, the table reporter's stream, a terminal `columns` wide and `lines` tall
  // (TIOCGWINSZ); `fallback` (nullptr: none; not owned) gets every call while no block is
  // drawn: the progress line. With `size`, a SIGWINCH (the window resized) is noticed at the
  // next draw: the block is erased as the terminal reflowed it and drawn again at the new width.
  LiveTable(std::ostream& out, int columns, int lines, Clock clock, Progress* fallback,
            Size size = {});
  ~LiveTable() override;
  LiveTable(const LiveTable&) = delete;
  LiveTable& operator=(const LiveTable&) = delete;

  // The terminal is now `columns` × `lines`: the lines of the block drawn at the old width
  // take as many rows as the terminal reflowed them into (tests call it directly).
  void resized(int columns, int lines);

  void plan(std::size_t results, int repetitions, double max_seconds_each) override;
  void rows(std::span<const TraceKey> planned, const TableLayout& layout) override;
  void creating_files(std::size_t made, std::size_t total) override;
  void repetition_started(std::string_view what, std::size_t result, int repetition) override;
  void repetition_done(const SoFar& so_far, bool stopped) override;
  void result_done() override;
  void clear() override;

  // The block's lines now (without the terminal's control characters); empty while no block
  // is shown or before the first repetition of the section has finished.
  [[nodiscard]] std::vector<std::string> lines() const;
  // Whether this section is drawn as a block (false: the fallback shows it).
  [[nodiscard]] bool live() const { return live_; }

 private:
  struct Row {
    TraceKey key;
    std::optional<Result> so_far;  // from its first repetition on (a warm-up's has no times)
    bool stopped = false;
  };
  [[nodiscard]] std::string row_line(const Row& row) const;
  void draw();
  void erase();
  void notice_resize();

  std::ostream& out_;
  int columns_;
  int lines_;
  Clock clock_;
  Progress* fallback_;
  bool live_ = false;
  TableLayout layout_;
  std::vector<Row> rows_;          // the section's, in print order
  std::size_t printed_ = 0;        // rows the reporter has printed (they come in order)
  std::size_t current_ = 0;        // the row whose repetition runs
  std::optional<Result> sample_;   // a row's partial result: the columns' units and kinds
  std::size_t drawn_ = 0;          // lines of the block on the terminal now
  std::vector<std::size_t> drawn_widths_;  // each drawn line's columns, for a reflow
  Size size_;
  struct sigaction previous_ {};  // SIGWINCH's disposition before this table
  bool handling_ = false;
  std::int64_t drawn_ns_ = 0;
};

}  // namespace fdbench::app
