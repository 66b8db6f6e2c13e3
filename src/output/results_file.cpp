#include "output/results_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "fdbench/error.hpp"
#include "fdbench/tune.hpp"
#include "output/reporter.hpp"
#include "output/trace_out.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"

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

// The most of one results file compare and report read. The largest document fdbench writes
// is the default suite's at the largest --repeat (100,000): about 50 results of 100,000
// times at some 10 bytes each, 50 MB. The reader holds a document as a tree of about ten times its size, so a
// larger file (an 88 MB one took 840 MB) is refused before it is read.
constexpr std::uint64_t kMaxResultsFileBytes = 128ULL << 20;

// Why a file too large to be results is refused: what its first line says it is (a trace, a
// CSV export), else that it is too large.
std::string too_large(const std::string& path, int fd, const std::string& reads) {
  std::string head(64 * 1024, '\0');
  std::size_t got = 0;
  while (got < head.size()) {
    const std::size_t n = platform::read_input(fd, head.data() + got, head.size() - got);
    if (n == 0) break;
    got += n;
  }
  head.resize(got);
  if (const std::string what = other_document(head); !what.empty()) {
    return fmt::format("{} is {}; {}", path, what, reads);
  }
  return fmt::format("{} holds more than the {} MiB a results file can be; {}", path,
                     kMaxResultsFileBytes >> 20, reads);
}

// The whole of `path`: a regular file or a pipe, at most kMaxResultsFileBytes. Error names the
// file and what it is when it is not one of those.
std::string results_file_text(const std::string& path, const std::string& reads) {
  const platform::InputFile input = platform::open_input_file(path);
  if (!input.fd && input.error != 0) {
    throw Error(fmt::format("{}: {}", path, errno_text(input.error)));
  }
  if (!input.fd) {
    throw Error(fmt::format("{} is {}; {}", path, platform::file_type_words(input.mode), reads));
  }
  if (input.size > kMaxResultsFileBytes) throw Error(too_large(path, input.fd.get(), reads));
  std::string text;
  text.reserve(input.size);
  std::string piece(1 << 16, '\0');
  // A pipe says no size: read until its end, or until it has given more than a file can be.
  for (;;) {
    std::size_t n = 0;
    try {
      n = platform::read_input(input.fd.get(), piece.data(), piece.size());
    } catch (const Error& e) {  // EIO, or EISDIR where a directory slipped in
      throw Error(fmt::format("{}: {}", path, e.what()));
    }
    if (n == 0) return text;
    if (text.size() + n > kMaxResultsFileBytes) {
      throw Error(fmt::format("{} holds more than the {} MiB a results file can be; {}", path,
                              kMaxResultsFileBytes >> 20, reads));
    }
    text.append(piece.data(), n);
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

ResultsFile read_results_file_whole(const std::string& path, std::string_view command) {
  const std::string reads = fmt::format(
      "{} reads the JSON results of a run (written with --format json or --export-json)", command);
  ResultsFile file;
  file.text = results_file_text(path, reads);
  try {
    // Ctrl-C ends a parse of a large file within a fraction of a second (Interrupted).
    file.document = parse_results_json(file.text, throw_if_interrupted);
    return file;
  } catch (const Error& e) {
    if (const std::string what = other_document(file.text); !what.empty()) {
      throw Error(fmt::format("{} is {}; {}", path, what, reads));
    }
    throw Error(fmt::format("{}: {}; {}", path, e.what(), reads));
  }
}

ResultsDocument read_results_file(const std::string& path, std::string_view command) {
  return read_results_file_whole(path, command).document;
}

}  // namespace fdbench
