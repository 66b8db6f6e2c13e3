#include "output/reporters/registry.hpp"

namespace fdbench {

namespace {
struct ReporterEntry {
  std::string_view name;
  std::unique_ptr<Reporter> (*make)(std::ostream&, const ReportOptions&);
};
// A format that has no choices to make.
template <std::unique_ptr<Reporter> (*Make)(std::ostream&)>
std::unique_ptr<Reporter> without_options(std::ostream& out, const ReportOptions& /*options*/) {
  return Make(out);
}
constexpr ReporterEntry kReporters[] = {
    {"table", make_table_reporter},
    {"json", without_options<make_json_reporter>},
    {"csv", without_options<make_csv_reporter>},
    {"markdown", without_options<make_markdown_reporter>},
    {"html", without_options<make_html_reporter>},
};
}  // namespace

std::unique_ptr<Reporter> make_reporter(std::string_view format, std::ostream& out,
                                        const ReportOptions& options) {
  for (const auto& entry : kReporters) {
    if (entry.name == format) return entry.make(out, options);
  }
  return nullptr;
}

std::vector<std::string> reporter_names() {
  std::vector<std::string> names;
  for (const auto& entry : kReporters) names.emplace_back(entry.name);
  return names;
}

}  // namespace fdbench
