#include "engine/strategies/uring_workers.hpp"

#include <fmt/format.h>

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <vector>

#include "platform/interrupt.hpp"

namespace fdbench::uring {

std::string cannot_make(std::string_view name, ItemSpec::Op op) {
  if (op == ItemSpec::Op::accept_connection) {
    if (support().socket) return {};  // multishot accept came with IORING_OP_SOCKET, in 5.19
    return fmt::format("{} cannot accept here: the kernel lacks multishot accept (Linux 5.19+)",
                       name);
  }
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

namespace {

constexpr std::uint64_t kAcceptData = 1;
constexpr std::uint64_t kCancelData = 2;

bool arm_accept(io_uring* ring, const AcceptBurst& burst) noexcept {
  io_uring_sqe* sqe = io_uring_get_sqe(ring);
  if (sqe == nullptr) return false;
  if (burst.direct) {
    io_uring_prep_multishot_accept_direct(sqe, burst.listener, nullptr, nullptr, 0);
  } else {
    io_uring_prep_multishot_accept(sqe, burst.listener, nullptr, nullptr, SOCK_CLOEXEC);
  }
  io_uring_sqe_set_data64(sqe, kAcceptData);
  return io_uring_submit(ring) >= 0;
}

}  // namespace

int accept_burst(io_uring* ring, const AcceptBurst& burst, Tally& tally,
                 CallTrace* trace) noexcept {
  const std::int16_t worker = trace != nullptr ? trace->worker() : 0;
  // The clock is read only to time each accept (--latency), as the drain strategies do.
  std::int64_t last = trace != nullptr ? platform::now_ns() : 0;
  bool armed = false;
  while (burst.taken->load(std::memory_order_relaxed) < burst.n && interrupted() == 0) {
    if (!armed && !(armed = arm_accept(ring, burst))) return -EBUSY;
    __kernel_timespec limit{0, kAcceptPollNs};
    io_uring_cqe* cqe = nullptr;
    const int ret = io_uring_wait_cqe_timeout(ring, &cqe, &limit);
    if (ret == -ETIME || ret == -EINTR) continue;
    if (ret < 0) return ret;
    unsigned head = 0;
    unsigned seen = 0;
    io_uring_for_each_cqe(ring, head, cqe) {
      ++seen;
      if ((cqe->flags & IORING_CQE_F_MORE) == 0) armed = false;  // ended: arm another
      if (cqe->res < 0) {
        if (cqe->res != -EAGAIN && cqe->res != -ECANCELED) tally.fail(-cqe->res);
        continue;
      }
      const std::size_t i = burst.taken->fetch_add(1, std::memory_order_relaxed);
      const std::int64_t now = trace != nullptr ? platform::now_ns() : 0;
      if (i >= burst.n) {  // never: the client connected exactly n
        if (!burst.direct) close(cqe->res);
        tally.fail(EOVERFLOW);
        continue;
      }
      if (trace != nullptr) trace->created(i, last, now, worker, burst.direct ? -1 : cqe->res);
      last = now;
      if (!burst.direct) burst.work->keep(i, cqe->res);
    }
    io_uring_cq_advance(ring, seen);
  }
  return 0;
}

void end_accept(io_uring* ring, int listener) noexcept {
  io_uring_sqe* sqe = io_uring_get_sqe(ring);
  if (sqe == nullptr) return;
  io_uring_prep_cancel_fd(sqe, listener, IORING_ASYNC_CANCEL_ALL);
  io_uring_sqe_set_data64(sqe, kCancelData);
  if (io_uring_submit(ring) < 0) return;
  // The cancel's completion, and the accept's last (-ECANCELED); a bounded wait for both.
  for (int waits = 0; waits < 100; ++waits) {
    __kernel_timespec limit{0, 10'000'000};
    io_uring_cqe* cqe = nullptr;
    if (io_uring_wait_cqe_timeout(ring, &cqe, &limit) != 0) break;
    // No connection comes after the burst: the client connected exactly n, all taken.
    const bool cancelled = cqe->user_data == kCancelData;
    io_uring_cqe_seen(ring, cqe);
    if (cancelled) break;
  }
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
