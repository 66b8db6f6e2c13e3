// Opens that never return, for real: a FUSE server (tests/support/fuse_hang.cpp) that reads an
// open request and never answers it leaves the opening thread in the kernel's
// request_wait_answer(), where not even SIGKILL reaches it, as on a hung NFS or FUSE mount.
// fdbench must still exit at its --timeout, naming the file, with its exports written, and say
// which of its processes it could not end. Skipped without FUSE (no /dev/fuse, not root, no
// libfuse3-dev at build time); required in CI where it exists (.ci/run). Every wait is bounded,
// and every test ends the connection and detaches the mount, so nothing stays stuck.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "platform/platform.hpp"
#include "support/fdbench_process.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"
#include "support/wait_until.hpp"

namespace fdbench::testing {
namespace fuse_hang_test {

// The server's exit code where FUSE is unavailable (tests/support/fuse_hang.cpp).
constexpr int kFuseUnavailable = 77;

dev_t device_of(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? st.st_dev : 0;
}

// Whether fdbench can name the call a thread or process is stuck in, and the processes SIGKILL
// did not end: Linux's /proc, which the portable build (standing for macOS and the BSDs) does
// not read. Elsewhere it must still exit at its limit; only the names are missing.
bool shows_stuck_calls() {
  return platform::uses_linux_interfaces();
}

// Whether `pid` (a child of ours) has exited; it stays unreaped for FdbenchProcess::wait().
bool has_exited(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

// The line of `text` that starts with `prefix`, or "".
std::string line_starting(const std::string& text, const std::string& prefix) {
  for (const auto& line : lines_of(text)) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return {};
}

// A mount of fdbench_fuse_hang in a fresh directory, for one test: `hang0.txt` in it can be
// examined but its open never returns; the lookup of `lookup-hangs.txt` never returns.
class HungFuseMount : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef FDBENCH_FUSE_HANG
    FDBENCH_SKIP_WITHOUT("fuse") << "fdbench_fuse_hang was not built: install libfuse3-dev "
                                    "(pkg-config fuse3) and configure the build again";
#else
    if (access("/dev/fuse", R_OK | W_OK) != 0) {
      FDBENCH_SKIP_WITHOUT("fuse") << "/dev/fuse: " << std::strerror(errno);
    }
    mountpoint = dir / "mnt";
    ASSERT_EQ(mkdir(mountpoint.c_str(), 0755), 0) << std::strerror(errno);
    RunOptions options;
    options.own_group = true;
    options.program = FDBENCH_FUSE_HANG;
    options.timeout = std::chrono::seconds(10);
    server.emplace(std::vector<std::string>{mountpoint}, options);
    const dev_t outside = device_of(dir.path());
    const bool mounted =
        wait_until([&] { return device_of(mountpoint) != outside || has_exited(server->pid()); },
                   std::chrono::seconds(20));
    if (!mounted || has_exited(server->pid())) {
      const RunResult end = server->wait();
      server.reset();
      if (end.exit_code == kFuseUnavailable) FDBENCH_SKIP_WITHOUT("fuse") << end.err;
      FAIL() << "fdbench_fuse_hang did not mount " << mountpoint << " (exit code " << end.exit_code
             << "): " << end.err;
    }
    hanging = mountpoint + "/hang0.txt";
#endif
  }

  void TearDown() override {
    end_connection();
  }

  // Ends every wait on the mount and detaches it: the server's death closes its /dev/fuse,
  // which aborts the connection, and the processes stuck in it go on (to their death, if they
  // were killed). The abort file of fusectl does the same where it is mounted.
  void end_connection() {
    if (!server) return;
    const dev_t dev = device_of_mount;
    if (dev != 0) {
      std::ofstream abort("/sys/fs/fuse/connections/" +
                          std::to_string((major(dev) << 20) | minor(dev)) + "/abort");
      if (abort) abort << "1";
    }
    server->signal(SIGKILL, true);
    server->wait();
    server.reset();
    umount2(mountpoint.c_str(), MNT_DETACH);  // EINVAL when it is gone already
  }

  // Runs fdbench with `args` and waits, at most `bound`, for it to exit by itself. When it does
  // not (a thread of it stuck in the mount keeps the process from ending), the connection is
  // ended so that it can, and `exited_by_itself` says so.
  RunResult run_bounded(const std::vector<std::string>& args,
                        std::chrono::seconds bound = std::chrono::seconds(30)) {
    device_of_mount = device_of(mountpoint);
    RunOptions options = as_a_job();
    options.timeout = std::chrono::seconds(60);
    fdbench.emplace(args, options);
    exited_by_itself = wait_until([&] { return has_exited(fdbench->pid()); }, bound);
    if (!exited_by_itself) end_connection();
    return fdbench->wait();
  }

  // Runs `args` (with a 1 s limit), whose --list file or --tree directory cannot be looked at:
  // fdbench exits at its limit, naming `what` ("--list FILE"), having measured nothing.
  void expect_looking_at_times_out(std::vector<std::string> args, const std::string& what) {
    args.insert(args.end(), {"--timeout", "1", "--quiet"});
    const RunResult run = run_bounded(args);
    ASSERT_TRUE(exited_by_itself) << "fdbench did not exit at its limit: " << run.err;
    EXPECT_EQ(run.exit_code, 1) << run.err;
    const std::string line = line_starting(run.err, "fdbench: timed out: ");
    EXPECT_NE(line.find("examining " + what + " did not finish within 1 s"), std::string::npos)
        << run.err;
    if (shows_stuck_calls()) {
      EXPECT_NE(line.find("could not be ended"), std::string::npos) << line;
    }
    EXPECT_EQ(run.out, "");
    expect_nothing_left();
  }
  // After a run: nothing of fdbench is left once the connection has ended (what it could not
  // end, it must have named).
  void expect_nothing_left() {
    end_connection();
    EXPECT_EQ(fdbench->leftovers().running, 0) << "a process of fdbench outlived the mount";
  }

  TempDir dir;
  TempDir out;
  std::string mountpoint;
  std::string hanging;
  dev_t device_of_mount = 0;
  std::optional<FdbenchProcess> server;
  std::optional<FdbenchProcess> fdbench;
  bool exited_by_itself = false;
};

struct Case {
  const char* strategy;
  bool keep_open;
};

class OpenNeverReturns : public HungFuseMount, public ::testing::WithParamInterface<Case> {};

TEST_P(OpenNeverReturns, FdbenchExitsAtItsLimitNamingTheFile) {
  write_text(out / "list", hanging + "\n");
  // `process` forks its workers inside the fresh child after the clock starts: on a loaded
  // machine they may not reach the open within 1 s, and the line would then rightly name no
  // open. 3 s leaves them time; the others are in their open at once.
  const std::string limit = std::string(GetParam().strategy) == "process" ? "3" : "1";
  std::vector<std::string> args{"open",
                                "--list",
                                out / "list",
                                "--strategy",
                                GetParam().strategy,
                                "--threads",
                                "2",
                                "--repeat",
                                "2",
                                "--timeout",
                                limit,
                                "--export-json",
                                out / "r.json",
                                "--quiet"};
  if (GetParam().keep_open) args.push_back("--keep-open");
  const RunResult run = run_bounded(args);
  ASSERT_TRUE(exited_by_itself) << "fdbench did not exit at its limit (exit code " << run.exit_code
                                << " once the mount was aborted): " << run.err;
  // A build without io_uring refuses a uring-only run before it starts.
  if (run.exit_code == 2 && run.err.find("nothing it asks for can run here") != std::string::npos) {
    FDBENCH_SKIP_WITHOUT("uring") << run.err;
  }
  if (run.exit_code == 0 && std::string(GetParam().strategy).rfind("uring", 0) == 0) {
    const auto doc = nlohmann::json::parse(read_text(out / "r.json"));
    if (doc.at("results").at(0).at("status") == "unavailable") {
      FDBENCH_SKIP_WITHOUT("uring") << doc.at("results").at(0).value("error", "");
    }
  }
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const std::string line = line_starting(run.err, "fdbench: timed out: ");
  EXPECT_NE(line.find("did not finish within " + limit + " s"), std::string::npos) << run.err;
  if (shows_stuck_calls()) {
    if (std::string(GetParam().strategy).rfind("uring", 0) != 0) {
      EXPECT_NE(line.find("it was opening " + hanging), std::string::npos) << line;
    } else {  // io_uring opens in the kernel, in no thread's system call: the list is named
      EXPECT_NE(line.find("opening the files --list " + out / "list" + " names"), std::string::npos)
          << line;
    }
    // The process stuck in the open cannot be ended: the line says which it left behind.
    EXPECT_NE(line.find("could not be ended"), std::string::npos) << line;
    EXPECT_NE(line.find("pid "), std::string::npos) << line;
  }

  const auto doc = nlohmann::json::parse(read_text(out / "r.json"));
  ASSERT_EQ(doc.at("results").size(), 1U) << doc.dump(1);
  EXPECT_EQ(doc.at("results").at(0).at("status"), "timed-out");
  expect_nothing_left();
}

INSTANTIATE_TEST_SUITE_P(Strategies, OpenNeverReturns,
                         ::testing::Values(Case{"threads", false}, Case{"pool", false},
                                           Case{"fast-pool", false}, Case{"uring", false},
                                           Case{"process", false}, Case{"libuv", false},
                                           Case{"threads", true}),
                         [](const auto& each) {
                           std::string name = std::string(each.param.strategy) +
                                              (each.param.keep_open ? "_kept_open" : "");
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

// tune measures a list as open does, in a process it can abandon.
TEST_F(HungFuseMount, TuneExitsAtItsLimitNamingTheFile) {
  write_text(out / "list", hanging + "\n");
  const RunResult run = run_bounded({"tune", "--list", out / "list", "--budget", "2", "--timeout",
                                     "1", "--save", out / "rec.json", "--quiet"});
  ASSERT_TRUE(exited_by_itself) << "fdbench tune did not exit at its limit: " << run.err;
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const std::string line = line_starting(run.err, "fdbench: timed out: ");
  if (shows_stuck_calls()) {
    EXPECT_NE(line.find("it was opening " + hanging), std::string::npos) << run.err;
  }
  EXPECT_NE(line.find("nothing recommended"), std::string::npos) << line;
  EXPECT_FALSE(std::filesystem::exists(out / "rec.json"));
  expect_nothing_left();
}

// Paths are looked at before anything is measured, under the same limit and in a process of
// their own: a listed path whose lookup never returns stops the run at the limit, naming it.
TEST_F(HungFuseMount, AListedPathThatCannotBeExaminedTimesOut) {
  write_text(out / "a.txt", "x");
  const std::string stuck = mountpoint + "/lookup-hangs.txt";
  write_text(out / "list", out / "a.txt" + "\n" + stuck + "\n");
  const RunResult run = run_bounded({"open", "--list", out / "list", "--strategy", "threads",
                                     "--timeout", "1", "--export-json", out / "r.json", "--quiet"});
  ASSERT_TRUE(exited_by_itself) << "fdbench did not exit at its limit: " << run.err;
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const std::string line = line_starting(run.err, "fdbench: timed out: ");
  EXPECT_NE(line.find("examining --list " + out / "list" + " did not finish within 1 s"),
            std::string::npos)
      << run.err;
  if (shows_stuck_calls()) {
    EXPECT_NE(line.find("it was examining " + stuck), std::string::npos) << line;
    EXPECT_NE(line.find("could not be ended"), std::string::npos) << line;
  }
  const auto doc = nlohmann::json::parse(read_text(out / "r.json"));
  EXPECT_TRUE(doc.at("results").empty()) << doc.dump(1);
  expect_nothing_left();
}

// A --tree walk that reaches such a path stops the same way.
TEST_F(HungFuseMount, ATreeWalkThatCannotFinishTimesOut) {
  const RunResult run = run_bounded(
      {"open", "--tree", mountpoint, "--strategy", "threads", "--timeout", "1", "--quiet"});
  ASSERT_TRUE(exited_by_itself) << "fdbench did not exit at its limit: " << run.err;
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const std::string line = line_starting(run.err, "fdbench: timed out: ");
  EXPECT_NE(line.find("examining --tree " + mountpoint), std::string::npos) << run.err;
  if (shows_stuck_calls()) {
    EXPECT_NE(line.find("lookup-hangs.txt"), std::string::npos) << line;
  }
  expect_nothing_left();
}

// And tune, before its sweep.
TEST_F(HungFuseMount, TuneStopsWhenAListedPathCannotBeExamined) {
  write_text(out / "list", mountpoint + "/lookup-hangs.txt\n");
  const RunResult run = run_bounded({"tune", "--list", out / "list", "--budget", "2", "--timeout",
                                     "1", "--save", out / "rec.json", "--quiet"});
  ASSERT_TRUE(exited_by_itself) << "fdbench tune did not exit at its limit: " << run.err;
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const std::string line = line_starting(run.err, "fdbench: timed out: ");
  if (shows_stuck_calls()) {
    EXPECT_NE(line.find("lookup-hangs.txt"), std::string::npos) << run.err;
  }
  EXPECT_NE(line.find("nothing recommended"), std::string::npos) << line;
  EXPECT_FALSE(std::filesystem::exists(out / "rec.json"));
  expect_nothing_left();
}

// The --list file or --tree directory itself on such a mount: looked at before the run, under
// the same limit and in a process of its own, not in fdbench (which could then never exit).
TEST_F(HungFuseMount, AListFileWhoseOpenNeverReturnsTimesOut) {
  expect_looking_at_times_out({"open", "--list", hanging, "--strategy", "threads"},
                              "--list " + hanging);
}

TEST_F(HungFuseMount, TuneTimesOutOnAListFileWhoseOpenNeverReturns) {
  expect_looking_at_times_out({"tune", "--list", hanging, "--budget", "2"}, "--list " + hanging);
}

TEST_F(HungFuseMount, ATreeWhoseLookupNeverReturnsTimesOut) {
  const std::string stuck = mountpoint + "/lookup-hangs.txt";
  expect_looking_at_times_out({"open", "--tree", stuck, "--strategy", "threads"},
                              "--tree " + stuck);
}

}  // namespace fuse_hang_test
}  // namespace fdbench::testing
