// process: T forked worker processes, each with its own descriptor table (plain fork, no
// shared files_struct) and its own copy of the workload, each doing a contiguous 1/T share.
// No table is shared, so no table growth ever waits for an RCU grace period.
//
// The workers are forked by the constructor (untimed) and reach the workload through their
// fork-time copy of the parent's memory: run() sends its address, which is valid in every
// child. So the workload must exist before the strategy is made and must not change after
// (measure() and measure_in_fresh_child() make it so); the parent's own copy holds nothing.
//
// One repetition: each worker gets the workload, runs its copy's before_repetition(), writes
// once every page it will write while timed (its share of the workload, its reply, its
// stack), and answers "ready" (untimed). The parent takes the start time and releases all of
// them at once: on Linux one FUTEX_WAKE on a word in a page shared with every worker (which
// spins on it briefly, then sleeps on it), elsewhere a byte on each worker's own channel, so
// no worker waits behind another's wake-up. Each worker does its share, stamps its finish
// time, reports {finish time, tally}, and only then runs after_repetition(), so closing what
// it holds stays out of the timed region. The repetition ends at the latest finish stamp
// (CLOCK_MONOTONIC is one clock for every process), as with `threads`: the parent's own
// collecting of the replies is not timed.
#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <new>
#include <vector>

#include "common/errors.hpp"
#include "engine/child_process.hpp"
#include "engine/strategies/registry.hpp"
#include "engine/strategies/work_messages.hpp"
#include "engine/strategies/worker_group.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "platform/platform.hpp"

namespace fdbench {

namespace {

// Where the workers wait to be let go together, where a shared word blocks (Linux): a page
// mapped before the fork, so every worker watches the same epoch.
class StartLine {
 public:
  StartLine() {
    if (!platform::shared_word_blocks()) return;  // one channel each instead
    void* page =
        mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) {
      throw Error("cannot map a page to share with the process workers: " + errno_text(errno));
    }
    shared_ = new (page) Shared();
  }
  StartLine(const StartLine&) = delete;
  StartLine& operator=(const StartLine&) = delete;
  ~StartLine() {
    if (shared_ != nullptr) munmap(shared_, sizeof(Shared));
  }

  [[nodiscard]] bool shared() const noexcept { return shared_ != nullptr; }
  // In a worker, before it says it is ready: the epoch that its release moves on from.
  [[nodiscard]] std::uint32_t ticket() const noexcept {
    return shared_->epoch.load(std::memory_order_acquire);
  }
  // In a worker: waits for the release after `ticket`; false once stop() was called.
  [[nodiscard]] bool wait(std::uint32_t ticket) const noexcept {
    if (shared_->stopped.load(std::memory_order_acquire)) return false;
    platform::wait_shared_word(shared_->epoch, ticket);
    return !shared_->stopped.load(std::memory_order_acquire);
  }
  // In the parent: every waiting worker goes, with one system call.
  void release() noexcept {
    shared_->epoch.fetch_add(1, std::memory_order_acq_rel);
    platform::wake_shared_word(shared_->epoch);
  }
  // Workers waiting for a release, or about to, give up instead.
  void stop() noexcept {
    if (shared_ == nullptr) return;
    shared_->stopped.store(true, std::memory_order_release);
    release();
  }

 private:
  struct Shared {
    std::atomic<std::uint32_t> epoch{0};
    std::atomic<bool> stopped{false};
  };
  Shared* shared_ = nullptr;
};

// Writes the stack pages a share may use below this frame, so that none is first written
// (a copy-on-write fault after the fork) while timed.
[[gnu::noinline]] void touch_stack() noexcept {
  constexpr std::size_t kBytes = 16 * 1024;
  char pad[kBytes];
  volatile char* page = pad;  // volatile: the writes are the point
  for (std::size_t i = 0; i < kBytes; i += 1024) page[i] = 0;
}

// Untimed: makes the worker ready for items [begin, end), or says why it cannot be.
WorkReply get_ready(Workload& work, const WorkRequest& command, const char* pending_error,
                    std::size_t begin, std::size_t end) {
  WorkReply ready;
  if (pending_error[0] != '\0') {
    ready.set_error(pending_error);
  } else if (*command.mismatch() != '\0') {
    ready.set_error(command.mismatch());
  } else {
    try {
      work.before_repetition();
      work.prepare_range(begin, end);
    } catch (const std::exception& e) {
      ready.set_error(e.what());
    }
  }
  return ready;
}

// A worker's whole life after the fork; returning ends the process (_exit).
void worker_loop(Channel& channel, const StartLine& start, std::size_t worker,
                 std::size_t workers) {
  char pending_error[sizeof WorkReply::error] = {};  // from the last after_repetition()
  for (;;) {
    WorkRequest command;
    if (!channel.receive(command)) return;  // the strategy is gone
    Workload& work = *command.work;
    const std::size_t n = work.ops();
    const std::size_t begin = n * worker / workers;
    const std::size_t end = n * (worker + 1) / workers;
    const WorkReply ready = get_ready(work, command, pending_error, begin, end);
    WorkReply done;  // ns: the finish time. Built here, so its pages are written before timing.
    touch_stack();
    const std::uint32_t ticket = start.shared() ? start.ticket() : 0;
    if (!channel.send(ready)) return;
    if (ready.failed()) continue;  // the parent gives up on this strategy

    char go = 0;
    if (!(start.shared() ? start.wait(ticket) : channel.receive(go))) return;  // stopped
    // A process of one thread: its own counts, on every system. Read once released (one
    // system call on the clock before its share), or the wait for the release, begun before
    // the clock started, would count as the work's.
    const auto before = platform::process_usage();
    work.run_range(begin, end, done.tally);
    done.ns = platform::now_ns();
    done.usage = taken_between(before, platform::process_usage());
    if (!channel.send(done)) return;
    try {
      work.after_repetition();
    } catch (const std::exception& e) {
      std::snprintf(pending_error, sizeof pending_error, "%s", e.what());
    }
  }
}

class ProcessStrategy final : public Strategy {
 public:
  explicit ProcessStrategy(const StrategyConfig& config) {
    FDBENCH_ASSERT(config.threads >= 1);
    const auto workers = static_cast<std::size_t>(config.threads);
    workers_.reserve(workers);
    // Each worker closes the parent's ends of the channels of the workers forked before it,
    // or those would never see EOF.
    std::vector<int> parent_only;
    parent_only.reserve(workers);
    const StartLine& start = start_line_;
    for (std::size_t w = 0; w < workers; ++w) {
      try {
        workers_.emplace_back(
            [=, &start](Channel& channel) { worker_loop(channel, start, w, workers); },
            ChildOptions{.keeps_table_size = true, .close_in_child = parent_only});
      } catch (const ForkFailed& e) {  // EAGAIN at a limit on processes: not here
        Unavailable why = cannot_create(count_of(config.threads, "process", "processes"), e.err());
        stop_workers();
        throw why;
      }
      parent_only.push_back(workers_.back().channel().fd());
    }
  }

  ProcessStrategy(const ProcessStrategy&) = delete;
  ProcessStrategy& operator=(const ProcessStrategy&) = delete;

  ~ProcessStrategy() override { stop_workers(); }

  Repetition run(Workload& work) override {
    if (broken_) throw Error("a process worker died in an earlier repetition");
    const WorkRequest command{&work, work.ops()};
    for (std::size_t w = 0; w < workers_.size(); ++w) {
      if (!workers_[w].send(command)) died(w);
    }
    WorkReply reply;
    for (std::size_t w = 0; w < workers_.size(); ++w) {
      if (!workers_[w].receive(reply)) died(w);
      if (reply.failed()) {
        broken_ = true;
        throw Error(fmt::format("process worker {}: {}", w, reply.error));
      }
    }

    const std::int64_t start = platform::now_ns();
    release_all();
    Repetition rep;
    rep.usage = TimedRegion{};
    std::int64_t end = start;
    for (std::size_t w = 0; w < workers_.size(); ++w) {
      if (!workers_[w].receive(reply)) died(w);
      end = std::max(end, reply.ns);
      rep.tally.merge(reply.tally);
      add_usage(rep.usage, reply.usage);
    }
    rep.ns = end - start;
    rep.start_ns = start;
    return rep;
  }

 private:
  void stop_workers() noexcept {
    start_line_.stop();                          // workers waiting for a release give up
    for (auto& w : workers_) w.close_channel();  // workers waiting for a message see EOF
    workers_.clear();                            // reaps them
  }

  void release_all() {
    if (start_line_.shared()) {
      start_line_.release();
      return;
    }
    const char go = 'g';
    for (std::size_t w = 0; w < workers_.size(); ++w) {
      if (!workers_[w].send(go)) died(w);
    }
  }

  [[noreturn]] void died(std::size_t w) {
    broken_ = true;
    workers_[w].throw_died(fmt::format("a process worker died: worker {}", w));
  }

  StartLine start_line_;  // mapped before the workers are forked, unmapped after they are reaped
  std::vector<ChildProcess> workers_;
  bool broken_ = false;  // a worker died or failed: the workers are out of step
};

}  // namespace

std::unique_ptr<Strategy> make_process_strategy(const StrategyConfig& config) {
  return std::make_unique<ProcessStrategy>(config);
}

}  // namespace fdbench
