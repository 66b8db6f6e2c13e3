#include "output/results_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <algorithm>
#include <cstdint>
#include <istream>
#include <streambuf>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

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

// What a JSON text is at its top: whether it is JSON at all, its kind ("an object", "an
// array", ...) and an object's own keys. Read as a stream that keeps nothing else, so that
// telling what a large file is costs no tree of it.
struct JsonTop {
  bool valid = false;
  std::string_view kind;
  std::set<std::string> keys;
};

class JsonTopReader : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit JsonTopReader(JsonTop& top) : top_(top) {}
  bool null() override { return value("a single value"); }
  bool boolean(bool) override { return value("a single value"); }
  bool number_integer(number_integer_t) override { return value("a number"); }
  bool number_unsigned(number_unsigned_t) override { return value("a number"); }
  bool number_float(number_float_t, const string_t&) override { return value("a number"); }
  bool string(string_t&) override { return value("a string"); }
  bool binary(binary_t&) override { return value("a single value"); }
  bool start_object(std::size_t) override { return open("an object"); }
  bool start_array(std::size_t) override { return open("an array"); }
  bool end_object() override { return --depth_, true; }
  bool end_array() override { return --depth_, true; }
  bool key(string_t& k) override {
    if (depth_ == 1) top_.keys.insert(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool value(std::string_view kind) {
    if (depth_ == 0) top_.kind = kind;
    return true;
  }
  bool open(std::string_view kind) {
    value(kind);
    ++depth_;
    return true;
  }
  JsonTop& top_;
  int depth_ = 0;
};

// A recommendation is a few hundred bytes: a larger text is not one, and is never parsed whole.
constexpr std::size_t kMaxRecommendationBytes = 1 << 20;

std::string other_json(std::string_view text) {
  JsonTop top;
  JsonTopReader reader(top);
  top.valid = nlohmann::json::sax_parse(text.begin(), text.end(), &reader);
  if (!top.valid) return "";  // not JSON: the reader says where
  if (top.kind != "an object") {
    return fmt::format("JSON, but not an fdbench results document (it is {})", top.kind);
  }
  if (top.keys.contains("schema_version")) return "";
  if (top.keys.contains("comparison") || top.keys.contains("references")) {
    return "fdbench compare's JSON output";
  }
  try {
    if (text.size() <= kMaxRecommendationBytes) {
      parse_recommendation(text);
      return "a recommendation written by fdbench tune --save";
    }
  } catch (const Error&) {
  }
  return "JSON, but not an fdbench results document (it has no schema_version)";
}

// The most of one results file compare and report read. The largest document fdbench writes
// is the default suite's at the largest --repeat (100,000): about 50 results of 100,000
// times at some 10 bytes each, 50 MB. The reader holds the text and the results it has read
// (parse_results_json streams the results, never building the whole document's tree), so a
// larger file is refused before it is read.
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

// `path` read as it is parsed: a regular file or a pipe, at most kMaxResultsFileBytes. What a
// read says goes into an Error naming the file (said(): that Error is the whole story); the
// first kHeadBytes are kept, to tell what a file that is no results document is.
class ResultsFileBuffer : public std::streambuf {
 public:
  static constexpr std::size_t kHeadBytes = 1 << 20;
  ResultsFileBuffer(int fd, const std::string& path, const std::string& reads, std::string* whole)
      : fd_(fd), path_(path), reads_(reads), whole_(whole), piece_(1 << 16, '\0') {}
  [[nodiscard]] const std::string& head() const { return head_; }
  [[nodiscard]] bool said() const { return said_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    std::size_t n = 0;
    try {
      n = platform::read_input(fd_, piece_.data(), piece_.size());
    } catch (const Error& e) {  // EIO, or EISDIR where a directory slipped in
      said_ = true;
      throw Error(fmt::format("{}: {}", path_, e.what()));
    }
    if (n == 0) return traits_type::eof();
    // A pipe says no size: read until its end, or until it has given more than a file can be.
    if (total_ + n > kMaxResultsFileBytes) {
      said_ = true;
      throw Error(fmt::format("{} holds more than the {} MiB a results file can be; {}", path_,
                              kMaxResultsFileBytes >> 20, reads_));
    }
    total_ += n;
    if (whole_ != nullptr) whole_->append(piece_.data(), n);
    if (head_.size() < kHeadBytes) head_.append(piece_.data(), std::min(n, kHeadBytes - head_.size()));
    setg(piece_.data(), piece_.data(), piece_.data() + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  int fd_;
  const std::string& path_;
  const std::string& reads_;
  std::string* whole_;  // where given, every byte read
  std::string piece_;
  std::string head_;
  std::uint64_t total_ = 0;
  bool said_ = false;
};

// `path` opened to be read: a regular file or a pipe, not larger than a results file can be.
// Error names the file and what it is when it is not one of those.
platform::InputFile open_results_file(const std::string& path, const std::string& reads) {
  platform::InputFile input = platform::open_input_file(path);
  if (!input.fd && input.error != 0) {
    throw Error(fmt::format("{}: {}", path, errno_text(input.error)));
  }
  if (!input.fd) {
    throw Error(fmt::format("{} is {}; {}", path, platform::file_type_words(input.mode), reads));
  }
  if (input.size > kMaxResultsFileBytes) throw Error(too_large(path, input.fd.get(), reads));
  return input;
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

namespace {

// `path` parsed as it is read; the text is kept in `text` where it is given (the history
// stores and hashes it), never held otherwise: only the results it gives.
ResultsDocument read_streamed(const std::string& path, std::string_view command,
                              std::string* text) {
  const std::string reads = fmt::format(
      "{} reads the JSON results of a run (written with --format json or --export-json)", command);
  const platform::InputFile input = open_results_file(path, reads);
  ResultsFileBuffer buffer(input.fd.get(), path, reads, text);
  std::istream in(&buffer);
  try {
    // Ctrl-C ends a parse of a large file within a fraction of a second (Interrupted).
    return parse_results_json(in, throw_if_interrupted);
  } catch (const Error& e) {
    if (buffer.said()) throw;
    if (const std::string what = other_document(buffer.head()); !what.empty()) {
      throw Error(fmt::format("{} is {}; {}", path, what, reads));
    }
    throw Error(fmt::format("{}: {}; {}", path, e.what(), reads));
  }
}

}  // namespace

ResultsFile read_results_file_whole(const std::string& path, std::string_view command) {
  ResultsFile file;
  file.document = read_streamed(path, command, &file.text);
  return file;
}

ResultsDocument read_results_file(const std::string& path, std::string_view command) {
  return read_streamed(path, command, nullptr);
}

}  // namespace fdbench
