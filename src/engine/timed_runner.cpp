#include "engine/timed_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <system_error>
#include <utility>

#include "common/errors.hpp"
#include "engine/child_process.hpp"
#include "fdbench/error.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"

namespace fdbench {

namespace {

// How often the waiting caller looks for SIGINT or SIGTERM, and at the time the step has run.
constexpr auto kSignalPoll = std::chrono::milliseconds(100);
// A gap between two looks this much longer than kSignalPoll means the waiting thread did not
// run at all: the process was stopped (SIGSTOP, Ctrl-Z, a cgroup freeze) or the machine was
// paused. That time is not the step's: only one poll of it counts towards the limit.
constexpr auto kPausedGap = std::chrono::seconds(1);

}  // namespace

TimedRunner::TimedRunner(std::chrono::nanoseconds limit)
    : limit_(limit), state_(std::make_shared<State>()) {
  try {
    thread_ = std::thread(loop, state_);
  } catch (const std::system_error& e) {  // EAGAIN at a limit on processes and threads
    throw Error(fmt::format(
        "cannot create the thread that --timeout runs repetitions on ({}; {}): raise that "
        "limit, or give --timeout none",
        errno_text(e.code().value()), platform::task_limit_text()));
  }
}

TimedRunner::~TimedRunner() {
  {
    const std::lock_guard lock(state_->mutex);
    state_->stop = true;
  }
  state_->changed.notify_all();
  if (abandoned_) {
    thread_.detach();  // it holds its own share of the state
  } else {
    thread_.join();
  }
}

void TimedRunner::loop(const std::shared_ptr<State>& state) {
  std::unique_lock lock(state->mutex);
  for (;;) {
    state->changed.wait(lock, [&] { return state->stop || state->step; });
    if (!state->step) return;  // stopped
    auto step = std::move(state->step);
    state->step = nullptr;
    lock.unlock();
    std::exception_ptr error;
    try {
      step();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    state->error = error;
    state->finished = true;
    state->changed.notify_all();
  }
}

bool TimedRunner::settle(std::chrono::nanoseconds grace) {
  std::unique_lock lock(state_->mutex);
  return state_->changed.wait_for(lock, grace, [&] { return state_->finished; });
}

TimedRunner::Outcome TimedRunner::run(std::function<void()> step, Limit limit,
                                      std::chrono::milliseconds signal_grace) {
  FDBENCH_ASSERT(!abandoned_);
  std::unique_lock lock(state_->mutex);
  state_->finished = false;
  state_->error = nullptr;
  state_->step = std::move(step);
  state_->changed.notify_all();
  const WaitingThread waiting;
  using Clock = std::chrono::steady_clock;
  const bool limited = limit == Limit::applies && limit_ > std::chrono::nanoseconds::zero();
  // The time the step could run: wall time less what the process spent stopped (kPausedGap).
  Clock::duration ran{0};
  auto looked = Clock::now();
  std::optional<Clock::time_point> signalled;
  while (!state_->finished) {
    const auto now = Clock::now();
    const auto gap = now - looked;
    looked = now;
    ran += gap > kPausedGap ? Clock::duration(kSignalPoll) : gap;
    if (limited && ran >= limit_) {
      abandoned_ = true;
      return Outcome::timed_out;
    }
    if (interrupted() != 0 && !signalled) signalled = now;
    // A second Ctrl-C is the user saying "now": nothing stuck may keep the run alive.
    if (signalled && interrupt_count() >= 2 && now - *signalled >= kSecondSignalGrace) {
      abandoned_ = true;
      return Outcome::interrupted_again;
    }
    if (signalled && now - *signalled >= signal_grace) {
      abandoned_ = true;
      return Outcome::interrupted;
    }
    const auto wait = limited ? std::min<Clock::duration>(kSignalPoll, limit_ - ran)
                              : Clock::duration(kSignalPoll);
    state_->changed.wait_until(lock, now + wait);
  }
  if (state_->error) std::rethrow_exception(std::exchange(state_->error, nullptr));
  return Outcome::done;
}

}  // namespace fdbench
