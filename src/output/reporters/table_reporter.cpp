// table: the seed's view. One header line for the machine, one block per section, a row per
// result printed as soon as it is measured, and the findings in plain words at the end, the
// Answers last of all (what a terminal's last screen shows).
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/findings.hpp"
#include "fdbench/version.hpp"
#include "model/format.hpp"
#include "output/printable_lines.hpp"
#include "output/reporter.hpp"
#include "output/reporters/environment_text.hpp"
#include "output/reporters/registry.hpp"
#include "output/reporters/section_text.hpp"
#include "output/table_rows.hpp"
#include "output/tune_text.hpp"

namespace fdbench {

namespace {

class TableReporter final : public Reporter {
 public:
  // Through PrintableLines: section titles carry --tree's and --list's names, errors and
  // warnings what the files and the system said. Sentences are wrapped to the table's width.
  TableReporter(std::ostream& out, const ReportOptions& options)
      : printable_(out, options.columns),
        out_(&printable_),
        details_(options.details),
        cut_(options.cut_rows ? options.columns : 0),
        terminal_columns_(options.cut_rows ? options.terminal_columns : nullptr) {}

  void begin(const Environment& env) override {
    out_ << fmt::format("fdbench {} · {}\n", version(), environment_summary(env));
    for (const auto& w : env.warnings) out_ << "! " << w << "\n";
    out_ << std::flush;
  }

  void section(const Section& section) override {
    follow_terminal();
    out_ << "\n" << section_title(section) << "\n";
    out_ << "(" << section_note(section) << ")\n";
    header_for_.clear();
    layout_ = {section.batch_column, section.harness_column};
    out_ << std::flush;
  }

  void add(const Result& r) override {
    follow_terminal();
    // Descriptors held to the end of a repetition grow the table: show pregrow and FDSize.
    const std::string key = r.workload + (r.holds_descriptors ? "+growth" : "");
    // --rcu-expedited: a line above each block of results it set the value for.
    const std::string rcu_now = r.rcu_setting();
    if (rcu_now != rcu_for_ && !rcu_now.empty()) {
      out_ << fmt::format("  rcu_expedited={} (set for these results by --rcu-expedited)\n",
                          rcu_now);
    }
    rcu_for_ = rcu_now;
    if (header_for_ != key) {
      header_for_ = key;
      out_ << cut(table_header(layout_, r)) << "\n";
    }
    if (!r.ran()) {
      out_ << table_lead(layout_, r) << "   " << error_text(r) << "\n";
    } else {
      noisy_seen_ = noisy_seen_ || r.has_warning(WarningKind::noisy);
      if (r.missed_precision() && !missed_) missed_ = r;
      out_ << cut(table_row(layout_, r)) << "\n";
      if (r.failures != 0) failure_line(r);
      details_ ? detail_lines(r) : material_lines(r);
    }
    for (const auto& w : r.warnings) {
      // Without --details, the page-fault warning is material_lines()' to judge.
      const bool judged = w.kind == WarningKind::page_faults && !details_;
      if ((w.kind != WarningKind::noisy || !r.ran()) && !judged) warning_line(w.text);
    }
    out_ << std::flush;
  }

  void end(std::span<const Result> /*all*/, std::span<const Finding> findings,
           bool complete) override {
    follow_terminal();
    const bool repeated = !repeated_.empty();
    if (noisy_seen_ || missed_ || kernel_seen_ || region_seen_ || hidden_ || repeated) {
      out_ << "\n";
    }
    if (noisy_seen_) out_ << noisy_legend() << "\n";
    if (missed_) out_ << missed_legend(*missed_) << "\n";
    if (region_seen_) out_ << region_legend() << "\n";
    if (kernel_seen_) out_ << kernel_legend() << "\n";
    if (hidden_) out_ << details_legend() << "\n";
    for (const auto& [first_words, rows] : repeated_) {
      out_ << fmt::format("! said once, under the first row it concerns: \"{}…\" ({} more row{})\n",
                          first_words, rows, rows == 1 ? "" : "s");
    }
    // The Findings first and the Answers last, so that a terminal ends on the answers.
    const SplitFindings split = split_answers(findings);
    if (!split.rest.empty()) {
      out_ << "\n" << findings_heading(complete) << "\n";
      for (const auto& f : split.rest) out_ << "- " << f.text << "\n";
    }
    if (!split.answers.empty()) {
      out_ << "\n" << kAnswersHeading << "\n";
      for (const auto& f : split.answers) out_ << "- " << f.text << "\n";
    }
    if (tune_) out_ << tune_text(*tune_);
    out_ << std::flush;
  }

  void recommendation(const TuneSummary& summary) override { tune_ = summary; }

 private:
  // --details: the per-call and timed-region line and the kernel line, where there are any.
  void detail_lines(const Result& r) {
    if (const auto detail = detail_text(r); !detail.empty()) out_ << "  " << detail << "\n";
    if (const auto kernel = kernel_text(r); !kernel.empty()) {
      out_ << "  " << kernel << "\n";
      kernel_seen_ = true;
    }
  }

  // The default: a line only where the timed region's faults and switches matter; what
  // --details would have shown is said once, under the tables.
  void material_lines(const Result& r) {
    if (const auto line = material_region_text(r); !line.empty()) {
      out_ << "  " << line << "\n";
      region_seen_ = true;
    }
    hidden_ = hidden_ || !detail_text(r).empty() || !kernel_text(r).empty();
  }

  // A terminal resized since the last part: the rest at its width (at most the table's 100).
  void follow_terminal() {
    if (!terminal_columns_) return;
    const std::size_t now = terminal_columns_();
    if (now < 21) return;
    cut_ = std::min<std::size_t>(now - 1, kTableColumns);
    out_.flush();
    printable_.set_wrap(cut_);
  }

  // A table line on a terminal narrower than it: whole words off its end, and an ellipsis.
  [[nodiscard]] std::string cut(std::string line) const {
    if (cut_ == 0 || display_width(line) <= cut_) return line;
    while (!line.empty() && display_width(line) + 1 > cut_) {
      const auto word = line.find_last_of(' ');
      line.resize(word == std::string::npos ? 0 : word);
      while (!line.empty() && line.back() == ' ') line.pop_back();
    }
    return line + "…";
  }

  // A row's note, said once for the run: a later row with the same note (another program
  // changed rcu_expedited under all of them, say) is counted for the legend instead.
  void warning_line(const std::string& text) {
    if (said_.insert(text).second) {
      out_ << "  ! " << text << "\n";
      return;
    }
    const std::string first_words = text.size() <= 40 ? text : text.substr(0, text.rfind(' ', 40));
    auto it = std::find_if(repeated_.begin(), repeated_.end(),
                           [&](const auto& entry) { return entry.first == first_words; });
    if (it == repeated_.end()) it = repeated_.insert(repeated_.end(), {first_words, 0});
    ++it->second;
  }

  void failure_line(const Result& r) {
    std::string by_errno;
    for (const auto& [name, n] : r.failures_by_errno) {
      by_errno += fmt::format("{}{} ({}): {}", by_errno.empty() ? "" : ", ", name, n.message,
                              group_digits(n.count));
    }
    const auto calls = r.ops * static_cast<std::uint64_t>(r.times_ns.size());
    if (r.failures_are_work()) {
      out_ << fmt::format("  ! {} of {} opens failed ({}); they are included in the time\n",
                          group_digits(r.failures), group_digits(calls), by_errno);
    } else {
      out_ << fmt::format("  ! FAILED: {} of {} calls failed ({}); times are not valid\n",
                          group_digits(r.failures), group_digits(calls), by_errno);
    }
  }

  PrintableLines printable_;
  std::ostream out_;
  bool details_;  // --details: every row's small print
  std::size_t cut_;  // a terminal's width the rows are cut to; 0: never cut
  std::function<std::size_t()> terminal_columns_;  // with cut_: the terminal's width now
  static constexpr std::size_t kTableColumns = 100;
  std::string header_for_;
  TableLayout layout_;  // the section's optional columns
  std::string rcu_for_;
  bool noisy_seen_ = false;       // a row carries kNoisyMark: the legend goes under the tables
  bool kernel_seen_ = false;      // a row has a kernel line: its legend goes there too
  bool region_seen_ = false;      // a row has a material "per repetition" line: its legend too
  bool hidden_ = false;           // a row had small print only --details shows
  std::optional<Result> missed_;  // the first row with kMissedMark, for its legend
  std::optional<TuneSummary> tune_;  // tune's: its Recommendation block ends the output
  std::set<std::string> said_;       // the row notes printed so far
  // Notes not printed again: their first words and how many later rows had them, in order.
  std::vector<std::pair<std::string, int>> repeated_;
};

}  // namespace

std::unique_ptr<Reporter> make_table_reporter(std::ostream& out, const ReportOptions& options) {
  return std::make_unique<TableReporter>(out, options);
}

}  // namespace fdbench
