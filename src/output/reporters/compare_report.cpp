// Prints what compare() and stand_against() found: an aligned text table, GitHub markdown
// (to paste into an issue or a blog) or JSON. The same cells feed the table and markdown.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "analysis/compare.hpp"
#include "output/reporters/environment_text.hpp"
#include "output/reporters/reference_text.hpp"
#include "model/format.hpp"
#include "output/printable_lines.hpp"
#include "output/reporters/section_text.hpp"

namespace fdbench {

namespace {

struct Grid {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::size_t left_columns = 1;  // text on the left; the numbers after it right-aligned
};

std::size_t display_width(std::string_view text) {
  std::size_t n = 0;  // UTF-8: count the bytes that start a character
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// Columns two spaces apart, the first `left_columns` left-aligned.
void write_text(std::ostream& out, const Grid& grid) {
  std::vector<std::size_t> widths;
  for (const auto& title : grid.header) widths.push_back(display_width(title));
  for (const auto& row : grid.rows) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], display_width(row[c]));
    }
  }
  auto line = [&](const std::vector<std::string>& row) {
    std::string text = " ";  // indented under the heading
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(widths[c] - display_width(row[c]), ' ');
      text += "  " + (c < grid.left_columns ? row[c] + pad : pad + row[c]);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << "\n";
  };
  line(grid.header);
  for (const auto& row : grid.rows) line(row);
}

void write_markdown(std::ostream& out, const Grid& grid) {
  auto line = [&](const std::vector<std::string>& row) {
    out << "|";
    for (const auto& cell : row) out << " " << markdown_cell(cell) << " |";
    out << "\n";
  };
  line(grid.header);
  out << "|";
  for (std::size_t c = 0; c < grid.header.size(); ++c) {
    out << (c < grid.left_columns ? ":--|" : "--:|");
  }
  out << "\n";
  for (const auto& row : grid.rows) line(row);
}

// Breaks a line longer than `width` at spaces; continuations are indented 4 more than it.
std::string wrap(const std::string& line, std::size_t width) {
  const std::size_t lead = line.find_first_not_of(' ');
  const std::size_t indent = (lead == std::string::npos ? 0 : lead) + 4;
  std::string out;
  std::string rest = line;
  while (display_width(rest) > width) {
    const auto cut = rest.rfind(' ', width);
    if (cut == std::string::npos || cut <= indent) break;
    out += rest.substr(0, cut) + "\n";
    rest = std::string(indent, ' ') + rest.substr(cut + 1);
  }
  return out + rest;
}

class Printer {
 public:
  Printer(std::ostream& out, bool markdown) : out_(out), markdown_(markdown) {}

  void heading(const std::string& text) {
    out_ << "\n" << (markdown_ ? "## " + text + "\n\n" : text + "\n");
  }
  void paragraph(const std::string& text) {
    if (markdown_) {
      out_ << text << "\n\n";
      return;
    }
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) out_ << wrap(line, 100) << "\n";
  }
  // A paragraph set apart from the table above it (in markdown, else it would be a row).
  void note(const std::string& text) {
    out_ << "\n";
    paragraph(text);
  }
  void grid(const Grid& grid) {
    if (markdown_) {
      write_markdown(out_, grid);
    } else {
      write_text(out_, grid);
    }
  }
  [[nodiscard]] bool markdown() const { return markdown_; }

 private:
  std::ostream& out_;
  bool markdown_;
};

std::string file_tag(std::size_t index) {
  return fmt::format("[{}]", index + 1);
}

std::string ratio_text(const CompareCell& cell) {
  if (!cell.ratio) return "-";
  std::string text = fmt::format("{:.2f}×", *cell.ratio);
  if (cell.ratio_low && cell.ratio_high) {
    text += fmt::format(" ({:.2f}–{:.2f})", *cell.ratio_low, *cell.ratio_high);
  }
  return text;
}

// Marks a result set against one traced where it was not, or untraced where it was; and one
// set against a result measured while rcu_expedited changed, on either side.
constexpr std::string_view kTracedMark = " †";
constexpr std::string_view kChangedMark = " ‡";

std::string verdict_text(const CompareCell& cell) {
  return std::string(to_string(cell.verdict)) +
         std::string(cell.traced_on_one_side ? kTracedMark : "") +
         std::string(cell.setting_changed_on_a_side ? kChangedMark : "");
}

bool any_cell(const std::vector<CompareRow>& rows, bool CompareCell::*mark) {
  return std::any_of(rows.begin(), rows.end(), [mark](const CompareRow& row) {
    return std::any_of(row.cells.begin(), row.cells.end(),
                       [mark](const CompareCell& cell) { return cell.*mark; });
  });
}

std::string median_text(const CompareCell& cell) {
  if (cell.verdict == Verdict::absent) return "—";
  if (cell.status != Status::measured && cell.status != Status::cut_short) {
    return std::string(status_words(cell.status));
  }
  if (cell.repetitions == 0) return "-";
  return format_ms(cell.median_ns);
}

// Parameters whose values differ between rows of the same strategy: the rest follow from
// the strategy and batch and would only repeat them.
std::set<std::string> varying_parameters(const std::vector<CompareRow>& rows) {
  // Per strategy, each parameter's values and how many rows have it: it varies where it takes
  // two values or some row of the strategy lacks it (linear: a file may hold 60,000 results).
  struct Seen {
    std::size_t rows = 0;
    std::map<std::string, std::pair<std::set<std::string>, std::size_t>> values;
  };
  std::map<std::string, Seen> by_strategy;
  for (const auto& row : rows) {
    Seen& seen = by_strategy[row.key.config.strategy];
    ++seen.rows;
    for (const auto& [name, value] : row.key.parameters) {
      auto& [values, count] = seen.values[name];
      values.insert(value);
      ++count;
    }
  }
  std::set<std::string> out;
  for (const auto& [strategy, seen] : by_strategy) {
    for (const auto& [name, values] : seen.values) {
      if (values.first.size() > 1 || values.second < seen.rows) out.insert(name);
    }
  }
  return out;
}

std::string row_label(const ResultKey& key, const std::set<std::string>& shown_parameters) {
  std::string label =
      fmt::format("{}, {}", key.config.strategy, thread_count_text(key.config.threads));
  if (key.config.pregrow.grows()) label += ", pregrow " + key.config.pregrow.label();
  if (key.config.batch != 1) label += fmt::format(", batch {}", key.config.batch);
  for (const auto& [name, value] : key.parameters) {
    // A published harness's row is always said to be one: nothing else tells it apart.
    if (shown_parameters.count(name) != 0 || name == "harness") {
      label += fmt::format(", {} {}", name, value);
    }
  }
  return label;
}

std::string group_title(const ResultKey& key) {
  return fmt::format("{}, {}, {} descriptors per repetition", key.workload,
                     to_string(key.config.kind), group_digits(key.ops));
}

Grid result_grid(const std::vector<CompareRow>& rows, std::size_t files) {
  Grid grid;
  grid.header.push_back("result");
  for (std::size_t f = 0; f < files; ++f) grid.header.push_back(file_tag(f) + " median ms");
  for (std::size_t f = 1; f < files; ++f) {
    grid.header.push_back(file_tag(f) + "/" + file_tag(0) + " (min–max)");
    grid.header.push_back("p");
    grid.header.push_back(file_tag(f) + " verdict");
  }
  const auto shown = varying_parameters(rows);
  for (const auto& row : rows) {
    std::vector<std::string> cells{row_label(row.key, shown)};
    for (const auto& cell : row.cells) cells.push_back(median_text(cell));
    for (std::size_t f = 1; f < files; ++f) {
      const CompareCell& cell = row.cells[f];
      cells.push_back(ratio_text(cell));
      cells.push_back(cell.p_value ? fmt::format("{:.2g}", *cell.p_value) : "-");
      cells.push_back(verdict_text(cell));
    }
    grid.rows.push_back(std::move(cells));
  }
  return grid;
}

// One table per workload, kind and size: rows of different work are never side by side.
void print_rows(Printer& p, const std::vector<CompareRow>& rows, std::size_t files,
                const std::string& what) {
  std::vector<std::vector<CompareRow>> groups;
  for (const auto& row : rows) {
    auto same = [&](const std::vector<CompareRow>& g) {
      return g[0].key.workload == row.key.workload && g[0].key.config.kind == row.key.config.kind &&
             g[0].key.ops == row.key.ops;
    };
    const auto it = std::find_if(groups.begin(), groups.end(), same);
    if (it == groups.end()) {
      groups.push_back({row});
    } else {
      it->push_back(row);
    }
  }
  for (const auto& group : groups) {
    p.heading(what + " — " + group_title(group[0].key));
    p.grid(result_grid(group, files));
  }
}

void print_files(Printer& p, const Comparison& c) {
  p.paragraph(fmt::format(
      "Median times; each file's time ratio to {} (< 1: faster) with the ratio's min–max range.{}"
      "Verdicts: two-sided Mann-Whitney U on the repetition times, α = {}; under {} "
      "repetitions on a side, too few to tell.",
      file_tag(0), p.markdown() ? " " : "\n", kSignificanceLevel, kMinRepetitionsToTell));
  Grid files{{"file", "results", "fdbench", "complete"}, {}, 4};
  for (std::size_t f = 0; f < c.files.size(); ++f) {
    const auto& file = c.files[f];
    files.rows.push_back({file_tag(f) + " " + file.label, std::to_string(file.results),
                          file.tool_version, file.complete ? "yes" : "no (interrupted)"});
  }
  p.grid(files);
}

bool is_mitigation(std::string_view field) {
  return field.starts_with("cpu_mitigations.");
}

// Values as people read them (a syscall cost as "898 ns"); the JSON form keeps them as recorded.
std::string display_value(std::string_view field, const std::optional<std::string>& value) {
  return value ? environment_value_text(field, *value) : "-";
}

void print_environment(Printer& p, const Comparison& c) {
  if (c.environment.empty()) return;
  p.heading("Environment (≠: differs between the files)");
  Grid grid;
  grid.left_columns = c.files.size() + 1;
  grid.header.push_back("field");
  for (std::size_t f = 0; f < c.files.size(); ++f) grid.header.push_back(file_tag(f));
  // A CPU lists about twenty mitigations; those alike in every file are one line, not twenty.
  std::size_t alike_mitigations = 0;
  std::optional<std::size_t> alike_row;  // where the one line for them goes
  for (const auto& row : c.environment) {
    if (is_mitigation(row.field) && !row.differs) {
      if (alike_mitigations++ == 0) alike_row = grid.rows.size();
      continue;
    }
    std::vector<std::string> cells{(row.differs ? "≠ " : "  ") + row.field};
    for (const auto& value : row.values) cells.push_back(display_value(row.field, value));
    grid.rows.push_back(std::move(cells));
  }
  if (alike_row) {
    std::vector<std::string> cells{"  cpu_mitigations (others)"};
    cells.insert(cells.end(), c.files.size(), fmt::format("{} alike", alike_mitigations));
    grid.rows.insert(grid.rows.begin() + static_cast<std::ptrdiff_t>(*alike_row), std::move(cells));
  }
  p.grid(grid);
}

// Numbered sources, each with its address and what each of its figures measured.
void print_sources(Printer& p, std::span<const Standing> standings,
                   const std::vector<std::string>& sources) {
  const std::string lead = p.markdown() ? "- " : "  ";
  std::string text;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    std::vector<std::string> measured;  // in the references' order
    std::string url;
    for (const auto& s : standings) {
      if (s.reference.source != sources[i]) continue;
      url = s.reference.url;
      if (std::find(measured.begin(), measured.end(), s.reference.measured) == measured.end()) {
        measured.push_back(s.reference.measured);
      }
    }
    text += fmt::format("{}[{}] {}, {}\n", lead, i + 1, sources[i], url);
    for (const auto& m : measured) text += fmt::format("{}    measured: {}\n", lead, m);
  }
  p.paragraph(text.substr(0, text.size() - 1));
}

void print_standings(Printer& p, const CompareReport::FileStandings& file) {
  p.heading("Against figures published elsewhere — " + file.label);
  p.paragraph(
      "Measured by others on other machines with their own programs (docs/references.json): "
      "context for this file, not a controlled comparison.");
  Grid grid{{"reference", "their figure", "this file", "speed: this / theirs"}, {}, 3};
  std::vector<std::string> sources;
  for (const auto& s : file.standings) {
    const auto it = std::find(sources.begin(), sources.end(), s.reference.source);
    const std::size_t note = static_cast<std::size_t>(it - sources.begin()) + 1;
    if (it == sources.end()) sources.push_back(s.reference.source);
    grid.rows.push_back({fmt::format("{} [{}]", s.reference.machine, note),
                         their_figure(s.reference), my_figure(s),
                         s.mine ? fmt::format("{:.2f}×", s.speed_ratio) : "-"});
  }
  p.grid(grid);
  print_sources(p, file.standings, sources);
}

void write_readable(std::ostream& out, const CompareReport& report, bool markdown) {
  Printer p(out, markdown);
  if (report.comparison) {
    const Comparison& c = *report.comparison;
    if (markdown) out << "# fdbench compare\n\n";
    print_files(p, c);
    print_environment(p, c);
    print_rows(p, c.shared, c.files.size(), "In every file");
    print_rows(p, c.partial, c.files.size(), "Only in some files");
    for (const auto& [mark, text] :
         {std::pair{&CompareCell::traced_on_one_side,
                    "† traced with --kernel-trace on one side only: its times include the "
                    "tracing's cost"},
          std::pair{&CompareCell::setting_changed_on_a_side,
                    "‡ measured, on one side or both, while another program changed "
                    "rcu_expedited: its times mix both kinds of grace period"}}) {
      if (any_cell(c.shared, mark) || any_cell(c.partial, mark)) p.note(text);
    }
    if (c.shared.empty() && c.partial.empty()) p.heading("No results in these files.");
  }
  for (const auto& file : report.references) print_standings(p, file);
}

template <class T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json row_json(const CompareRow& row) {
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& cell : row.cells) {
    nlohmann::json j = {{"verdict", to_string(cell.verdict)}};
    if (cell.verdict != Verdict::absent) {
      j.update({{"repetitions", cell.repetitions},
                {"median_ns", whole_ns(cell.median_ns)},
                {"min_ns", cell.min_ns},
                {"max_ns", cell.max_ns},
                {"ratio", optional_json(cell.ratio)},
                {"ratio_low", optional_json(cell.ratio_low)},
                {"ratio_high", optional_json(cell.ratio_high)},
                {"p_value", optional_json(cell.p_value)},
                {"kernel_traced", cell.kernel_traced},
                {"traced_on_one_side", cell.traced_on_one_side},
                {"setting_changed", cell.setting_changed},
                {"setting_changed_on_a_side", cell.setting_changed_on_a_side}});
      j["status"] = std::string(to_string(cell.status));
      if (!cell.error.empty()) j["error"] = cell.error;
    }
    cells.push_back(std::move(j));
  }
  const ResultKey& k = row.key;
  return {{"workload", k.workload},
          {"strategy", k.config.strategy},
          {"threads", k.config.threads},
          {"batch", k.config.batch},
          {"kind", to_string(k.config.kind)},
          {"pregrow", k.config.pregrow.label()},
          {"ops", k.ops},
          {"parameters", k.parameters},
          {"files", std::move(cells)}};
}

nlohmann::json comparison_json(const Comparison& c) {
  nlohmann::json j = {
      {"significance_level", kSignificanceLevel}, {"min_repetitions", kMinRepetitionsToTell},
      {"files", nlohmann::json::array()},         {"environment", nlohmann::json::array()},
      {"shared", nlohmann::json::array()},        {"partial", nlohmann::json::array()}};
  for (const auto& f : c.files) {
    j["files"].push_back({{"label", f.label},
                          {"tool_version", f.tool_version},
                          {"complete", f.complete},
                          {"results", f.results}});
  }
  for (const auto& row : c.environment) {
    nlohmann::json values = nlohmann::json::array();
    for (const auto& v : row.values) values.push_back(optional_json(v));
    j["environment"].push_back(
        {{"field", row.field}, {"values", std::move(values)}, {"differs", row.differs}});
  }
  for (const auto& row : c.shared) j["shared"].push_back(row_json(row));
  for (const auto& row : c.partial) j["partial"].push_back(row_json(row));
  return j;
}

nlohmann::json standing_json(const Standing& s) {
  const Reference& ref = s.reference;
  nlohmann::json j = {{"id", ref.id},
                      {"source", ref.source},
                      {"url", ref.url},
                      {"machine", ref.machine},
                      {"os", ref.os},
                      {"measured", ref.measured},
                      {"ops_per_sec", optional_json(ref.ops_per_sec)},
                      {"times_ns", ref.times_ns},
                      {"mine", nullptr},
                      {"speed_ratio", nullptr}};
  if (s.mine) {
    j["mine"] = {{"strategy", s.mine->config.strategy},
                 {"threads", s.mine->config.threads},
                 {"pregrow", s.mine->config.pregrow.label()},
                 {"median_ns", s.mine->stats.median},
                 {"ops_per_sec", s.mine->ops_per_sec}};
    j["speed_ratio"] = s.speed_ratio;
  }
  return j;
}

void write_json(std::ostream& out, const CompareReport& report) {
  nlohmann::json j = nlohmann::json::object();
  if (report.comparison) j["comparison"] = comparison_json(*report.comparison);
  if (!report.references.empty()) {
    j["references"] = {{"note",
                        "figures published by others, measured on other machines with their own "
                        "programs: context, not a controlled comparison"},
                       {"files", nlohmann::json::array()}};
    for (const auto& file : report.references) {
      nlohmann::json standings = nlohmann::json::array();
      for (const auto& s : file.standings) standings.push_back(standing_json(s));
      j["references"]["files"].push_back(
          {{"label", file.label}, {"standings", std::move(standings)}});
    }
  }
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace

std::vector<std::string> compare_formats() {
  return {"table", "markdown", "json"};
}

void write_compare_report(std::ostream& out, const CompareReport& report, std::string_view format) {
  if (format == "json") {
    write_json(out, report);
  } else {
    // Every string in it came from a file or a path: escaped for the terminal, line by line.
    PrintableLines lines(out);
    std::ostream printable_out(&lines);
    write_readable(printable_out, report, format == "markdown");
    printable_out.flush();
  }
  out.flush();
}

}  // namespace fdbench
