#pragma once
// The machine in one line, shared by the human-readable reporters, so each says it the same
// way.
#include <string>

#include "model/environment.hpp"

namespace fdbench {

// "Linux 6.18.0 · AMD EPYC · 2 logical CPUs · RLIMIT_NOFILE 1024/524288 · FDSize 64 at start ·
// rcu_expedited=1 · syscall 1.23 µs · VM kvm · meltdown: PTI"
std::string environment_summary(const Environment& env);

}  // namespace fdbench
