#include "output/reporters/registry.hpp"

namespace fdbench {

namespace {
struct ReporterEntry {
  std::string_view name;
  std::unique_ptr<Reporter> (*make)(std::ostream&);
};
constexpr ReporterEntry kReporters[] = {
    {"table", make_table_reporter},       {"json", make_json_reporter}, {"csv", make_csv_reporter},
    {"markdown", make_markdown_reporter}, {"html", make_html_reporter},
};
}  // namespace

std::unique_ptr<Reporter> make_reporter(std::string_view format, std::ostream& out) {
  for (const auto& entry : kReporters) {
    if (entry.name == format) return entry.make(out);
  }
  return nullptr;
}

std::vector<std::string> reporter_names() {
  std::vector<std::string> names;
  for (const auto& entry : kReporters) names.emplace_back(entry.name);
  return names;
}

}  // namespace fdbench
