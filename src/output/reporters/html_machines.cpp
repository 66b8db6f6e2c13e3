// The HTML report's runs across machines (html_parts.hpp): what a fleet's reader looks at
// first. Built from compare()'s rows and environment and stand_against()'s standings, so that
// `compare` and `report` never disagree on what matches what.
#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "model/format.hpp"
#include "output/reporters/environment_text.hpp"
#include "output/reporters/html_parts.hpp"
#include "output/reporters/reference_text.hpp"
#include "output/reporters/svg_chart.hpp"

namespace fdbench {

namespace {

using svg::escape;

// A column's head: the run's letter and label, and the host its document names.
std::string column_heads(std::span<const ReportInput> inputs) {
  std::string out;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& context = inputs[i].document.context;
    out += fmt::format("<th class=\"text\">{} · {}{}</th>", run_letter(i), escape(inputs[i].label),
                       context ? "<br><span class=\"host\">" + escape(context->host) + "</span>"
                               : std::string());
  }
  return out;
}

// The fields compare() found to differ (kernel, CPU, mitigations, rcu_expedited, limits, ...),
// or one line saying that none does.
std::string environment_differences(std::span<const ReportInput> inputs, const Comparison& c) {
  std::string rows;
  std::size_t differing = 0;
  for (const auto& row : c.environment) {
    if (!row.differs) continue;
    ++differing;
    rows += fmt::format("<tr class=\"differs\"><td>{}</td>", escape(row.field));
    for (const auto& value : row.values) {
      rows += fmt::format("<td class=\"text\">{}</td>",
                          value ? escape(environment_value_text(row.field, *value)) : "-");
    }
    rows += "</tr>\n";
  }
  if (differing == 0) {
    return fmt::format(
        "<p class=\"meta environment-alike\">The runs' environments record no difference in "
        "the {} fields compared (kernel, CPU, mitigations, rcu_expedited, limits, ...).</p>\n",
        c.environment.size());
  }
  return fmt::format(
      "<h3>Where the machines differ</h3>\n<table class=\"environment-differences\"><tr>"
      "<th>field</th>{}</tr>\n{}</table>\n",
      column_heads(inputs), rows);
}

// A run's median with its 95% interval below it (min–max, marked *, where too few
// repetitions give none), or why it has none.
std::string median_cell(const CompareCell& cell) {
  if (cell.verdict == Verdict::absent) return "<td>-</td>";
  if (cell.repetitions == 0) {
    return fmt::format("<td class=\"text\">{}</td>", escape(std::string(to_string(cell.status))));
  }
  return fmt::format("<td>{} ms<br><span class=\"interval\">{}–{}{}</span></td>",
                     format_ms(cell.median_ns), format_ms(static_cast<double>(cell.interval.lo)),
                     format_ms(static_cast<double>(cell.interval.hi)),
                     cell.interval.reached ? "" : " *");
}

using WorkKey = std::tuple<std::string, DescriptorKind, std::uint64_t>;

WorkKey work_of(const ResultKey& key) {
  return {key.workload, key.config.kind, key.ops};
}

// The published figures for this work, each a row: their figure, then each run's best
// matching result against it (the `compare --references` standing).
std::string reference_rows(const WorkKey& work,
                           const std::vector<std::vector<Standing>>& standings) {
  std::string out;
  for (std::size_t i = 0; i < standings.front().size(); ++i) {
    const Reference& ref = standings.front()[i].reference;
    if (ref.workload != std::get<0>(work) || ref.ops != std::get<2>(work) ||
        (ref.kind && *ref.kind != std::get<1>(work))) {
      continue;
    }
    std::string cells;
    bool any = false;
    for (const auto& run : standings) {
      const Standing& s = run[i];
      any = any || s.mine.has_value();
      cells += s.mine ? fmt::format("<td class=\"text\">{:.2f}× theirs: {}</td>", s.speed_ratio,
                                    escape(my_figure(s)))
                      : "<td>-</td>";
    }
    if (!any) continue;
    out += fmt::format("<tr class=\"reference\"><td class=\"text\">published: {}, {} ({})</td>{}"
                       "</tr>\n",
                       escape(ref.machine), escape(their_figure(ref)), escape(ref.source), cells);
  }
  return out;
}

std::string medians_table(std::span<const ReportInput> inputs, const Comparison& c) {
  std::vector<std::vector<Standing>> standings;
  const auto references = shipped_references();
  for (const auto& in : inputs) standings.push_back(stand_against(in.document, references));
  std::vector<const CompareRow*> rows;
  for (const auto* list : {&c.shared, &c.partial}) {
    for (const auto& row : *list) rows.push_back(&row);
  }
  // Each kind of work together, in the order it first appears.
  std::vector<WorkKey> works;
  for (const auto* row : rows) {
    if (std::find(works.begin(), works.end(), work_of(row->key)) == works.end()) {
      works.push_back(work_of(row->key));
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const CompareRow* a, const CompareRow* b) {
    return std::find(works.begin(), works.end(), work_of(a->key)) <
           std::find(works.begin(), works.end(), work_of(b->key));
  });
  std::string out = fmt::format(
      "<h3>Each run's median and its 95% interval</h3>\n<table class=\"across\"><tr>"
      "<th>result</th>{}</tr>\n",
      column_heads(inputs));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const WorkKey work = work_of(rows[i]->key);
    if (i == 0 || work != work_of(rows[i - 1]->key)) {
      out += fmt::format("<tr class=\"group\"><td colspan=\"{}\">{} · {} descriptors ({})</td></tr>\n",
                         inputs.size() + 1, escape(std::get<0>(work)),
                         group_digits(std::get<2>(work)), to_string(std::get<1>(work)));
    }
    out += fmt::format("<tr><td>{}</td>", escape(row_label(rows[i]->key)));
    for (const auto& cell : rows[i]->cells) out += median_cell(cell);
    out += "</tr>\n";
    if (i + 1 == rows.size() || work != work_of(rows[i + 1]->key)) {
      out += reference_rows(work, standings);
    }
  }
  return out + "</table>\n<p class=\"meta\">Each cell: the run's median time per repetition, "
               "and below it the 95% interval of that median (* the full range: too few "
               "repetitions for a 95% interval). Published figures were measured by others on "
               "other machines with their own programs (docs/references.json): context, not a "
               "controlled comparison.</p>\n";
}

}  // namespace

std::string across_machines(std::span<const ReportInput> inputs, const Comparison& c) {
  return environment_differences(inputs, c) + medians_table(inputs, c);
}

}  // namespace fdbench
