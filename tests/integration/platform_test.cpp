// The platform facade on this machine, checked against what the kernel says through other
// means (uname, sysconf, getrlimit, clock_gettime, /proc). Anything that changes process-wide
// state (the descriptor table, limits, open descriptors) happens in a forked child, so tests
// stay independent.
#include "platform/platform.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/capture.hpp"
#include "model/environment.hpp"
#include "support/fd_table.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::platform {
namespace platform_test {

using testing::fdsize_in_proc_status;

// Runs `body` in a forked child and returns what it returned: "" when all was well, else what
// went wrong (or how the child died). The child never returns into the test. `body` gets the
// descriptor the child reports through, to keep open.
std::string failure_in_child(const std::function<std::string(int report_fd)>& body) {
  int report[2];
  if (pipe(report) != 0) return "cannot create a pipe";
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return "cannot fork";
  if (pid == 0) {
    close(report[0]);
    const std::string failure = body(report[1]);
    const bool sent =
        write(report[1], failure.data(), failure.size()) == static_cast<ssize_t>(failure.size());
    _exit(sent ? 0 : 1);
  }
  close(report[1]);
  std::string failure;
  char buffer[256];
  for (ssize_t n; (n = read(report[0], buffer, sizeof buffer)) > 0;) {
    failure.append(buffer, static_cast<std::size_t>(n));
  }
  close(report[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (!WIFEXITED(status))
    return failure + " (child killed by signal " + std::to_string(WTERMSIG(status)) + ")";
  if (WEXITSTATUS(status) != 0)
    return failure + " (child exited " + std::to_string(WEXITSTATUS(status)) + ")";
  return failure;
}

std::string text_of(std::optional<int> value) {
  return value ? std::to_string(*value) : "none";
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

TEST(Platform, FdTableSizeIsTheKernelsFdSize) {
  if (!uses_linux_interfaces()) {
    EXPECT_EQ(fd_table_size(), std::nullopt) << "a size this build cannot see is never guessed";
    return;
  }
  const auto shown = fdsize_in_proc_status();
  ASSERT_TRUE(shown.has_value());
  EXPECT_EQ(fd_table_size(), shown);
}

TEST(Platform, GrowFdTableGrowsTheTableAndFreesTheSlot) {
  if (!fdsize_in_proc_status()) FDBENCH_SKIP_WITHOUT("proc_status") << "the table is not visible";
  EXPECT_EQ(failure_in_child([](int /*report_fd*/) -> std::string {
              if (const int err = grow_fd_table(700))
                return "grow_fd_table: " + std::to_string(err);
              if (fcntl(700, F_GETFD) != -1) return "fd 700 is still open: the slot was only lent";
              const auto after = fdsize_in_proc_status();
              if (!after || *after <= 700)
                return "FDSize after growing to fd 700: " + text_of(after);
              // fdbench reads the same size, where it reads one at all
              if (fd_table_size() != (uses_linux_interfaces() ? after : std::nullopt)) {
                return "fd_table_size() is " + text_of(fd_table_size()) + ", FDSize " +
                       text_of(after);
              }
              return "";
            }),
            "");
}

TEST(Platform, GrowFdTableLeavesAnOpenDescriptorAlone) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  EXPECT_EQ(grow_fd_table(pipe_fds[1]), 0);
  EXPECT_NE(fcntl(pipe_fds[1], F_GETFD), -1) << "grow_fd_table closed a descriptor it did not own";
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

// A grace period is waited for where the kernel offers it (Linux: membarrier, unless the
// kernel runs nohz_full CPUs), and the call says so; elsewhere it says it could not.
TEST(Platform, SettleRcuWaitsForAGracePeriodWhereTheKernelOffersOne) {
  if (uses_linux_interfaces()) {
    errno = 0;
    const bool settled = settle_rcu();
    // Refused only by a kernel without membarrier, one with nohz_full CPUs, or a seccomp filter.
    EXPECT_TRUE(settled || errno == ENOSYS || errno == EINVAL || errno == EPERM)
        << "membarrier(MEMBARRIER_CMD_GLOBAL) failed: " << std::strerror(errno);
    if (errno == 0) {
      EXPECT_TRUE(settled);
    }
  } else {
    EXPECT_FALSE(settle_rcu());
  }
}

TEST(Platform, FreshChildStartsFromTheSmallestTable) {
  // What measure_in_fresh_child relies on: a process with only low fds open gets the
  // kernel's smallest table when it forks.
  if (!fdsize_in_proc_status()) FDBENCH_SKIP_WITHOUT("proc_status") << "the table is not visible";
  EXPECT_EQ(failure_in_child([](int report_fd) -> std::string {
              close_descriptors_from(3, report_fd);
              return failure_in_child([](int /*report_fd*/) -> std::string {
                const auto size = fdsize_in_proc_status();
                return size == kSmallestFdTable ? "" : "FDSize " + text_of(size);
              });
            }),
            "");
}

TEST(Platform, NofileLimitIsWhatGetrlimitSays) {
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  EXPECT_EQ(nofile_limit().soft, static_cast<std::uint64_t>(limit.rlim_cur));
  EXPECT_EQ(nofile_limit().hard, static_cast<std::uint64_t>(limit.rlim_max));
}

TEST(Platform, RaiseNofileSoftRaisesToWhatWasAskedAndNeverLowers) {
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < 1000) {
    GTEST_SKIP() << "hard RLIMIT_NOFILE " << limit.rlim_max << " is below 1000";
  }
  EXPECT_EQ(failure_in_child([limit](int /*report_fd*/) -> std::string {
              const rlimit low{100, limit.rlim_max};
              if (setrlimit(RLIMIT_NOFILE, &low) != 0) return "cannot lower the soft limit";
              const auto soft = [] { return std::to_string(nofile_limit().soft); };
              if (raise_nofile_soft(1000) != 0) return "raising 100 to 1000 failed";
              if (nofile_limit().soft != 1000) return "asked for 1000, soft is " + soft();
              if (raise_nofile_soft(500) != 0) return "asking for less failed";
              if (nofile_limit().soft != 1000) return "asked for 500 below 1000: soft is " + soft();
              if (limit.rlim_max == RLIM_INFINITY) return "";
              const std::uint64_t hard = limit.rlim_max;
              if (raise_nofile_soft(hard + 1) != EPERM) return "beyond the hard limit: not EPERM";
              if (nofile_limit().soft != 1000) return "a refused raise changed soft to " + soft();
              if (raise_nofile_soft(hard) != 0 || nofile_limit().soft != hard) {
                return "raising to the hard limit " + std::to_string(hard) + ": soft " + soft();
              }
              return "";
            }),
            "");
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

TEST(Platform, SyncFilesystemWritesBackTheFilesystemOfADescriptor) {
  const testing::TempDir dir;
  const int fd = open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const std::uint64_t before = filesystem_syncs();
  EXPECT_EQ(sync_filesystem(fd), 0);
  close(fd);
  if (uses_linux_interfaces()) {  // syncfs: the descriptor names the filesystem
    EXPECT_EQ(sync_filesystem(-1), EBADF);
  } else {  // sync(): every filesystem, no descriptor to be wrong
    EXPECT_EQ(sync_filesystem(-1), 0);
  }
  EXPECT_EQ(filesystem_syncs(), before + 2);
}

// The limit a refused thread or process is put down to: RLIMIT_NPROC where it binds (not on
// root, so the child becomes a user no process has first), and nothing of it where it does not.
TEST(Platform, TaskLimitNamesUlimitUWhereItBinds) {
  const std::string unlimited = task_limit_text();
  EXPECT_FALSE(unlimited.empty());
  if (getuid() == 0) {
    EXPECT_EQ(unlimited.find("ulimit -u is"), std::string::npos) << unlimited;
  }
  if (getuid() != 0 && geteuid() != 0) GTEST_SKIP() << "only root can become a user of its own";
  EXPECT_EQ(failure_in_child([](int) -> std::string {
              const rlimit limit{5, 5};
              if (setrlimit(RLIMIT_NPROC, &limit) != 0) return "setrlimit failed";
              const auto uid = static_cast<uid_t>(60000 + getpid() % 5000);
              if (getuid() == 0 && (setgid(uid) != 0 || setuid(uid) != 0)) return "setuid failed";
              const std::string text = task_limit_text();
              return text.find("ulimit -u is 5 for this user") == std::string::npos ? text : "";
            }),
            "");
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

TEST(Platform, HostFactsAgreeWithUnameAndSysconf) {
  utsname name{};
  ASSERT_EQ(uname(&name), 0);
  EXPECT_EQ(os_name(), name.sysname);
  EXPECT_EQ(kernel_release(), name.release);
  EXPECT_EQ(logical_cpus(), sysconf(_SC_NPROCESSORS_ONLN));
}

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

TEST(Platform, NowIsTheMonotonicClockInNanoseconds) {
  const std::int64_t before = monotonic_ns();
  const std::int64_t now = now_ns();
  const std::int64_t after = monotonic_ns();
  EXPECT_LE(before, now);  // an order, not a duration: nothing about speed
  EXPECT_LE(now, after);
}

// The value of the first "model name" line of /proc/cpuinfo, or "".
std::string cpuinfo_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

TEST(Platform, CpuModelIsTheOneTheKernelNames) {
  const std::string model = cpuinfo_model_name();
  if (!uses_linux_interfaces() || model.empty()) {
    EXPECT_FALSE(cpu_model().empty());
    GTEST_SKIP() << "no \"model name\" in /proc/cpuinfo for this build to read";
  }
  EXPECT_EQ(cpu_model(), model);
}

// The type of the filesystem mounted where `path` is, from /proc/self/mountinfo ("" without).
std::string mounted_type(const std::string& path) {
  std::error_code error;
  const std::string real = std::filesystem::canonical(path, error).string();
  std::ifstream mountinfo("/proc/self/mountinfo");
  std::string best_point;
  std::string best_type;
  for (std::string line; std::getline(mountinfo, line);) {
    // "id parent major:minor root mount-point options ... - type source options"
    std::istringstream fields(line);
    std::string skip, point, type;
    fields >> skip >> skip >> skip >> skip >> point;
    const auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream(line.substr(dash + 3)) >> type;
    const bool under = point == "/" || real == point || real.rfind(point + "/", 0) == 0;
    if (under && point.size() >= best_point.size()) {  // the last mount on a point wins
      best_point = point;
      best_type = type;
    }
  }
  return error ? "" : best_type;
}

TEST(Platform, FsTypeNamesTheMountedFilesystem) {
  EXPECT_EQ(fs_type("/no/such/path/anywhere"), "unknown");
  const fdbench::testing::TempDir dir;
  int compared = 0;
  for (const std::string& path :
       {dir.path(), std::string("/proc"), std::string("/sys"), std::string("/dev/shm")}) {
    const std::string mounted = mounted_type(path);
    SCOPED_TRACE(path + " is mounted as " + mounted);
    // Types whose mount name is also the name fdbench gives (ext2 and ext3 share ext4's magic).
    const std::vector<std::string> kSameName{"ext4", "tmpfs", "proc",   "sysfs",
                                             "xfs",  "btrfs", "overlay"};
    if (std::find(kSameName.begin(), kSameName.end(), mounted) == kSameName.end()) continue;
    ++compared;
    EXPECT_EQ(fs_type(path), uses_linux_interfaces() ? mounted : "unknown");
  }
  if (compared == 0) {
    // Not Linux: the BSDs and macOS name it themselves (f_fstypename).
    EXPECT_NE(fs_type(dir.path()), "unknown");
  }
}

// What --tree refuses: the kernel's own filesystems, named as the mount table names them.
TEST(Platform, PseudoFilesystemNamesTheKernelsOwnOnly) {
  const fdbench::testing::TempDir dir;
  EXPECT_EQ(pseudo_filesystem(dir.path()), std::nullopt);
  EXPECT_EQ(pseudo_filesystem("/no/such/path/anywhere"), std::nullopt);
  for (const std::string path : {"/proc", "/proc/self", "/sys", "/sys/kernel/tracing",
                                 "/sys/kernel/debug", "/sys/fs/cgroup"}) {
    const std::string mounted = mounted_type(path);
    SCOPED_TRACE(path + " is mounted as " + mounted);
    const std::vector<std::string> kPseudo{"proc",   "sysfs",   "tracefs",  "debugfs", "securityfs",
                                           "cgroup", "cgroup2", "configfs", "bpf"};
    const bool pseudo = std::find(kPseudo.begin(), kPseudo.end(), mounted) != kPseudo.end();
    EXPECT_EQ(pseudo_filesystem(path), pseudo && uses_linux_interfaces()
                                           ? std::optional<std::string>(mounted)
                                           : std::nullopt);
  }
}

int int_in_file(const std::string& path, int otherwise) {
  std::ifstream in(path);
  int value = otherwise;
  in >> value;
  return value;
}

TEST(Platform, KernelKnobsAreReadFromTheirFiles) {
  if (!uses_linux_interfaces()) {
    EXPECT_EQ(io_uring_disabled(), std::nullopt);
    EXPECT_EQ(rcu_expedited(), std::nullopt);
    return;
  }
  EXPECT_EQ(io_uring_disabled().value_or(-1),
            int_in_file("/proc/sys/kernel/io_uring_disabled", -1));
  EXPECT_EQ(rcu_expedited().value_or(-1), int_in_file("/sys/kernel/rcu_expedited", -1));
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
  EXPECT_EQ(env.kernel, kernel_release());
  EXPECT_EQ(env.cpu_model, cpu_model());
  EXPECT_EQ(env.logical_cpus, logical_cpus());
  EXPECT_EQ(env.rlimit_nofile.soft, nofile_limit().soft);
  EXPECT_EQ(env.rlimit_nofile.hard, nofile_limit().hard);
  EXPECT_EQ(env.fdsize_at_start, uses_linux_interfaces() ? fdsize_in_proc_status() : std::nullopt);
  EXPECT_EQ(env.io_uring_disabled, io_uring_disabled());
  EXPECT_EQ(env.rcu_expedited, rcu_expedited());
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

}  // namespace platform_test
}  // namespace fdbench::platform
