#include "output/results_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fdbench/error.hpp"
#include "fdbench/tune.hpp"
#include "output/reporter.hpp"
#include "output/trace_out.hpp"

namespace fdbench {

namespace {

// The first columns of the CSV export, which every version of it starts with.
std::string csv_start() {
  const std::string header = csv_header();
  return header.substr(0, header.find(',', header.find(',') + 1) + 1);  // "workload,strategy,"
}

std::string_view first_line(std::string_view text) {
  return text.substr(0, text.find('\n'));
}

// What a JSON value other than an object is, for the line that refuses it.
std::string_view json_kind(const nlohmann::json& value) {
  if (value.is_array()) return "an array";
  if (value.is_string()) return "a string";
  if (value.is_number()) return "a number";
  return "a single value";
}

std::string other_json(std::string_view text) {
  const auto value = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (value.is_discarded()) return "";  // not JSON: the reader says where
  if (!value.is_object()) {
    return fmt::format("JSON, but not an fdbench results document (it is {})", json_kind(value));
  }
  if (value.contains("schema_version")) return "";
  if (value.contains("comparison") || value.contains("references")) {
    return "fdbench compare's JSON output";
  }
  try {
    parse_recommendation(text);
    return "a recommendation written by fdbench tune --save";
  } catch (const Error&) {
    return "JSON, but not an fdbench results document (it has no schema_version)";
  }
}

}  // namespace

std::string other_document(std::string_view text) {
  const std::string_view line = first_line(text);
  if (line.starts_with(csv_start())) return "fdbench's CSV export";
  if (line.starts_with(TraceOut::kHeader)) return "a --trace-out file (every timed call)";
  if (line.starts_with("<!DOCTYPE html")) return "an HTML report (report or --export-html)";
  if (line.starts_with("# fdbench compare")) return "fdbench compare's markdown output";
  if (line.starts_with("# fdbench ")) return "fdbench's markdown output";
  if (line.starts_with("fdbench ") && line.find(" · ") != std::string_view::npos) {
    return "fdbench's table output";
  }
  return other_json(text);
}

ResultsDocument read_results_file(const std::string& path, std::string_view command) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: {}", path, errno_text(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return parse_results_json(text.str());
  } catch (const Error& e) {
    const std::string reads = fmt::format(
        "{} reads the JSON results of a run (written with --format json or --export-json)",
        command);
    if (const std::string what = other_document(text.str()); !what.empty()) {
      throw Error(fmt::format("{} is {}; {}", path, what, reads));
    }
    throw Error(fmt::format("{}: {}; {}", path, e.what(), reads));
  }
}

}  // namespace fdbench
