// libFuzzer target: the JSON results reader must reject any input with an Error, never
// crash, hang or leak (it reads files other machines wrote, for compare and report); what it
// accepts goes through compare, the reference standings and every compare format.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>
#include <vector>

#include "analysis/compare.hpp"
#include "fdbench/error.hpp"
#include "model/results_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto doc =
        fdbench::parse_results_json(std::string_view(reinterpret_cast<const char*>(data), size));
    const std::vector<fdbench::ResultsDocument> docs{doc, doc};
    const std::vector<std::string> labels{"a", "b"};
    fdbench::CompareReport report;
    report.comparison = fdbench::compare(docs, labels);
    report.references.push_back({"a", fdbench::stand_against(doc, fdbench::shipped_references())});
    for (const auto& format : fdbench::compare_formats()) {
      std::ostringstream out;
      fdbench::write_compare_report(out, report, format);
    }
  } catch (const fdbench::Error&) {
  }
  return 0;
}
