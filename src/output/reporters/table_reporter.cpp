// table: the seed's view. One header line for the machine, one block per section, a row per
// result printed as soon as it is measured, and the findings in plain words at the end.
#include <fmt/format.h>

#include <optional>
#include <ostream>

#include "analysis/findings.hpp"
#include "fdbench/version.hpp"
#include "model/format.hpp"
#include "output/printable_lines.hpp"
#include "output/reporter.hpp"
#include "output/reporters/environment_text.hpp"
#include "output/reporters/registry.hpp"
#include "output/reporters/section_text.hpp"
#include "output/tune_text.hpp"

namespace fdbench {

namespace {

std::string fdsize_text(const Result& r) {
  if (!r.fdsize_before || !r.fdsize_after) return "-";
  return fmt::format("{} → {}", *r.fdsize_before, *r.fdsize_after);
}

class TableReporter final : public Reporter {
 public:
  // Through PrintableLines: section titles carry --tree's and --list's names, errors and
  // warnings what the files and the system said.
  explicit TableReporter(std::ostream& out) : printable_(out), out_(&printable_) {}

  void begin(const Environment& env) override {
    out_ << fmt::format("fdbench {} · {}\n", version(), environment_summary(env));
    for (const auto& w : env.warnings) out_ << "! " << w << "\n";
    out_ << std::flush;
  }

  void section(const Section& section) override {
    out_ << "\n" << section_title(section) << "\n";
    out_ << "(" << section_note(section) << ")\n";
    header_for_.clear();
    batch_column_ = section.batch_column;
    harness_column_ = section.harness_column;
    out_ << std::flush;
  }

  void add(const Result& r) override {
    // Descriptors held to the end of a repetition grow the table: show pregrow and FDSize.
    const bool growth = r.holds_descriptors;
    const std::string key = r.workload + (growth ? "+growth" : "");
    // --rcu-expedited: a line above each block of results it set the value for.
    const std::string rcu_now = r.rcu_setting();
    if (rcu_now != rcu_for_ && !rcu_now.empty()) {
      out_ << fmt::format("  rcu_expedited={} (set for these results by --rcu-expedited)\n",
                          rcu_now);
    }
    rcu_for_ = rcu_now;
    if (header_for_ != key) {
      header_for_ = key;
      out_ << fmt::format("  {:<12} {:>7}", "strategy", "threads");
      if (harness_column_) out_ << fmt::format(" {:<9}", "harness");
      if (batch_column_) out_ << fmt::format(" {:>5}", "batch");
      if (growth) out_ << fmt::format(" {:>7}", "pregrow");
      out_ << fmt::format(" {:>11}  {:>7} {:>5} {:>19} {:>12}", "median ms", "±95%", "reps",
                          "min–max ms", r.unit + "/s");
      if (growth) out_ << "  FDSize";
      out_ << "\n";
    }
    std::string lead = fmt::format("  {:<12} {:>7}", r.config.strategy, threads_text(r));
    if (harness_column_) lead += fmt::format(" {:<9}", to_string(r.config.harness));
    if (batch_column_)
      lead += fmt::format(" {:>5}",
                          r.batch_unit == BatchUnit::none ? "-" : std::to_string(r.config.batch));
    if (growth) lead += fmt::format(" {:>7}", r.config.pregrow.label());
    if (!r.ran()) {
      out_ << lead << "   " << error_text(r) << "\n";
    } else {
      const std::string range = fmt::format("{}–{}", format_ms(static_cast<double>(r.stats.min)),
                                            format_ms(static_cast<double>(r.stats.max)));
      const bool noisy = r.has_warning(WarningKind::noisy);
      noisy_seen_ = noisy_seen_ || noisy;
      if (r.missed_precision() && !missed_) missed_ = r;
      out_ << lead
           << fmt::format(" {:>11}{:1} {:>7} {:>5} {:>19} {:>12}", format_ms(r.stats.median),
                          noisy ? kNoisyMark : "", precision_cell(r), r.times_ns.size(), range,
                          format_rate(r.ops_per_sec));
      if (growth) out_ << "  " << fdsize_text(r);
      out_ << "\n";
      if (r.failures != 0) failure_line(r);
      if (const auto detail = detail_text(r); !detail.empty()) {
        out_ << "  " << detail << "\n";
      }
      if (const auto kernel = kernel_text(r); !kernel.empty()) {
        out_ << "  " << kernel << "\n";
        kernel_seen_ = true;
      }
    }
    for (const auto& w : r.warnings) {
      if (w.kind != WarningKind::noisy || !r.ran()) out_ << "  ! " << w.text << "\n";
    }
    out_ << std::flush;
  }

  void end(std::span<const Result> /*all*/, std::span<const Finding> findings,
           bool complete) override {
    if (noisy_seen_ || missed_ || kernel_seen_) out_ << "\n";
    if (noisy_seen_) out_ << noisy_legend() << "\n";
    if (missed_) out_ << missed_legend(*missed_) << "\n";
    if (kernel_seen_) out_ << kernel_legend() << "\n";
    const SplitFindings split = split_answers(findings);
    if (!split.answers.empty()) {
      out_ << "\n" << kAnswersHeading << "\n";
      for (const auto& f : split.answers) out_ << "- " << f.text << "\n";
    }
    if (!split.rest.empty()) {
      out_ << "\n" << findings_heading(complete) << "\n";
      for (const auto& f : split.rest) out_ << "- " << f.text << "\n";
    }
    if (tune_) out_ << tune_text(*tune_);
    out_ << std::flush;
  }

  void recommendation(const TuneSummary& summary) override { tune_ = summary; }

 private:
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
  std::string header_for_;
  bool batch_column_ = false;  // the section's results differ by batch
  bool harness_column_ = false;  // the section ran --harness published
  std::string rcu_for_;
  bool noisy_seen_ = false;       // a row carries kNoisyMark: the legend goes under the tables
  bool kernel_seen_ = false;      // a row has a kernel line: its legend goes there too
  std::optional<Result> missed_;  // the first row with kMissedMark, for its legend
  std::optional<TuneSummary> tune_;  // tune's: its Recommendation block ends the output
};

}  // namespace

std::unique_ptr<Reporter> make_table_reporter(std::ostream& out) {
  return std::make_unique<TableReporter>(out);
}

}  // namespace fdbench
