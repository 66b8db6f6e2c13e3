// Setting /sys/kernel/rcu_expedited (Linux, root): what --rcu-expedited changes for the
// results that ask for it, and the watcher that puts it back should fdbench die without
// running its destructors. Reading it lives with the other host facts (host.cpp).
//
// The watcher: a system-wide setting must not outlive a SIGKILL, and no destructor or handler
// runs then. The kernel does one thing for every death, however it comes: it closes the dead
// process's descriptors. So before the first change a process of its own (forked twice: it is
// no child of fdbench, which never waits for it and whose --timeout clean-up, which kills
// every descendant, never finds it) holds one end of a socketpair and blocks reading it; the
// other end is fdbench's. A byte means fdbench put the original back itself: the watcher
// exits without writing (a value that differs then was set by someone else after fdbench,
// and stays theirs). End of file means fdbench is gone without saying so: the watcher writes
// the original back, whatever the value is then, as fdbench's own ending would have, and
// exits. The watcher ignores the signals a terminal or a shell sends (Ctrl-C reaches the
// whole foreground group) and leaves fdbench's session, so a closed terminal does not take
// it either; it holds no other descriptor than the lock (below) and no directory.
//
// The lock: two runs changing the setting at once would each take the other's value for the
// original, and the last to end could leave the machine at the other value. So the setting
// has one owner at a time: an flock on kRcuExpeditedLock, taken before the original is read
// and handed to the watcher, whose copy of the descriptor holds it until the original is back
// (put back by fdbench, or by the watcher itself after a SIGKILL). A second run waits for it.
// The file holds the owner's record, "PID ORIGINAL SETS" (its pid, the value to put back, the
// values it sets), for the waiting run to name and to read; it is never removed (removing a
// lock file races with the next run's open). The watcher clears the record once the original
// is back, so a record nobody holds the lock for, whose pid is gone, is a run killed together
// with its watcher (`pkill -9 fdbench` of old, a cgroup or container kill): the next fdbench
// start puts that original back and says so. A record whose pid still lives is a run whose
// watcher alone was killed: the setting is still that run's, and a second run waits for it.
//
// The watcher does not look like fdbench: its command line and name are rcu-expedited-restore
// (so `pkill fdbench` and `pkill -f fdbench` pass it by), it has a session of its own, and with
// cgroup v2 it moves itself to the root cgroup, out of the unit or container cgroup a kill of
// fdbench's cgroup ends.
//
// Every process fdbench forks (the `process` workers, the fresh children) would inherit
// fdbench's end and keep the watcher from seeing end of file while one lives on: a
// pthread_atfork handler closes it in each of them, so only fdbench holds it.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <string>

#include "common/errors.hpp"
#include "fdbench/error.hpp"
#include "fdbench/unique_fd.hpp"
#include "platform/os.hpp"
#include "platform/platform.hpp"

#if defined(FDBENCH_LINUX)
#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>
#include <linux/magic.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "platform/interrupt.hpp"
#endif

namespace fdbench::platform {

namespace {
[[maybe_unused]] constexpr const char* kRcuExpedited = "/sys/kernel/rcu_expedited";
}

std::string rcu_expedited_unsettable() {
#if defined(FDBENCH_LINUX)
  if (access(kRcuExpedited, F_OK) != 0) return "this kernel has no /sys/kernel/rcu_expedited";
  if (access(kRcuExpedited, W_OK) != 0) {
    return "writing /sys/kernel/rcu_expedited needs root (it is a system-wide setting)";
  }
  return {};
#else
  return "rcu_expedited is a Linux setting";
#endif
}

int set_rcu_expedited(int value) noexcept {
#if defined(FDBENCH_LINUX)
  const int fd = open(kRcuExpedited, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const char text[2] = {value != 0 ? '1' : '0', '\n'};
  const ssize_t written = write(fd, text, sizeof text);
  const int err = written == static_cast<ssize_t>(sizeof text) ? 0 : (written < 0 ? errno : EIO);
  close(fd);
  return err;
#else
  (void)value;
  return ENOTSUP;
#endif
}

#if defined(FDBENCH_LINUX)
namespace {

constexpr char kRcuRestoredByParent = 'r';
constexpr char kRcuWatcherReady = 'w';  // the watcher's first and only byte to fdbench

// fdbench's end of the watcher's socketpair (-1: no watcher), closed in every forked child.
std::atomic<int> g_rcu_watcher_end{-1};

// Forgotten too: the child's own children must not close whatever reuses the number.
void close_rcu_watcher_end_in_child() {
  if (const int fd = g_rcu_watcher_end.exchange(-1); fd >= 0) close(fd);
}

// What a terminal, a shell or a closed session sends; SIGKILL alone still ends the watcher.
constexpr int kSignalsTheRcuWatcherIgnores[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,   SIGUSR1,
                                                SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF,
                                                SIGPIPE, SIGXFSZ, SIGTSTP, SIGTTIN,   SIGTTOU};

// A fork that runs no pthread_atfork handlers: the watcher's own, from its middle process,
// which after fdbench's multithreaded fork may only make async-signal-safe calls.
pid_t fork_rcu_watcher() noexcept {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  return _Fork();
#else
  return fork();
#endif
}

// The watcher: waits on fd 0 until fdbench says it restored the setting or is gone, and then
// clears the lock's record (fd 1), the original being back.
[[noreturn]] void watch_rcu_expedited(int original) noexcept {
  char byte = 0;
  ssize_t n = 0;
  do {
    n = read(0, &byte, 1);
  } while (n < 0 && errno == EINTR);
  const bool put_back =
      (n == 1 && byte == kRcuRestoredByParent) || set_rcu_expedited(original) == 0;
  if (put_back) (void)!ftruncate(1, 0);
  _exit(put_back ? 0 : 1);
}

// Where this process's command line lies in its memory (/proc/self/stat's arg_start and
// arg_end), read before the fork; empty where unknown.
struct ArgArea {
  char* begin = nullptr;
  char* end = nullptr;
};

ArgArea arg_area() {
  const std::optional<std::string> stat = read_text_file("/proc/self/stat");
  if (!stat) return {};
  std::istringstream fields(stat->substr(stat->rfind(')') + 1));
  std::string field;
  ArgArea area;
  for (int n = 3; fields >> field && n <= 49; ++n) {  // after ")", the fields from the 3rd
    if (n == 48) area.begin = reinterpret_cast<char*>(std::stoull(field));
    if (n == 49) area.end = reinterpret_cast<char*>(std::stoull(field));
  }
  return area.begin != nullptr && area.end > area.begin ? area : ArgArea{};
}

// The watcher as ps, pkill and killall see it: not fdbench (its own copy of the memory).
void disguise_rcu_watcher(ArgArea area) noexcept {
  prctl(PR_SET_NAME, "rcu-exp-restore", 0, 0, 0);
  if (area.begin == nullptr) return;
  constexpr char kName[] = "rcu-expedited-restore";
  const auto size = static_cast<std::size_t>(area.end - area.begin);
  std::memset(area.begin, 0, size);
  std::memcpy(area.begin, kName, std::min(size - 1, sizeof kName - 1));
}

// With cgroup v2 at /sys/fs/cgroup, the watcher moves itself to the root cgroup, so that a
// kill of fdbench's cgroup (a systemd unit's, a container's) does not end it. Where it may
// not, it stays.
void leave_fdbench_cgroup() noexcept {
  struct statfs fs {};
  if (statfs("/sys/fs/cgroup", &fs) != 0 || fs.f_type != CGROUP2_SUPER_MAGIC) return;
  const int procs = open("/sys/fs/cgroup/cgroup.procs", O_WRONLY | O_CLOEXEC);
  if (procs < 0) return;
  (void)!write(procs, "0", 1);  // "0": the writing process itself
  close(procs);
}

// The middle process, forked from a multithreaded fdbench: async-signal-safe calls only. The
// watcher gets the socketpair's end as fd 0 and the lock as fd 1, nothing else. Exits 0 once
// the watcher is forked, else with the failing call's errno.
[[noreturn]] void start_rcu_watcher(int watcher_end, int lock, int highest_fd, int original,
                                    ArgArea area) noexcept {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  for (const int sig : kSignalsTheRcuWatcherIgnores) sigaction(sig, &ignore, nullptr);
  if (setsid() < 0) _exit(errno);
  if (chdir("/") != 0) _exit(errno);
  // Above 1 first, so that neither dup2 below closes the other's source.
  const int end_copy = fcntl(watcher_end, F_DUPFD, 2);
  const int lock_copy = fcntl(lock, F_DUPFD, 2);
  if (end_copy < 0 || lock_copy < 0) _exit(errno);
  if (dup2(end_copy, 0) < 0 || dup2(lock_copy, 1) < 0) _exit(errno);
  if (syscall(SYS_close_range, 2U, ~0U, 0U) != 0) {  // before Linux 5.9: what was open at fork
    for (int fd = 2; fd <= std::max(highest_fd, lock_copy); ++fd) close(fd);
  }
  const pid_t watcher = fork_rcu_watcher();
  if (watcher < 0) _exit(errno);
  if (watcher > 0) _exit(0);
  disguise_rcu_watcher(area);
  leave_fdbench_cgroup();
  // Disguised and out of the cgroup before fdbench changes anything: fdbench waits for this.
  if (write(0, &kRcuWatcherReady, 1) != 1) _exit(1);
  watch_rcu_expedited(original);
}

// The lock's record: "PID ORIGINAL SETS" ("PID" alone from fdbench before the record), or
// nothing once the original is back.
struct RcuRecord {
  long pid = 0;
  std::optional<int> original;
  std::vector<int> sets;
};

// The record's pid alone, or 0: what restored() reads, which may not throw.
long rcu_record_pid(int lock) noexcept {
  char text[64] = {};
  const ssize_t n = pread(lock, text, sizeof text - 1, 0);
  return n > 0 ? std::strtol(text, nullptr, 10) : 0;
}

RcuRecord read_rcu_record(int lock) {
  char text[64] = {};
  if (pread(lock, text, sizeof text - 1, 0) <= 0) return {};
  RcuRecord record;
  int original = 0;
  char sets[16] = {};
  const int read = std::sscanf(text, "%ld %d %15s", &record.pid, &original, sets);
  if (read < 1) return {};
  if (read < 3) return record;
  record.original = original;
  for (const char* c = sets; *c != '\0'; ++c) {
    if (*c == '0' || *c == '1') record.sets.push_back(*c - '0');
  }
  return record;
}

bool process_alive(long pid) {
  return pid > 0 && (kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

// A record of another run that still lives (its watcher may have been killed alone): the
// setting is that run's, as if it held the lock.
bool held_by_a_live_run(const RcuRecord& record) {
  return record.original && record.pid != getpid() && process_alive(record.pid);
}

// With the lock held: a record left by a run killed with its watcher is put back and
// cleared; the line that says so, or empty.
std::string put_back_recorded(int lock) {
  const RcuRecord left = read_rcu_record(lock);
  if (!left.original || left.pid == getpid() || process_alive(left.pid)) return {};
  const std::optional<int> now = rcu_expedited();
  std::string said;
  if (now && *now != *left.original) {
    const int err = set_rcu_expedited(*left.original);
    said = err == 0 ? fmt::format(
                          "put /sys/kernel/rcu_expedited back to {} (it read {}): fdbench run "
                          "{} changed it and was killed together with the process that would "
                          "have put it back",
                          *left.original, *now, left.pid)
                    : fmt::format(
                          "cannot put /sys/kernel/rcu_expedited back to {}, which fdbench run "
                          "{} changed before it was killed: {}",
                          *left.original, left.pid, std::strerror(err));
  }
  (void)!ftruncate(lock, 0);
  return said;
}

// Why this run stopped waiting for the lock after `waited`.
std::string gave_up_waiting(long holder, std::chrono::milliseconds waited) {
  return fmt::format(
      "another fdbench run{} has had it changed for longer than the {:g} s this run waits (it "
      "holds {}): let that run end, or give --timeout SECONDS to wait longer",
      holder > 0 ? fmt::format(" (pid {})", holder) : "",
      std::chrono::duration<double>(waited).count(), kRcuExpeditedLock);
}

// The lock taken, and no live run's record in it: 0, or the errno (EWOULDBLOCK while held).
int try_rcu_lock(int lock) {
  if (flock(lock, LOCK_EX | LOCK_NB) != 0) return errno;
  if (!held_by_a_live_run(read_rcu_record(lock))) return 0;
  flock(lock, LOCK_UN);
  return EWOULDBLOCK;
}

// The machine-wide lock on changing the setting, taken (after waiting, at most `wait.limit`,
// while another run holds it), with a record left by a killed run put back; or an invalid
// descriptor with `why_not` (and `gave_up` where the wait ran out).
UniqueFd lock_rcu_expedited(std::string& why_not, const RcuLockWait& wait, bool& gave_up) {
  UniqueFd lock(open(kRcuExpeditedLock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (!lock) {
    why_not = fmt::format("cannot open its lock {}: {}", kRcuExpeditedLock, std::strerror(errno));
    return {};
  }
  const auto began = std::chrono::steady_clock::now();
  for (bool told = false; const int err = try_rcu_lock(lock.get());) {
    if (err != EWOULDBLOCK && err != EINTR) {
      why_not = fmt::format("cannot lock {}: {}", kRcuExpeditedLock, std::strerror(err));
      return {};
    }
    if (!told && wait.waiting) wait.waiting(read_rcu_record(lock.get()).pid);
    told = true;
    if (std::chrono::steady_clock::now() - began >= wait.limit) {
      why_not = gave_up_waiting(read_rcu_record(lock.get()).pid, wait.limit);
      gave_up = true;
      return {};
    }
    throw_if_interrupted();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (const std::string said = put_back_recorded(lock.get()); !said.empty() && wait.say) {
    wait.say(said);
  }
  return lock;
}

// The record of this run, the lock held: its pid, `original` and the values it sets.
bool write_rcu_record(int lock, int original, const std::vector<int>& values) {
  std::string sets;
  for (const int v : values) sets += fmt::format("{}{}", sets.empty() ? "" : ",", v);
  const std::string record = fmt::format("{} {} {}\n", getpid(), original, sets.empty() ? "-" : sets);
  return ftruncate(lock, 0) == 0 &&
         pwrite(lock, record.data(), record.size(), 0) == static_cast<ssize_t>(record.size());
}

}  // namespace

namespace {

// Forks the watcher, which takes its copies of `lock` and of its end of a socketpair; this
// process's end, or -1 with `why_not`.
int fork_rcu_watcher_with(int lock, int original, std::string& why_not) {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    why_not = fmt::format("socketpair: {}", std::strerror(errno));
    return -1;
  }
  const std::vector<int> open = open_descriptors();
  const int highest = open.empty() ? ends[1] : open.back();
  const ArgArea area = arg_area();
  g_rcu_watcher_end.store(ends[0]);
  const pid_t middle = fork();
  if (middle == 0) start_rcu_watcher(ends[1], lock, highest, original, area);
  const int fork_errno = errno;
  close(ends[1]);
  int status = 0;
  pid_t reaped = -1;
  if (middle > 0) {
    do {
      reaped = waitpid(middle, &status, 0);
    } while (reaped < 0 && errno == EINTR);
  }
  if (reaped == middle && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    char ready = 0;
    ssize_t n = 0;
    do {
      n = read(ends[0], &ready, 1);
    } while (n < 0 && errno == EINTR);
    if (n == 1 && ready == kRcuWatcherReady) return ends[0];
    why_not = "it ended before it was ready";
    g_rcu_watcher_end.store(-1);
    close(ends[0]);
    return -1;
  }
  const int wait_errno = errno;
  g_rcu_watcher_end.store(-1);
  close(ends[0]);
  if (middle < 0) {
    why_not = fmt::format("fork: {}", std::strerror(fork_errno));
  } else if (reaped != middle) {
    why_not = fmt::format("waitpid: {}", std::strerror(wait_errno));
  } else if (WIFSIGNALED(status)) {
    why_not = fmt::format("it was killed by signal {}", WTERMSIG(status));
  } else {
    why_not = std::strerror(WEXITSTATUS(status));  // the failing call's errno
  }
  return -1;
}

}  // namespace

std::string put_back_rcu_expedited_left_changed() {
  const UniqueFd lock(open(kRcuExpeditedLock, O_RDWR | O_CLOEXEC | O_NOFOLLOW));
  if (!lock) return {};  // none yet, or not root
  // Read first, without the lock: a start finds nothing to do, and never makes a run that
  // takes the lock at that moment say it waits.
  const RcuRecord left = read_rcu_record(lock.get());
  if (!left.original || process_alive(left.pid)) return {};
  if (flock(lock.get(), LOCK_EX | LOCK_NB) != 0) return {};  // a run holds it: it is live
  return put_back_recorded(lock.get());                       // unlocked as it is closed
}

long rcu_expedited_kept_at(int value) {
  const UniqueFd lock(open(kRcuExpeditedLock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!lock) return 0;
  const RcuRecord held = read_rcu_record(lock.get());
  const bool keeps = held_by_a_live_run(held) && held.original == value && !held.sets.empty() &&
                     std::ranges::all_of(held.sets, [value](int v) { return v == value; });
  return keeps && rcu_expedited() == value ? held.pid : 0;
}

std::unique_ptr<RcuExpeditedWatcher> RcuExpeditedWatcher::start(std::string& why_not,
                                                                const RcuLockWait& wait) {
  static std::once_flag registered;
  std::call_once(registered,
                 [] { pthread_atfork(nullptr, nullptr, close_rcu_watcher_end_in_child); });
  FDBENCH_ASSERT(g_rcu_watcher_end.load() < 0);
  const auto refused = [&why_not](const std::string& what) {
    why_not =
        "cannot start the process that puts /sys/kernel/rcu_expedited back if fdbench is "
        "killed: " +
        what;
    return nullptr;
  };
  std::string lock_failed;
  bool gave_up = false;
  // Held here until the watcher holds it too; closed here on every way out.
  const UniqueFd lock = lock_rcu_expedited(lock_failed, wait, gave_up);
  if (!lock && gave_up) {
    why_not = lock_failed;
    return nullptr;
  }
  if (!lock) return refused(lock_failed);
  const std::optional<int> original = rcu_expedited();
  if (!original) {
    why_not = "cannot read /sys/kernel/rcu_expedited";
    return nullptr;
  }
  if (!write_rcu_record(lock.get(), *original, wait.values)) {
    return refused(fmt::format("cannot write {}: {}", kRcuExpeditedLock, std::strerror(errno)));
  }
  std::string failed;
  const int end = fork_rcu_watcher_with(lock.get(), *original, failed);
  if (end < 0) {
    (void)!ftruncate(lock.get(), 0);  // nothing was changed: no record to put back
    return refused(failed);
  }
  return std::unique_ptr<RcuExpeditedWatcher>(new RcuExpeditedWatcher(end, *original));
}

RcuExpeditedWatcher::~RcuExpeditedWatcher() {
  g_rcu_watcher_end.store(-1);
  close(socket_);
}

void RcuExpeditedWatcher::restored() noexcept {
  // The record cleared before the watcher (which holds the lock) is told, in case it was
  // killed alone: never after, when a next run may hold the lock with a record of its own.
  if (const int lock = open(kRcuExpeditedLock, O_RDWR | O_CLOEXEC | O_NOFOLLOW); lock >= 0) {
    if (rcu_record_pid(lock) == getpid()) (void)!ftruncate(lock, 0);
    close(lock);
  }
  ssize_t sent = 0;
  do {
    sent = send(socket_, &kRcuRestoredByParent, 1, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
}

#else

std::string put_back_rcu_expedited_left_changed() { return {}; }

long rcu_expedited_kept_at(int /*value*/) { return 0; }

std::unique_ptr<RcuExpeditedWatcher> RcuExpeditedWatcher::start(std::string& why_not,
                                                                const RcuLockWait& /*wait*/) {
  why_not = "rcu_expedited is a Linux setting";
  return nullptr;
}

RcuExpeditedWatcher::~RcuExpeditedWatcher() {
  (void)socket_;  // never made here
  (void)original_;
}

void RcuExpeditedWatcher::restored() noexcept {}

#endif

}  // namespace fdbench::platform
