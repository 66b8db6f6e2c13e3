#include "perf/machine.hpp"

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <sstream>

namespace perf {

namespace {

std::string first_line_starting(const char* path, const std::string& prefix) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return {};
}

// Seconds the CPUs spent on anything but idle and iowait since boot (steal included: the
// hypervisor gave that time to someone else).
std::optional<double> busy_seconds() {
  const std::string line = first_line_starting("/proc/stat", "cpu ");
  if (line.empty()) return std::nullopt;
  std::istringstream fields(line.substr(4));
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  fields >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  return (user + nice + system + irq + softirq + steal) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

// CPU time of this process and of every child it has reaped (and theirs, recursively).
double own_cpu_seconds() {
  rusage self{};
  rusage children{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  return seconds(self.ru_utime) + seconds(self.ru_stime) + seconds(children.ru_utime) +
         seconds(children.ru_stime);
}

double wall_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

}  // namespace

Machine describe_machine() {
  Machine m;
  m.cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const std::string model = first_line_starting("/proc/cpuinfo", "model name");
  m.cpu_model = model.empty() ? "unknown" : model.substr(model.find(':') + 2);
  utsname names{};
  if (uname(&names) == 0) m.kernel = std::string(names.sysname) + " " + names.release;
  std::ifstream loadavg("/proc/loadavg");
  std::string one, five, fifteen;
  if (loadavg >> one >> five >> fifteen) m.load_average = one + " " + five + " " + fifteen;
  return m;
}

OtherLoad::OtherLoad()
    : busy_start_(busy_seconds()), own_start_(own_cpu_seconds()), wall_start_(wall_seconds()) {}

std::optional<double> OtherLoad::share() const {
  const auto busy_end = busy_seconds();
  if (!busy_start_ || !busy_end) return std::nullopt;
  const double others = (*busy_end - *busy_start_) - (own_cpu_seconds() - own_start_);
  const double capacity =
      (wall_seconds() - wall_start_) * static_cast<double>(sysconf(_SC_NPROCESSORS_ONLN));
  return capacity > 0 ? std::max(0.0, others / capacity) : 0.0;
}

}  // namespace perf
