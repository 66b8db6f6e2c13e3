#pragma once
// What fdbench trace's numbers say, in sentences that say no more than they do: the time spent
// creating descriptors, the table's growths and what they waited for, and what would remove it.
#include <string>
#include <vector>

#include "model/finding.hpp"
#include "model/trace_report.hpp"

namespace fdbench {

// `remedy_command`: how the traced program is started again, for the sentence naming
// `fdbench pregrow N -- ...` ("CMD" for --pid, where the command line is not known).
std::vector<Finding> trace_findings(const TraceReport& report, const std::string& remedy_command);

}  // namespace fdbench
