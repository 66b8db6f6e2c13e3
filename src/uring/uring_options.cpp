#include "uring/uring_options.hpp"

namespace fdbench {

std::vector<std::string> uring_tuning_names() {
  return {"all", "flags", "ring-fd", "none"};
}

bool parse_uring_tuning(const std::string& text, UringOptions& out) {
  if (text != "all" && text != "flags" && text != "ring-fd" && text != "none") return false;
  out.setup_flags = text == "all" || text == "flags";
  out.register_ring_fd = text == "all" || text == "ring-fd";
  return true;
}

std::string uring_tuning_name(const UringOptions& options) {
  if (options.setup_flags) return options.register_ring_fd ? "all" : "flags";
  return options.register_ring_fd ? "ring-fd" : "none";
}

std::vector<std::string> uring_close_names() {
  return {"batched", "linked"};
}

bool parse_uring_close(const std::string& text, UringOptions::Close& out) {
  if (text == "batched") {
    out = UringOptions::Close::batched;
  } else if (text == "linked") {
    out = UringOptions::Close::linked;
  } else {
    return false;
  }
  return true;
}

std::string to_string(UringOptions::Close close) {
  return close == UringOptions::Close::linked ? "linked" : "batched";
}

}  // namespace fdbench
