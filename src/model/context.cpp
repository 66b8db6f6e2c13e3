#include "model/context.hpp"

#include <utility>

namespace fdbench {

LoadSnapshot capture_load() {
  return {platform::load_averages(), platform::cpu_pressure()};
}

RunContext capture_context(std::vector<std::string> command_line) {
  RunContext context;
  context.date = platform::utc_date_now();
  context.host = platform::host_name();
  context.command_line = std::move(command_line);
  context.user = platform::user_id();
  context.load_before = capture_load();
  return context;
}

}  // namespace fdbench
