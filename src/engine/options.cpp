#include "engine/options.hpp"

#include <charconv>
#include <cstdlib>

namespace fdbench {

std::string Pregrow::label() const {
  switch (mode) {
    case Mode::off:
      return "off";
    case Mode::automatic:
      return "auto";
    case Mode::fd:
      return std::to_string(fd);
  }
  return "off";
}

bool parse_pregrow(const std::string& text, Pregrow& out) {
  if (text == "off") {
    out = Pregrow{};
    return true;
  }
  if (text == "auto") {
    out = Pregrow{Pregrow::Mode::automatic, 0};
    return true;
  }
  int fd = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), fd);
  if (ec != std::errc{} || end != text.data() + text.size() || fd < 0) return false;
  out = Pregrow{Pregrow::Mode::fd, fd};
  return true;
}

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
