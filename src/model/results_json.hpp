#pragma once
// Reading a JSON results document back: for `compare` and `report`, which only read
// Results. Writing is the json reporter's job (reporter.hpp).
#include <functional>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/context.hpp"
#include "model/environment.hpp"
#include "model/finding.hpp"
#include "model/result.hpp"

namespace fdbench {

// The output contract's version: 2 added each result's `status`, `warning_kinds`,
// `batch_unit`, `workload_kind`, `recommendable` and `rcu_expedited`; 3 added each result's
// `timed_region` (page faults and context switches while timed), the run's `context` and each
// finding's `subjects`, and writes counts and whole nanoseconds as integers; 4 added each
// result's `precision`; 5 its `kernel` (--kernel-trace); 6 its `harness` and the kernel's
// steal time; 7 the warning kind `setting-changed`; 8 the kernel's time waiting to start or
// done (`at_edges_ns`, `at_edges_by_cause_ns`); 9 a finding subject's `paths` and the answers'
// finding kinds. Every version from
// 1 on reads; what an older one lacks is derived once, by the field tables (json_fields.hpp),
// or left absent where nothing can tell it (the context, the timed region).
inline constexpr int kSchemaVersion = 10;

struct ResultsDocument {
  int schema_version = kSchemaVersion;
  std::string tool_version;
  bool complete = true;
  Environment environment;
  // Every environment field as text, nested ones as "parent.child" and including fields this
  // version does not know: what `compare` shows when environments differ. Nulls are left out.
  std::map<std::string, std::string> environment_fields;
  std::optional<RunContext> context;  // the run's (schema 3 on); none in older documents
  std::vector<Result> results;
  std::vector<Finding> findings;   // as the run computed them
  bool findings_recorded = false;  // the document has them (older ones do not)
};

// Parses a document written by `fdbench --format json`. Throws Error naming what is wrong
// ("results[3].times_ns: expected an array of integers", "not valid JSON at line 3, column
// 7") for anything malformed (output/results_file.hpp says what else a file is); unknown
// fields are ignored (fields may be added, never renamed). `poll`, where given, is called every
// so often while it parses (every few thousand values, and between results) and may throw to
// end the parse (Interrupted, at a signal).
ResultsDocument parse_results_json(std::string_view text, const std::function<void()>& poll = {});
// The same, read from `in` as it is parsed (a file, without a copy of its text): the memory
// it takes is the results it keeps and one result's tree. A text that is not JSON is said as
// above, its line and column as the parser counted them.
ResultsDocument parse_results_json(std::istream& in, const std::function<void()>& poll = {});

}  // namespace fdbench
