#pragma once
// One self-contained HTML page for one or more results documents: each run's environment,
// findings, charts (inline SVG: rate against threads per strategy; pregrow off against auto)
// and results, and for several runs, the machines side by side with the compare table.
// No script, no external file, font or network access: it opens anywhere, offline.
#include <span>
#include <string>

#include "model/results_json.hpp"

namespace fdbench {

struct ReportInput {
  std::string label;  // a file name, or "this run"
  ResultsDocument document;
  // tune's Recommendation block as the table words it, shown under the findings; "" for none
  // (a results file holds the recommendation's data, not its words).
  std::string recommendation{};
};

std::string html_report(std::span<const ReportInput> inputs);

// A page of the report's look around `body` (HTML), with `title` as its title and heading:
// what other views (history trend --format html) are drawn in.
std::string html_page(const std::string& title, const std::string& body);

}  // namespace fdbench
