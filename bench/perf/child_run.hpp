#pragma once
// The driver measures every program from outside, as a user would: one child at a time,
// wall time from spawn to reap, peak RSS from wait4. Ctrl-C reaches the child through the
// terminal (same process group); a signal sent to the driver alone is passed on to it, and
// the driver stops once the child is gone.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace perf {

struct ProgramRun {
  std::int64_t wall_ns = 0;
  std::int64_t cpu_ns = 0;  // user + system time of the program and the children it reaped
  long max_rss_kib = 0;
  std::string out;  // everything it wrote to stdout
};

// SIGINT or SIGTERM arrived: the run stops, its scratch files are removed.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal);
  [[nodiscard]] int signal() const { return signal_; }

 private:
  int signal_;
};

void install_signal_forwarding();

// A private directory for the children's stdout and stderr, removed on destruction (named
// fdperf-*: the fdbench- prefix belongs to file sets, which `fdbench clean` looks for).
class Scratch {
 public:
  Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch();
  [[nodiscard]] std::string file(const char* name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Runs argv[0] with stdin from /dev/null and waits for it. Throws std::runtime_error naming
// the program and its last line on stderr when it fails, Interrupted on SIGINT/SIGTERM.
ProgramRun run_program(const std::vector<std::string>& argv, const Scratch& scratch);

}  // namespace perf
