// uring: io_uring with normal descriptors. Each worker owns a ring, set up on its own thread
// before timing with the best flags the kernel accepts, and a contiguous 1/T share of the
// items, issued `batch` at a time: a batch of OPENATs (or SOCKETs, IORING_OP_SOCKET) reaped
// together, then one CLOSE per descriptor they returned, unless the workload holds its
// descriptors (keep_open): then each is handed to it. The descriptors land in the process
// table, so table growth stalls exactly as with plain syscalls. With --latency each batch's
// submission is timed (its record's fd: the highest descriptor it returned), and its closes'.
#include <fmt/format.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include "common/errors.hpp"
#include "engine/strategies/registry.hpp"
#include "engine/strategies/uring_workers.hpp"
#include "engine/strategies/worker_group.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "platform/platform.hpp"
#include "platform/unavailable.hpp"
#include "uring/ring.hpp"

namespace fdbench {

namespace {

struct alignas(64) UringWorker {
  UringWorker(unsigned entries, const uring::RingSetup& setup)
      : ring(entries, setup), fds(ring.sq_entries(), -1) {
    uring::prime(ring);
  }
  uring::Ring ring;
  Tally tally;
  std::vector<int> fds;  // the current batch's descriptors, by position in the batch
  int error = 0;         // -errno of a failed submit or wait: the repetition is void
};

class UringStrategy final : public Strategy {
 public:
  explicit UringStrategy(const StrategyConfig& config)
      : batch_(static_cast<unsigned>(std::max(1, config.batch))),
        group_(config.threads),
        workers_(group_, [this, setup = uring::ring_setup(config.uring)](int /*w*/) {
          return std::make_unique<UringWorker>(batch_, setup);
        }) {}

  Repetition run(Workload& work) override {
    const ItemSpec spec = work.spec();
    if (auto why = uring_cannot_make(spec.op); !why.empty()) throw Unavailable(why);
    if (spec.op == ItemSpec::Op::accept_connection) {
      // Normal descriptors, handed to the workload; cancelled once the clock stopped.
      return uring::run_accept(group_, workers_, work, spec.listen_fd, false);
    }
    const std::size_t n = work.ops();
    const auto t = static_cast<std::size_t>(workers_.size());
    for (int w = 0; w < workers_.size(); ++w) {
      workers_[w].tally = Tally{};
      workers_[w].error = 0;
    }
    const std::function<void(int)> body = [&](int w) {
      const auto i = static_cast<std::size_t>(w);
      uring::SubmissionClock clock(work.trace());
      run_share(workers_[w], clock, spec, work, n * i / t, n * (i + 1) / t);
    };
    Repetition rep;
    rep.ns = group_.run(body);
    rep.start_ns = group_.started_ns();
    rep.usage = group_.usage();
    for (int w = 0; w < workers_.size(); ++w) {
      if (workers_[w].error < 0) {
        throw Error("io_uring_enter failed: " + errno_text(-workers_[w].error));
      }
      rep.tally.merge(workers_[w].tally);
    }
    return rep;
  }

 private:
  void run_share(UringWorker& w, uring::SubmissionClock& clock, const ItemSpec& spec,
                 Workload& work, std::size_t begin, std::size_t end) noexcept {
    const std::size_t chunk = std::min<std::size_t>(batch_, w.ring.sq_entries());
    for (std::size_t first = begin; first < end && w.error == 0; first += chunk) {
      run_batch(w, clock, spec, work, first, std::min(end, first + chunk));
    }
  }

  static io_uring_sqe* next_sqe(UringWorker& w) noexcept {
    io_uring_sqe* sqe = io_uring_get_sqe(w.ring.get());
    FDBENCH_ASSERT(sqe != nullptr);  // a batch never exceeds the ring, and each is drained
    return sqe;
  }

  // Item i as the workload describes it, as an SQE.
  // `how`: the user's files by full path, no link followed (ItemSpec::resolve).
  static void prep_item(io_uring_sqe* sqe, const ItemSpec& spec, std::size_t i,
                        open_how* how) noexcept {
    if (spec.op == ItemSpec::Op::open_file && spec.resolve != 0) {
      io_uring_prep_openat2(sqe, AT_FDCWD, spec.path(i), how);
    } else if (spec.op == ItemSpec::Op::open_file) {
      io_uring_prep_openat(sqe, spec.dir_fd_of(i), spec.path(i), spec.open_flags, 0);
    } else {
      io_uring_prep_socket(sqe, spec.domain, spec.type, spec.protocol, 0);
    }
  }

  // Creates items [first, last) in one submission; then hands each descriptor to the
  // workload, or closes them all in a second one.
  static void run_batch(UringWorker& w, uring::SubmissionClock& clock, const ItemSpec& spec,
                        Workload& work, std::size_t first, std::size_t last) noexcept {
    const auto count = static_cast<unsigned>(last - first);
    open_how how{};  // read by the kernel when the submission is
    how.flags = static_cast<std::uint64_t>(static_cast<unsigned>(spec.open_flags));
    how.resolve = spec.resolve;
    for (std::size_t i = first; i < last; ++i) {
      io_uring_sqe* sqe = next_sqe(w);
      prep_item(sqe, spec, i, &how);
      io_uring_sqe_set_data64(sqe, i - first);
    }
    std::fill_n(w.fds.begin(), count, -1);
    int highest = -1;
    clock.submitting(first);
    w.error = uring::submit_and_reap(w.ring.get(), count, [&](const io_uring_cqe& cqe) {
      const auto k = static_cast<std::size_t>(cqe.user_data);
      highest = std::max(highest, cqe.res);
      if (cqe.res < 0) {
        w.tally.fail(-cqe.res);
      } else if (spec.check_regular && !platform::is_regular_descriptor(cqe.res)) {
        close(cqe.res);  // the user's file changed into a FIFO or a device: never used
        ++w.tally.not_regular;
      } else if (spec.keep_open) {
        work.keep(first + k, cqe.res);
      } else {
        w.fds[k] = cqe.res;
      }
    });
    clock.reaped(highest);
    if (spec.keep_open) return;
    if (w.error != 0) {  // the ring is broken: close what it returned the ordinary way
      for (unsigned k = 0; k < count; ++k) {
        if (w.fds[k] >= 0) close(w.fds[k]);
      }
      return;
    }
    unsigned closes = 0;
    for (unsigned k = 0; k < count; ++k) {
      if (w.fds[k] < 0) continue;
      io_uring_prep_close(next_sqe(w), w.fds[k]);
      ++closes;
    }
    if (closes == 0) return;
    clock.submitting_closes();
    w.error = uring::submit_and_reap(w.ring.get(), closes, [&](const io_uring_cqe& cqe) {
      if (cqe.res < 0) w.tally.fail(-cqe.res);
    });
    clock.closes_reaped();
  }

  unsigned batch_;
  WorkerGroup group_;
  uring::PerWorker<UringWorker> workers_;  // destroyed before group_, on its threads
};

}  // namespace

std::unique_ptr<Strategy> make_uring_strategy(const StrategyConfig& config) {
  return std::make_unique<UringStrategy>(config);
}

std::string uring_unavailable_reason() {
  return uring::support().unavailable;
}

std::string uring_cannot_make(ItemSpec::Op op) {
  return uring::cannot_make("uring", op);
}

std::map<std::string, std::string> uring_parameters(const StrategyConfig& config, bool /*holds*/) {
  if (!uring::support().unavailable.empty()) return {};
  return uring::describe(uring::ring_setup(config.uring));
}

}  // namespace fdbench
