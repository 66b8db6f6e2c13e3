#include "run/repetition_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "common/errors.hpp"
#include "engine/child_process.hpp"
#include "fdbench/error.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"

namespace fdbench {

namespace {

// The measurements a hung repetition left behind, which nothing may free: their threads are
// parked, or still blocked in the kernel, and would find freed memory if they ever returned.
std::vector<std::unique_ptr<Measurement>>& abandoned_measurements() {
  static auto* const abandoned = new std::vector<std::unique_ptr<Measurement>>;
  return *abandoned;
}

void keep_forever(std::unique_ptr<Measurement> hung) {
  abandoned_measurements().push_back(std::move(hung));
}

// "it was opening /mnt/nfs/a", or what is known instead.
std::string hung_on(const std::optional<std::vector<std::string>>& paths,
                    const std::string& doing) {
  if (!paths) return fmt::format("it was {} (which one, this system does not show)", doing);
  if (paths->empty()) {
    return fmt::format(
        "it was {}; no thread was blocked in an open call (a slow repetition rather than a "
        "hung one, or io_uring's opens, which wait inside the kernel)",
        doing);
  }
  std::string text = "it was opening " + paths->front();
  if (paths->size() > 1) {
    text += fmt::format(" and {} other file{}", paths->size() - 1, paths->size() == 2 ? "" : "s");
    for (std::size_t i = 1; i < std::min<std::size_t>(paths->size(), 4); ++i) {
      text += (i == 1 ? " (" : ", ") + (*paths)[i];
    }
    text += paths->size() > 4 ? ", ...)" : ")";
  }
  return text;
}

}  // namespace

bool abandoned_hung_work() {
  return !abandoned_measurements().empty();
}

std::string format_seconds(double seconds) {
  return fmt::format("{:g} s", seconds);
}

RepetitionRunner::RepetitionRunner(double timeout_s, std::string doing)
    : timeout_s_(timeout_s), doing_(std::move(doing)) {
  const auto limit = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(timeout_s_));
  if (timeout_s_ > 0) {
    runner_.emplace(limit);
    return;
  }
  // No limit: still on a runner's thread, so that Ctrl-C can end a repetition stuck in an open
  // it never returns from. Where no thread can be made (ulimit -u), the repetitions run on
  // this one, as a run without a limit always could.
  try {
    runner_.emplace(std::chrono::nanoseconds::zero());
  } catch (const Error&) {
  }
}

void RepetitionRunner::run_next(std::vector<std::unique_ptr<Measurement>>& running, std::size_t k,
                                const std::string& label) {
  Measurement& m = *running[k];
  if (!runner_) return m.run_next();
  // Named before it runs: a step that ends just as the limit passes has already counted
  // itself, and would be named as the next one ("repetition 2 of 1").
  const std::string step = m.next_repetition_text();
  const auto outcome = runner_->run([&m] { m.run_next(); });
  if (outcome == TimedRunner::Outcome::done) return;
  abandon(running, k, label + ": " + step, outcome);
  if (outcome != TimedRunner::Outcome::timed_out) throw Interrupted(interrupted());
  throw TimedOut(hung_->error);
}

Result RepetitionRunner::finish(std::vector<std::unique_ptr<Measurement>>& running, std::size_t k,
                                const std::string& label) {
  Measurement& m = *running[k];
  if (!runner_ || abandoned_) return m.finish();
  Result r;
  // Not under the limit: ending a measurement is no repetition, and a --timeout shorter
  // than it would abandon every result.
  const auto outcome = runner_->run([&m, &r] { r = m.finish(); }, TimedRunner::Limit::waived);
  if (outcome == TimedRunner::Outcome::done) return r;
  abandon(running, k, label + ": ending the measurement", outcome);
  if (outcome != TimedRunner::Outcome::timed_out) throw Interrupted(interrupted());
  throw TimedOut(hung_->error);
}

Result RepetitionRunner::run_all(std::unique_ptr<Measurement> m, const std::string& label) {
  std::vector<std::unique_ptr<Measurement>> running;
  running.push_back(std::move(m));
  while (!running[0]->done()) run_next(running, 0, label);
  return finish(running, 0, label);
}

std::optional<Result> RepetitionRunner::take_hung() {
  std::optional<Result> r = std::move(hung_);
  hung_.reset();
  return r;
}

// `what` names the step ("threads, 1 thread: repetition 3 of 10"). Notes what it was opening, parks
// every other thread of fdbench and kills its processes, so that nothing of the measurement runs
// on; keeps the measurement from ever being freed; and makes its result, which says why. The other
// measurements skip their leak check (the hung one's descriptors are still open).
void RepetitionRunner::abandon(std::vector<std::unique_ptr<Measurement>>& running, std::size_t k,
                               const std::string& what, TimedRunner::Outcome outcome) {
  std::string on = hung_on(platform::paths_being_opened(), doing_);
  // Where no thread can be parked (the portable build), the step gets a moment to return by
  // itself before anything it uses is freed.
  if (platform::park_other_threads() == 0 && runner_) runner_->settle(std::chrono::seconds(1));
  const KillDeadline deadline = kill_deadline();
  const std::vector<int> killed = platform::kill_descendants();  // Linux: grandchildren too
  // The abandoned step never undoes what it changed for a while: the current directory
  // (--harness published) goes back to the one the run began in, for relative outputs.
  start_directory_.restore();
  ChildProcess::kill_all(deadline);  // everywhere: this process's own children, killed, reaped
  // A process blocked where SIGKILL cannot reach it (an open a FUSE server never answers)
  // outlives fdbench: never silently.
  on += not_ended_text(killed, deadline);
  if (outcome == TimedRunner::Outcome::timed_out) {
    hung_ = running[k]->hung(Status::timed_out, fmt::format("{} did not finish within {}; {}", what,
                                                            format_seconds(timeout_s_), on));
  } else if (outcome == TimedRunner::Outcome::interrupted_again) {
    hung_ = running[k]->hung(
        Status::hung, fmt::format("{} was still running at the second signal; {}", what, on));
  } else {
    hung_ = running[k]->hung(
        Status::hung,
        fmt::format(
            "{} was still running {} after the signal; {}", what,
            format_seconds(std::chrono::duration<double>(TimedRunner::kSignalGrace).count()), on));
  }
  if (limited()) hung_->parameters["timeout"] = format_seconds(timeout_s_);
  hung_index_ = k;
  abandoned_ = true;
  keep_forever(std::move(running[k]));
  running[k] = nullptr;
  for (auto& other : running) {
    if (other) other->skip_leak_check();
  }
}

}  // namespace fdbench
