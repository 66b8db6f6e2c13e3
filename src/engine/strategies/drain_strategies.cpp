// epoll and reuseport: how event-driven servers accept. Neither splits the burst in advance:
// each of T threads (the caller is worker 0) accepts from a non-blocking listener until it is
// empty (EAGAIN), as a server's accept loop does, and each connection takes the next free slot
// of the workload (one atomic increment), so whoever is fastest takes the most.
//   epoll      T threads, each with an epoll instance of its own holding the one listener
//              with EPOLLEXCLUSIVE; a thread waits on it, then accepts until EAGAIN, and
//              waits again until the whole burst is taken (by any thread): a thread that
//              comes to an emptied queue waits kPollNs at a time, so its noticing the end
//              adds at most that to the clock.
//   reuseport  T listeners sharing one port (SO_REUSEPORT, the workload makes them), one per
//              thread; the kernel spreads the connections over them as they arrive (by
//              their addresses' hash, so the shares are unequal), and each thread drains its
//              own. Threads never contend for one queue.
// The whole burst is queued before the clock starts (the accept workload waits for it), so an
// empty queue means the thread's part is done. Each accept is timed (--latency) on its worker.
// Waits and listeners are set up before the release and put back after it, untimed.
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "engine/strategies/registry.hpp"
#include "engine/strategies/worker_group.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"
#include "platform/unavailable.hpp"

namespace fdbench {

namespace {

// How long an epoll thread waits at a time for its listener to be readable, before it looks
// whether the burst is all taken.
constexpr std::int64_t kPollNs = 100'000;

enum class Drain { epoll, reuseport };

class DrainStrategy final : public Strategy {
 public:
  DrainStrategy(const StrategyConfig& config, Drain how)
      : how_(how),
        group_(config.threads, config.one_repetition ? WorkerGroup::Lifetime::one_run
                                                     : WorkerGroup::Lifetime::reused),
        tallies_(config.threads) {}

  Repetition run(Workload& work) override {
    const ItemSpec spec = work.spec();
    if (auto why = drain_cannot_make(spec.op); !why.empty()) throw Unavailable(why);
    const std::vector<int> listeners = listeners_of(spec);
    const std::vector<std::unique_ptr<platform::ListenerWait>> waits = make_waits(listeners);
    for (const int fd : unique(listeners)) nonblocking(fd, true);
    next_.store(0, std::memory_order_relaxed);
    for (auto& tally : tallies_) tally = WorkerTally{};
    const std::function<void(int)> body = [&](int w) {
      const auto i = static_cast<std::size_t>(w);
      drain(work, listeners[i], waits.empty() ? nullptr : waits[i].get(), tallies_[i].tally);
    };
    Repetition rep;
    rep.ns = group_.run(body);
    rep.start_ns = group_.started_ns();
    rep.usage = group_.usage();
    for (const int fd : unique(listeners)) nonblocking(fd, false);
    for (const auto& padded : tallies_) rep.tally.merge(padded.tally);
    return rep;
  }

 private:
  // Worker w's listener: the one listener (epoll), or its own (reuseport).
  [[nodiscard]] std::vector<int> listeners_of(const ItemSpec& spec) const {
    const auto t = static_cast<std::size_t>(group_.size());
    if (how_ == Drain::epoll) return std::vector<int>(t, spec.listen_fd);
    if (spec.listen_fds == nullptr || static_cast<std::size_t>(spec.listeners) != t) {
      throw Error("reuseport needs a listener per thread; the workload made " +
                  std::to_string(spec.listeners));
    }
    return {spec.listen_fds, spec.listen_fds + t};
  }
  [[nodiscard]] std::vector<std::unique_ptr<platform::ListenerWait>> make_waits(
      const std::vector<int>& listeners) const {
    std::vector<std::unique_ptr<platform::ListenerWait>> waits;
    if (how_ != Drain::epoll) return waits;
    for (const int fd : listeners) {
      waits.push_back(std::make_unique<platform::ListenerWait>());
      if (const int err = waits.back()->open(fd)) {
        throw Error("cannot make an epoll instance for the listener: " + errno_text(err));
      }
    }
    return waits;
  }
  static std::vector<int> unique(const std::vector<int>& fds) {
    std::vector<int> out;
    for (const int fd : fds) {
      if (out.empty() || out.back() != fd) out.push_back(fd);
    }
    return out;
  }
  static void nonblocking(int fd, bool on) {
    if (const int err = platform::set_nonblocking(fd, on)) {
      throw Error("cannot change the listener's O_NONBLOCK: " + errno_text(err));
    }
  }

  // One worker's part: with epoll, wait and accept until the queue is empty, until the whole
  // burst is taken; with its own listener, accept until that is empty (all its share).
  void drain(Workload& work, int listener, platform::ListenerWait* wait, Tally& tally) noexcept {
    if (wait == nullptr) {
      accept_until_empty(work, listener, tally);
      return;
    }
    while (next_.load(std::memory_order_relaxed) < work.ops() && interrupted() == 0) {
      const int ready = wait->wait(kPollNs);
      if (ready < 0 && errno != EINTR) return tally.fail(errno);
      if (ready > 0 && !accept_until_empty(work, listener, tally)) return;
    }
  }

  // True once the queue is empty (EAGAIN); false on a failed accept (counted), which ends
  // the worker's part as it would end a server's accept loop.
  bool accept_until_empty(Workload& work, int listener, Tally& tally) noexcept {
    const std::size_t n = work.ops();
    CallTrace* trace = work.trace();
    const std::int16_t worker = trace != nullptr ? trace->worker() : 0;
    while (interrupted() == 0) {
      const std::int64_t start = trace != nullptr ? platform::now_ns() : 0;
      const int fd = platform::accept_connection(listener);
      const std::int64_t done = trace != nullptr ? platform::now_ns() : 0;
      if (fd < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return true;  // drained
        tally.fail(errno);
        return false;
      }
      const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
      if (i >= n) {  // never: the client connected exactly n
        close(fd);
        tally.fail(EOVERFLOW);
        continue;
      }
      if (trace != nullptr) trace->created(i, start, done, worker, fd);
      work.keep(i, fd);
    }
    return false;  // interrupted
  }

  Drain how_;
  WorkerGroup group_;
  std::vector<WorkerTally> tallies_;
  alignas(64) std::atomic<std::size_t> next_{0};  // the next free slot of the workload
};

}  // namespace

std::string drain_cannot_make(ItemSpec::Op op) {
  if (op == ItemSpec::Op::accept_connection) return {};
  return "it waits for connections on a listener: it accepts them (fdbench accept), it makes no " +
         std::string(item_words(op));
}

std::string epoll_unavailable_reason() {
  if (platform::ListenerWait::available()) return {};
  return "epoll is Linux's (kqueue is not measured)";
}

std::string reuseport_unavailable_reason() {
  if (platform::has_reuseport_balancing()) return {};
  return "SO_REUSEPORT spreads one port's connections over its listeners on Linux only";
}

std::unique_ptr<Strategy> make_epoll_strategy(const StrategyConfig& config) {
  return std::make_unique<DrainStrategy>(config, Drain::epoll);
}

std::unique_ptr<Strategy> make_reuseport_strategy(const StrategyConfig& config) {
  return std::make_unique<DrainStrategy>(config, Drain::reuseport);
}

}  // namespace fdbench
