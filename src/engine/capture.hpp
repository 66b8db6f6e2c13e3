#pragma once
// What the machine is and how busy it is, read now: the environment and the run's context
// that every results document records (model/environment.hpp, model/context.hpp).
#include <string>
#include <vector>

#include "model/context.hpp"
#include "model/environment.hpp"

namespace fdbench {

// Reads the environment; `dir` is where files will be created (for fs_type).
Environment capture_environment(const std::string& dir);
// The context of a run starting now, with the load before it; `command_line` is its argv.
RunContext capture_context(std::vector<std::string> command_line);
// The machine's load now.
LoadSnapshot capture_load();

}  // namespace fdbench
