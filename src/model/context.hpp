#pragma once
// The record of one run, beside the machine's environment: when it started, on which host, by
// which user, with what command line, and how loaded the machine was before and after it (a
// busy machine makes slow results, and this says so). The results document's `context`,
// since schema 3; documents written before have none, and none is invented for them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "platform/platform.hpp"

namespace fdbench {

// How busy the machine was at one moment. Each part is absent where the system does not tell.
struct LoadSnapshot {
  std::optional<platform::LoadAverages> load_average;  // 1, 5 and 15 minutes
  std::optional<platform::CpuPressure> cpu_pressure;   // Linux: /proc/pressure/cpu "some"

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

// The context of a run starting now, with the load before it; `command_line` is its argv.
RunContext capture_context(std::vector<std::string> command_line);
// The machine's load now.
LoadSnapshot capture_load();

}  // namespace fdbench
