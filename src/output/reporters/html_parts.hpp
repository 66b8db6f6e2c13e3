#pragma once
// Parts the HTML report's sections share: html_report.cpp (each run and the compare table)
// and html_machines.cpp (the runs across machines).
#include <span>
#include <string>

#include "analysis/compare.hpp"
#include "output/html_report.hpp"

namespace fdbench {

// A run's short name in the page's tables and keys: A, B, ... Z, then R27, R28, ...
std::string run_letter(std::size_t index);

// A result's configuration in a row's first cell: "threads, 2", ", batch 16", ", pregrow auto".
std::string row_label(const ResultKey& key);

// Several runs (a fleet's hosts): the machines' differences in environment, then every
// result's median with its 95% interval, one column per run, grouped by the work measured,
// with the figures others published as rows where they match (`c`: compare() of the inputs).
std::string across_machines(std::span<const ReportInput> inputs, const Comparison& c);

}  // namespace fdbench
