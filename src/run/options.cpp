#include "run/options.hpp"

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

}  // namespace fdbench
