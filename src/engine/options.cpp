#include "engine/options.hpp"

#include <cstdlib>

namespace fdbench {

std::string_view to_string(Order order) {
  return order == Order::sequential ? "sequential" : "interleaved";
}

bool parse_order(std::string_view text, Order& order) {
  for (const Order o : {Order::interleaved, Order::sequential}) {
    if (text == to_string(o)) {
      order = o;
      return true;
    }
  }
  return false;
}

std::string default_dir() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

}  // namespace fdbench
