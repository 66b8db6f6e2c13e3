// The table's columns and rows (table_rows.hpp).
#include "output/table_rows.hpp"

#include <fmt/format.h>

#include "model/format.hpp"
#include "output/reporters/section_text.hpp"

namespace fdbench {

namespace {

std::string fdsize_text(const Result& r) {
  if (!r.fdsize_before || !r.fdsize_after) return "-";
  return fmt::format("{} → {}", *r.fdsize_before, *r.fdsize_after);
}

}  // namespace

std::string table_header(const TableLayout& layout, const Result& r) {
  const bool growth = r.holds_descriptors;
  std::string line = fmt::format("  {:<12} {:>7}", "strategy", "threads");
  if (layout.harness) line += fmt::format(" {:<9}", "harness");
  if (layout.batch) line += fmt::format(" {:>5}", "batch");
  if (growth) line += fmt::format(" {:>7}", "pregrow");
  line += fmt::format(" {:>10}  {:>6} {:>5} {:>15} {:>11}", "median ms", "±95%", "reps",
                      "min–max ms", r.unit + "/s");
  if (growth) line += "  FDSize";
  return line;
}

std::string table_lead(const TableLayout& layout, const Result& r) {
  std::string lead = fmt::format("  {:<12} {:>7}", r.config.strategy, threads_text(r));
  if (layout.harness) lead += fmt::format(" {:<9}", to_string(r.config.harness));
  if (layout.batch) {
    lead +=
        fmt::format(" {:>5}", r.batch_unit == BatchUnit::none ? "-" : std::to_string(r.config.batch));
  }
  if (r.holds_descriptors) lead += fmt::format(" {:>7}", r.config.pregrow.label());
  return lead;
}

std::string table_row(const TableLayout& layout, const Result& r) {
  const std::string range = fmt::format("{}–{}", format_ms(static_cast<double>(r.stats.min)),
                                        format_ms(static_cast<double>(r.stats.max)));
  const bool noisy = r.has_warning(WarningKind::noisy);
  std::string row = table_lead(layout, r) +
                    fmt::format(" {:>10}{:1} {:>6} {:>5} {:>15} {:>11}", format_ms(r.stats.median),
                                noisy ? kNoisyMark : "", precision_cell(r), r.times_ns.size(),
                                range, format_rate(r.ops_per_sec));
  if (r.holds_descriptors) row += "  " + fdsize_text(r);
  return row;
}

}  // namespace fdbench
