// markdown: the table view as GitHub-flavoured Markdown, to paste into an issue or a blog.
// A heading per section, a table row per result as it finishes; failures and warnings are
// collected and listed under their table (a list inside a table would end it).
#include <fmt/format.h>

#include <optional>
#include <ostream>
#include <vector>

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

// A table's precision cell with kMissedMark escaped: a lone * may start emphasis.
std::string escaped_mark(const std::string& cell) {
  std::string out;
  for (const char c : cell) {
    if (c == '*') out += '\\';
    out += c;
  }
  return out;
}

// Written through PrintableLines, as the table is: every string in it that came from a path or
// a file (a --tree directory's name, a warning quoting a path, a finding) reaches a terminal
// with its control bytes as \xNN, whichever field carries it.
class MarkdownReporter final : public Reporter {
 public:
  explicit MarkdownReporter(std::ostream& out) : printable_(out), out_(&printable_) {}
  MarkdownReporter(const MarkdownReporter&) = delete;
  MarkdownReporter& operator=(const MarkdownReporter&) = delete;
  ~MarkdownReporter() override { out_.flush(); }

  void begin(const Environment& env) override {
    out_ << fmt::format("# fdbench {}\n\n{}\n", version(), markdown_cell(environment_summary(env)));
    for (const auto& w : env.warnings) out_ << "\n> ! " << w << "\n";
    out_ << std::flush;
  }

  void section(const Section& section) override {
    flush_notes();
    out_ << "\n## " << section_title(section) << "\n\n_" << section_note(section) << "_\n";
    header_for_.clear();
    out_ << std::flush;
  }

  void add(const Result& r) override {
    // Descriptors held to the end of a repetition grow the table: show pregrow and FDSize.
    const bool growth = r.holds_descriptors;
    const std::string key = r.workload + (growth ? "+growth" : "");
    if (header_for_ != key) {
      flush_notes();
      header_for_ = key;
      out_ << fmt::format(
          "\n| strategy | threads |{} median ms | ±95% | reps | min–max ms | {} |{}\n",
          growth ? " pregrow |" : "", r.unit + "/s", growth ? " FDSize |" : "");
      out_ << fmt::format("|:--|--:|{}--:|--:|--:|--:|--:|{}\n", growth ? ":--|" : "",
                          growth ? ":--|" : "");
    }
    // --harness published: a label on its rows only, so a minimal run's table is as it was.
    const std::string strategy = r.config.harness == Harness::published
                                     ? r.config.strategy + " (published harness)"
                                     : r.config.strategy;
    out_ << fmt::format("| {} | {} |", markdown_cell(strategy), threads_text(r));
    if (growth) out_ << fmt::format(" {} |", markdown_cell(r.config.pregrow.label()));
    if (!r.ran()) {
      out_ << fmt::format(" {} | | | | |{}\n", markdown_cell(error_text(r)), growth ? " |" : "");
    } else {
      const bool noisy = r.has_warning(WarningKind::noisy);
      noisy_seen_ = noisy_seen_ || noisy;
      if (r.missed_precision() && !missed_) missed_ = r;
      out_ << fmt::format(" {}{} | {} | {} | {}–{} | {} |", format_ms(r.stats.median),
                          noisy ? " \\" + std::string(kNoisyMark) : std::string(),
                          escaped_mark(precision_cell(r)), r.times_ns.size(),
                          format_ms(static_cast<double>(r.stats.min)),
                          format_ms(static_cast<double>(r.stats.max)), format_rate(r.ops_per_sec));
      if (growth) out_ << " " << fdsize_text(r) << " |";
      out_ << "\n";
    }
    note_failures(r);
    if (const auto detail = detail_text(r); !detail.empty()) {
      notes_.push_back(fmt::format("{}: {}", who(r), detail));
    }
    if (const auto kernel = kernel_text(r); !kernel.empty()) {
      notes_.push_back(fmt::format("{}: {}", who(r), kernel));
      kernel_seen_ = true;
    }
    for (const auto& w : r.warnings) {
      if (w.kind != WarningKind::noisy || !r.ran()) {
        notes_.push_back(fmt::format("{}: {}", who(r), w.text));
      }
    }
    out_ << std::flush;
  }

  void end(std::span<const Result> /*all*/, std::span<const Finding> findings,
           bool complete) override {
    flush_notes();
    // A lone ~ may start strikethrough in GitHub's Markdown: escaped.
    if (noisy_seen_) out_ << "\n\\" << noisy_legend() << "\n";
    // A lone * may start emphasis: escaped.
    if (missed_) out_ << "\n\\" << missed_legend(*missed_) << "\n";
    if (kernel_seen_) out_ << "\n" << kernel_legend() << "\n";
    const SplitFindings split = split_answers(findings);
    if (!split.answers.empty()) {
      out_ << "\n## " << kAnswersHeading << "\n\n";
      for (const auto& f : split.answers) out_ << "- " << f.text << "\n";
    }
    if (!split.rest.empty()) {
      out_ << "\n## " << findings_heading(complete) << "\n\n";
      for (const auto& f : split.rest) out_ << "- " << f.text << "\n";
    }
    if (tune_) out_ << recommendation_section(*tune_);
    out_ << std::flush;
  }

  void recommendation(const TuneSummary& summary) override { tune_ = summary; }

 private:
  // tune's Recommendation block as the table words it, aligned, in a fenced block of its own.
  static std::string recommendation_section(const TuneSummary& summary) {
    return "\n## Recommendation\n\n```text\n" + recommendation_block(summary) + "```\n";
  }

  static std::string who(const Result& r) {
    return fmt::format("**{}, {}{}**", r.config.strategy, thread_count_text(r.config.threads),
                       r.holds_descriptors ? ", pregrow " + r.config.pregrow.label() : "");
  }

  static std::string fdsize_text(const Result& r) {
    if (!r.fdsize_before || !r.fdsize_after) return "-";
    return fmt::format("{} → {}", *r.fdsize_before, *r.fdsize_after);
  }

  void note_failures(const Result& r) {
    if (r.failures == 0) return;
    std::string by_errno;
    for (const auto& [name, n] : r.failures_by_errno) {
      by_errno += fmt::format("{}`{}` {}: {}", by_errno.empty() ? "" : ", ", name, n.message,
                              group_digits(n.count));
    }
    // The user's files may be unreadable: that is part of the measured work.
    const bool foreign = r.failures_are_work();
    notes_.push_back(fmt::format("{}: {} failed call{} ({}); {}", who(r), group_digits(r.failures),
                                 r.failures == 1 ? "" : "s", by_errno,
                                 foreign ? "included in the time" : "times are not valid"));
  }

  void flush_notes() {
    if (notes_.empty()) return;
    out_ << "\n";
    for (const auto& note : notes_) out_ << "- " << note << "\n";
    notes_.clear();
  }

  PrintableLines printable_;
  std::ostream out_;
  std::string header_for_;
  std::vector<std::string> notes_;
  bool noisy_seen_ = false;          // a row carries kNoisyMark: the legend goes under the tables
  std::optional<Result> missed_;     // the first row with kMissedMark, for its legend
  bool kernel_seen_ = false;         // a row has a kernel line: what its figures are goes below
  std::optional<TuneSummary> tune_;  // tune's: its Recommendation section ends the page
};

}  // namespace

std::unique_ptr<Reporter> make_markdown_reporter(std::ostream& out) {
  return std::make_unique<MarkdownReporter>(out);
}

}  // namespace fdbench
