#pragma once
// The record of one run, beside the machine's environment: when it started, on which host, by
// which user, with what command line, and how loaded the machine was before and after it (a
// busy machine makes slow results, and this says so). The results document's `context`,
// since schema 3; documents written before have none, and none is invented for them.
// engine/capture.hpp reads it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fdbench {

// The load averages over 1, 5 and 15 minutes.
struct LoadAverages {
  double one = 0;
  double five = 0;
  double fifteen = 0;
  bool operator==(const LoadAverages&) const = default;
};

// Pressure stall information for the CPU (Linux: /proc/pressure/cpu, its "some" line).
struct CpuPressure {
  double some_avg10 = 0;
  double some_avg60 = 0;
  std::uint64_t some_total_us = 0;
  bool operator==(const CpuPressure&) const = default;
};

// How busy the machine was at one moment. Each part is absent where the system does not tell.
struct LoadSnapshot {
  std::optional<LoadAverages> load_average;  // 1, 5 and 15 minutes
  std::optional<CpuPressure> cpu_pressure;   // Linux: /proc/pressure/cpu "some"

  bool operator==(const LoadSnapshot&) const = default;
};

struct RunContext {
  std::string date;                       // UTC, ISO 8601: "2026-12-05T09:14:03Z", at the start
  std::string host;                       // the host name
  std::vector<std::string> command_line;  // argv as given, argv[0] first, one string each
  std::uint32_t user = 0;                 // the uid that ran it
  std::optional<LoadSnapshot> load_before;
  std::optional<LoadSnapshot> load_after;  // nullopt until the run is over

  bool operator==(const RunContext&) const = default;
};

}  // namespace fdbench
