#include "engine/strategies/uring_workers.hpp"

#include <exception>
#include <vector>

namespace fdbench::uring {

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
