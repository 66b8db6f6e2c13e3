#pragma once
// fdbench trace's report as people read it (a table, strace -c's shape with the table's growths
// and the kernel's causes beside it) and as programs read it (JSON, docs/trace.schema.json).
#include <string>
#include <vector>

#include "model/finding.hpp"
#include "model/trace_report.hpp"

namespace fdbench {

inline constexpr int kTraceSchemaVersion = 1;

std::string trace_table(const TraceReport& report, const std::vector<Finding>& findings);
std::string trace_json(const TraceReport& report, const std::vector<Finding>& findings);

}  // namespace fdbench
