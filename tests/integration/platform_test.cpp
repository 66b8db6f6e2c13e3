// The platform facade on this machine. Anything that changes process-wide state (the
// descriptor table, open descriptors) happens in a forked child, so tests stay independent.
#include "fdbench/platform.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fdbench/environment.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::platform {
namespace {

// Runs `body` in a forked child and returns its exit code (or 128 + signal). The child
// exits with whatever `body` returns and never returns into the test.
int exit_code_in_child(const std::function<int()>& body) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) _exit(body());
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(Platform, ListsDescriptorsAscendingWithoutItsOwn) {
  const auto fds = open_descriptors();
  EXPECT_TRUE(std::is_sorted(fds.begin(), fds.end()));
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const auto with_pipe = open_descriptors();
  EXPECT_EQ(with_pipe.size(), fds.size() + 2);
  EXPECT_NE(std::find(with_pipe.begin(), with_pipe.end(), pipe_fds[0]), with_pipe.end());
  EXPECT_NE(std::find(with_pipe.begin(), with_pipe.end(), pipe_fds[1]), with_pipe.end());
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  EXPECT_EQ(open_descriptors(), fds);
}

TEST(Platform, GrowFdTableGrowsTheTableAndFreesTheSlot) {
  const int code = exit_code_in_child([] {
    const auto before = fd_table_size();
    if (grow_fd_table(700) != 0) return 1;
    if (fcntl(700, F_GETFD) != -1) return 2;  // the slot was only borrowed
    const auto after = fd_table_size();
    if (before.has_value() != after.has_value()) return 3;
    if (!after) return 0;  // the table's size is not visible here (HostFacts says where)
    if (*after <= 700) return 4;
    if (*after < *before) return 5;
    return 0;
  });
  EXPECT_EQ(code, 0);
}

TEST(Platform, GrowFdTableLeavesAnOpenDescriptorAlone) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  EXPECT_EQ(grow_fd_table(pipe_fds[1]), 0);
  EXPECT_NE(fcntl(pipe_fds[1], F_GETFD), -1) << "grow_fd_table closed a descriptor it did not own";
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

TEST(Platform, FreshChildStartsFromTheSmallestTable) {
  // What measure_in_fresh_child relies on: a process with only low fds open gets the
  // kernel's smallest table when it forks.
  if (!fd_table_size()) GTEST_SKIP() << "no FDSize on this platform";
  const int code = exit_code_in_child([] {
    close_descriptors_from(3);
    const pid_t pid = fork();
    if (pid == 0) _exit(fd_table_size() == kSmallestFdTable ? 0 : 1);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
  });
  EXPECT_EQ(code, 0);
}

TEST(Platform, NofileLimitIsConsistent) {
  const NofileLimit limit = nofile_limit();
  EXPECT_GT(limit.soft, 0U);
  EXPECT_LE(limit.soft, limit.hard);
}

TEST(Platform, RaiseNofileSoftNeverLowers) {
  const NofileLimit before = nofile_limit();
  EXPECT_EQ(raise_nofile_soft(1), 0);
  EXPECT_EQ(nofile_limit().soft, before.soft);
}

// What a forked child still holds after close_descriptors_from(lowest, keep), where keep is
// the pipe it reports through (or -1: it reports through a copy at fd 40, if that survives).
struct AfterClose {
  int kept = -1;
  std::vector<int> left;
};

AfterClose close_in_child(int lowest, bool keep_pipe) {
  AfterClose result;
  int report[2];
  if (pipe(report) != 0) return result;
  result.kept = report[1];
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    close(report[0]);
    for (int i = 0; i < 5; ++i) open("/dev/null", O_RDONLY);  // extra descriptors to close
    dup2(report[1], 40);
    close_descriptors_from(lowest, keep_pipe ? report[1] : -1);
    const auto left = open_descriptors();
    const int out = keep_pipe ? report[1] : (fcntl(40, F_GETFD) != -1 ? 40 : -1);
    if (out >= 0) {
      [[maybe_unused]] const auto n = write(out, left.data(), left.size() * sizeof(int));
    }
    _exit(0);
  }
  close(report[1]);
  int fd = 0;
  while (read(report[0], &fd, sizeof fd) == static_cast<ssize_t>(sizeof fd)) {
    result.left.push_back(fd);
  }
  close(report[0]);
  waitpid(pid, nullptr, 0);
  return result;
}

std::vector<int> descriptors_below(int below) {
  std::vector<int> fds;
  for (const int fd : open_descriptors()) {
    if (fd < below) fds.push_back(fd);
  }
  return fds;
}

TEST(Platform, CloseDescriptorsFromKeepsOnlyTheKeptOne) {
  const AfterClose after = close_in_child(3, true);
  ASSERT_GE(after.kept, 3);
  // fds 0-2 as the test has them, plus the kept pipe; the five extra and fd 40 are gone.
  std::vector<int> expected = descriptors_below(3);
  expected.push_back(after.kept);
  EXPECT_EQ(after.left, expected);
}

TEST(Platform, CloseDescriptorsFromAboveKeepsEverythingBelow) {
  // lowest = 41: fd 40 (the report channel) and everything under it stays.
  const AfterClose after = close_in_child(41, false);
  ASSERT_FALSE(after.left.empty());
  EXPECT_EQ(after.left.back(), 40);
  EXPECT_EQ(std::vector<int>(after.left.begin(), after.left.begin() + 3), descriptors_below(3));
}

TEST(Platform, GrowFdTableBeyondTheLimitFails) {
  const NofileLimit limit = nofile_limit();
  if (limit.soft > 1'000'000) GTEST_SKIP() << "soft RLIMIT_NOFILE is too large to exceed";
  const auto before = open_descriptors();
  EXPECT_NE(grow_fd_table(static_cast<int>(limit.soft) + 10), 0);
  EXPECT_EQ(open_descriptors(), before);
}

TEST(Platform, HostFacts) {
  EXPECT_FALSE(os_name().empty());
  EXPECT_FALSE(kernel_release().empty());
  EXPECT_FALSE(cpu_model().empty());
  EXPECT_GE(logical_cpus(), 1);
  EXPECT_FALSE(fs_type("/tmp").empty());
  EXPECT_EQ(fs_type("/no/such/path/anywhere"), "unknown");
  EXPECT_GT(now_ns(), 0);
  const auto a = now_ns();
  EXPECT_GE(now_ns(), a);  // monotonic, not a timing assertion
#if defined(__linux__)
  EXPECT_EQ(os_name(), "Linux");
#endif
  // Only the Linux build reads the table size. Filesystems are named by Linux's statfs magic
  // numbers or the BSDs' f_fstypename: the portable build on Linux has neither.
  EXPECT_EQ(fd_table_size().has_value(), uses_linux_interfaces());
  if (uses_linux_interfaces() || os_name() != "Linux") {
    EXPECT_NE(fs_type("/tmp"), "unknown");
  }
}

TEST(Platform, ReadIntFile) {
  fdbench::testing::TempDir dir;
  fdbench::testing::write_text(dir / "n", "42\n");
  fdbench::testing::write_text(dir / "text", "not a number\n");
  EXPECT_EQ(read_int_file(dir / "n"), 42);
  EXPECT_EQ(read_int_file(dir / "text"), std::nullopt);
  EXPECT_EQ(read_int_file(dir / "missing"), std::nullopt);
}

// Three mounts as /proc/self/mountinfo shows them: optional fields before "-" vary, paths
// escape spaces as \040, and a later mount on the same point hides the earlier one.
constexpr const char* kMountinfo =
    "22 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
    "30 22 0:27 / /tmp rw,nosuid,nodev shared:5 - tmpfs tmpfs rw,size=1024k\n"
    "31 22 0:28 / /home/my\\040files rw,noatime master:1 propagate_from:2 - xfs /dev/sdb "
    "rw,noquota\n"
    "32 22 0:29 / /tmp rw,noexec - tmpfs tmpfs rw,size=2048k\n"
    "garbage line\n";

TEST(Mounts, TheLongestMountPointHoldingThePathWins) {
  EXPECT_EQ(mount_options_from(kMountinfo, "/"), "rw,relatime,discard");
  EXPECT_EQ(mount_options_from(kMountinfo, "/var/lib"), "rw,relatime,discard");
  EXPECT_EQ(mount_options_from(kMountinfo, "/home/my files/a"), "rw,noatime,noquota");
  // "/tmpfoo" is not under "/tmp".
  EXPECT_EQ(mount_options_from(kMountinfo, "/tmpfoo"), "rw,relatime,discard");
}

TEST(Mounts, ALaterMountOnTheSamePointHidesTheEarlier) {
  EXPECT_EQ(mount_options_from(kMountinfo, "/tmp/x"), "rw,noexec,size=2048k");
}

TEST(Mounts, NothingHoldsARelativePathOrAnEmptyTable) {
  EXPECT_EQ(mount_options_from(kMountinfo, "relative/path"), std::nullopt);
  EXPECT_EQ(mount_options_from("", "/"), std::nullopt);
}

TEST(Mounts, OfARealDirectory) {
  fdbench::testing::TempDir dir;
  const auto options = fs_mount_options(dir.path());
  EXPECT_EQ(options.has_value(), uses_linux_interfaces());
  if (options) {
    EXPECT_TRUE(options->rfind("rw", 0) == 0 || options->rfind("ro", 0) == 0) << *options;
  }
  EXPECT_EQ(fs_mount_options("/no/such/path/anywhere"), std::nullopt);
}

TEST(CpuMitigations, OneStatusLinePerFile) {
  fdbench::testing::TempDir dir;
  fdbench::testing::write_text(dir / "meltdown", "Mitigation: PTI\n");
  fdbench::testing::write_text(dir / "spectre_v2", "Mitigation: Retpolines; STIBP: disabled\n");
  fdbench::testing::write_text(dir / "mds", "Not affected\n");
  const auto status = read_vulnerabilities(dir.path());
  EXPECT_EQ(status, (std::map<std::string, std::string>{
                        {"meltdown", "Mitigation: PTI"},
                        {"spectre_v2", "Mitigation: Retpolines; STIBP: disabled"},
                        {"mds", "Not affected"},
                    }));
  EXPECT_TRUE(read_vulnerabilities(dir / "missing").empty());
}

TEST(CpuMitigations, OfThisMachine) {
  const auto status = cpu_mitigations();
  if (!uses_linux_interfaces()) {
    EXPECT_TRUE(status.empty());
  } else if (!status.empty()) {  // kernels since 4.15 have the directory
    EXPECT_TRUE(status.count("meltdown") == 1 && status.count("spectre_v2") == 1);
    for (const auto& [name, text] : status) {
      EXPECT_FALSE(text.empty()) << name;
      EXPECT_EQ(text.find('\n'), std::string::npos) << name;
    }
  }
}

TEST(CpuBudget, CgroupCpuMaxText) {
  EXPECT_EQ(cpu_quota_from("150000 100000\n"), 1.5);
  EXPECT_EQ(cpu_quota_from("50000 100000"), 0.5);
  EXPECT_EQ(cpu_quota_from("max 100000\n"), std::nullopt);
  EXPECT_EQ(cpu_quota_from(""), std::nullopt);
  EXPECT_EQ(cpu_quota_from("12abc 100000"), std::nullopt);
  EXPECT_EQ(cpu_quota_from("100000 0"), std::nullopt);
}

TEST(CpuBudget, OfThisProcess) {
  const auto allowed = cpus_allowed();
  EXPECT_EQ(allowed.has_value(), uses_linux_interfaces());
  if (allowed) {
    EXPECT_GE(*allowed, 1);
    EXPECT_LE(*allowed, logical_cpus());
  }
  if (const auto quota = cgroup_cpu_quota()) {
    EXPECT_GT(*quota, 0);
  }
}

TEST(HostCosts, SyscallCostIsMeasured) {
  const double ns = syscall_ns();
  EXPECT_GT(ns, 0);
  EXPECT_LT(ns, 1e9);  // a sanity bound, not a timing assertion: under a second per call
}

TEST(HostCosts, MemoryAndHypervisor) {
  if (const auto bytes = memory_bytes()) {
    EXPECT_GT(*bytes, 0U);
  }
  if (uses_linux_interfaces()) {
    EXPECT_TRUE(memory_bytes().has_value());
  }
  const std::string vm = virtualization();
  EXPECT_FALSE(vm.empty());
  EXPECT_EQ(vm.find(' '), std::string::npos) << vm;  // a name, never a sentence
#if defined(__x86_64__) || defined(__i386__)
  EXPECT_NE(vm, "unknown") << "x86 CPUs tell whether a hypervisor is present";
#endif
}

TEST(Libraries, VersionsWhereBuiltWith) {
  for (const auto& version : {liburing_version(), libuv_version()}) {
    if (version) {
      EXPECT_NE(version->find('.'), std::string::npos) << *version;  // "2.3", "1.44.2"
    }
  }
}

TEST(Platform, CaptureEnvironment) {
  fdbench::testing::TempDir dir;
  const auto held_before = open_descriptors();
  const Environment env = capture_environment(dir.path());
  EXPECT_EQ(open_descriptors(), held_before);
  EXPECT_EQ(env.os, os_name());
  EXPECT_EQ(env.fs_type, fs_type(dir.path()));
  EXPECT_GE(env.logical_cpus, 1);
  EXPECT_LE(env.rlimit_nofile.soft, env.rlimit_nofile.hard);
  EXPECT_EQ(env.fdsize_at_start.has_value(), uses_linux_interfaces());
  EXPECT_FALSE(env.build_type.empty());
  EXPECT_FALSE(env.compiler.empty());
  EXPECT_NE(env.compiler, "unknown");
  ASSERT_TRUE(env.syscall_ns.has_value());
  EXPECT_GT(*env.syscall_ns, 0);
  EXPECT_EQ(env.fs_mount_options, fs_mount_options(dir.path()));
  EXPECT_EQ(env.cpus_allowed, cpus_allowed());
  // A build that is not Release says so, and only then.
  EXPECT_EQ(env.warnings.empty(), env.build_type == "Release");
  for (const auto& w : env.warnings) EXPECT_NE(w.find(env.build_type), std::string::npos) << w;
}

}  // namespace
}  // namespace fdbench::platform
