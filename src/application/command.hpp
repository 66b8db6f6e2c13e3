#pragma once
// The application's API: a command, as the command line made it, run with its reporters, its
// output files and exports. apps/ turns argv into a Command and calls run(); everything a
// command does besides reading argv is here.
#include <iosfwd>
#include <string>
#include <vector>

#include "engine/options.hpp"
#include "run/tune_sweep.hpp"

namespace fdbench::app {

// --export-FORMAT FILE: that format's output kept in FILE, rewritten after every result.
struct Export {
  std::string flag;    // its option's name, as its row spells it
  std::string format;  // a reporter name: "json"
  std::string path;
};

struct Command {
  enum class Kind {
    suite,
    open,
    socket,
    strategies,
    clean,
    env,
    compare,
    report,
    completion,
    tune
  } kind = Kind::suite;
  OpenOptions open;
  SocketOptions socket;
  std::string format = "table";
  std::string output;  // empty: stdout
  std::vector<Export> exports;
  std::string trace_out;                   // --trace-out FILE: every timed call as CSV
  bool quiet = false;                      // no progress on stderr
  std::string clean_dir;                   // clean: where to look for leftovers ("": not at all)
  std::vector<std::string> clean_sets;     // clean: kept sets to remove
  std::string env_dir;                     // env: where files would be created (fs_type)
  std::vector<std::string> compare_files;  // compare, report: results files (compare: the first
                                           // is the baseline)
  bool references = false;                 // compare: also against the published figures
  std::string text;                        // completion: the script to print
  TuneOptions tune;
  std::string save;                       // tune --save FILE: the recommendation's JSON
  std::vector<std::string> command_line;  // argv as given: the results' context records it
};

// Looks at the user's --tree directory or --list file (open, tune) as the run will look at
// their files: in a child process under --timeout's limit, since on a dead mount stat() and
// open() wait where no signal reaches them. 0 when they will do; else one line on `err` and
// the exit code: 2 for what the command line got wrong (missing, of the wrong kind, a list
// separated otherwise than said), 1 when the look timed out or failed, 128+N on a signal.
// Not part of parsing, which touches no file of the user's. run() calls it first.
int look_at_inputs(const Command& command, std::ostream& err);

// Runs a command; returns the process exit code (0, 1 runtime error, 2 unreadable input of
// compare or report, or a --list read as the wrong kind, 128+signal).
int run(const Command& command, std::ostream& out, std::ostream& err);

}  // namespace fdbench::app
