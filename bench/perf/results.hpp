#pragma once
// What the driver reads back from `fdbench ... --format json`, and the few statistics it
// needs to compare runs (the driver stays outside the library it measures).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perf {

struct Measured {
  std::string strategy;
  int threads = 0;
  std::vector<double> times_ns;  // the timed repetitions
  double median_ns = 0;
  std::optional<double> setup_ns;   // file-set creation, where this fdbench records it
  std::string status = "measured";  // "unavailable", "failed", ... (JSON status)
  std::string error;                // why, when it has no times
  std::uint64_t failures = 0;
  std::map<std::string, std::string> parameters;  // the string ones (io_uring features, ...)
  // --kernel-trace: the traced repetitions' median context switches and page faults, and
  // how many repetitions lost records; empty when not traced
  std::optional<double> kernel_switches;
  std::optional<double> kernel_faults;
  int kernel_incomplete = 0;
};

struct Results {
  std::vector<Measured> results;
  std::optional<double> syscall_ns;  // environment.syscall_ns, where recorded
  std::string fs_type;
  int rcu_expedited = -1;
};

// Throws std::runtime_error when `json` is not fdbench's output.
Results parse_results(const std::string& json);

// The result of `strategy` at `threads`; throws when it is missing, could not run, or had
// failed calls, since no ratio can be taken from it then.
const Measured& find(const Results& results, std::string_view strategy, int threads);

// One number per line (what the reference loops print); throws on anything else.
std::vector<double> parse_lines(const std::string& text, std::string_view program);

double median(std::vector<double> values);

struct Spread {
  double median = 0;
  double min = 0;
  double max = 0;
};
Spread spread(const std::vector<double>& values);

}  // namespace perf
