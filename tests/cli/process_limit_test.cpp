// A strategy that cannot start its threads or processes (issue 21, item 7) gives an
// unavailable result that says so and which limit stood in the way, and the run goes on: no
// crash ("terminate called without an active exception"), no deadlock, no file set left.
//
// The limit is real: fdbench runs as a user no process has (see support/other_user.hpp) with
// RLIMIT_NPROC 2 (prlimit --nproc), so besides itself the user may have one more process or
// thread: a strategy that needs more starts some and then cannot start the next.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "engine/strategy.hpp"
#include "platform/platform.hpp"
#include "support/fdbench_process.hpp"
#include "support/other_user.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace process_limit_test {

constexpr int kProcesses = 2;  // fdbench and one more

// The strategies `fdbench strategies` says can run here, but accept's alone (these runs open).
std::vector<std::string> available_strategies() {
  std::vector<std::string> names;
  for (const auto& line : lines_of(run_fdbench({"strategies"}).out)) {
    const auto space = line.find(' ');
    if (space != 0 && line.find(" available ") != std::string::npos) {
      const std::string name = line.substr(0, space);
      if (!find_strategy(name)->accepts_only) names.push_back(name);
    }
  }
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ",") + name;
  return text;
}

// Runs `args` as another user under the limit; the run's JSON on stdout.
struct LimitedRun {
  RunResult run;
  nlohmann::json doc;
};
LimitedRun run_limited(std::vector<std::string> args, const std::string& work,
                       int processes = kProcesses) {
  RunOptions options = as_a_job();
  args.insert(args.end(), {"--repeat", "1", "--warmup", "0", "--format", "json"});
  if (args[0] == "open") args.insert(args.end(), {"--dir", work});
  const auto wrapped = as_user(unused_uid(), args, options, processes);  // sets the program
  FdbenchProcess child(wrapped, options);
  LimitedRun limited{child.wait(), {}};
  const auto left = child.leftovers();
  EXPECT_EQ(left.running + left.orphans, 0) << "processes outlived fdbench";
  limited.doc = nlohmann::json::parse(limited.run.out, nullptr, false);
  return limited;
}

// `result` is unavailable and says what it could not create and which limit stopped it.
void expect_cannot_create(const nlohmann::json& result) {
  SCOPED_TRACE(result.dump());
  EXPECT_EQ(result.at("status"), "unavailable");
  const std::string error = result.at("error");
  EXPECT_EQ(error.rfind("cannot create ", 0), 0U) << error;
  EXPECT_NE(error.find("(Resource temporarily unavailable; "), std::string::npos) << error;
  EXPECT_NE(error.find("ulimit -u is " + std::to_string(kProcesses) + " for this user"),
            std::string::npos)
      << error;
}

class ProcessLimit : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = cannot_switch_user(); !why.empty()) GTEST_SKIP() << why;
    chmod(work_.path().c_str(), 0777);
  }
  void TearDown() override {
    EXPECT_EQ(private_dirs(work_.path()), std::vector<std::string>{}) << "a file set was left";
  }
  FastTempDir work_;
};

TEST_F(ProcessLimit, StrategiesThatCannotStartTheirWorkersAreUnavailableAndTheRunGoesOn) {
  const auto strategies = available_strategies();
  ASSERT_FALSE(strategies.empty());
  const auto [run, doc] = run_limited({"open", "--files", "100", "--threads", "1,4", "--strategy",
                                       joined(strategies), "--order", "sequential"},
                                      work_.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;  // unavailable results are results, as anywhere
  EXPECT_EQ(run.err.find("terminate"), std::string::npos) << run.err;
  ASSERT_TRUE(doc.is_object()) << run.out;
  EXPECT_EQ(doc.at("complete"), true);
  std::map<std::string, std::string> expected_what{
      {"threads", "3 threads"},      {"fast-pool", "3 threads"}, {"uring", "3 threads"},
      {"uring-direct", "3 threads"}, {"pool", "4 threads"},      {"pool-batch", "4 threads"},
      {"process", "4 processes"}};
  std::size_t seen = 0;
  for (const auto& result : doc.at("results")) {
    const std::string strategy = result.at("strategy");
    const int threads = result.at("threads");
    SCOPED_TRACE(strategy + " with " + std::to_string(threads));
    ++seen;
    if (threads == 4) {
      expect_cannot_create(result);
      // libuv: its helper process, or its 4 threads; the others as counted above.
      if (const auto what = expected_what.find(strategy); what != expected_what.end()) {
        EXPECT_EQ(result.at("error").get<std::string>().rfind("cannot create " + what->second, 0),
                  0U);
      }
    } else if (strategy == "threads" || strategy == "fast-pool") {
      EXPECT_EQ(result.at("status"), "measured") << "the calling thread alone needs no other";
    } else if (result.at("status") == "unavailable") {  // one more thread or process, if it could
      expect_cannot_create(result);
    } else {
      EXPECT_EQ(result.at("status"), "measured");
    }
  }
  EXPECT_EQ(seen, strategies.size() * 2);
}

// The pool's workers that did start are stopped and joined before the pool goes: it used to
// destroy the condition variable they waited on (a deadlock) or abort.
TEST_F(ProcessLimit, APoolThatStartsSomeOfItsThreadsStopsThem) {
  const auto [run, doc] =
      run_limited({"open", "--files", "100", "--threads", "2,3,8", "--strategy", "pool,pool-batch"},
                  work_.path());
  EXPECT_EQ(run.exit_code, 1) << run.err;  // every result unavailable: nothing was measured
  EXPECT_NE(run.err.find("Error: nothing was measured: every result was unavailable (6 results); "
                         "each result says why\n"),
            std::string::npos)
      << run.err;
  ASSERT_TRUE(doc.is_object()) << run.out;
  ASSERT_EQ(doc.at("results").size(), 6U);
  for (const auto& result : doc.at("results")) expect_cannot_create(result);
}

// Sockets are measured in a fresh child per repetition: it cannot start its workers either.
// Nothing was measured, so the run exits 1 (issue 34 item 7: it exited 0), after the results.
TEST_F(ProcessLimit, AFreshChildThatCannotStartItsWorkersIsUnavailable) {
  const auto [run, doc] = run_limited(
      {"socket", "--strategy", "threads,process", "--threads", "4", "--per-thread", "16"},
      work_.path());
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("Error: nothing was measured: every result was unavailable ("),
            std::string::npos)
      << run.err;
  ASSERT_TRUE(doc.is_object()) << run.out;
  ASSERT_FALSE(doc.at("results").empty());
  for (const auto& result : doc.at("results")) expect_cannot_create(result);
}

// --timeout (a --tree's default) runs repetitions on a thread of its own: when not even that
// one can be made, the run ends at once with one line naming the limit, not std::terminate.
TEST_F(ProcessLimit, NoThreadForTimeoutIsAnErrorInOneLine) {
  TempDir tree;
  chmod(tree.path().c_str(), 0755);
  for (const char* name : {"a", "b", "c"}) write_text(tree / name, "");
  for (const char* command : {"open", "tune"}) {
    SCOPED_TRACE(command);
    std::vector<std::string> args{command, "--tree", tree.path(), "--strategy", "threads"};
    if (std::string(command) == "tune") args.insert(args.end(), {"--budget", "1"});
    RunOptions options = as_a_job();
    const auto wrapped = as_user(unused_uid(), args, options, 1);  // fdbench alone
    FdbenchProcess child(wrapped, options);
    const RunResult run = child.wait();
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_EQ(run.err.find("terminate"), std::string::npos) << run.err;
    const auto line = run.err.find("Error: cannot create the thread that --timeout runs");
    ASSERT_NE(line, std::string::npos) << run.err;
    EXPECT_NE(run.err.find("ulimit -u is 1 for this user", line), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("--timeout none", line), std::string::npos) << run.err;
    EXPECT_EQ(child.leftovers().running, 0);
  }
}

// A cgroup of the test's own whose pids.max is `max`, made where this (root) process can: under
// cgroup v1's pids hierarchy, or v2's root when it gives its children the pids controller.
// Removed at the end; path() is empty when none could be made.
class PidsCgroup {
 public:
  explicit PidsCgroup(int max) {
    for (const auto& line : lines_of(read_text("/proc/self/mountinfo"))) {
      std::istringstream fields(line);
      std::string id, parent, device, root, mount_point, word;
      fields >> id >> parent >> device >> root >> mount_point;
      while (fields >> word && word != "-") {
      }
      std::string type, source, options;
      fields >> type >> source >> options;
      const bool v1 = type == "cgroup" && ("," + options + ",").find(",pids,") != std::string::npos;
      const bool v2 =
          type == "cgroup2" &&
          read_text(mount_point + "/cgroup.subtree_control").find("pids") != std::string::npos;
      if (root != "/" || (!v1 && !v2)) continue;
      const std::string dir = mount_point + "/fdtest-" + std::to_string(getpid());
      if (mkdir(dir.c_str(), 0755) != 0) continue;
      path_ = dir;
      if (write_into("pids.max", std::to_string(max))) return;
      rmdir(path_.c_str());
      path_.clear();
    }
  }
  PidsCgroup(const PidsCgroup&) = delete;
  PidsCgroup& operator=(const PidsCgroup&) = delete;
  ~PidsCgroup() {
    if (!path_.empty()) rmdir(path_.c_str());  // empty again once its processes are gone
  }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  bool write_into(const std::string& file, const std::string& text) const {
    std::ofstream out(path_ + "/" + file);
    out << text;
    return static_cast<bool>(out.flush());
  }
  std::string path_;
};

// The other limit a refused thread is put down to: a cgroup's pids.max, named with its cgroup.
TEST(PidsLimit, AStrategyThatCannotStartItsWorkersNamesTheCgroupsPidsMax) {
  if (!platform::uses_linux_interfaces()) GTEST_SKIP() << "cgroups are Linux's";
  if (geteuid() != 0) GTEST_SKIP() << "only root can make a cgroup";
  const PidsCgroup cgroup(2);
  if (cgroup.path().empty()) GTEST_SKIP() << "no pids controller this process can use here";
  FastTempDir work;
  RunOptions options = as_a_job();
  options.program = "/bin/sh";
  // The shell moves itself into the cgroup, then becomes fdbench.
  FdbenchProcess child(
      {"-c", "echo $$ > \"$0/cgroup.procs\" && exec \"$@\"", cgroup.path(), fdbench_binary(),
       "open", "--files", "50", "--threads", "4", "--strategy", "threads,process", "--repeat", "1",
       "--warmup", "0", "--dir", work.path(), "--format", "json"},
      options);
  const RunResult run = child.wait();
  EXPECT_EQ(child.leftovers().running, 0);
  EXPECT_EQ(run.exit_code, 1) << run.err;  // nothing was measured
  const auto doc = nlohmann::json::parse(run.out);
  ASSERT_EQ(doc.at("results").size(), 2U);
  for (const auto& result : doc.at("results")) {
    SCOPED_TRACE(result.dump());
    EXPECT_EQ(result.at("status"), "unavailable");
    const std::string error = result.at("error");
    EXPECT_EQ(error.rfind("cannot create ", 0), 0U) << error;
    EXPECT_NE(error.find("pids.max is 2 in cgroup " + cgroup.path()), std::string::npos) << error;
  }
  EXPECT_EQ(private_dirs(work.path()), std::vector<std::string>{});
}

}  // namespace process_limit_test
}  // namespace fdbench::testing
