#pragma once
// How every command runs one repetition: `open`, `socket` (Session) and `tune` alike. Each
// runs on a TimedRunner thread (with --timeout none too, unless no thread can be made: then
// on the caller's), and one that does not return in time (an open() on a dead NFS or FUSE
// mount), or that Ctrl-C cannot reach (3 s after the signal, 1 s once a second came), is
// abandoned here: what it was opening is noted, every other thread of fdbench parked, its
// processes killed, the measurement kept alive for ever, and its result made, which says so
// (status timed_out or hung).
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "engine/measurement.hpp"
#include "engine/timed_runner.hpp"
#include "platform/platform.hpp"
#include "model/result.hpp"

namespace fdbench {

// Whether a repetition that hung was abandoned in this process (--timeout, or Ctrl-C it never
// saw): its threads still exist, parked or blocked in the kernel, so the process must end
// with _exit, without exit handlers or static destructors that could wait for them.
bool abandoned_hung_work();

// "60 s", "0.5 s": --timeout as results record it.
std::string format_seconds(double seconds);

class RepetitionRunner {
 public:
  // `timeout_s` 0: no limit. `doing` says what a repetition does, for a hang's message when
  // the system cannot show which file it was opening ("opening files").
  RepetitionRunner(double timeout_s, std::string doing);
  RepetitionRunner(const RepetitionRunner&) = delete;
  RepetitionRunner& operator=(const RepetitionRunner&) = delete;

  // Runs the next repetition of running[k], whose name is `label` ("pool, 2 threads").
  // Rethrows what it throws. If it hangs: abandons it (running[k] becomes null and the other
  // measurements skip their leak check), keeps its result for take_hung(), and throws
  // TimedOut (the limit passed) or Interrupted (Ctrl-C it never saw).
  void run_next(std::vector<std::unique_ptr<Measurement>>& running, std::size_t k,
                const std::string& label);
  // The result of running[k] (Measurement::finish), made on the thread that ran its
  // repetitions: what a repetition made there is released by that thread (worker 0's io_uring,
  // whose descriptor is registered with the thread that set it up: released on another, the
  // registration stays behind, and a thread holds at most 16). After a repetition was
  // abandoned, on the caller's. Not bounded by the limit (it is no repetition); a signal that
  // it does not answer abandons it as run_next says.
  Result finish(std::vector<std::unique_ptr<Measurement>>& running, std::size_t k,
                const std::string& label);
  // Every repetition left of `m`, then its result; a hang as run_next says.
  Result run_all(std::unique_ptr<Measurement> m, const std::string& label);

  // The result of the repetition that hung, once.
  std::optional<Result> take_hung();
  // Where a hang was in the window that run_next() was given.
  [[nodiscard]] std::optional<std::size_t> hung_index() const { return hung_index_; }

  [[nodiscard]] bool limited() const { return timeout_s_ > 0; }
  [[nodiscard]] double timeout_s() const { return timeout_s_; }

 private:
  void abandon(std::vector<std::unique_ptr<Measurement>>& running, std::size_t k,
               const std::string& what, TimedRunner::Outcome outcome);

  double timeout_s_;
  std::string doing_;
  platform::WorkingDirectory start_directory_;  // restored when a step is abandoned
  // Declared before any measurement a caller makes: a worker process dies with the thread
  // that forked it, and with a limit that is this runner's.
  std::optional<TimedRunner> runner_;
  std::optional<Result> hung_;
  std::optional<std::size_t> hung_index_;
  bool abandoned_ = false;  // a step was left running: the runner's thread takes no more
};

}  // namespace fdbench
