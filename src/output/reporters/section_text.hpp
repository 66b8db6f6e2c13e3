#pragma once
// The words for a Section (what the next results measure), shared by the human-readable
// reporters, so each says it the same way.
#include <string>
#include <string_view>

#include "output/reporter.hpp"

namespace fdbench {

// "open: 10,000 empty files in /tmp (ext4), rdonly, 10 repetitions (+1 warm-up)"
std::string section_title(const Section& section);
// "each file opened and closed again; thread and pool creation are not timed"
std::string section_note(const Section& section);
// "Findings", and when the run was stopped, that they rest on the results it finished.
std::string findings_heading(bool complete);
// With --latency, one line under the result: "per call: open p50 2.9 µs, p99 12 µs, max
// 301 µs; close ...; per repetition 4 growth events (...), 1.2 stalls (...)", or "per
// submission: submit p50 ..." where a strategy timed its io_uring submissions. Empty without
// latency.
std::string latency_text(const Result& r);
// A Markdown table cell: a pipe escaped (it would end the cell), a newline made a space (it
// would end the row).
std::string markdown_cell(std::string_view text);

}  // namespace fdbench
