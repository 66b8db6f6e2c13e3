#pragma once
// What a reader needs to judge the numbers: which machine, and whether anything else was
// using it meanwhile (the other processes' share of the CPUs during the run).
#include <optional>
#include <string>

namespace perf {

struct Machine {
  long cpus = 0;  // online CPUs (nproc)
  std::string cpu_model;
  std::string kernel;
  std::string load_average;  // 1, 5 and 15 minutes, from /proc/loadavg
};
Machine describe_machine();

// Measures, between construction and share(), how busy the CPUs were with work that was not
// this run's: busy time from /proc/stat (steal included) minus this process's and its
// children's CPU time, over wall time x CPUs. Empty where /proc/stat is missing.
class OtherLoad {
 public:
  OtherLoad();
  [[nodiscard]] std::optional<double> share() const;

 private:
  std::optional<double> busy_start_;
  double own_start_ = 0;
  double wall_start_ = 0;
};

}  // namespace perf
