#pragma once
// A Session runs commands (a sweep of strategies, thread counts and pregrow settings), tells
// its reporters what the next results measure, and hands each finished Result to them. Every
// measuring command goes through it: open and socket (run_open, run_socket) and tune
// (run_tune in tune_sweep.hpp, from the same steps), each planned by planner.hpp and run by
// the one Scheduler.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.hpp"
#include "engine/measure.hpp"
#include "inputs/file_set.hpp"
#include "model/context.hpp"
#include "model/environment.hpp"
#include "model/result.hpp"
#include "output/reporter.hpp"
#include "output/trace_out.hpp"
#include "run/options.hpp"
#include "run/planner.hpp"
#include "run/progress.hpp"
#include "run/scheduler.hpp"

namespace fdbench {

class Session {
 public:
  // `context`, where given, is the run's record (context.hpp): the reporters get it at once,
  // and again with the load after the run when it finishes.
  Session(Environment env, std::vector<std::unique_ptr<Reporter>> reporters,
          std::optional<RunContext> context = std::nullopt);
  // Tells `progress` (nullptr: no one; not owned) where the run is, between timed regions.
  void set_progress(Progress* progress) { progress_ = progress; }
  // --trace-out: where each timed repetition's call records go (nullptr: nowhere; not owned).
  void set_trace_out(TraceOut* out) { trace_out_ = out; }
  // Where the run says a line that is neither a result nor an error, such as why it waits.
  void set_say(std::function<void(const std::string&)> say) { say_ = std::move(say); }
  void run_open(const OpenOptions& options);
  void run_socket(const SocketOptions& options);
  void run_accept(const AcceptOptions& options);

  // The steps of a command, for one that arranges them itself (tune, run_tune):
  // The plan of `combinations` on the files `options` name: the kernel tracer attached first
  // where asked, the descriptors reserved (Error naming `what_to_lower` when none fits), the
  // files prepared.
  std::unique_ptr<OpenPlan> plan_open(const OpenOptions& options,
                                      std::vector<Combination> combinations,
                                      std::string_view what_to_lower);
  // The plan of `combinations` accepting the burst `options` names: the kernel tracer attached
  // first where asked, the descriptors reserved (Error when none fits).
  std::unique_ptr<AcceptPlan> plan_accept(const AcceptOptions& options,
                                          std::vector<Combination> combinations);
  // Tells the reporters what the next results measure, with the kernel tracer's state where
  // `kernel_trace` asks for it (and has it recorded from then on).
  void announce(Section section, bool kernel_trace);
  // Measures the plan to `stop` with one Scheduler, once per --rcu-expedited value; each result
  // goes to the reporters as it finishes, or to `done` where given (the command adds it
  // later). After Ctrl-C or a hang, what the Scheduler says (Interrupted or TimedOut goes on).
  void measure(std::span<const PlannedResult> plan, const StopRule& stop,
               SchedulerSettings settings, const std::vector<int>& rcu_expedited,
               const Scheduler::Emit& done = {});
  // A finished result: kept, and handed to every reporter.
  void add(Result result) { emit(std::move(result)); }
  // tune's recommendation, to every reporter (before finish).
  void recommend(const TuneSummary& summary);

  // Lets every reporter write what it has; call once, also after Interrupted or Error.
  void finish(bool complete);
  [[nodiscard]] std::span<const Result> results() const { return results_; }
  [[nodiscard]] const Environment& environment() const { return env_; }

 private:
  void emit(Result result);
  // Runs `block` once per --rcu-expedited value with it set (once, as it is, without any).
  // Waits for another run's hold on the setting at most `timeout_s` (0: kRcuLockWait).
  void each_rcu_setting(const std::vector<int>& values, double timeout_s,
                        const std::function<void()>& block);
  // The progress line's view of the private file set being made.
  [[nodiscard]] FileSet::CreationProgress creation_progress() const;
  // Tells the progress line what the command will measure.
  void plan_progress(std::size_t results, const Repeat& repeat, int warmup);
  Environment env_;
  std::optional<RunContext> context_;
  std::vector<std::unique_ptr<Reporter>> reporters_;
  std::vector<Result> results_;
  bool finished_ = false;
  Progress* progress_ = nullptr;
  TableLayout layout_;  // the section announced last: the live table's optional columns
  TraceOut* trace_out_ = nullptr;
  std::function<void(const std::string&)> say_;
  std::optional<int> rcu_block_;  // the rcu_expedited value set for the results now measured
  // --kernel-trace: attaches once, before any worker exists, and fills in `settings` and
  // `section` with the tracer or why there is none.
  void trace_kernel(bool asked, Section& section);
  // Attaches the tracer if asked and not tried yet: first in a command, so that the descriptor
  // budget counts its descriptors and every worker inherits it.
  void attach_kernel(bool asked);
  std::unique_ptr<platform::KernelTracer> kernel_;
  KernelTraceRequest kernel_request_;  // the command's
  std::string kernel_unavailable_;
  bool kernel_tried_ = false;
};

}  // namespace fdbench
