#pragma once
// The machine in one line, shared by the human-readable reporters, so each says it the same
// way.
#include <string>
#include <string_view>

#include "model/environment.hpp"

namespace fdbench {

// "Linux 6.18.0 · AMD EPYC · 2 logical CPUs · RLIMIT_NOFILE 1024/524288 · FDSize 64 at start ·
// rcu_expedited=1 · syscall 1.23 µs · VM kvm · meltdown: PTI"
std::string environment_summary(const Environment& env);

// One environment or context field's value as people read it, from the text the results
// document holds (`raw`, as the JSON reader flattens it): a measured syscall cost as "898 ns",
// memory as "23.5 GiB", the load averages and CPU pressure in words; any other field, or a
// value that is not what the field should hold, as it is. Raw values stay in JSON.
std::string environment_value_text(std::string_view field, const std::string& raw);

}  // namespace fdbench
