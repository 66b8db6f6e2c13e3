#pragma once
// What reading a results document says: the message of the Error parse_results_json() throws
// for `text`, or "" when the document reads.
#include <string>

#include "fdbench/error.hpp"
#include "model/results_json.hpp"

namespace fdbench::testing {

inline std::string parse_error_of(const std::string& text) {
  try {
    parse_results_json(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace fdbench::testing
