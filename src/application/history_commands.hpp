#pragma once
// The run history at the command line: a measuring command's --save, `fdbench history` and
// `compare --baseline` with its gate, --fail-if-slower.
#include <iosfwd>
#include <string>

#include "application/command.hpp"

namespace fdbench::app {

// Whether FDBENCH_HISTORY=1 asks every measuring command (tune too) to save its run, as --save
// does.
bool saves_by_variable();

// Whether compare's --baseline names a run of the history ("last", or a run's ID) rather than
// a results file.
bool baseline_from_history(const std::string& baseline);

// --save, before the run measures: 0 where the history can take the run, else 1 with one line
// on `err` (a foreign file, or one that is not writable), so a run does not measure for nothing.
int check_history_before_measuring(const OutputSettings& outputs, std::ostream& err);

// --save: records the run's JSON `document` in the history once the run measured (`code` 0);
// a run that failed or was interrupted is not recorded. Says what it did in one line on `err`;
// returns `code`, or 1 where the run could not be saved.
int save_in_history(const OutputSettings& outputs, const std::string& document, int code,
                    std::ostream& err);

// fdbench history ACTION: 0, 1 for a runtime error (no such run, a refused file), 2 for an
// unreadable import.
int run_history(const HistoryCommand& command, std::ostream& out, std::ostream& err);

// compare --baseline: 0, 3 when --fail-if-slower finds a significant slowdown past its
// percentage, 2 for unreadable input, 1 for a history that cannot be read.
int compare_with_baseline(const CompareCommand& command, std::ostream& out, std::ostream& err);

}  // namespace fdbench::app
