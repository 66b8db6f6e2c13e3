// process: T forked worker processes, each with its own descriptor table (plain fork, no
// shared files_struct) and its own copy of the workload, each doing a contiguous 1/T share.
// No table is shared, so no table growth ever waits for an RCU grace period.
//
// The workers are forked by the constructor (untimed) and reach the workload through their
// fork-time copy of the parent's memory: run() sends its address, which is valid in every
// child. So the workload must exist before the strategy is made and must not change after
// (measure() and measure_in_fresh_child() make it so); the parent's own copy holds nothing.
//
// One repetition: each worker gets the workload, runs its copy's before_repetition() and
// answers "ready" (untimed). The parent takes the start time and releases all of them with a
// single write of T bytes to a shared pipe; each worker reads one byte, does its share,
// reports {finish time, tally}, and only then runs after_repetition(), so closing what it
// holds stays out of the timed region. The repetition ends at the latest finish time
// (CLOCK_MONOTONIC is one clock for every process).
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <exception>
#include <type_traits>
#include <vector>

#include "child_process.hpp"
#include "fdbench/error.hpp"
#include "fdbench/platform.hpp"
#include "fdbench/strategy.hpp"
#include "fdbench/unique_fd.hpp"
#include "strategies/registry.hpp"
#include "strategies/work_messages.hpp"

namespace fdbench {

namespace {

// A worker's whole life after the fork; returning ends the process (_exit).
void worker_loop(Channel& channel, int go, std::size_t worker, std::size_t workers) {
  char pending_error[sizeof WorkReply::error] = {};  // from the last after_repetition()
  for (;;) {
    WorkRequest command;
    if (!channel.receive(command)) return;  // the strategy is gone
    Workload& work = *command.work;
    WorkReply ready;
    if (pending_error[0] != '\0') {
      ready.set_error(pending_error);
    } else if (*command.mismatch() != '\0') {
      ready.set_error(command.mismatch());
    } else {
      try {
        work.before_repetition();
      } catch (const std::exception& e) {
        ready.set_error(e.what());
      }
    }
    if (!channel.send(ready)) return;
    if (ready.failed()) continue;  // the parent gives up on this strategy

    WorkReply done;  // ns: the finish time
    const std::size_t n = work.ops();
    char release = 0;
    if (!read_exact(go, &release, 1)) return;  // EOF: the strategy is gone
    work.run_range(n * worker / workers, n * (worker + 1) / workers, done.tally);
    done.ns = platform::now_ns();
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
  explicit ProcessStrategy(const StrategyConfig& config)
      : release_bytes_(static_cast<std::size_t>(config.threads), 'g') {
    FDBENCH_ASSERT(config.threads >= 1);
    int fds[2];
    if (pipe(fds) != 0) throw Error("cannot create a pipe: " + errno_text(errno));
    go_read_.reset(fds[0]);
    go_write_.reset(fds[1]);
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);

    const auto workers = static_cast<std::size_t>(config.threads);
    workers_.reserve(workers);
    // Each worker closes what only the parent should hold: the pipe's write end (or it
    // would never see EOF) and the channels of the workers forked before it.
    std::vector<int> parent_only{go_write_.get()};
    parent_only.reserve(workers + 1);
    const int go = go_read_.get();
    for (std::size_t w = 0; w < workers; ++w) {
      workers_.emplace_back([=](Channel& channel) { worker_loop(channel, go, w, workers); },
                            ChildOptions{.keeps_table_size = true, .close_in_child = parent_only});
      parent_only.push_back(workers_.back().channel().fd());
    }
  }

  ProcessStrategy(const ProcessStrategy&) = delete;
  ProcessStrategy& operator=(const ProcessStrategy&) = delete;

  ~ProcessStrategy() override {
    go_write_.reset();                           // workers waiting for a release see EOF
    for (auto& w : workers_) w.close_channel();  // workers waiting for a command see EOF
    workers_.clear();                            // reaps them
  }

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
    std::int64_t end = start;
    for (std::size_t w = 0; w < workers_.size(); ++w) {
      if (!workers_[w].receive(reply)) died(w);
      end = std::max(end, reply.ns);
      rep.tally.merge(reply.tally);
    }
    rep.ns = end - start;
    return rep;
  }

 private:
  void release_all() {
    // Cannot fail while we hold the read end; if it does, never leave workers waiting.
    if (!write_exact(go_write_.get(), release_bytes_.data(), release_bytes_.size())) {
      broken_ = true;
      throw Error("cannot release the process workers: " + errno_text(errno));
    }
  }

  [[noreturn]] void died(std::size_t w) {
    broken_ = true;
    workers_[w].throw_died(fmt::format("a process worker died: worker {}", w));
  }

  // The parent keeps the read end too, so releasing never raises SIGPIPE even if every
  // worker is gone.
  UniqueFd go_read_;
  UniqueFd go_write_;
  std::vector<char> release_bytes_;  // one byte per worker
  std::vector<ChildProcess> workers_;
  bool broken_ = false;  // a worker died or failed: the workers are out of step
};

}  // namespace

std::unique_ptr<Strategy> make_process_strategy(const StrategyConfig& config) {
  return std::make_unique<ProcessStrategy>(config);
}

}  // namespace fdbench
