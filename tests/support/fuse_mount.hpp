#pragma once
// A mount of tests/support/fuse_hang.cpp's FUSE server in a fresh directory, for one test:
// opens that never return, for real. The kernel waits for this server's answer in fuse's
// request_wait_answer(), where not even SIGKILL reaches the caller, as on a hung NFS or FUSE
// mount. Skipped without FUSE (no /dev/fuse, not root, no libfuse3-dev at build time); required
// in CI where it exists (.ci/run). Every wait is bounded, and every test ends the connection
// and detaches the mount in TearDown, so nothing stays stuck.
//
// The mount is found in /proc/self/mountinfo, never by stat(): on the dead mount (dead() true)
// a stat() of the mount point would itself wait for ever.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "platform/platform.hpp"
#include "support/fdbench_process.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"
#include "support/wait_until.hpp"

namespace fdbench::testing {

// The server's exit code where FUSE is unavailable (tests/support/fuse_hang.cpp).
constexpr int kFuseUnavailable = 77;

// The device of the filesystem mounted on `mountpoint` (an absolute path without symlinks), by
// /proc/self/mountinfo; 0 where nothing is mounted there.
inline dev_t mounted_device(const std::string& mountpoint) {
  std::ifstream info("/proc/self/mountinfo");
  std::string line;
  while (std::getline(info, line)) {
    std::istringstream fields(line);
    std::string id, parent, device, root, point;
    fields >> id >> parent >> device >> root >> point;
    if (point != mountpoint) continue;
    const auto colon = device.find(':');
    if (colon == std::string::npos) continue;
    return makedev(static_cast<unsigned>(std::stoul(device.substr(0, colon))),
                   static_cast<unsigned>(std::stoul(device.substr(colon + 1))));
  }
  return 0;
}

// Whether fdbench can name the call a thread or process is stuck in, and the processes SIGKILL
// did not end: Linux's /proc, which the portable build (standing for macOS and the BSDs) does
// not read. Elsewhere it must still exit at its limit; only the names are missing.
inline bool shows_stuck_calls() {
  return platform::uses_linux_interfaces();
}

// Whether `pid` (a child of ours) has exited; it stays unreaped for FdbenchProcess::wait().
inline bool has_exited(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

// The line of `text` that starts with `prefix`, or "".
inline std::string line_starting(const std::string& text, const std::string& prefix) {
  for (const auto& line : lines_of(text)) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return {};
}

// The server mounted on `mountpoint` for one test: in the plain mode `hang0.txt` in it can be
// examined but its open never returns, and the lookup of `lookup-hangs.txt` never returns; on
// the dead mount nothing answers at all.
class FuseMount : public ::testing::Test {
 protected:
  // Whether the mount is dead (fdbench_fuse_hang --dead): a subclass says so.
  [[nodiscard]] virtual bool dead() const { return false; }

  void SetUp() override {
#ifndef FDBENCH_FUSE_HANG
    FDBENCH_SKIP_WITHOUT("fuse") << "fdbench_fuse_hang was not built: install libfuse3-dev "
                                    "(pkg-config fuse3) and configure the build again";
#else
    if (access("/dev/fuse", R_OK | W_OK) != 0) {
      FDBENCH_SKIP_WITHOUT("fuse") << "/dev/fuse: " << std::strerror(errno);
    }
    char* real = realpath(dir.path().c_str(), nullptr);
    ASSERT_NE(real, nullptr) << std::strerror(errno);
    mountpoint = std::string(real) + "/mnt";
    free(real);
    ASSERT_EQ(mkdir(mountpoint.c_str(), 0755), 0) << std::strerror(errno);
    RunOptions options;
    options.own_group = true;
    options.program = FDBENCH_FUSE_HANG;
    options.timeout = std::chrono::seconds(10);
    std::vector<std::string> args{mountpoint};
    if (dead()) args.insert(args.begin(), "--dead");
    server.emplace(args, options);
    const bool mounted = wait_until(
        [&] { return mounted_device(mountpoint) != 0 || has_exited(server->pid()); },
        std::chrono::seconds(20));
    if (!mounted || has_exited(server->pid())) {
      const RunResult end = server->wait();
      server.reset();
      if (end.exit_code == kFuseUnavailable) FDBENCH_SKIP_WITHOUT("fuse") << end.err;
      FAIL() << "fdbench_fuse_hang did not mount " << mountpoint << " (exit code " << end.exit_code
             << "): " << end.err;
    }
    device_of_mount = mounted_device(mountpoint);
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
                        std::chrono::seconds bound = std::chrono::seconds(30),
                        std::vector<std::string> env = {}) {
    RunOptions options = as_a_job();
    options.timeout = std::chrono::seconds(60);
    options.env = std::move(env);
    fdbench.emplace(args, options);
    exited_by_itself = wait_until([&] { return has_exited(fdbench->pid()); }, bound);
    if (!exited_by_itself) end_connection();
    return fdbench->wait();
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

}  // namespace fdbench::testing
