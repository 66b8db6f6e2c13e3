// uring-direct: io_uring direct descriptors. Each worker owns a ring, set up on its own thread
// before timing with the best flags the kernel accepts, with a sparse table of fixed file
// slots, and a contiguous 1/T share of the items, issued `batch` at a time. Open+close runs a
// batch as one submission of pairs, each open with a linked close of its slot behind it
// (--uring-close linked), or as one submission of opens into slots 0..k-1 and one of closes of
// the slots that opened (batched). Items the workload holds (keep_open: sockets, held files)
// fill one slot each and are released after the timed region. The process descriptor table is
// never touched, so it never grows and never stalls. With --latency each submission is timed
// (and a batch's separate one of closes); its record's fd is -1: a slot is not a descriptor of
// the process table, so no submission is ever a growth event.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/socket.h>

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
#include "platform/unavailable.hpp"
#include "uring/ring.hpp"

namespace fdbench {

namespace {

// The kernel refuses O_CLOEXEC and SOCK_CLOEXEC for direct descriptors (EINVAL): a slot
// belongs to the ring, not to the process, so there is nothing to close on exec.
constexpr int kNoCloexecOpen = ~O_CLOEXEC;
constexpr int kNoCloexecSocket = ~SOCK_CLOEXEC;

struct alignas(64) DirectWorker {
  DirectWorker(unsigned entries, const uring::RingSetup& setup)
      : ring(entries, setup), opened(ring.sq_entries()) {
    uring::prime(ring);
  }
  // A sparse table of `count` slots; re-registered only when the size must change. Untimed.
  void ensure_table(unsigned count) {
    if (slots == count) return;
    release_table();
    // A table larger than the soft RLIMIT_NOFILE fails with EMFILE; liburing 2.3 then raises
    // the soft limit (up to the hard one) and retries, so only the hard limit refuses.
    if (const int ret = io_uring_register_files_sparse(ring.get(), count); ret < 0) {
      throw Unavailable(fmt::format(
          "cannot register {} io_uring direct descriptor slots: {}{}", count, errno_text(-ret),
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
  std::vector<unsigned> opened;  // batched close: the slots of this batch that opened
  unsigned slots = 0;            // size of the registered table, 0: none
  Tally tally;
  int error = 0;  // -errno of a failed submit or wait: the repetition is void
};

// What a submission record gives as its highest descriptor: a slot is no descriptor of the
// process table, and the table never grows for one.
constexpr int kNoTableFd = -1;

// user_data of a close (batched or linked); an open's is its slot.
constexpr std::uint64_t kCloseBit = std::uint64_t{1} << 32;

class UringDirectStrategy final : public Strategy {
 public:
  explicit UringDirectStrategy(const StrategyConfig& config)
      : batch_(static_cast<unsigned>(std::max(1, config.batch))),
        linked_(config.uring.close == UringOptions::Close::linked),
        group_(config.threads),
        workers_(group_, [this, setup = uring::ring_setup(config.uring)](int /*w*/) {
          // Linked, an open and its close take one SQE each. (The kernel clamps rings to
          // 32,768 entries; the cap keeps the doubling from overflowing.)
          const unsigned entries = linked_ ? 2 * std::min(batch_, 32768U) : batch_;
          return std::make_unique<DirectWorker>(entries, setup);
        }) {}

  Repetition run(Workload& work) override {
    const ItemSpec spec = work.spec();
    if (auto why = uring_direct_cannot_make(spec.op); !why.empty()) throw Unavailable(why);
    if (spec.op == ItemSpec::Op::accept_connection) {
      // Into each ring's slots, a slot for every connection (any ring may take the whole
      // burst), released after the clock: the table never grows.
      return uring::run_accept<DirectWorker>(
          group_, workers_, work, spec.listen_fd, true,
          [](DirectWorker& w, std::size_t n) { w.ensure_table(static_cast<unsigned>(n)); },
          [](DirectWorker& w) { w.release_table(); });
    }
    const bool hold = spec.keep_open;
    const std::size_t n = work.ops();
    const auto t = static_cast<std::size_t>(workers_.size());
    prepare_tables(hold, n);
    const std::function<void(int)> body = [&](int w) {
      const auto i = static_cast<std::size_t>(w);
      uring::SubmissionClock clock(work.trace());
      run_share(workers_[w], clock, spec, hold, n * i / t, n * (i + 1) / t);
    };
    Repetition rep;
    rep.ns = group_.run(body);
    rep.start_ns = group_.started_ns();
    rep.usage = group_.usage();
    // Untimed: the clock stopped when group_.run returned.
    if (hold) uring::on_each_worker(group_, [this](int w) { workers_[w].release_table(); });
    for (int w = 0; w < workers_.size(); ++w) {
      if (workers_[w].error < 0) {
        throw Error("io_uring_enter failed: " + errno_text(-workers_[w].error));
      }
      rep.tally.merge(workers_[w].tally);
    }
    return rep;
  }

 private:
  // Resets the tallies and gives each worker's ring a table of the size this run needs,
  // registered on the worker's own thread (untimed). Held descriptors need a slot each for
  // the whole share; open+close reuses one batch's.
  void prepare_tables(bool hold, std::size_t n) {
    const auto t = static_cast<std::size_t>(workers_.size());
    std::vector<unsigned> want(t);
    bool change = false;
    for (std::size_t i = 0; i < t; ++i) {
      DirectWorker& w = workers_[static_cast<int>(i)];
      w.tally = Tally{};
      w.error = 0;
      const std::size_t share = n * (i + 1) / t - n * i / t;
      want[i] = static_cast<unsigned>(std::max<std::size_t>(1, hold ? share : chunk(w, hold)));
      change = change || want[i] != w.slots;
    }
    if (!change) return;
    uring::on_each_worker(
        group_, [&](int w) { workers_[w].ensure_table(want[static_cast<std::size_t>(w)]); });
  }

  // Items per submission: a linked open+close pair takes two SQEs, anything else one.
  [[nodiscard]] std::size_t chunk(DirectWorker& w, bool hold) const {
    const bool pairs = linked_ && !hold;
    return std::min<std::size_t>(batch_, pairs ? w.ring.sq_entries() / 2 : w.ring.sq_entries());
  }

  void run_share(DirectWorker& w, uring::SubmissionClock& clock, const ItemSpec& spec, bool hold,
                 std::size_t begin, std::size_t end) noexcept {
    const std::size_t step = chunk(w, hold);
    for (std::size_t first = begin; first < end && w.error == 0; first += step) {
      const std::size_t last = std::min(end, first + step);
      if (hold) {
        hold_batch(w, clock, spec, begin, first, last);
      } else if (linked_) {
        linked_batch(w, clock, spec, first, last);
      } else {
        open_then_close_batch(w, clock, spec, first, last);
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
    if (spec.op == ItemSpec::Op::open_file && spec.resolve != 0) {
      // The user's files by full path, no link followed. The kernel reads `how` when the
      // submission is made, on this worker's thread.
      thread_local open_how how{};
      how.flags = static_cast<std::uint64_t>(static_cast<unsigned>(spec.open_flags & kNoCloexecOpen));
      how.resolve = spec.resolve;
      io_uring_prep_openat2_direct(sqe, AT_FDCWD, spec.path(i), &how, slot);
    } else if (spec.op == ItemSpec::Op::open_file) {
      // The user's files: a last name relative to its directory, checked before the clock.
      // What opens is a slot of the ring's table, which no fstat() reaches: a file swapped for
      // a FIFO after the scan is opened (never waiting: O_NONBLOCK) and closed unused, uncounted.
      io_uring_prep_openat_direct(sqe, spec.dir_fd_of(i), spec.path(i),
                                  spec.open_flags & kNoCloexecOpen, 0, slot);
    } else {
      io_uring_prep_socket_direct(sqe, spec.domain, spec.type & kNoCloexecSocket, spec.protocol,
                                  slot, 0);
    }
  }

  // One submission of pairs: item i opens in a slot, and a close of that slot is linked
  // behind it, so it runs only after the open succeeded.
  static void linked_batch(DirectWorker& w, uring::SubmissionClock& clock, const ItemSpec& spec,
                           std::size_t first, std::size_t last) noexcept {
    for (std::size_t i = first; i < last; ++i) {
      const auto slot = static_cast<unsigned>(i - first);
      io_uring_sqe* open = next_sqe(w);
      prep_item(open, spec, i, slot);
      io_uring_sqe_set_flags(open, IOSQE_IO_LINK);
      io_uring_sqe_set_data64(open, slot);
      io_uring_sqe* close = next_sqe(w);
      io_uring_prep_close_direct(close, slot);
      io_uring_sqe_set_data64(close, kCloseBit);
    }
    clock.submitting(first);
    w.error = uring::submit_and_reap(
        w.ring.get(), static_cast<unsigned>(2 * (last - first)), [&](const io_uring_cqe& cqe) {
          // A failed open cancels its linked close; the open's CQE already counted it.
          const bool cancelled_close = (cqe.user_data & kCloseBit) != 0 && cqe.res == -ECANCELED;
          if (cqe.res < 0 && !cancelled_close) w.tally.fail(-cqe.res);
        });
    clock.reaped(kNoTableFd);
  }

  // One submission of opens, then one of closes for the slots that opened: no links, one
  // more io_uring_enter per batch.
  static void open_then_close_batch(DirectWorker& w, uring::SubmissionClock& clock,
                                    const ItemSpec& spec, std::size_t first,
                                    std::size_t last) noexcept {
    for (std::size_t i = first; i < last; ++i) {
      const auto slot = static_cast<unsigned>(i - first);
      io_uring_sqe* sqe = next_sqe(w);
      prep_item(sqe, spec, i, slot);
      io_uring_sqe_set_data64(sqe, slot);
    }
    unsigned opened = 0;
    clock.submitting(first);
    w.error = uring::submit_and_reap(w.ring.get(), static_cast<unsigned>(last - first),
                                     [&](const io_uring_cqe& cqe) {
                                       if (cqe.res < 0) {
                                         w.tally.fail(-cqe.res);
                                       } else {
                                         w.opened[opened++] = static_cast<unsigned>(cqe.user_data);
                                       }
                                     });
    clock.reaped(kNoTableFd);
    // On error the slots keep what opened; unregistering the table closes it.
    if (w.error != 0 || opened == 0) return;
    for (unsigned k = 0; k < opened; ++k) {
      io_uring_sqe* close = next_sqe(w);
      io_uring_prep_close_direct(close, w.opened[k]);
      io_uring_sqe_set_data64(close, kCloseBit);
    }
    clock.submitting_closes();
    w.error = uring::submit_and_reap(w.ring.get(), opened, [&](const io_uring_cqe& cqe) {
      if (cqe.res < 0) w.tally.fail(-cqe.res);
    });
    clock.closes_reaped();
  }

  // Items [first, last) of a share starting at `begin` go to slots [first-begin, last-begin).
  static void hold_batch(DirectWorker& w, uring::SubmissionClock& clock, const ItemSpec& spec,
                         std::size_t begin, std::size_t first, std::size_t last) noexcept {
    for (std::size_t i = first; i < last; ++i) {
      const auto slot = static_cast<unsigned>(i - begin);
      io_uring_sqe* sqe = next_sqe(w);
      prep_item(sqe, spec, i, slot);
      io_uring_sqe_set_data64(sqe, slot);
    }
    clock.submitting(first);
    w.error = uring::submit_and_reap(w.ring.get(), static_cast<unsigned>(last - first),
                                     [&](const io_uring_cqe& cqe) {
                                       if (cqe.res < 0) w.tally.fail(-cqe.res);
                                     });
    clock.reaped(kNoTableFd);
  }

  unsigned batch_;
  bool linked_;
  WorkerGroup group_;
  uring::PerWorker<DirectWorker> workers_;  // destroyed before group_, on its threads
};

}  // namespace

std::unique_ptr<Strategy> make_uring_direct_strategy(const StrategyConfig& config) {
  return std::make_unique<UringDirectStrategy>(config);
}

std::map<std::string, std::string> uring_direct_parameters(const StrategyConfig& config,
                                                           bool holds) {
  if (!uring_direct_unavailable_reason().empty()) return {};
  auto parameters = uring::describe(uring::ring_setup(config.uring));
  if (!holds) parameters["close"] = to_string(config.uring.close);
  return parameters;
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

std::string uring_direct_cannot_make(ItemSpec::Op op) {
  return uring::cannot_make("uring-direct", op);
}

}  // namespace fdbench
