// csv: one header row, then one row per result as it finishes (RFC 4180 quoting). The columns
// are the result fields json_fields.cpp gives a column, with the values the JSON has, and
// --latency's percentiles (csv_part_columns()), one value per operation joined by ';'.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "model/json_fields.hpp"
#include "output/reporter.hpp"
#include "output/reporters/registry.hpp"

namespace fdbench {

namespace {

std::string quoted(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string out = "\"";
  for (const char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// A field's JSON value as a cell: a text quoted, a whole number as it is, any other to one
// decimal (a rate) or, a share below 1, to four significant digits (0.02135), an array's
// values joined by ';', null empty.
std::string cell(const nlohmann::json& v) {
  if (v.is_string()) return quoted(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_unsigned()) return fmt::format("{}", v.get<std::uint64_t>());
  if (v.is_number_integer()) return fmt::format("{}", v.get<std::int64_t>());
  if (v.is_number_float()) {
    const double x = v.get<double>();
    return x != 0 && x > -1 && x < 1 ? fmt::format("{:.4g}", x) : fmt::format("{:.1f}", x);
  }
  std::string joined;
  for (std::size_t i = 0; v.is_array() && i < v.size(); ++i) {
    joined += (i == 0 ? "" : ";") + cell(v[i]);
  }
  return joined;
}

// A column: its header and how a result's cell is written.
struct Column {
  const char* name;
  int number;
  std::optional<nlohmann::json> (*write)(const Result&);
};

// The result fields that are columns, and the parts of fields that are (--latency's
// percentiles), in their order.
const std::vector<Column>& columns() {
  static const std::vector<Column> kColumns = [] {
    std::vector<Column> out;
    for (const auto& f : result_fields()) {
      if (f.csv_column >= 0) out.push_back({f.name, f.csv_column, f.write});
    }
    for (const auto& c : csv_part_columns()) out.push_back({c.name, c.csv_column, c.write});
    std::sort(out.begin(), out.end(),
              [](const Column& a, const Column& b) { return a.number < b.number; });
    return out;
  }();
  return kColumns;
}

class CsvReporter final : public Reporter {
 public:
  explicit CsvReporter(std::ostream& out) : out_(out) {}
  void begin(const Environment& /*env*/) override { out_ << csv_header() << '\n'; }
  void add(const Result& result) override { out_ << csv_row(result) << '\n' << std::flush; }
  void end(std::span<const Result> /*all*/, std::span<const Finding> /*findings*/,
           bool /*complete*/) override {
    out_.flush();
  }

 private:
  std::ostream& out_;
};

}  // namespace

std::string csv_header() {
  std::string header;
  for (const auto& c : columns()) header += (header.empty() ? "" : ",") + std::string(c.name);
  return header;
}

std::string csv_row(const Result& r) {
  std::string row;
  for (std::size_t i = 0; i < columns().size(); ++i) {
    if (i != 0) row += ',';
    const auto value = columns()[i].write(r);
    if (value) row += cell(*value);  // a field left out is an empty cell
  }
  return row;
}

std::unique_ptr<Reporter> make_csv_reporter(std::ostream& out) {
  return std::make_unique<CsvReporter>(out);
}

}  // namespace fdbench
