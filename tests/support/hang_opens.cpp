// fdbench_hang_opens: runs a program in which every open() of a path holding NEEDLE hangs, as
// an open() on a dead NFS or FUSE mount does; a test support program for --timeout.
//
//   fdbench_hang_opens NEEDLE -- PROGRAM [ARGS...]
//
// The child installs a seccomp filter that turns open, openat and openat2 into user
// notifications (SECCOMP_RET_USER_NOTIF) and execs PROGRAM; its threads and children inherit
// the filter. This process supervises: it reads each call's path from the caller's memory and
// lets the call go on (SECCOMP_USER_NOTIF_FLAG_CONTINUE) unless the path holds NEEDLE; then it
// never answers, and the call stays blocked until the caller is killed.
//
// Where the kernel has SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (5.19), a blocked call is
// killable only, as a hard NFS mount's is: a signal the program handles does not end it, and
// once such a signal is pending, neither does SIGTERM; SIGKILL and exit_group() do. Before
// that (5.5 to 5.18) a handled signal makes the call fail with EINTR, or, with SA_RESTART,
// run again and block again.
//
// With FDBENCH_HANG_OPENS_ERRNO=N in its environment, such an open fails at once with errno
// N instead (13: EACCES, as for root on a file a security module denies): for tests of runs
// whose every call fails.
//
// Opens by other means are not seen: io_uring's IORING_OP_OPENAT, creat(), open_by_handle_at(),
// and calls of another ABI (32-bit calls on a 64-bit kernel, x32). Nor are O_PATH opens, which
// open nothing on a mount's server (only look the name up, as a stat does).
//
// Each open it holds is reported as a line "open-held PATH" appended to the file
// $FDBENCH_TEST_EVENTS names, when it names one.
//
// The exit code is PROGRAM's, or 128 + signal if a signal ended it; SIGINT and SIGTERM sent to
// this process go on to PROGRAM. Standard input and output are PROGRAM's, untouched. Without
// seccomp user notification (Linux before 5.5, a sandbox that forbids it, a supervisor of
// this kind already above us) it prints "hang_opens: unavailable: <reason>" and exits 77
// without running PROGRAM (tests skip on 77). A bad command line exits 2, a failure of this
// supervisor 125, a PROGRAM that is not found 127, one that cannot be run 126. PROGRAM is
// killed if this supervisor dies: without it, every filtered call would fail with ENOSYS.
#include "hang_opens.hpp"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

namespace {

constexpr int kExitUsage = 2;
constexpr int kExitUnavailable = fdbench::testing::kHangOpensUnavailable;
constexpr int kExitFailure = 125;
constexpr int kExitCannotRun = 126;
constexpr int kExitNotFound = 127;

// The architecture of this build's system calls, as the filter sees it (0: not known here).
#if defined(__x86_64__) && !defined(__ILP32__)
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__i386__)
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_I386;
#elif defined(__aarch64__) && !defined(__AARCH64EB__)
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#elif defined(__arm__) && !defined(__ARMEB__)
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_ARM;
#elif defined(__riscv) && __riscv_xlen == 64
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_RISCV64;
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_PPC64LE;
#elif defined(__s390x__)
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_S390X;
#elif defined(__loongarch64)
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_LOONGARCH64;
#else
constexpr std::uint32_t kAuditArch = 0;
#endif

// What the child tells the supervisor after trying to install the filter. The listener comes
// with it (SCM_RIGHTS) when `failed_call` is empty.
struct SetupReport {
  char failed_call[64];  // "" on success, else the call that failed
  int error;             // its errno
};

// Read by the supervisor from the child's memory (the same address after fork) to learn that
// it can read the program's paths.
const char kProbeText[] = "fdbench_hang_opens memory probe";

int g_signal_pipe = -1;  // write end: the handler passes each signal number on through it

void on_signal(int sig) {
  const int saved = errno;
  const auto byte = static_cast<unsigned char>(sig);
  [[maybe_unused]] const ssize_t ignored = write(g_signal_pipe, &byte, 1);
  errno = saved;
}

void set_handler(int sig, void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = handler == SIG_DFL ? 0 : SA_NOCLDSTOP;  // no SA_RESTART: poll wakes up
  sigaction(sig, &action, nullptr);
}

[[noreturn]] void fail(const char* what, int error) {
  std::fprintf(stderr, "hang_opens: %s: %s\n", what, std::strerror(error));
  std::exit(kExitFailure);
}

// --- the child -------------------------------------------------------------------------------

sock_filter statement(std::uint16_t code, std::uint32_t k) {
  return sock_filter{code, 0, 0, k};
}
sock_filter jump_if_equal(std::uint32_t k, std::uint8_t if_true, std::uint8_t if_false) {
  return sock_filter{BPF_JMP | BPF_JEQ | BPF_K, if_true, if_false, k};
}

// open, openat and openat2 of this build's architecture notify the listener; everything else
// (other calls, other architectures' calls) is allowed.
std::vector<sock_filter> open_filter() {
  std::vector<std::uint32_t> calls;
#ifdef __NR_open
  calls.push_back(__NR_open);
#endif
  calls.push_back(__NR_openat);
#ifdef __NR_openat2
  calls.push_back(__NR_openat2);
#endif
  const auto count = static_cast<std::uint8_t>(calls.size());
  std::vector<sock_filter> program;
  program.push_back(statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  program.push_back(jump_if_equal(kAuditArch, 0, static_cast<std::uint8_t>(count + 1)));
  program.push_back(statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
  for (std::uint8_t i = 0; i < count; ++i) {
    // Equal: to the USER_NOTIF return after the ALLOW one.
    program.push_back(jump_if_equal(calls[i], static_cast<std::uint8_t>(count - i), 0));
  }
  program.push_back(statement(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  program.push_back(statement(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF));
  return program;
}

void send_report(int sock, const char* failed_call, int error, int listener) {
  SetupReport report{};
  std::snprintf(report.failed_call, sizeof report.failed_call, "%s", failed_call);
  report.error = error;
  iovec data{&report, sizeof report};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (listener >= 0) {
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &listener, sizeof listener);
  }
  while (sendmsg(sock, &message, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
}

// Installs the filter, hands the listener to the supervisor, waits for its go-ahead and runs
// the program. Never returns.
[[noreturn]] void run_child(int sock, pid_t supervisor, char** program) {
  set_handler(SIGINT, SIG_DFL);
  set_handler(SIGTERM, SIG_DFL);
  set_handler(SIGCHLD, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  // Unsupervised, every filtered call would fail: better not to run at all.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != supervisor) _exit(kExitFailure);

  if (kAuditArch == 0) {
    send_report(sock, "no AUDIT_ARCH for this architecture", ENOSYS, -1);
    _exit(kExitUnavailable);
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    send_report(sock, "prctl(PR_SET_NO_NEW_PRIVS)", errno, -1);
    _exit(kExitUnavailable);
  }
  std::vector<sock_filter> filter = open_filter();
  const sock_fprog fprog{static_cast<unsigned short>(filter.size()), filter.data()};
  const auto install = [&](unsigned long flags) {
    return static_cast<int>(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fprog));
  };
  int listener = install(SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV);
  if (listener < 0 && errno == EINVAL) listener = install(SECCOMP_FILTER_FLAG_NEW_LISTENER);
  if (listener < 0) {
    send_report(sock, "seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER)", errno, -1);
    _exit(kExitUnavailable);
  }
  send_report(sock, "", 0, listener);
  close(listener);
  // Nothing may open a file from here on: the supervisor probes the listener first, and a
  // pending notification would confuse the probe.
  char go = 0;
  ssize_t n = 0;
  while ((n = read(sock, &go, 1)) < 0 && errno == EINTR) {
  }
  if (n != 1) _exit(kExitUnavailable);  // the supervisor gave up
  close(sock);
  execvp(program[0], program);
  const int error = errno;
  std::fprintf(stderr, "hang_opens: cannot run %s: %s\n", program[0], std::strerror(error));
  _exit(error == ENOENT ? kExitNotFound : kExitCannotRun);
}

// --- the supervisor --------------------------------------------------------------------------

// The child's report and, with success, the listener (-1 otherwise). False if the child died
// before it reported.
bool receive_report(int sock, SetupReport& report, int& listener) {
  listener = -1;
  iovec data{&report, sizeof report};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t n = 0;
  while ((n = recvmsg(sock, &message, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  if (n != static_cast<ssize_t>(sizeof report)) return false;
  report.failed_call[sizeof report.failed_call - 1] = '\0';
  for (cmsghdr* h = CMSG_FIRSTHDR(&message); h != nullptr; h = CMSG_NXTHDR(&message, h)) {
    if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
      std::memcpy(&listener, CMSG_DATA(h), sizeof listener);
    }
  }
  return report.failed_call[0] != '\0' || listener >= 0;
}

// Reads a NUL-terminated path of at most PATH_MAX bytes at `address` in process `pid`, a page
// at a time so that a string ending just before an unmapped page is still read. False if there
// is none there (the kernel then fails the call itself) or the process is gone.
bool read_path(pid_t pid, std::uint64_t address, std::string& path) {
  static const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  char buffer[PATH_MAX];
  std::size_t have = 0;
  while (have < sizeof buffer) {
    const std::uint64_t at = address + have;
    const auto want =
        static_cast<std::size_t>(std::min<std::uint64_t>(page - at % page, sizeof buffer - have));
    iovec local{buffer + have, want};
    iovec remote{reinterpret_cast<void*>(static_cast<std::uintptr_t>(at)), want};
    const ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    const auto got = static_cast<std::size_t>(n);
    if (const void* end = std::memchr(buffer + have, '\0', got)) {
      path.assign(buffer, static_cast<std::size_t>(static_cast<const char*>(end) - buffer));
      return true;
    }
    have += got;
  }
  return false;  // longer than PATH_MAX: the call fails with ENAMETOOLONG
}

// Whether the call is an O_PATH open: it asks a mount's server for no open (FUSE sends no
// FUSE_OPEN, NFS no OPEN), only the lookup a stat makes too, which this program lets through as
// well; so it never hangs here either (fdbench's --tree walk checks each file that way).
bool opens_a_path_only(const seccomp_notif& request) {
  std::uint64_t flags = 0;
#ifdef __NR_open
  if (request.data.nr == __NR_open) flags = request.data.args[1];
#endif
  if (request.data.nr == __NR_openat) flags = request.data.args[2];
#ifdef __NR_openat2
  if (request.data.nr == __NR_openat2) {  // struct open_how, its flags first
    iovec local{&flags, sizeof flags};
    iovec remote{reinterpret_cast<void*>(static_cast<std::uintptr_t>(request.data.args[2])),
                 sizeof flags};
    if (process_vm_readv(static_cast<pid_t>(request.pid), &local, 1, &remote, 1, 0) !=
        static_cast<ssize_t>(sizeof flags)) {
      flags = 0;
    }
  }
#endif
  return (flags & O_PATH) != 0;
}

// Whether `ioctl` on the listener succeeded, retrying after a signal.
bool listener_ioctl(int listener, unsigned long request, void* argument) {
  for (;;) {
    if (ioctl(listener, request, argument) == 0) return true;
    if (errno != EINTR) return false;
  }
}

// Whether the kernel accepts SECCOMP_USER_NOTIF_FLAG_CONTINUE (5.5): answering a notification
// that does not exist fails with ENOENT where it does, EINVAL where the flag is unknown. No
// notification is pending yet (the child opens nothing before the go-ahead).
bool kernel_has_continue(int listener, int& error) {
  seccomp_notif_resp answer{};
  answer.id = ~std::uint64_t{0};
  answer.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  if (listener_ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &answer)) return true;
  error = errno;
  return errno == ENOENT;
}

// Tells a test that an open is now held: "open-held PATH", a line appended to the file
// $FDBENCH_TEST_EVENTS names, if it names one (tests/support/fdbench_process.hpp waits for it).
void report_held(const std::string& path) {
  const char* events = std::getenv("FDBENCH_TEST_EVENTS");
  if (events == nullptr || *events == '\0') return;
  const int fd = open(events, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const std::string line = "open-held " + path + "\n";
  [[maybe_unused]] const ssize_t n = write(fd, line.data(), line.size());
  close(fd);
}

// Receives one notification and answers it, unless its path holds the needle. A notification
// whose caller has gone (killed while it waited) is dropped.
void handle_notification(int listener, std::string_view needle) {
  seccomp_notif request{};  // the kernel wants it zeroed
  if (!listener_ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &request)) {
    if (errno == ENOENT) return;  // its caller went away between poll and here
    fail("ioctl(SECCOMP_IOCTL_NOTIF_RECV)", errno);
  }
#ifdef __NR_open
  const bool path_first = request.data.nr == __NR_open;
#else
  const bool path_first = false;
#endif
  std::string path;
  const bool have_path =
      read_path(static_cast<pid_t>(request.pid), request.data.args[path_first ? 0 : 1], path) &&
      !opens_a_path_only(request);
  // Still the caller that made the call, so the memory read was its own.
  if (!listener_ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &request.id)) return;
  seccomp_notif_resp answer{};
  answer.id = request.id;
  answer.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  if (have_path && path.find(needle) != std::string::npos) {
    static const int fail_with = [] {
      const char* text = std::getenv("FDBENCH_HANG_OPENS_ERRNO");
      return text != nullptr ? std::atoi(text) : 0;
    }();
    if (fail_with <= 0) {  // hangs
      report_held(path);
      return;
    }
    answer.flags = 0;
    answer.error = -fail_with;
  }
  if (!listener_ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &answer) && errno != ENOENT) {
    fail("ioctl(SECCOMP_IOCTL_NOTIF_SEND)", errno);
  }
}

int exit_code_of(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Waits for the child to exit (it is about to) and returns its exit code.
int reap(pid_t child) {
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) fail("waitpid", errno);
  }
  return exit_code_of(status);
}

// Answers notifications until the child exits; passes SIGINT and SIGTERM on to it.
int supervise(pid_t child, int listener, int signals, std::string_view needle) {
  pollfd watched[2] = {{signals, POLLIN, 0}, {listener, POLLIN, 0}};
  for (;;) {
    if (poll(watched, 2, -1) < 0) {
      if (errno == EINTR) continue;
      kill(child, SIGKILL);
      fail("poll", errno);
    }
    if (watched[0].revents != 0) {
      unsigned char sig = 0;
      while (read(signals, &sig, 1) == 1) {
        if (sig != SIGCHLD) kill(child, sig);
      }
      int status = 0;
      if (waitpid(child, &status, WNOHANG) == child) return exit_code_of(status);
    }
    if ((watched[1].revents & POLLIN) != 0) {
      handle_notification(listener, needle);
    } else if ((watched[1].revents & (POLLHUP | POLLERR | POLLNVAL)) != 0) {
      watched[1].fd = -1;  // no process uses the filter any more: the child's exit comes next
    }
  }
}

[[noreturn]] void usage(const char* message) {
  std::fprintf(stderr, "hang_opens: %s; usage: fdbench_hang_opens NEEDLE -- PROGRAM [ARGS...]\n",
               message);
  std::exit(kExitUsage);
}

// Starts the child that runs `program` under the filter, once the signal pipe (its write end
// g_signal_pipe, its read end `signals`) and the socket to the child (this side's end `sock`)
// are made; SIGINT, SIGTERM and SIGCHLD are handled here from now on. Returns its pid.
pid_t start_child(char** program, int& signals, int& sock) {
  int pipe_ends[2];
  if (pipe2(pipe_ends, O_CLOEXEC | O_NONBLOCK) != 0) fail("pipe2", errno);
  signals = pipe_ends[0];
  g_signal_pipe = pipe_ends[1];
  int sock_ends[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock_ends) != 0) {
    fail("socketpair", errno);
  }
  // Blocked across fork(), so that the child never runs this process's handlers.
  sigset_t forwarded;
  sigemptyset(&forwarded);
  sigaddset(&forwarded, SIGINT);
  sigaddset(&forwarded, SIGTERM);
  sigaddset(&forwarded, SIGCHLD);
  sigset_t before;
  sigprocmask(SIG_BLOCK, &forwarded, &before);
  set_handler(SIGINT, on_signal);
  set_handler(SIGTERM, on_signal);
  set_handler(SIGCHLD, on_signal);
  const pid_t supervisor = getpid();
  const pid_t child = fork();
  if (child < 0) fail("fork", errno);
  if (child == 0) {
    close(sock_ends[0]);
    close(signals);
    close(g_signal_pipe);
    run_child(sock_ends[1], supervisor, program);
  }
  close(sock_ends[1]);
  sigprocmask(SIG_SETMASK, &before, nullptr);
  sock = sock_ends[0];
  return child;
}

// Why the child's filter cannot hang its opens here (empty: it can): the child's set-up
// failed, the kernel cannot let a notified call go on, or the child's memory cannot be read.
std::string why_unavailable(const SetupReport& report, int listener, pid_t child) {
  if (report.failed_call[0] != '\0') {
    return std::string(report.failed_call) + ": " + std::strerror(report.error);
  }
  if (int error = 0; !kernel_has_continue(listener, error)) {
    return "SECCOMP_USER_NOTIF_FLAG_CONTINUE (Linux 5.5): " + std::string(std::strerror(error));
  }
  char probe[sizeof kProbeText] = {};
  iovec local{probe, sizeof probe};
  iovec remote{const_cast<char*>(kProbeText), sizeof probe};
  const ssize_t n = process_vm_readv(child, &local, 1, &remote, 1, 0);
  const int read_error = errno;
  if (n != static_cast<ssize_t>(sizeof probe) ||
      std::memcmp(probe, kProbeText, sizeof probe) != 0) {
    return "process_vm_readv cannot read the program's paths: " +
           std::string(n < 0 ? std::strerror(read_error) : "a short read");
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || std::strcmp(argv[2], "--") != 0) usage("expected NEEDLE -- PROGRAM");
  const std::string_view needle = argv[1];
  if (needle.empty()) usage("NEEDLE is empty (it would hang every open)");

  int signals = -1;
  int sock = -1;
  const pid_t child = start_child(argv + 3, signals, sock);
  SetupReport report{};
  int listener = -1;
  if (!receive_report(sock, report, listener)) {
    close(sock);  // a child still waiting for the go-ahead exits
    const int code = reap(child);
    if (code != kExitUnavailable) return code;  // killed early
    std::fprintf(stderr, "hang_opens: unavailable: no listener came from the child\n");
    return kExitUnavailable;
  }
  const std::string unavailable = why_unavailable(report, listener, child);
  if (!unavailable.empty()) {
    close(sock);  // the child exits without running the program
    reap(child);
    std::fprintf(stderr, "hang_opens: unavailable: %s\n", unavailable.c_str());
    return kExitUnavailable;
  }
  const char go = 1;
  if (send(sock, &go, 1, MSG_NOSIGNAL) != 1) return reap(child);  // killed meanwhile
  close(sock);
  return supervise(child, listener, signals, needle);
}
