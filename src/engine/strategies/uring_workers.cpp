#include "engine/strategies/uring_workers.hpp"

#include <fmt/format.h>

#include <exception>
#include <vector>

namespace fdbench::uring {

std::string cannot_make(std::string_view name, ItemSpec::Op op) {
  if (op != ItemSpec::Op::open_file && op != ItemSpec::Op::create_socket) {
    return fmt::format("{} cannot create {}: io_uring has no operation for them", name,
                       item_words(op));
  }
  if (op == ItemSpec::Op::create_socket && !support().socket) {
    return fmt::format(
        "{} cannot create sockets here: the kernel lacks IORING_OP_SOCKET (Linux 5.19+)", name);
  }
  return {};
}

void on_each_worker(WorkerGroup& group, const std::function<void(int)>& fn) {
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(group.size()));
  group.run([&](int w) {
    try {
      fn(w);
    } catch (...) {
      errors[static_cast<std::size_t>(w)] = std::current_exception();
    }
  });
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace fdbench::uring
