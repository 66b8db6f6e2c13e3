#pragma once
// The measurements behind fdbench's performance targets (docs/performance.md), in the order
// they are printed: harness overhead against the minimal loops, the best strategy's scaling and
// its lead over the seed's loop (with a trivial syscall's cost beside it), each io_uring tuning
// feature's effect, what --latency and --kernel-trace cost, cost per file at scale, start-up,
// and every row of the default suite against a
// minimal program doing the same work. Every comparison is made in rounds
// that alternate which program runs first, so drift on a shared machine hits both sides; a
// ratio is the median of the rounds' ratios, shown with their min-max.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "perf/child_run.hpp"
#include "perf/machine.hpp"
#include "perf/results.hpp"

namespace perf {

struct Settings {
  std::string fdbench;  // the binary measured (the Release build ./run uses)
  std::string tools;    // the directory holding the reference loops
  std::string dir;      // where every file set is created
  std::string mode;     // "full" or "quick", for the heading
  int rounds = 7;       // interleaved rounds per comparison
  int repeat = 10;      // timed repetitions per program and round (+1 warm-up)
  long files = 10000;
  long big_files = 1000000;
  int scale_rounds = 2;
  int big_repeat = 3;
  long sockets = 256;
  long syscalls = 100000;  // getppid calls per timed loop
  int startup_runs = 20;
  // The default suite's thread counts (fdbench open --threads), for the references section.
  std::vector<int> suite_threads{1, 2, 4, 8, 16};
  std::string only;  // "references" or "kernel-trace": that section alone; empty: every section
  long trace_switch_ops = 2000;  // futex handoffs per pass of fdbench_trace_cost switch
  long trace_fault_ops = 20000;  // pages touched per pass of fdbench_trace_cost fault
};

struct Target {
  std::string name;
  std::string value;
  std::string outcome;  // "met", "NOT met (by ...)", or "reported" where there is no target
};

struct OpenReference;  // one strategy's open rows and the program doing the same work

class PerformanceRun {
 public:
  PerformanceRun(Settings settings, const Scratch& scratch);
  // Prints every section to stdout as it is measured, then the targets.
  void run();

 private:
  struct ScalingRound {  // nanoseconds: medians of one round's repetitions
    double threads_1 = 0;
    double threads_2 = 0;
    double best_1 = 0;
    double best_2 = 0;
    double syscall = 0;                     // per getppid call
    std::optional<double> fdbench_syscall;  // environment.syscall_ns, where recorded
    double cpus_used = 0;                   // the fdbench run's CPU time / its wall time
  };
  struct ScaleRound {  // nanoseconds per file, at s_.files and at s_.big_files
    double threads_small = 0;
    double threads_big = 0;
    double best_small = 0;
    double best_big = 0;
    double loop_small = 0;  // the reference open loop
    double loop_big = 0;
    double rss_mib = 0;  // of the run at s_.big_files
    std::optional<double> setup_ns;
    double untimed_ns = 0;  // that run's wall time minus its repetitions
  };

  void heading();
  void harness_open();
  void harness_socket();
  void harness_stall();
  void stall_pair(const std::string& rcu);
  void harness_accept();
  void accept_pair(const std::string& rcu);
  void short_repetitions();
  void survey();
  void scaling();
  void lead(const std::vector<ScalingRound>& rounds);
  void uring_tuning();
  void latency_cost();
  void kernel_trace();
  struct EventCost {            // from fdbench_trace_cost: ns per context switch and per page fault
    double switch_ns = 0;       // to another thread of the process on the same CPU
    double idle_switch_ns = 0;  // to an idle CPU, woken from the other
    double fault_ns = 0;
  };
  EventCost kernel_trace_events();
  void kernel_trace_fdbench(const EventCost& cost);
  void scale();
  ScaleRound scale_round(int r);
  void per_file(const std::vector<ScaleRound>& rounds);
  void footprint(const std::vector<ScaleRound>& rounds);
  void startup();
  void startup_line(const std::string& what, const std::vector<ProgramRun>& runs, bool judged);
  void references();
  void open_references(const OpenReference& ref);
  void socket_references(const std::string& strategy, const std::string& rcu);
  void reference_row(const std::string& what, const std::vector<double>& ratios,
                     const std::vector<double>& fdbench_ns, const std::vector<double>& loop_ns);
  void summary(const OtherLoad& load, double elapsed_s);

  Results fdbench(std::vector<std::string> args, ProgramRun* run = nullptr);
  [[nodiscard]] std::vector<std::string> open_args(long files, const std::string& strategies,
                                                   const std::string& threads, int repeat) const;
  std::vector<double> reference(const std::string& loop, std::vector<std::string> args);
  void judge(std::string name, std::string value, std::string outcome);

  Settings s_;
  const Scratch& scratch_;
  std::string best_ = "threads";  // the survey's fastest strategy
  int best_threads_ = 1;
  std::vector<Target> targets_;
  // The references section's rows and scaling lines, judged together in the summary.
  std::vector<std::pair<std::string, double>> reference_rows_;
  std::vector<std::pair<std::string, double>> reference_scaling_;
};

}  // namespace perf
