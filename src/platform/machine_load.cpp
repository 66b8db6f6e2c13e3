// Who runs fdbench, where and when, and how busy the machine is: the run's context recorded
// with its results (the load before and after a run says whether something else competed).
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <ctime>
#include <sstream>
#include <string>

#include "platform/os.hpp"
#include "platform/platform.hpp"

namespace fdbench::platform {

std::string host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

std::uint32_t user_id() noexcept {
  return static_cast<std::uint32_t>(getuid());
}

std::string utc_date(std::time_t when) {
  std::tm utc{};
  if (gmtime_r(&when, &utc) == nullptr) return "unknown";
  char text[32] = {};
  if (std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc) == 0) return "unknown";
  return text;
}

std::string utc_date_now() {
  return utc_date(std::time(nullptr));
}

// getloadavg is in glibc (which reads /proc/loadavg), macOS and the BSDs alike.
std::optional<LoadAverages> load_averages() {
  double averages[3] = {};
  if (getloadavg(averages, 3) != 3) return std::nullopt;
  return LoadAverages{averages[0], averages[1], averages[2]};
}

std::optional<CpuPressure> cpu_pressure_from(std::string_view text) {
  // "some avg10=0.00 avg60=0.00 avg300=0.00 total=0": the line of time some task waited.
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.starts_with("some ")) continue;
    std::istringstream words(line.substr(5));
    std::string word;
    CpuPressure p;
    int seen = 0;
    while (words >> word) {
      const auto eq = word.find('=');
      if (eq == std::string::npos) continue;
      const std::string key = word.substr(0, eq);
      const char* value = word.c_str() + eq + 1;
      char* end = nullptr;
      if (key == "avg10") {
        p.some_avg10 = std::strtod(value, &end);
      } else if (key == "avg60") {
        p.some_avg60 = std::strtod(value, &end);
      } else if (key == "total") {
        p.some_total_us = std::strtoull(value, &end, 10);
      } else {
        continue;
      }
      if (end == value || *end != '\0') return std::nullopt;
      ++seen;
    }
    if (seen == 3) return p;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<CpuPressure> cpu_pressure() {
#if defined(FDBENCH_LINUX)
  // Absent without CONFIG_PSI (or with psi=0 on the kernel's command line).
  const auto text = read_text_file("/proc/pressure/cpu");
  if (!text) return std::nullopt;
  return cpu_pressure_from(*text);
#else
  return std::nullopt;
#endif
}

}  // namespace fdbench::platform
