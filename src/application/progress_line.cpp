#include "application/progress_line.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>

#include "model/format.hpp"

namespace fdbench::app {

namespace {

// Redraws at most this often: a terminal write per repetition of a fast result would be
// thousands of lines a second, for nothing anyone can read.
constexpr std::int64_t kRedrawNs = 100'000'000;
// Too early to guess a time left from.
constexpr std::int64_t kFirstEstimateNs = 1'000'000'000;

std::string grouped(std::size_t n) {
  std::string digits = std::to_string(n);
  for (auto i = static_cast<std::ptrdiff_t>(digits.size()) - 3; i > 0; i -= 3) {
    digits.insert(static_cast<std::size_t>(i), ",");
  }
  return digits;
}

}  // namespace

std::string fitted(std::string line, std::size_t width) {
  // Whole clauses off the end first: "..., result 5 of 24" reads better than half a clause.
  while (display_width(line) > width) {
    const auto clause = line.rfind(", ");
    if (clause == std::string::npos || clause == 0) break;
    line.resize(clause);
  }
  if (display_width(line) <= width) return line;
  // Then whole words, with an ellipsis to say that something is missing.
  while (display_width(line) + 1 > width) {
    const auto word = line.rfind(' ');
    if (word == std::string::npos || word == 0) return {};
    line.resize(word);
  }
  return line + "…";
}

ProgressLine::ProgressLine(std::ostream& out, int columns, Clock clock)
    : out_(out), columns_(std::max(columns, 20)), clock_(std::move(clock)) {}

ProgressLine::~ProgressLine() {
  clear();
}

void ProgressLine::plan(std::size_t results, int repetitions, double max_seconds_each) {
  results_ = results;
  repetitions_ = repetitions;
  max_seconds_each_ = max_seconds_each;
  done_ = 0;
  started_ns_.reset();
}

void ProgressLine::creating_files(std::size_t made, std::size_t total) {
  files_made_ = made;
  files_total_ = total;
  what_.clear();
  // Done: erased, not left at the last percentage drawn above what comes next.
  if (made >= total) {
    files_total_ = 0;
    clear();
    return;
  }
  draw(made == 0);
}

void ProgressLine::repetition_started(std::string_view what, std::size_t result, int repetition) {
  // The time left is the measuring's: creating a file set first says nothing of it.
  if (!started_ns_) started_ns_ = clock_();
  files_total_ = 0;
  what_ = what;
  result_ = result;
  repetition_ = repetition;
  draw(!shown_ || repetition == 1);  // a result's first is shown at once, later ones throttled
}

void ProgressLine::repetition_done(const SoFar& /*so_far*/, bool /*stopped*/) {
  ++done_;
  draw(false);
}

void ProgressLine::result_done() {
  clear();
}

void ProgressLine::clear() {
  if (!shown_) return;
  out_ << "\r\033[K" << std::flush;
  shown_ = false;
}

std::string ProgressLine::time_left() const {
  if (repetitions_ == 0) {
    // --repeat auto: how many repetitions are left is not known, only the most time it takes.
    if (!started_ns_ || max_seconds_each_ <= 0) return {};
    const double most = static_cast<double>(results_) * max_seconds_each_ -
                        static_cast<double>(clock_() - *started_ns_) * 1e-9;
    if (most <= 0) return {};
    if (most >= 120) return fmt::format("at most about {} min left", std::lround(most / 60));
    return fmt::format("at most about {} s left", std::max(1L, std::lround(most)));
  }
  const std::size_t total = results_ * static_cast<std::size_t>(repetitions_);
  if (total == 0 || !started_ns_) return {};
  const double fraction = static_cast<double>(done_) / static_cast<double>(total);
  const std::int64_t elapsed = clock_() - *started_ns_;
  if (fraction <= 0 || elapsed < kFirstEstimateNs) return "estimating time left";
  const double left = static_cast<double>(elapsed) * 1e-9 * (1 - fraction) / fraction;
  if (left >= 120) return fmt::format("about {} min left", std::lround(left / 60));
  return fmt::format("about {} s left", std::max(1L, std::lround(left)));
}

std::string ProgressLine::text() const {
  if (files_total_ > 0) {
    return fmt::format("creating files: {} of {} ({}%)", grouped(files_made_),
                       grouped(files_total_), files_made_ * 100 / files_total_);
  }
  if (what_.empty()) return {};
  std::string line = repetitions_ == 0
                         ? fmt::format("{}: repetition {}", what_, repetition_)
                         : fmt::format("{}: repetition {}/{}", what_, repetition_, repetitions_);
  if (results_ > 0) line += fmt::format(", result {} of {}", result_, results_);
  if (const auto left = time_left(); !left.empty()) line += ", " + left;
  return line;
}

void ProgressLine::draw(bool now) {
  const std::int64_t t = clock_();
  if (!now && shown_ && t - drawn_ns_ < kRedrawNs) return;
  // One column spare: a line that fills the last column wraps on some terminals.
  const std::string line = fitted("fdbench: " + text(), static_cast<std::size_t>(columns_) - 1);
  out_ << "\r\033[K" << line << std::flush;
  shown_ = true;
  drawn_ns_ = t;
}

}  // namespace fdbench::app
