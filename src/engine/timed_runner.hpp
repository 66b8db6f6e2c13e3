#pragma once
// --timeout: each repetition runs on a thread of its own while the caller waits for it, at
// most a limit of time it could run: a process stopped (SIGSTOP, Ctrl-Z, a cgroup freeze) or a
// paused machine does not use it up. A repetition that hangs (an open() on a dead NFS or FUSE mount
// never returns) leaves the caller free to report it, clean up and exit; the thread is abandoned,
// never joined. Without a limit it is used the same way, so that a signal can still end a
// repetition stuck where the signal cannot reach it (--timeout none).
//
// The measuring thread is the one that makes a strategy's workers, forks its processes and
// runs worker 0's share, so nothing about a repetition changes but who waits for it: the
// caller, blocked on a condition variable, holding no lock (see WaitingThread).
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace fdbench {

class TimedRunner {
 public:
  // What became of a step.
  enum class Outcome {
    done,               // it returned (or threw: run() rethrew it)
    timed_out,          // the limit passed first: the step is abandoned
    interrupted,        // SIGINT or SIGTERM came and the step did not return within a grace
                        // period: it is abandoned, as it would never see the signal
    interrupted_again,  // a second signal came before the step returned: abandoned as soon
                        // as the step has had kSecondSignalGrace since the first
  };

  // After SIGINT or SIGTERM, how long a step gets to notice the signal itself (every
  // repetition looks for it at its untimed edges) before it is taken for hung.
  static constexpr std::chrono::seconds kSignalGrace{3};
  // After a second signal, the least a step still gets since the first: a burst of signals
  // (a group's Ctrl-C, a script's kill loop) would otherwise abandon a repetition that is
  // about to stop on its own, and orphan its processes.
  static constexpr std::chrono::seconds kSecondSignalGrace{1};

  // Starts the runner's thread; throws Error, naming the limit, when the system will not.
  // A `limit` of zero is none: a step then ends only by returning or by a signal.
  explicit TimedRunner(std::chrono::nanoseconds limit);
  TimedRunner(const TimedRunner&) = delete;
  TimedRunner& operator=(const TimedRunner&) = delete;
  // Joins the thread, or, once a step was abandoned, leaves it behind.
  ~TimedRunner();

  // Whether the limit bounds a step: a repetition's, yes; the untimed work around
  // repetitions that the runner's thread must do itself (ending a measurement), not, as a
  // limit below its cost would abandon every run; signals end either.
  enum class Limit { applies, waived };

  // Runs `step` on the runner's thread and waits for it: rethrows what it throws. After an
  // abandoned step (timed_out, interrupted) the runner cannot be used again, and whatever the
  // step uses must be kept alive (it may still be running, or return later). `signal_grace`:
  // how long after SIGINT or SIGTERM the step may still return by itself before it is
  // abandoned (interrupted); a step that only waits for a child to look at a path has nothing
  // to finish, and is given none, so that the signal is kept within half a second.
  Outcome run(std::function<void()> step, Limit limit = Limit::applies,
              std::chrono::milliseconds signal_grace = kSignalGrace);

  // After a step was abandoned where its thread cannot be parked (the portable build): waits
  // up to `grace` for the step to return by itself, so that what it uses is not freed under
  // it while it still runs (a step only slower than the limit returns; one blocked in the
  // kernel touches nothing until it does). True if it returned.
  bool settle(std::chrono::nanoseconds grace);

  [[nodiscard]] std::chrono::nanoseconds limit() const { return limit_; }

 private:
  // Shared with the thread, which may outlive the runner once a step is abandoned.
  struct State {
    std::mutex mutex;
    std::condition_variable changed;
    std::function<void()> step;  // the step to run; empty when there is none
    bool finished = false;       // the step returned or threw
    std::exception_ptr error;
    bool stop = false;
  };
  static void loop(const std::shared_ptr<State>& state);

  std::chrono::nanoseconds limit_;
  std::shared_ptr<State> state_;
  std::thread thread_;
  bool abandoned_ = false;
};

}  // namespace fdbench
