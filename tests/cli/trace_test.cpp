// fdbench trace on real programs, asserting the mechanism and the counts, never a time:
// python3 opening files in one thread (growths, none shared, no grace period waited for),
// node's fs.promises opening them at once on libuv's threads (growths while threads share the
// table), an idle process attached with --pid (nothing seen, and said), the command's output
// and exit code passed through, an ordinary user told in one line what tracing needs, the
// report against docs/trace.schema.json.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "platform/platform.hpp"
#include "support/fdbench_process.hpp"
#include "support/other_user.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace trace_cli_test {

using nlohmann::json;

constexpr int kFiles = 2000;

// Makes `n` empty files 0.txt ... in `dir`.
void make_files(const TempDir& dir, int n) {
  for (int i = 0; i < n; ++i) write_text(dir / (std::to_string(i) + ".txt"), "");
}

bool on_path(const std::string& program) {
  const std::string command = "command -v " + program + " >/dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

// Runs `fdbench trace --format json -o FILE -- program...`; the document, or a skip when
// tracing cannot be done here (then `skipped` is set).
struct Traced {
  RunResult run;
  json doc;
  bool skipped = false;
};
Traced trace(const TempDir& dir, const std::vector<std::string>& program,
             std::vector<std::string> options = {}) {
  Traced t;
  const std::string file = dir / "trace.json";
  std::vector<std::string> args = {"trace", "--format", "json", "-o", file};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back("--");
  args.insert(args.end(), program.begin(), program.end());
  t.run = run_fdbench(args);
  if (t.run.err.find("fdbench trace needs") != std::string::npos) {
    t.skipped = true;
    return t;
  }
  t.doc = json::parse(read_text(file));
  return t;
}

std::int64_t off_cpu(const json& calls, const char* cause) {
  return calls.at("off_cpu_ns").at(cause).get<std::int64_t>();
}

int most_sharing(const json& doc) {
  int most = 0;
  for (const json& g : doc.at("growths")) most = std::max(most, g.at("threads_sharing").get<int>());
  return most;
}

std::uint64_t count_of(const json& doc, const std::string& call) {
  for (const json& c : doc.at("calls")) {
    if (c.at("call") == call) return c.at("count").get<std::uint64_t>();
  }
  return 0;
}

}  // namespace trace_cli_test

using namespace trace_cli_test;

TEST(TraceCli, PythonInOneThreadGrowsItsTableWithoutWaiting) {
  if (!on_path("python3")) GTEST_SKIP() << "no python3";
  TempDir dir;
  TempDir files;
  make_files(files, kFiles);
  const std::string script =
      "import os, resource, sys\n"
      "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
      "resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))\n"
      "fds = [os.open(os.path.join(sys.argv[1], f'{i}.txt'), os.O_RDONLY) for i in range(" +
      std::to_string(kFiles) +
      ")]\n"
      "print('opened', len(fds))\n"
      "sys.exit(7)\n";
  const Traced t = trace(dir, {"python3", "-c", script, files.path()});
  if (t.skipped) FDBENCH_SKIP_WITHOUT("kernel_trace") << t.run.err;
  // The command's output and exit code pass through unchanged.
  EXPECT_EQ(t.run.exit_code, 7) << t.run.err;
  EXPECT_EQ(t.run.out, "opened " + std::to_string(kFiles) + "\n");
  const json& doc = t.doc;
  EXPECT_EQ(doc.at("exit_code"), 7);
  EXPECT_GE(count_of(doc, "openat"), static_cast<std::uint64_t>(kFiles)) << doc.at("calls");
  // 2,000 descriptors need a 2048-slot table: from 64 or 256 slots, at least three growths.
  ASSERT_GE(doc.at("growths").size(), 3U) << doc.at("growths");
  EXPECT_GE(doc.at("table_at_end").get<int>(), 2048);
  EXPECT_EQ(most_sharing(doc), 1) << doc.at("growths");
  EXPECT_EQ(off_cpu(doc.at("all_creating"), "fd-table-growth"), 0) << doc.at("all_creating");
  EXPECT_EQ(doc.at("lost"), 0);
  bool alone = false;
  for (const json& f : doc.at("findings")) alone = alone || f.at("kind") == "trace-growth-alone";
  EXPECT_TRUE(alone) << doc.at("findings");
}

TEST(TraceCli, NodeOpensAtOnceWhileLibuvThreadsShareTheTable) {
  if (!on_path("node")) GTEST_SKIP() << "no node (scripts/setup installs Debian's nodejs)";
  TempDir dir;
  TempDir files;
  make_files(files, kFiles);
  const std::string script =
      "const fs = require('fs');\n"
      "(async () => {\n"
      "  const names = Array.from({length: " +
      std::to_string(kFiles) +
      "}, (_, i) => `${process.argv[1]}/${i}.txt`);\n"
      "  const handles = await Promise.all(names.map(n => fs.promises.open(n, 'r')));\n"
      "  console.log('opened', handles.length);\n"
      "  await Promise.all(handles.map(h => h.close()));\n"
      "})();\n";
  const Traced t = trace(dir, {"node", "-e", script, files.path()});
  if (t.skipped) FDBENCH_SKIP_WITHOUT("kernel_trace") << t.run.err;
  ASSERT_EQ(t.run.exit_code, 0) << t.run.err;
  EXPECT_EQ(t.run.out, "opened " + std::to_string(kFiles) + "\n");
  const json& doc = t.doc;
  EXPECT_GE(count_of(doc, "openat"), static_cast<std::uint64_t>(kFiles)) << doc.at("calls");
  EXPECT_GE(doc.at("close").at("count").get<int>(), kFiles);
  EXPECT_GT(doc.at("threads").size(), 1U);  // libuv's pool made the opens
  ASSERT_GE(doc.at("growths").size(), 1U);
  EXPECT_GT(most_sharing(doc), 1) << doc.at("growths");
  // A shared table's growth waits for a grace period: with rcu_expedited 0 that is a sleep the
  // call chain names. With 1 it may be too short to leave the CPU, so nothing is held then.
  if (doc.at("rcu_expedited") == 0) {
    EXPECT_GT(off_cpu(doc.at("all_creating"), "fd-table-growth"), 0) << doc.at("all_creating");
    EXPECT_EQ(doc.at("grace_period"), "normal");
  }
  bool shared = false;
  for (const json& f : doc.at("findings")) shared = shared || f.at("kind") == "trace-growth-shared";
  EXPECT_TRUE(shared) << doc.at("findings");
}

TEST(TraceCli, AnIdleProcessShowsNothingAndSaysSo) {
  const pid_t idle = fork();
  ASSERT_GE(idle, 0);
  if (idle == 0) {
    execlp("sleep", "sleep", "60", static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto run = run_fdbench({"trace", "--pid", std::to_string(idle), "--duration", "0.3"});
  kill(idle, SIGKILL);
  waitpid(idle, nullptr, 0);
  if (run.err.find("fdbench trace needs") != std::string::npos) {
    FDBENCH_SKIP_WITHOUT("kernel_trace") << run.err;
  }
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("--duration ended"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Nothing was seen"), std::string::npos) << run.out;
}

TEST(TraceCli, CtrlCEndsATraceOfAProcessAndLeavesTheProcessAlone) {
  const pid_t idle = fork();
  ASSERT_GE(idle, 0);
  if (idle == 0) {
    execlp("sleep", "sleep", "60", static_cast<char*>(nullptr));
    _exit(127);
  }
  FdbenchProcess tracing({"trace", "--pid", std::to_string(idle)}, as_a_job());
  const bool attached = tracing.wait_for_event("trace-attached");
  tracing.signal(SIGINT);  // fdbench alone: the traced process is not in its group
  const auto run = tracing.wait();
  const bool alive = waitpid(idle, nullptr, WNOHANG) == 0;
  kill(idle, SIGKILL);
  waitpid(idle, nullptr, 0);
  if (run.err.find("fdbench trace needs") != std::string::npos) {
    FDBENCH_SKIP_WITHOUT("kernel_trace") << run.err;
  }
  ASSERT_TRUE(attached) << run.err;
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("stopped by Ctrl-C"), std::string::npos) << run.out;
  EXPECT_TRUE(alive) << "the traced process ended with the trace";
}

TEST(TraceCli, TheCommandsOutputAndExitCodePassThrough) {
  TempDir dir;
  const Traced t = trace(dir, {"sh", "-c", "echo hello; echo oops >&2; exit 3"});
  if (t.skipped) FDBENCH_SKIP_WITHOUT("kernel_trace") << t.run.err;
  EXPECT_EQ(t.run.exit_code, 3);
  EXPECT_EQ(t.run.out, "hello\n");
  EXPECT_EQ(t.run.err, "oops\n");
  EXPECT_EQ(t.doc.at("exit_code"), 3);
  EXPECT_EQ(t.doc.at("ended"), "the command exited");
}

TEST(TraceCli, TheReportFollowsItsSchema) {
  if (std::string(FDBENCH_SCHEMA_PYTHON).empty()) GTEST_SKIP() << "no python3 with jsonschema";
  TempDir dir;
  const Traced t = trace(dir, {"sh", "-c", "exec 3</dev/null; exec 3<&-; cat /dev/null"});
  if (t.skipped) FDBENCH_SKIP_WITHOUT("kernel_trace") << t.run.err;
  ASSERT_EQ(t.run.exit_code, 0) << t.run.err;
  const std::string command = std::string("'") + FDBENCH_SCHEMA_PYTHON + "' '" +
                              FDBENCH_SCHEMA_VALIDATOR + "' '" + FDBENCH_TRACE_SCHEMA + "' '" +
                              (dir / "trace.json") + "' >'" + (dir / "out") + "' 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << read_text(dir / "out");
}

TEST(TraceCli, AnOrdinaryUserIsToldInOneLineWhatTracingNeeds) {
  if (const std::string why = cannot_switch_user(); !why.empty()) GTEST_SKIP() << why;
  RunOptions options;
  // No "--" here: setpriv's option parsing would take it. A command's words need none.
  const auto wrapped = as_user(unused_uid(), {"trace", "echo", "never run"}, options);
  const auto run = run_fdbench(wrapped, options);
  if (run.exit_code == 0) GTEST_SKIP() << "this kernel lets ordinary users trace";
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, "");  // the command never ran
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << run.err;
  EXPECT_NE(run.err.find("fdbench trace needs"), std::string::npos) << run.err;
}

TEST(TraceCli, RipgrepOpensEveryFileAndItsExitCodePassesThrough) {
  if (!on_path("rg")) GTEST_SKIP() << "no rg (scripts/setup installs Debian's ripgrep)";
  TempDir dir;
  TempDir files;
  make_files(files, kFiles);
  const Traced t = trace(dir, {"rg", "-c", "needle", files.path()});
  if (t.skipped) FDBENCH_SKIP_WITHOUT("kernel_trace") << t.run.err;
  EXPECT_EQ(t.run.exit_code, 1) << t.run.err;  // rg: no match
  EXPECT_EQ(t.run.out, "");
  EXPECT_GE(count_of(t.doc, "openat"), static_cast<std::uint64_t>(kFiles)) << t.doc.at("calls");
  EXPECT_GE(t.doc.at("close").at("count").get<int>(), kFiles);
}

TEST(TraceCli, GitStatusInAGeneratedRepository) {
  if (!on_path("git")) GTEST_SKIP() << "no git";
  TempDir dir;
  TempDir repo;
  make_files(repo, kFiles);
  const std::string setup = "cd '" + repo.path() +
                            "' && git init -q . && git add . && git -c user.name=t -c "
                            "user.email=t@t commit -qm t";
  ASSERT_EQ(std::system(setup.c_str()), 0);
  const Traced t = trace(dir, {"git", "-C", repo.path(), "status", "--porcelain"});
  if (t.skipped) FDBENCH_SKIP_WITHOUT("kernel_trace") << t.run.err;
  EXPECT_EQ(t.run.exit_code, 0) << t.run.err;
  EXPECT_EQ(t.run.out, "");  // nothing changed
  EXPECT_GT(count_of(t.doc, "openat"), 0U) << t.doc.at("calls");
  EXPECT_GE(t.doc.at("threads").size(), 1U);
}

TEST(TraceCli, ThePortableBuildSaysTraceNeedsLinux) {
  if (platform::uses_linux_interfaces()) GTEST_SKIP() << "this build traces";
  const auto run = run_fdbench({"trace", "--", "true"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err,
            "Error: fdbench trace needs Linux (perf events); this build has only the portable "
            "interfaces\n");
}

TEST(TraceCli, ACommandNotFoundIsSaidAndExits127) {
  const auto run = run_fdbench({"trace", "--", "fdbench-no-such-command"});
  if (run.err.find("fdbench trace needs") != std::string::npos) {
    FDBENCH_SKIP_WITHOUT("kernel_trace") << run.err;
  }
  EXPECT_EQ(run.exit_code, 127);
  EXPECT_EQ(run.err,
            "Error: cannot run the command: No such file or directory (not found on PATH)\n");
}

TEST(TraceCli, ACommandOrAPidAndNotBoth) {
  EXPECT_EQ(run_fdbench({"trace"}).exit_code, 2);
  const auto both = run_fdbench({"trace", "--pid", "1", "--", "true"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("not both"), std::string::npos) << both.err;
}

}  // namespace fdbench::testing
