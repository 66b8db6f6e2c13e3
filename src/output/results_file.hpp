#pragma once
// What `compare` and `report` read: a JSON results document. A file that is something else
// fdbench writes (its CSV export, a --trace-out file, a tune --save recommendation, a table,
// markdown or HTML report, compare's own output), or JSON that is not fdbench's results, is
// refused with one line saying what the file is and what the command reads.
#include <string>
#include <string_view>

#include "model/results_json.hpp"

namespace fdbench {

// What `text` is when it is not a results document but can be told: "fdbench's CSV export",
// "a recommendation written by fdbench tune --save", "JSON, but not an fdbench results
// document (...)". "" for a results document, and for text it cannot tell (the reader then
// says where it stops being JSON, or which field is wrong).
std::string other_document(std::string_view text);

// Reads and parses the results file `path` for `command` ("compare", "report"). Error names
// the file: "a.csv is fdbench's CSV export; compare reads ...", or what the reader found wrong.
ResultsDocument read_results_file(const std::string& path, std::string_view command);

// The same, with the file's text as read (what the history stores and hashes).
struct ResultsFile {
  std::string text;
  ResultsDocument document;
};
ResultsFile read_results_file_whole(const std::string& path, std::string_view command);

}  // namespace fdbench
