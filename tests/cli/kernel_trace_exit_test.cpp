// --kernel-trace on every way out (issue 20): after Ctrl-C, SIGTERM, a --timeout that fires or
// an error once tracing has started, fdbench exits with its documented code and no process of
// the run is left holding a perf event (a descriptor anon_inode:[perf_event] in /proc/PID/fd).
// While it runs, only fdbench holds them: fork would copy them into every child, and a child
// that outlived fdbench (a worker abandoned in an open that not even SIGKILL ends at once)
// would keep the events alive, so each child closes its copies at fork. The run's processes
// are found by a marker in their environment, wherever they went (support/run_processes.hpp).
// Skipped where this process cannot trace (not root or CAP_PERFMON, or the portable build).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <vector>

#include "platform/platform.hpp"
#include "support/child_pids.hpp"
#include "support/fdbench_process.hpp"
#include "support/hang_opens.hpp"
#include "support/require.hpp"
#include "support/run_processes.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace kernel_trace_exit_test {

// A run of its own group, its processes marked.
struct MarkedRun {
  std::string marker = new_run_marker();
  RunOptions options = [this] {
    RunOptions o = as_a_job();
    o.env.push_back(marker);
    return o;
  }();
};

// The run's processes holding perf events now, as "PID (N)" each; "" when none.
std::string perf_event_holders(const std::string& marker, pid_t except = -1) {
  std::string holders;
  for (const pid_t pid : processes_marked(marker)) {
    const int events = pid == except ? 0 : perf_event_descriptors(pid);
    if (events > 0) holders += fmt::format(" {} ({})", pid, events);
  }
  return holders;
}

// While the run is under way: fdbench holds its events, and (once any child just forked has
// closed its copies) no other process of the run holds one.
void expect_only_fdbench_holds_events(pid_t fdbench, const std::string& marker) {
  EXPECT_GT(perf_event_descriptors(fdbench), 0) << "fdbench holds no perf event";
  std::string holders;
  EXPECT_TRUE(wait_until(
      [&] {
        holders = perf_event_holders(marker, fdbench);
        return holders.empty();
      },
      std::chrono::seconds(5)))
      << "processes of the run other than fdbench holding perf events:" << holders;
}

// After the run has exited: no process of it holds a perf event (a dying one gets a few seconds
// to go), and none is left running.
void expect_nothing_attached(FdbenchProcess& run, const std::string& marker) {
  std::string holders;
  EXPECT_TRUE(wait_until(
      [&] {
        holders = perf_event_holders(marker);
        return holders.empty();
      },
      std::chrono::seconds(5)))
      << "processes of the run still holding perf events:" << holders;
  EXPECT_EQ(run.leftovers().running, 0) << "a process of the run outlived it";
}

std::string why_no_trace() {
  return platform::kernel_trace_unavailable();
}

// Traced runs with child processes: `process` workers forked by fdbench itself (an `open`
// run, its files made in `dir`), and a `socket` run's fresh children with workers of their own.
std::vector<std::vector<std::string>> traced_runs(const std::string& dir) {
  return {{"open", "--files", "200", "--dir", dir, "--strategy", "process", "--threads", "2",
           "--kernel-trace"},
          {"socket", "--strategy", "process", "--threads", "2", "--kernel-trace"}};
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

#ifdef FDBENCH_HANG_OPENS
// A tree of a few files, one of which (hang-here.txt) hangs when opened under the tool.
struct HangingTree {
  TempDir dir;
  HangingTree() {
    for (const char* name : {"a.txt", "b.txt", "c.txt"}) write_text(dir / name, "x");
    write_text(dir / "hang-here.txt", "never opened\n");
  }
};

// fdbench under fdbench_hang_opens, tracing, opening the tree's files with `strategy`.
FdbenchProcess hanging_run(const HangingTree& tree, const std::string& strategy,
                           const std::vector<std::string>& more, const MarkedRun& marked) {
  std::vector<std::string> args{
      "hang-here",  "--",     fdbench_binary(), "open", "--tree",         tree.dir.path(),
      "--strategy", strategy, "--threads",      "2",    "--kernel-trace", "--quiet"};
  args.insert(args.end(), more.begin(), more.end());
  RunOptions options = marked.options;
  options.program = FDBENCH_HANG_OPENS;
  return FdbenchProcess(args, options);
}
#endif

// Ctrl-C and SIGTERM in the middle of a traced run: exit 130 and 143, nothing left attached.
TEST(KernelTraceExit, CtrlCAndSigtermMidRunLeaveNothingAttached) {
  if (const std::string why = why_no_trace(); !why.empty()) {
    FDBENCH_SKIP_WITHOUT("kernel_trace") << why;
  }
  const TempDir work;
  for (const auto& traced : traced_runs(work.path())) {
    for (const int sig : {SIGINT, SIGTERM}) {
      SCOPED_TRACE(describe(traced) + fmt::format(", signal {}", sig));
      const MarkedRun marked;
      FdbenchProcess fdbench(with(traced, {"--repeat", "100000"}), marked.options);
      ASSERT_TRUE(fdbench.wait_for_event("repetition-done", 2)) << fdbench.wait().err;
      // A child of the run is there at some moment (a `socket` run's live between repetitions).
      EXPECT_TRUE(wait_until([&] { return processes_marked(marked.marker).size() >= 2; }))
          << "no child process of the run was seen";
      expect_only_fdbench_holds_events(fdbench.pid(), marked.marker);
      fdbench.signal(sig);
      const auto run = fdbench.wait();
      EXPECT_EQ(run.exit_code, 128 + sig) << run.err;
      expect_nothing_attached(fdbench, marked.marker);
    }
  }
}

// An error once tracing has started: an --export-* that cannot be written (/dev/full, written
// in place, fails with ENOSPC at the end, after every worker has been reaped) and a --list whose
// entry is longer than a path (read after the events are attached, before anything runs). Both
// exit 1 with one line.
TEST(KernelTraceExit, AnErrorAfterTracingStartedLeavesNothingAttached) {
  if (const std::string why = why_no_trace(); !why.empty()) {
    FDBENCH_SKIP_WITHOUT("kernel_trace") << why;
  }
  const TempDir work;
  {
    const MarkedRun marked;
    FdbenchProcess fdbench(
        with(traced_runs(work.path())[0], {"--repeat", "2", "--export-json", "/dev/full"}),
        marked.options);
    const auto run = fdbench.wait();
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_NE(run.err.find("Error: cannot write --export-json /dev/full: No space left on device"),
              std::string::npos)
        << run.err;
    expect_nothing_attached(fdbench, marked.marker);
  }
  {
    const std::string list = work / "list";
    write_text(list, work / "a.txt\n" + std::string(5000, 'y') + "\n");
    write_text(work / "a.txt", "x");
    const MarkedRun marked;
    FdbenchProcess fdbench({"open", "--list", list, "--strategy", "process", "--kernel-trace"},
                           marked.options);
    const auto run = fdbench.wait();
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_NE(run.err.find("longer than a path"), std::string::npos) << run.err;
    expect_nothing_attached(fdbench, marked.marker);
  }
}

#ifdef FDBENCH_HANG_OPENS
// --timeout fires on an open that never returns: exit 1. With `process` the stuck worker,
// which holds copies of fdbench's perf event descriptors, is abandoned, then killed.
TEST(KernelTraceExit, ATimeoutThatFiresLeavesNothingAttached) {
  if (const std::string why = why_no_trace(); !why.empty()) {
    FDBENCH_SKIP_WITHOUT("kernel_trace") << why;
  }
  for (const std::string strategy : {"threads", "process"}) {
    SCOPED_TRACE(strategy);
    const HangingTree tree;
    const MarkedRun marked;
    FdbenchProcess tool = hanging_run(tree, strategy, {"--timeout", "1"}, marked);
    const auto run = tool.wait();
    if (run.exit_code == kHangOpensUnavailable) FDBENCH_SKIP_WITHOUT("hang_opens") << run.err;
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_NE(run.err.find("fdbench: timed out: "), std::string::npos) << run.err;
    expect_nothing_attached(tool, marked.marker);
  }
}

// Ctrl-C while a `process` worker is stuck in an open: the run ends after the grace a stuck
// repetition gets (exit 130), the worker abandoned and killed. While it was stuck it held none
// of fdbench's events, so even a worker that SIGKILL could not end would hold nothing.
TEST(KernelTraceExit, CtrlCOnAStuckProcessWorkerLeavesNothingAttached) {
  if (const std::string why = why_no_trace(); !why.empty()) {
    FDBENCH_SKIP_WITHOUT("kernel_trace") << why;
  }
  const HangingTree tree;
  const MarkedRun marked;
  FdbenchProcess tool = hanging_run(tree, "process", {}, marked);
  const bool held = tool.wait_for_event("open-held ");
  const std::vector<pid_t> fdbench = children_of(tool.pid());
  if (held && fdbench.size() == 1) expect_only_fdbench_holds_events(fdbench[0], marked.marker);
  tool.signal(SIGINT);  // to the tool, which passes it on to fdbench
  const auto run = tool.wait();
  if (run.exit_code == kHangOpensUnavailable) FDBENCH_SKIP_WITHOUT("hang_opens") << run.err;
  ASSERT_TRUE(held) << "no open was held: " << run.err;
  EXPECT_EQ(fdbench.size(), 1U) << "fdbench is the tool's one child";
  EXPECT_EQ(run.exit_code, 128 + SIGINT) << run.err;
  expect_nothing_attached(tool, marked.marker);
}
#endif

}  // namespace kernel_trace_exit_test
}  // namespace fdbench::testing
