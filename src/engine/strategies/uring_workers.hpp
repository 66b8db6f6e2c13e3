#pragma once
// What the io_uring strategies add to the shared ring support (uring/ring.hpp): per-worker
// state made and torn down on its own worker's thread, so that each ring belongs to the thread
// that submits to it, and the --latency timing of a batch's submission.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.hpp"
#include "engine/strategies/worker_group.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "engine/workload.hpp"
#include "engine/call_trace.hpp"
#include "platform/platform.hpp"
#include "uring/ring.hpp"

namespace fdbench::uring {

// Why the io_uring strategy `name` cannot make items of `op` here, or "": io_uring has an op
// for opening files (IORING_OP_OPENAT) and, since Linux 5.19, for creating sockets
// (IORING_OP_SOCKET), and none for eventfds or pipes.
std::string cannot_make(std::string_view name, ItemSpec::Op op);

// accept with io_uring: one multishot accept (Linux 5.19+) per worker's ring on the listener,
// into normal descriptors or, `direct`, into slots of the ring's registered table (which must
// have room for all `n`: any ring may take the whole burst). Each completion takes the next
// free item of the burst from `taken`; the worker reaps until every one of the `n` is taken,
// by it or by another ring, waiting for completions at most kAcceptPollNs at a time so that it
// sees the end. A queued burst is accepted inline by the first ring to submit: the kernel
// retries a multishot accept until the queue is empty.
struct AcceptBurst {
  int listener = -1;
  bool direct = false;
  std::size_t n = 0;
  std::atomic<std::size_t>* taken = nullptr;
  Workload* work = nullptr;  // normal descriptors are handed to it (keep)
};
inline constexpr std::int64_t kAcceptPollNs = 100'000;
// Timed, on the worker's thread: 0 or -errno (the ring broke). With a trace, one record per
// accepted connection: from the previous completion reaped (or the submission) to its own,
// its descriptor (a slot is none: -1).
int accept_burst(io_uring* ring, const AcceptBurst& burst, Tally& tally, CallTrace* trace) noexcept;
// Untimed, on the worker's thread after the clock: cancels the multishot accept and reaps
// what it posts as it ends.
void end_accept(io_uring* ring, int listener) noexcept;

// Runs fn(w) on every worker w of `group` at once, untimed, and rethrows the first exception
// any of them threw on the calling thread.
void on_each_worker(WorkerGroup& group, const std::function<void(int)>& fn);

// One T per worker of `group`, each made, changed and destroyed on its own worker's thread,
// so that the rings inside belong to the threads that submit to them.
template <class T>
class PerWorker {
 public:
  // make(w) runs on worker w.
  PerWorker(WorkerGroup& group, const std::function<std::unique_ptr<T>(int)>& make)
      : group_(group), items_(static_cast<std::size_t>(group.size())) {
    try {
      on_each_worker(group_, [&](int w) { items_[static_cast<std::size_t>(w)] = make(w); });
    } catch (...) {
      clear();
      throw;
    }
  }
  PerWorker(const PerWorker&) = delete;
  PerWorker& operator=(const PerWorker&) = delete;
  ~PerWorker() { clear(); }

  T& operator[](int w) noexcept { return *items_[static_cast<std::size_t>(w)]; }
  [[nodiscard]] int size() const noexcept { return static_cast<int>(items_.size()); }

 private:
  void clear() noexcept {
    group_.run([this](int w) { items_[static_cast<std::size_t>(w)].reset(); });
  }

  WorkerGroup& group_;
  std::vector<std::unique_ptr<T>> items_;
};

// fdbench accept on every worker's ring (Worker: a ring, a tally and an error each): a
// multishot accept per ring (accept_burst), timed; then, untimed, each cancelled and `after`
// run on its worker's thread. `direct`: into each ring's slots, which `before` gives room for
// `n` connections untimed first, any ring may take the whole burst, and `after` releases
// (closing the connections); otherwise normal descriptors, handed to the workload.
template <class Worker>
Repetition run_accept(WorkerGroup& group, PerWorker<Worker>& workers, Workload& work,
                      int listener, bool direct,
                      const std::function<void(Worker&, std::size_t n)>& before = {},
                      const std::function<void(Worker&)>& after = {}) {
  const std::size_t n = work.ops();
  for (int w = 0; w < workers.size(); ++w) {
    workers[w].tally = Tally{};
    workers[w].error = 0;
  }
  if (before) on_each_worker(group, [&](int w) { before(workers[w], n); });
  std::atomic<std::size_t> taken{0};
  const AcceptBurst burst{listener, direct, n, &taken, &work};
  const std::function<void(int)> body = [&](int w) {
    workers[w].error =
        accept_burst(workers[w].ring.get(), burst, workers[w].tally, work.trace());
  };
  Repetition rep;
  rep.ns = group.run(body);
  rep.start_ns = group.started_ns();
  rep.usage = group.usage();
  on_each_worker(group, [&](int w) {
    end_accept(workers[w].ring.get(), listener);
    if (after) after(workers[w]);
  });
  for (int w = 0; w < workers.size(); ++w) {
    if (workers[w].error < 0) {
      throw Error("io_uring accept failed: " + errno_text(-workers[w].error));
    }
    rep.tally.merge(workers[w].tally);
  }
  return rep;
}

// --latency for a worker that submits batches: one CallKind::submission record per batch of
// creations, on the slot of the batch's first item, timed from just before it is submitted to
// the reaping of its last completion (and the same for the batch's separate submission of
// closes, if it has one). Untraced (no trace) every member does nothing but test a pointer:
// one branch per submission. Traced, the records already exist: no allocation while timed.
class SubmissionClock {
 public:
  // On the submitting worker's thread, which it numbers in the trace.
  explicit SubmissionClock(CallTrace* trace) noexcept
      : trace_(trace), worker_(trace != nullptr ? trace->worker() : std::int16_t{-1}) {}

  // Just before the batch whose first item is `first` is submitted.
  void submitting(std::size_t first) noexcept {
    if (trace_ == nullptr) return;
    first_ = first;
    start_ = platform::now_ns();
  }
  // Its last completion reaped; `highest_fd`: the highest descriptor of the process table it
  // returned (-1: none).
  void reaped(int highest_fd) noexcept {
    if (trace_ == nullptr) return;
    trace_->created(first_, start_, platform::now_ns(), worker_, highest_fd,
                    CallKind::submission);
  }
  // The same batch's closes: just before their submission, and their last completion reaped.
  void submitting_closes() noexcept {
    if (trace_ != nullptr) start_ = platform::now_ns();
  }
  void closes_reaped() noexcept {
    if (trace_ != nullptr) trace_->at(first_).close_ns = platform::now_ns() - start_;
  }

 private:
  CallTrace* trace_;
  std::int16_t worker_;
  std::size_t first_ = 0;  // the batch's first item: the slot of its record
  std::int64_t start_ = 0;
};

}  // namespace fdbench::uring
