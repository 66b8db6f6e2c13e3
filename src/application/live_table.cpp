#include "application/live_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <ostream>

#include "common/errors.hpp"
#include "model/format.hpp"

namespace fdbench::app {

namespace {

// As the progress line: a redraw per repetition of a fast result would be thousands a second.
constexpr std::int64_t kLiveRedrawNs = 100'000'000;

// Set by SIGWINCH, taken at the next draw: the handler itself only stores.
volatile std::sig_atomic_t g_resized = 0;

extern "C" void on_window_change(int /*signal*/) {
  g_resized = 1;
}

}  // namespace

LiveTable::LiveTable(std::ostream& out, int columns, int lines, Clock clock, Progress* fallback,
                     Size size)
    : out_(out),
      columns_(std::max(columns, 20)),
      lines_(lines),
      clock_(std::move(clock)),
      fallback_(fallback),
      size_(std::move(size)) {
  if (!size_) return;
  struct sigaction action {};
  action.sa_handler = on_window_change;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  handling_ = sigaction(SIGWINCH, &action, &previous_) == 0;
}

LiveTable::~LiveTable() {
  erase();
  if (handling_) sigaction(SIGWINCH, &previous_, nullptr);
}

void LiveTable::resized(int columns, int lines) {
  const auto width = static_cast<std::size_t>(std::max(columns, 1));
  std::size_t rows = 0;
  for (const std::size_t w : drawn_widths_)
    rows += std::max<std::size_t>(1, (w + width - 1) / width);
  if (drawn_ > 0) drawn_ = rows;
  columns_ = std::max(columns, 20);
  lines_ = lines;
}

void LiveTable::notice_resize() {
  if (g_resized == 0 || !size_) return;
  g_resized = 0;
  if (const auto now = size_()) resized(now->first, now->second);
}

void LiveTable::plan(std::size_t results, int repetitions, double max_seconds_each) {
  if (fallback_ != nullptr) fallback_->plan(results, repetitions, max_seconds_each);
}

void LiveTable::rows(std::span<const TraceKey> planned, const TableLayout& layout) {
  erase();
  rows_.clear();
  for (const auto& key : planned) rows_.push_back({key, std::nullopt, false});
  printed_ = 0;
  current_ = 0;
  sample_.reset();
  layout_ = layout;
  // The header, every row and the line the cursor waits on must fit, or the block could not
  // be moved over. A waiting row's lead is drawn from the key alone, which has no harness or
  // batch: those tables are shown by the progress line.
  live_ = !layout.batch && !layout.harness &&
          planned.size() + 2 <= static_cast<std::size_t>(std::max(lines_, 0));
  if (fallback_ == nullptr) return;
  if (live_) {
    fallback_->clear();
  } else {
    fallback_->rows(planned, layout);
  }
}

void LiveTable::creating_files(std::size_t made, std::size_t total) {
  // Files are made before a section's rows are known: the progress line says so.
  if (fallback_ != nullptr) fallback_->creating_files(made, total);
}

void LiveTable::repetition_started(std::string_view what, std::size_t result, int repetition) {
  if (!live_) {
    if (fallback_ != nullptr) fallback_->repetition_started(what, result, repetition);
    return;
  }
  FDBENCH_ASSERT(result >= 1 && result <= rows_.size());
  current_ = result - 1;
  if (drawn_ == 0) draw();  // back at once after the reporter printed a row
}

void LiveTable::repetition_done(const SoFar& so_far, bool stopped) {
  if (!live_) {
    if (fallback_ != nullptr) fallback_->repetition_done(so_far, stopped);
    return;
  }
  Row& row = rows_[current_];
  row.stopped = stopped;
  // A row's first repetition and its end at once, others only when a redraw is due: a
  // partial result sorts every time so far, and a fast result has thousands of repetitions.
  const bool now = stopped || !row.so_far;
  if (!now && drawn_ > 0 && clock_() - drawn_ns_ < kLiveRedrawNs) return;
  row.so_far = so_far();
  if (!sample_) sample_ = row.so_far;
  draw();
}

void LiveTable::result_done() {
  if (!live_) {
    if (fallback_ != nullptr) fallback_->result_done();
    return;
  }
  erase();  // the reporter prints the row where the block was
  ++printed_;
}

void LiveTable::clear() {
  erase();
  if (fallback_ != nullptr) fallback_->clear();
}

std::string LiveTable::row_line(const Row& row) const {
  if (row.so_far && !row.so_far->times_ns.empty()) {
    return table_row(layout_, *row.so_far) + (row.stopped ? "  done" : "  running");
  }
  // Not measured yet: the lead from its key, the units from a row that was.
  Result r = *sample_;
  r.config.strategy = row.key.strategy;
  r.config.threads = row.key.threads;
  r.runnable_threads = row.key.threads;
  if (row.key.pregrow) r.config.pregrow = *row.key.pregrow;
  return table_lead(layout_, r) + (row.so_far ? "   warming up" : "   waiting");
}

std::vector<std::string> LiveTable::lines() const {
  std::vector<std::string> lines;
  if (!live_ || !sample_) return lines;
  // The reporter prints the header with the section's first row; until then the block does.
  if (printed_ == 0) lines.push_back(table_header(layout_, *sample_));
  for (std::size_t i = printed_; i < rows_.size(); ++i) lines.push_back(row_line(rows_[i]));
  return lines;
}

void LiveTable::draw() {
  notice_resize();
  const std::int64_t t = clock_();
  const std::vector<std::string> block = lines();
  if (block.empty()) return;
  // A window made too short for the block: no block (moving up over it would fall short).
  if (block.size() + 1 > static_cast<std::size_t>(std::max(lines_, 0))) {
    erase();
    return;
  }
  // Over the block in place, each line erased to its end: no flicker of an empty block.
  if (drawn_ > 0) out_ << fmt::format("\r\033[{}A", drawn_);
  drawn_widths_.clear();
  // One column spare: a line that fills the last column wraps on some terminals.
  for (const auto& line : block) {
    const std::string shown = fitted(line, static_cast<std::size_t>(columns_) - 1);
    drawn_widths_.push_back(display_width(shown));
    out_ << shown << "\033[K\n";
  }
  out_ << "\033[J" << std::flush;
  drawn_ = block.size();
  drawn_ns_ = t;
}

void LiveTable::erase() {
  notice_resize();
  if (drawn_ == 0) return;
  out_ << fmt::format("\r\033[{}A\033[J", drawn_) << std::flush;
  drawn_ = 0;
}

}  // namespace fdbench::app
