#pragma once
// Reading a JSON results document (schema_version 1) back: for `compare` and `report`,
// which only read Results. Writing is the json reporter's job (reporter.hpp).
#include <string>
#include <string_view>
#include <vector>

#include "fdbench/environment.hpp"
#include "fdbench/result.hpp"

namespace fdbench {

struct ResultsDocument {
  int schema_version = 1;
  std::string tool_version;
  bool complete = true;
  Environment environment;
  std::vector<Result> results;
};

// Parses a document written by `fdbench --format json`. Throws Error naming what is wrong
// ("results[3].times_ns: expected an array of integers") for anything malformed; unknown
// fields are ignored (fields may be added, never renamed).
ResultsDocument parse_results_json(std::string_view text);

// Reads and parses a file; Error names the file.
ResultsDocument read_results_file(const std::string& path);

}  // namespace fdbench
