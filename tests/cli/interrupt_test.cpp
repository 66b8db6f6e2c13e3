// Ctrl-C and SIGTERM at every stage of a run (and every other signal that would end it, at
// two), sent to fdbench alone or to its whole process
// group (as a terminal does): fdbench stops promptly, exits 128 + signal, removes its private
// directory, leaves no process behind, and still writes what it finished, marked incomplete.
//
// The only timing asserted is a generous upper bound on how long a stop takes: fdbench polls
// for the signal at least every 4,096 items, which is well under a second here; the tests
// allow kStopBound (5 s) so that a loaded machine cannot make them flaky.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "model/results_json.hpp"
#include "support/child_pids.hpp"
#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"
#include "support/wait_until.hpp"

namespace fdbench::testing {
namespace interrupt_test {

constexpr double kStopBound = 5.0;  // seconds from the signal to the exit; the goal is 2

enum class Stage {
  creating_files,   // FileSet::create
  repetitions,      // measure(): timed repetitions in fdbench itself
  process_workers,  // measure() with forked `process` workers
  socket_children,  // measure_in_fresh_child(): every repetition in a fresh child
  socket_process,   // ... and that child forks `process` workers of its own
  keep_open,        // open --keep-open: fresh children that hold the files, with workers
};

struct InterruptCase {
  const char* name;
  Stage stage;
};

std::vector<std::string> args_for(Stage stage, const std::string& dir, const std::string& out) {
  std::vector<std::string> args;
  switch (stage) {
    case Stage::creating_files:  // creating 200,000 files takes seconds, even on tmpfs
      args = {"open",       "--files", "200000",   "--threads", "1",
              "--strategy", "threads", "--repeat", "1"};
      break;
    case Stage::repetitions:
      args = {"open",       "--files", "50",       "--threads", "2",
              "--strategy", "threads", "--repeat", "100000"};
      break;
    case Stage::process_workers:
      args = {"open",       "--files", "50",       "--threads", "2",
              "--strategy", "process", "--repeat", "100000"};
      break;
    case Stage::socket_children:
      args = {"socket",       "--strategy", "threads",  "--threads", "2",
              "--per-thread", "64",         "--repeat", "100000"};
      break;
    case Stage::socket_process:
      args = {"socket",       "--strategy", "process",  "--threads", "2",
              "--per-thread", "64",         "--repeat", "100000"};
      break;
    case Stage::keep_open:
      args = {"open",       "--files", "50",          "--threads", "2",
              "--strategy", "process", "--keep-open", "--repeat",  "100000"};
      break;
  }
  if (args[0] == "open") args.insert(args.end(), {"--dir", dir});
  args.insert(args.end(), {"--warmup", "0", "--format", "json", "--output", out});
  return args;
}

// Waits (bounded) until the run has reached `stage`; false if it never did.
bool reach(Stage stage, const FdbenchProcess& child, const std::string& dir) {
  const auto set_complete = [&](std::size_t files) {
    const auto found = private_dirs(dir);
    return !found.empty() && list_names(dir + "/" + found[0]).size() == files + 1;  // + marker
  };
  switch (stage) {
    case Stage::creating_files:
      return wait_until([&] { return !private_dirs(dir).empty(); });
    case Stage::repetitions:
      return wait_until([&] { return set_complete(50); });
    // fdbench's first children look at the paths its command line names, before the plan:
    // the workers are the children after it.
    case Stage::process_workers:
      return child.wait_for_event("plan") &&
             wait_until([&] { return set_complete(50) && !children_of(child.pid()).empty(); });
    case Stage::socket_children:
    case Stage::socket_process:
      return child.wait_for_event("plan") &&
             wait_until([&] { return !children_of(child.pid()).empty(); });
    case Stage::keep_open:
      return child.wait_for_event("plan") &&
             wait_until([&] { return set_complete(50) && !children_of(child.pid()).empty(); });
  }
  return false;
}

// The number in "fdbench: interrupted by signal 2; 3 finished results kept", or -1.
int results_kept(const std::string& err) {
  const auto line = err.find("interrupted by signal ");
  const auto count = err.find("; ", line);
  if (line == std::string::npos || count == std::string::npos) return -1;
  return std::atoi(err.c_str() + count + 2);
}

// Whether result `r` carries the warning of a result cut short after `timed` repetitions.
bool says_cut_short(const nlohmann::json& r, std::size_t timed) {
  const std::string warning = fmt::format("interrupted: {} of {} timed repetitions ran", timed,
                                          r.at("repeat").get<std::size_t>());
  if (!r.contains("warnings")) return false;
  for (const auto& w : r.at("warnings")) {
    if (w.get<std::string>() == warning) return true;
  }
  return false;
}

// The file an interrupted run wrote: complete JSON, marked incomplete, holding exactly the
// results kept, each with every repetition it promised or, cut short, the ones it ran and
// a warning that says so.
void expect_partial_document(const std::string& path, const std::string& err) {
  const std::string text = read_text(path);
  ASSERT_FALSE(text.empty()) << "no --output file written";
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc.at("schema_version"), kSchemaVersion);
  EXPECT_EQ(doc.at("complete"), false);
  const auto& results = doc.at("results");
  EXPECT_EQ(static_cast<int>(results.size()), results_kept(err)) << err;
  for (const auto& r : results) {
    if (r.contains("error")) continue;
    const std::size_t timed = r.at("times_ns").size();
    EXPECT_GT(timed, 0U) << "a result without a timed repetition was kept: " << r.dump();
    if (timed != r.at("repeat").get<std::size_t>()) {
      EXPECT_TRUE(says_cut_short(r, timed)) << "a result cut short is not marked: " << r.dump();
    }
  }
}

void expect_nothing_left(FdbenchProcess& child, const std::string& dir, const std::string& out) {
  const auto left = child.leftovers();
  EXPECT_EQ(left.running, 0) << "processes of fdbench's group outlived it";
  EXPECT_EQ(left.orphans, 0) << "fdbench's processes died without reaping their children";
  EXPECT_EQ(private_dirs(dir), std::vector<std::string>{}) << "the private directory was left";
  for (const auto& name : list_names(std::filesystem::path(out).parent_path().string())) {
    EXPECT_EQ(name.find(".tmp-"), std::string::npos) << "temporary output left: " << name;
  }
}

struct Param {
  InterruptCase what;
  int signal;
  bool whole_group;
};

// Every signal that would end fdbench and that it can catch is handled as SIGTERM is.
struct NamedSignal {
  int number;
  const char* name;
};
constexpr NamedSignal kOtherSignals[] = {
    {SIGHUP, "SIGHUP"},   {SIGQUIT, "SIGQUIT"}, {SIGUSR1, "SIGUSR1"},     {SIGUSR2, "SIGUSR2"},
    {SIGALRM, "SIGALRM"}, {SIGXCPU, "SIGXCPU"}, {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}};

std::string signal_name(int sig) {
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  for (const auto& s : kOtherSignals) {
    if (s.number == sig) return s.name;
  }
  return std::to_string(sig);
}

// For ctest's listing: the name, not the bytes.
void PrintTo(const Param& p, std::ostream* os) {
  *os << p.what.name << " " << signal_name(p.signal)
      << (p.whole_group ? " to the group" : " to fdbench");
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  return std::string(info.param.what.name) + "_" + signal_name(info.param.signal) +
         (info.param.whole_group ? "_ToTheGroup" : "_ToFdbench");
}

class InterruptAt : public ::testing::TestWithParam<Param> {};

TEST_P(InterruptAt, StopsPromptlyCleansUpAndKeepsWhatFinished) {
  const Param p = GetParam();
  FastTempDir dir;
  TempDir out_dir;
  const std::string out = out_dir / "results.json";
  const auto args = args_for(p.what.stage, dir.path(), out);
  SCOPED_TRACE(describe(args));
  FdbenchProcess child(args, as_a_job());
  ASSERT_TRUE(reach(p.what.stage, child, dir.path())) << "the run never reached the stage";
  child.signal(p.signal, p.whole_group);
  const RunResult run = child.wait();
  ASSERT_NE(run.exit_code, -1) << "fdbench did not exit after the signal: " << run.err;
  EXPECT_LE(run.seconds, kStopBound) << "stopping took too long";
  EXPECT_EQ(run.exit_code, 128 + p.signal) << run.err;
  EXPECT_NE(run.err.find("interrupted by signal " + std::to_string(p.signal)), std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("Error:"), std::string::npos) << run.err;
  expect_partial_document(out, run.err);
  expect_nothing_left(child, dir.path(), out);
}

constexpr InterruptCase kCases[] = {
    {"CreatingFiles", Stage::creating_files},
    {"Repetitions", Stage::repetitions},
    {"ProcessWorkers", Stage::process_workers},
    {"SocketFreshChildren", Stage::socket_children},
    {"SocketFreshChildrenWithWorkers", Stage::socket_process},
    {"KeepOpenFreshChildren", Stage::keep_open},
};

std::vector<Param> all_params() {
  std::vector<Param> params;
  for (const InterruptCase& c : kCases) {
    for (const int sig : {SIGINT, SIGTERM}) {
      for (const bool group : {false, true}) params.push_back({c, sig, group});
    }
  }
  // The others (a closed terminal's SIGHUP, a CPU limit's SIGXCPU, ...) at the stages with the
  // most to clean up: the private set in this process, and fresh children with workers.
  for (const InterruptCase& c : {kCases[1], kCases[4]}) {
    for (const auto& s : kOtherSignals) params.push_back({c, s.number, false});
  }
  return params;
}

INSTANTIATE_TEST_SUITE_P(Stages, InterruptAt, ::testing::ValuesIn(all_params()), param_name);

// The results finished before the signal are in the file: here, one after the other,
// `threads` finishes, and the signal comes while the `process` workers of the second result
// run; that one is kept only with the repetitions it finished, and says so.
TEST(Interrupt, ResultsFinishedBeforeTheSignalAreKept) {
  for (const bool group : {false, true}) {
    SCOPED_TRACE(group ? "to the group" : "to fdbench");
    FastTempDir dir;
    TempDir out_dir;
    const std::string out = out_dir / "results.json";
    const std::vector<std::string> args{"open",
                                        "--files",
                                        "1",
                                        "--threads",
                                        "1",
                                        "--strategy",
                                        "threads,process",
                                        "--repeat",
                                        "100000",
                                        "--warmup",
                                        "0",
                                        "--dir",
                                        dir.path(),
                                        "--format",
                                        "json",
                                        "--output",
                                        out,
                                        "--order",
                                        "sequential"};
    FdbenchProcess child(args, as_a_job());
    ASSERT_TRUE(child.wait_for_event("plan")) << child.err_so_far();
    ASSERT_TRUE(wait_until([&] { return !children_of(child.pid()).empty(); }))
        << "the process workers never started";
    child.signal(SIGINT, group);
    const RunResult run = child.wait();
    EXPECT_LE(run.seconds, kStopBound);
    EXPECT_EQ(run.exit_code, 128 + SIGINT) << run.err;
    expect_partial_document(out, run.err);
    const auto doc = nlohmann::json::parse(read_text(out));
    const auto& results = doc.at("results");
    ASSERT_GE(results.size(), 1U) << run.err;
    ASSERT_LE(results.size(), 2U) << run.err;
    const auto& r = results[0];
    EXPECT_EQ(r.at("strategy"), "threads");
    EXPECT_FALSE(r.contains("error")) << r.dump();
    EXPECT_EQ(r.at("times_ns").size(), 100000U);
    if (results.size() == 2) {  // the signal came after a `process` repetition finished
      EXPECT_EQ(results[1].at("strategy"), "process");
      EXPECT_LT(results[1].at("times_ns").size(), 100000U);
      EXPECT_NE(run.err.find("(1 cut short, with the repetitions it ran)"), std::string::npos)
          << run.err;
    }
    expect_nothing_left(child, dir.path(), out);
  }
}

// Interleaved (the default), every result of the sweep is under way when the signal comes:
// each is kept with the repetitions it ran, which differ by at most one between them.
TEST(Interrupt, InterleavedResultsAreKeptWithTheRepetitionsTheyRan) {
  FastTempDir dir;
  TempDir out_dir;
  const std::string out = out_dir / "results.json";
  const std::vector<std::string> args{
      "open",         "--files",  "1",      "--threads",     "1,2", "--strategy",
      "threads,pool", "--repeat", "100000", "--warmup",      "0",   "--dir",
      dir.path(),     "--format", "json",   "--export-json", out};
  FdbenchProcess child(args, as_a_job());
  // Three rounds: each of the 4 results has run 3 repetitions.
  ASSERT_TRUE(child.wait_for_event("repetition-done", 12)) << "the run never took 3 rounds";
  child.signal(SIGINT, false);
  const RunResult run = child.wait();
  EXPECT_EQ(run.exit_code, 128 + SIGINT) << run.err;
  expect_partial_document(out, run.err);
  const auto doc = nlohmann::json::parse(read_text(out));
  const auto& results = doc.at("results");
  ASSERT_EQ(results.size(), 4U) << run.err;
  std::size_t least = 100000;
  std::size_t most = 0;
  for (const auto& r : results) {
    EXPECT_EQ(r.at("parameters").at("order"), "interleaved");
    least = std::min(least, r.at("times_ns").size());
    most = std::max(most, r.at("times_ns").size());
  }
  EXPECT_GE(least, 3U);
  EXPECT_LE(most - least, 1U) << "the results' repetitions did not take turns";
  EXPECT_NE(run.err.find("4 results kept (4 cut short"), std::string::npos) << run.err;
  expect_nothing_left(child, dir.path(), out);
}

// A second Ctrl-C while the first is being handled changes nothing.
TEST(Interrupt, RepeatedSignalsStillCleanUp) {
  FastTempDir dir;
  TempDir out_dir;
  const std::string out = out_dir / "results.json";
  const auto args = args_for(Stage::keep_open, dir.path(), out);
  FdbenchProcess child(args, as_a_job());
  ASSERT_TRUE(reach(Stage::keep_open, child, dir.path()));
  for (int i = 0; i < 5; ++i) child.signal(SIGINT, true);
  const RunResult run = child.wait();
  EXPECT_LE(run.seconds, kStopBound);
  EXPECT_EQ(run.exit_code, 128 + SIGINT) << run.err;
  expect_partial_document(out, run.err);
  expect_nothing_left(child, dir.path(), out);
}

// Ctrl-C while the last output is being written (issue 21 item 16: the signal was swallowed,
// exit 0): the output is finished, whole, and the exit code says the run was interrupted. The
// output is a FIFO with a one-page buffer: the test takes the first bytes, so fdbench is
// writing (and blocked on the full pipe), signals, then reads the rest.
TEST(Interrupt, CtrlCWhileTheOutputIsWrittenFinishesItAndExits130) {
  FastTempDir dir;
  TempDir out_dir;
  const std::string fifo = out_dir / "results.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  ASSERT_GE(fcntl(reader, F_SETPIPE_SZ, 4096), 0);
  FdbenchProcess child(
      // 1,000 times make the document some 10 KB on every platform: more than the pipe holds
      // (the portable build's, with fewer fields, fitted it with 3).
      {"open", "--files", "50", "--threads", "1", "--strategy", "threads", "--repeat", "1000",
       "--warmup", "0", "--format", "json", "--output", fifo, "--dir", dir.path(), "--quiet"},
      as_a_job());
  std::string text;
  char buffer[4096];
  EXPECT_TRUE(wait_until([&] {
    const ssize_t n = read(reader, buffer, 100);
    if (n > 0) text.append(buffer, static_cast<std::size_t>(n));
    return !text.empty();
  })) << "fdbench never wrote its output";
  child.signal(SIGINT);
  fcntl(reader, F_SETFL, 0);
  for (ssize_t n; (n = read(reader, buffer, sizeof buffer)) > 0;) {
    text.append(buffer, static_cast<std::size_t>(n));
  }
  close(reader);
  const RunResult run = child.wait();
  EXPECT_EQ(run.exit_code, 128 + SIGINT) << run.err;
  EXPECT_NE(run.err.find("interrupted by signal 2 as the run ended"), std::string::npos) << run.err;
  ASSERT_GT(text.size(), 4096U) << "the document fits the pipe: nothing was left to write";
  const auto doc = nlohmann::json::parse(text);  // whole
  EXPECT_TRUE(doc.at("complete").get<bool>());
  EXPECT_EQ(doc.at("results").size(), 1U);
  EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{});
}

// One SIGTERM (what `timeout` and systemd send, once) ends a run whose output a reader stopped
// taking (issue 39 item 8): the output is given up with a line, exit 143. Before, only a second
// signal did, and `timeout 20 fdbench ... --output fifo` lived on.
TEST(Interrupt, OneSigtermEndsARunBlockedOnAnOutputNobodyReads) {
  FastTempDir dir;
  TempDir out_dir;
  const std::string fifo = out_dir / "results.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  ASSERT_GE(fcntl(reader, F_SETPIPE_SZ, 4096), 0);
  RunOptions options = as_a_job();
  options.timeout = std::chrono::seconds(30);
  FdbenchProcess child({"open", "--files", "50", "--threads", "1", "--strategy", "threads",
                        "--repeat", "1000", "--warmup", "0", "--format", "json", "--output", fifo,
                        "--dir", dir.path(), "--quiet"},
                       options);
  char buffer[100];
  EXPECT_TRUE(wait_until([&] { return read(reader, buffer, sizeof buffer) > 0; }))
      << "fdbench never wrote its output";
  child.signal(SIGTERM);  // and nothing more is read
  const RunResult run = child.wait();
  close(reader);
  EXPECT_EQ(run.exit_code, 128 + SIGTERM) << run.err;
  EXPECT_NE(run.err.find("cannot write --output " + fifo + ": given up at the signal"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{});
}

// The same for an export to a FIFO that no reader ever opens: its open waits, and one SIGTERM
// ends the wait (or finds the run before it, and does not start it).
TEST(Interrupt, OneSigtermEndsARunWaitingForAnExportsReader) {
  FastTempDir dir;
  TempDir out_dir;
  const std::string fifo = out_dir / "export.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  RunOptions options = as_a_job();
  options.timeout = std::chrono::seconds(30);
  FdbenchProcess child({"open", "--files", "50", "--threads", "1,2", "--strategy", "threads",
                        "--repeat", "3", "--warmup", "0", "--export-json", fifo, "--dir",
                        dir.path(), "--quiet"},
                       options);
  ASSERT_TRUE(child.wait_for_event("result-done")) << child.err_so_far();
  child.signal(SIGTERM);
  const RunResult run = child.wait();
  EXPECT_EQ(run.exit_code, 128 + SIGTERM) << run.err;
  EXPECT_NE(run.err.find("--export-json " + fifo), std::string::npos) << run.err;
  EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{});
}

// No zombies and no orphans after `process` runs: neither after a normal one nor when a
// worker is killed under fdbench's feet (its result then carries the error; the run goes on,
// and since that result, its only one, failed, it measured nothing: exit 1).
TEST(ProcessWorkers, NothingOutlivesARunEvenWhenAWorkerIsKilled) {
  FastTempDir dir;
  {
    FdbenchProcess child({"open", "--files", "50", "--threads", "1,3", "--strategy", "process",
                          "--repeat", "3", "--dir", dir.path(), "--format", "json"},
                         as_a_job());
    const RunResult run = child.wait();
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const auto left = child.leftovers();
    EXPECT_EQ(left.running + left.orphans, 0);
  }
  FdbenchProcess child(
      {"open", "--files", "50", "--threads", "3", "--strategy", "process", "--repeat", "100000",
       "--warmup", "0", "--dir", dir.path(), "--format", "json"},
      as_a_job());
  std::vector<pid_t> workers;
  ASSERT_TRUE(child.wait_for_event("plan")) << child.err_so_far();
  ASSERT_TRUE(wait_until([&] { return (workers = children_of(child.pid())).size() == 3; }));
  ASSERT_EQ(kill(workers[1], SIGKILL), 0);
  const RunResult run = child.wait();
  // A strategy that fails is a result, not the end; a run whose every result failed exits 1.
  ASSERT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("Error: nothing was measured: every result failed (1 result)"),
            std::string::npos)
      << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  ASSERT_EQ(doc.at("results").size(), 1U);
  EXPECT_EQ(doc.at("results")[0].at("status"), "failed") << doc.at("results")[0].dump();
  EXPECT_NE(doc.at("results")[0].value("error", "").find("signal 9"), std::string::npos)
      << doc.at("results")[0].dump();
  for (const pid_t worker : workers) {
    EXPECT_TRUE(kill(worker, 0) != 0 && errno == ESRCH) << "worker " << worker << " remains";
  }
  const auto left = child.leftovers();
  EXPECT_EQ(left.running, 0);
  EXPECT_EQ(left.orphans, 0);
  EXPECT_EQ(private_dirs(dir.path()), std::vector<std::string>{});
}

}  // namespace interrupt_test
}  // namespace fdbench::testing
