#pragma once
// One Reporter per output format behind one interface, chosen by name. Results reach the
// reporter as each one finishes, so a later failure or Ctrl-C loses nothing.
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fdbench/environment.hpp"
#include "fdbench/result.hpp"

namespace fdbench {

// What the next results measure, for human-readable headers.
struct Section {
  std::string title;  // e.g. "open: 10,000 files, 10 repetitions (+1 warm-up)"
  std::string note;   // e.g. "thread creation is not timed"
};

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void begin(const Environment& env) = 0;
  virtual void section(const Section& /*section*/) {}
  virtual void add(const Result& result) = 0;
  // `complete` is false after an interruption or error: what was measured is still written.
  virtual void end(std::span<const Result> all, bool complete) = 0;
};

// "table", "json", "csv"; nullptr if unknown. The reporter writes to `out`.
std::unique_ptr<Reporter> make_reporter(std::string_view format, std::ostream& out);
std::vector<std::string> reporter_names();

// The JSON document of the output contract (schema_version 1).
std::string to_json_document(const Environment& env, std::span<const Result> results);
// CSV: one header row and one row per result.
std::string csv_header();
std::string csv_row(const Result& result);

}  // namespace fdbench
