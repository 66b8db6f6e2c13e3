// uring-direct: io_uring direct descriptors. Each worker owns a ring (set up before timing)
// with a sparse table of fixed file slots, and a contiguous 1/T share of the items, issued
// `batch` at a time. An item is created in a slot with a linked close of that slot behind
// it, so one submit does a whole batch; items the workload holds (keep_open: sockets, held
// files) fill one slot each and are released after the timed region. The process descriptor
// table is never touched, so it never grows and never stalls.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/socket.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "fdbench/error.hpp"
#include "fdbench/strategy.hpp"
#include "strategies/registry.hpp"
#include "strategies/uring_support.hpp"
#include "strategies/worker_group.hpp"

namespace fdbench {

namespace {

// The kernel refuses O_CLOEXEC and SOCK_CLOEXEC for direct descriptors (EINVAL): a slot
// belongs to the ring, not to the process, so there is nothing to close on exec.
constexpr int kNoCloexecOpen = ~O_CLOEXEC;
constexpr int kNoCloexecSocket = ~SOCK_CLOEXEC;

struct alignas(64) DirectWorker {
  explicit DirectWorker(unsigned entries) : ring(entries) {}
  // A sparse table of `count` slots; re-registered only when the size must change. Untimed.
  void ensure_table(unsigned count) {
    if (slots == count) return;
    release_table();
    // A table larger than the soft RLIMIT_NOFILE fails with EMFILE; liburing 2.3 then raises
    // the soft limit (up to the hard one) and retries, so only the hard limit refuses.
    if (const int ret = io_uring_register_files_sparse(ring.get(), count); ret < 0) {
      throw Error(fmt::format("cannot register {} io_uring direct descriptor slots: {}{}", count,
                              errno_text(-ret),
                              ret == -EMFILE ? " (a table may not exceed RLIMIT_NOFILE: raise "
                                               "ulimit -Hn or use fewer items per thread)"
                                             : ""));
    }
    slots = count;
  }
  // Unregistering closes whatever the slots hold.
  void release_table() noexcept {
    if (slots != 0) io_uring_unregister_files(ring.get());
    slots = 0;
  }

  uring::Ring ring;
  unsigned slots = 0;  // size of the registered table, 0: none
  Tally tally;
  int error = 0;  // -errno of a failed submit or wait: the repetition is void
};

// user_data of an open and of its linked close.
constexpr std::uint64_t kCloseBit = 1;

class UringDirectStrategy final : public Strategy {
 public:
  explicit UringDirectStrategy(const StrategyConfig& config)
      : batch_(static_cast<unsigned>(std::max(1, config.batch))), group_(config.threads) {
    // Twice the batch: an open and its linked close take one SQE each. (The kernel clamps
    // rings to 32,768 entries; the cap keeps the doubling from overflowing.)
    const unsigned entries = 2 * std::min(batch_, 32768U);
    for (int w = 0; w < config.threads; ++w) {
      workers_.push_back(std::make_unique<DirectWorker>(entries));
    }
    uring::prime_rings(group_, [this](int w) -> uring::Ring& { return worker(w).ring; });
  }

  Repetition run(Workload& work) override {
    const ItemSpec spec = work.spec();
    if (spec.op != ItemSpec::Op::open_file && spec.op != ItemSpec::Op::create_socket) {
      throw Error(fmt::format("uring-direct cannot create {} descriptors", work.kind()));
    }
    if (spec.op == ItemSpec::Op::create_socket && !uring::support().socket) {
      throw Error(
          "uring-direct cannot create sockets here: the kernel lacks IORING_OP_SOCKET (Linux "
          "5.19+)");
    }
    const bool hold = spec.keep_open;
    const std::size_t n = work.ops();
    const std::size_t t = workers_.size();
    for (std::size_t i = 0; i < t; ++i) {
      DirectWorker& w = *workers_[i];
      w.tally = Tally{};
      w.error = 0;
      // Held descriptors need a slot each for the whole share; open+close reuses one batch's.
      const std::size_t share = n * (i + 1) / t - n * i / t;
      w.ensure_table(
          static_cast<unsigned>(std::max<std::size_t>(1, hold ? share : chunk(w, hold))));
    }
    const std::function<void(int)> body = [&](int w) {
      const auto i = static_cast<std::size_t>(w);
      run_share(worker(w), spec, hold, n * i / t, n * (i + 1) / t);
    };
    Repetition rep;
    rep.ns = group_.run(body);
    for (const auto& w : workers_) {
      if (hold) w->release_table();  // untimed: the clock stopped when group_.run returned
    }
    for (const auto& w : workers_) {
      if (w->error < 0) throw Error("io_uring_enter failed: " + errno_text(-w->error));
      rep.tally.merge(w->tally);
    }
    return rep;
  }

 private:
  DirectWorker& worker(int w) { return *workers_[static_cast<std::size_t>(w)]; }

  // Items per submit: an open+close pair takes two SQEs, a held descriptor one.
  [[nodiscard]] std::size_t chunk(DirectWorker& w, bool hold) const {
    return std::min<std::size_t>(batch_, hold ? w.ring.sq_entries() : w.ring.sq_entries() / 2);
  }

  void run_share(DirectWorker& w, const ItemSpec& spec, bool hold, std::size_t begin,
                 std::size_t end) noexcept {
    const std::size_t step = chunk(w, hold);
    for (std::size_t first = begin; first < end && w.error == 0; first += step) {
      const std::size_t last = std::min(end, first + step);
      if (hold) {
        hold_batch(w, spec, begin, first, last);
      } else {
        open_close_batch(w, spec, first, last);
      }
    }
  }

  static io_uring_sqe* next_sqe(DirectWorker& w) noexcept {
    io_uring_sqe* sqe = io_uring_get_sqe(w.ring.get());
    FDBENCH_ASSERT(sqe != nullptr);  // a batch never exceeds the ring, and each is drained
    return sqe;
  }

  // Item i as the workload describes it, as an SQE that creates it in `slot`. An explicit
  // slot: liburing 2.3 turns IORING_FILE_INDEX_ALLOC into a normal fd.
  static void prep_item(io_uring_sqe* sqe, const ItemSpec& spec, std::size_t i,
                        unsigned slot) noexcept {
    if (spec.op == ItemSpec::Op::open_file) {
      io_uring_prep_openat_direct(sqe, spec.dir_fd, spec.path(i), spec.open_flags & kNoCloexecOpen,
                                  0, slot);
    } else {
      io_uring_prep_socket_direct(sqe, spec.domain, spec.type & kNoCloexecSocket, spec.protocol,
                                  slot, 0);
    }
  }

  static void open_close_batch(DirectWorker& w, const ItemSpec& spec, std::size_t first,
                               std::size_t last) noexcept {
    for (std::size_t i = first; i < last; ++i) {
      const auto slot = static_cast<unsigned>(i - first);
      io_uring_sqe* open = next_sqe(w);
      prep_item(open, spec, i, slot);
      io_uring_sqe_set_flags(open, IOSQE_IO_LINK);
      io_uring_sqe_set_data64(open, 0);
      io_uring_sqe* close = next_sqe(w);
      io_uring_prep_close_direct(close, slot);
      io_uring_sqe_set_data64(close, kCloseBit);
    }
    w.error = uring::submit_and_reap(
        w.ring.get(), static_cast<unsigned>(2 * (last - first)), [&](const io_uring_cqe& cqe) {
          // A failed open cancels its linked close; the open's CQE already counted it.
          const bool cancelled_close = (cqe.user_data & kCloseBit) != 0 && cqe.res == -ECANCELED;
          if (cqe.res < 0 && !cancelled_close) w.tally.fail(-cqe.res);
        });
  }

  // Items [first, last) of a share starting at `begin` go to slots [first-begin, last-begin).
  static void hold_batch(DirectWorker& w, const ItemSpec& spec, std::size_t begin,
                         std::size_t first, std::size_t last) noexcept {
    for (std::size_t i = first; i < last; ++i) {
      const auto slot = static_cast<unsigned>(i - begin);
      io_uring_sqe* sqe = next_sqe(w);
      prep_item(sqe, spec, i, slot);
      io_uring_sqe_set_data64(sqe, 0);
    }
    w.error = uring::submit_and_reap(w.ring.get(), static_cast<unsigned>(last - first),
                                     [&](const io_uring_cqe& cqe) {
                                       if (cqe.res < 0) w.tally.fail(-cqe.res);
                                     });
  }

  unsigned batch_;
  WorkerGroup group_;
  std::vector<std::unique_ptr<DirectWorker>> workers_;
};

}  // namespace

std::unique_ptr<Strategy> make_uring_direct_strategy(const StrategyConfig& config) {
  return std::make_unique<UringDirectStrategy>(config);
}

std::string uring_direct_unavailable_reason() {
  const uring::Support& s = uring::support();
  if (!s.unavailable.empty()) return s.unavailable;
  if (!s.direct) {
    return "io_uring direct descriptors unavailable: this kernel cannot register a sparse file "
           "table (needs Linux 5.19+)";
  }
  return {};
}

}  // namespace fdbench
