#pragma once
// Everything OS-specific, behind one facade; its parts live in src/platform/, one file per
// concern, and #ifdefs live there only.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fdbench/unique_fd.hpp"

namespace fdbench::platform {

// Whether this build uses Linux's own interfaces (/proc, PR_SET_PDEATHSIG, close_range,
// pipe2, statfs magic numbers). False on other systems and in the portable build
// (FDBENCH_PORTABLE), which runs on Linux what macOS and the BSDs run: there fd_table_size()
// is nullopt, die_with_parent() does nothing and fs_type() may be "unknown".
bool uses_linux_interfaces() noexcept;

// ---- The descriptor table (src/platform/descriptor_table.cpp)

// Size of this process's descriptor table (Linux: "FDSize:" in /proc/self/status), or
// nullopt where the OS does not show it (see uses_linux_interfaces()). Uses one descriptor
// briefly on Linux.
std::optional<int> fd_table_size();

// Grows the descriptor table so that fd `highest_fd` fits, by duplicating a descriptor to
// that number and closing it again. Returns 0 or an errno value. Tables never shrink, so
// doing this once before any extra thread exists pays for a whole run.
int grow_fd_table(int highest_fd) noexcept;

// Waits for one RCU grace period (Linux: membarrier(MEMBARRIER_CMD_GLOBAL), which is the
// kernel's synchronize_rcu()); returns whether it could. A process that closed many
// descriptors as it ended (a previous repetition's fresh child) left RCU work behind, and a
// grace period already under way for it changes how long the next table growth's own grace
// period takes (docs/performance.md, "The fd-table stall"); after this, a repetition starts
// where a program started alone on a quiet machine does. Milliseconds with rcu_expedited 0.
bool settle_rcu() noexcept;

// The kernel's starting table size (64 on Linux); a fresh process with fds 0-2 has this.
constexpr int kSmallestFdTable = 64;

struct NofileLimit {
  std::uint64_t soft = 0;
  std::uint64_t hard = 0;
};
NofileLimit nofile_limit();
// Raises the soft RLIMIT_NOFILE to at least `needed` (never lowers it). Returns 0 or errno.
int raise_nofile_soft(std::uint64_t needed) noexcept;

// The highest soft RLIMIT_NOFILE this process may set: the hard limit, and on macOS also
// kern.maxfilesperproc (setrlimit above it fails with EINVAL there; OPEN_MAX when the sysctl
// cannot be read). Defined in src/platform/nofile_ceiling.cpp.
std::uint64_t nofile_ceiling() noexcept;
// Raises the hard RLIMIT_NOFILE, and the soft one with it, to `needed` (never lowers them).
// Linux only: a process with CAP_SYS_RESOURCE may, up to fs.nr_open. Returns 0 or an errno
// value: EPERM without the capability or beyond fs.nr_open, ENOTSUP on other systems (and
// the portable build), where it never tries. Also in src/platform/nofile_ceiling.cpp.
int raise_nofile_hard(std::uint64_t needed);

// Descriptors this process holds, ascending.
std::vector<int> open_descriptors();
// Closes every descriptor >= `lowest` except `keep` (-1: none).
void close_descriptors_from(int lowest, int keep = -1) noexcept;

// ---- Processes and signalling descriptors (src/platform/process.cpp)

// An eventfd (Linux, FreeBSD); -1 with errno ENOSYS where the OS has none.
int create_eventfd() noexcept;
// Whether this system has eventfd (Linux, FreeBSD): where not, `socket --kind eventfd` is
// unavailable, not a run of failed calls.
bool has_eventfd() noexcept;
// A close-on-exec pipe; -1 with errno on failure.
int create_pipe(int fds[2]) noexcept;

// ---- Loopback listeners (src/platform/loopback.cpp)

// The most connections a listening socket may queue (net.core.somaxconn, kern.ipc.somaxconn):
// a larger listen() backlog is cut to it. nullopt where the system does not say.
std::optional<int> somaxconn();
// Connections queued on `listener` waiting for accept (Linux: a listening TCP socket's
// tcp_info); nullopt where the system does not say (Unix-domain sockets, other systems).
std::optional<int> accept_queue_length(int listener);
// accept() into a close-on-exec descriptor: accept4 where the system has it; -1 with errno.
int accept_connection(int listener) noexcept;
// Whether SO_REUSEPORT spreads one port's connections over every listener (Linux).
bool has_reuseport_balancing() noexcept;
// Sets or clears O_NONBLOCK on `fd`; 0 or an errno value.
int set_nonblocking(int fd, bool on) noexcept;
// Lets several listening sockets share one port (SO_REUSEPORT); 0 or an errno value.
int allow_port_sharing(int fd) noexcept;

// One thread's wait for connections queued on a listener, as an event-driven server waits:
// on Linux an epoll instance of its own holding the listener with EPOLLEXCLUSIVE (a new
// connection wakes one waiting thread, not all). Unavailable elsewhere (see available()).
class ListenerWait {
 public:
  ListenerWait() = default;
  ListenerWait(const ListenerWait&) = delete;
  ListenerWait& operator=(const ListenerWait&) = delete;
  ~ListenerWait();
  // Whether this system has it (Linux).
  [[nodiscard]] static bool available() noexcept;
  // Makes the instance and adds `listener`; 0 or an errno value.
  int open(int listener) noexcept;
  // Waits at most `timeout_ns` for a queued connection (to the microsecond where the kernel
  // has epoll_pwait2, Linux 5.11; else rounded up to a millisecond): 1 when one is, 0 at the
  // limit, -1 with errno on failure.
  int wait(std::int64_t timeout_ns) noexcept;

 private:
  int fd_ = -1;
};

// In a forked child: be killed when the parent dies (Linux: PR_SET_PDEATHSIG; elsewhere a
// no-op, and callers also check getppid()). False if the request failed.
bool die_with_parent() noexcept;

// Threads of this process (Linux: "Threads:" in /proc/self/status, which counts io_uring's
// workers too), or nullopt where the OS does not show it (see uses_linux_interfaces()).
std::optional<int> thread_count();

// A word in memory shared between processes (a MAP_SHARED page) that they wait on together.
// Whether waiting blocks in the kernel (Linux: a futex); elsewhere wait_shared_word() only
// polls, and callers with many waiters had better use one channel each instead.
bool shared_word_blocks() noexcept;
// Returns once `word` no longer holds `seen`: spins briefly (a change within microseconds is
// seen without a wake-up), then sleeps until wake_shared_word().
void wait_shared_word(const std::atomic<std::uint32_t>& word, std::uint32_t seen) noexcept;
// Wakes every process waiting on `word`, in one call however many there are.
void wake_shared_word(std::atomic<std::uint32_t>& word) noexcept;

// A word threads of this process wait on together. wait_word() returns once `word` no
// longer holds `seen`. With `spin_ns` 0 it sleeps at once (Linux: a private futex): no spinning
// and no sched_yield, which on a machine with fewer CPUs than threads take CPU time and context
// switches from the threads still working (std::atomic::wait in libstdc++ 12 polls, the last
// polls with sched_yield, before it sleeps). With `spin_ns` > 0 it first watches the word that
// long with a pause between looks, never yielding: for a waiter that has a CPU of its own, a
// change within that time is seen without a wake-up (tens to hundreds of microseconds on a
// VM's idle vCPU). wake_word() wakes every waiter.
void wait_word(const std::atomic<std::uint32_t>& word, std::uint32_t seen,
               std::int64_t spin_ns = 0) noexcept;
void wake_word(std::atomic<std::uint32_t>& word) noexcept;

// Which limit on processes and threads stands in the way when the system will not create one
// (fork or pthread_create failing with EAGAIN), for the message that says so: "ulimit -u is 2
// for this user" (never for root, whom it does not bind), "pids.max is 10 in cgroup
// /sys/fs/cgroup/pids/x (10 in use)" (Linux, the tightest along the cgroup's path), both, or,
// when neither is set, the system-wide limits to look at (src/platform/task_limit.cpp).
std::string task_limit_text();
// The line for an allocation that failed `when` ("while measuring", or ""): "out of memory while
// measuring: an allocation failed under the address-space limit (ulimit -v) of 30000 KiB: ..."
// (src/platform/task_limit.cpp).
std::string out_of_memory_text(std::string_view when);

// Whether process `pid` exists and has not exited. A zombie counts as exited: always for a
// child of ours; for other processes only where the OS shows it (Linux).
bool process_running(int pid) noexcept;

// Replaces this process with `argv[0]` found on PATH (execvp), environment and descriptors as
// they are; returns only on failure, with execvp's errno. The descriptor table keeps its size
// when it is not shared (one thread): what `fdbench pregrow` hands the program.
int exec_program(const std::vector<std::string>& argv) noexcept;

// ---- Processes fdbench trace watches (src/platform/traced_process.cpp)

// A command started to be traced: forked, and held before its exec until release(), so that
// tracing is attached before its first instruction. Its signals, environment and descriptors
// are fdbench's own as fdbench found them; it does not die with fdbench.
class HeldCommand {
 public:
  // Forks it; nullptr and `why_not` (one line) when it cannot be.
  static std::unique_ptr<HeldCommand> start(const std::vector<std::string>& argv,
                                            std::string& why_not);
  ~HeldCommand();  // never released: killed and reaped (it is still only fdbench's fork)
  HeldCommand(const HeldCommand&) = delete;
  HeldCommand& operator=(const HeldCommand&) = delete;
  [[nodiscard]] int pid() const { return pid_; }
  // Lets it exec: "" when it did, else why not (one line: execvp's error, in exec_error()).
  std::string release();
  [[nodiscard]] int exec_error() const { return exec_error_; }
  // Waits at most `timeout_ms` for it to end: its exit code (128 + a signal that ended it),
  // or nullopt while it runs.
  std::optional<int> wait_for(int timeout_ms);

 private:
  HeldCommand(int pid, int release_fd, int error_fd);
  int pid_;
  UniqueFd release_;  // written once to let it exec
  UniqueFd error_;    // its execvp's errno, or EOF once the exec closed it
  bool released_ = false;
  bool reaped_ = false;
  int exec_error_ = 0;
};
// Another process's descriptor table size (FDSize) and thread count (Threads) from
// /proc/PID/status, or nullopt where it is gone or the OS does not show it.
std::optional<int> fd_table_size_of(int pid);
std::optional<int> thread_count_of(int pid);

// ---- What a thread or process has taken (src/platform/usage.cpp)

// Page faults and context switches since a thread or process began (getrusage). The counts
// only grow: what a stretch of work took is the difference of two readings around it.
struct Usage {
  std::uint64_t minor_faults = 0;          // served from memory (a first touch, copy-on-write)
  std::uint64_t major_faults = 0;          // that had to wait for I/O
  std::uint64_t voluntary_switches = 0;    // gave up the CPU: waited for something
  std::uint64_t involuntary_switches = 0;  // was taken off the CPU: preempted
};
// The calling thread's own (Linux, FreeBSD: RUSAGE_THREAD), or nullopt where the OS counts
// only whole processes (macOS, the other BSDs, the portable build).
std::optional<Usage> thread_usage() noexcept;
// The whole process's, every thread's together (RUSAGE_SELF); nullopt only if getrusage fails.
// In a process of one thread (a forked worker) that is the thread's own, on every system.
std::optional<Usage> process_usage() noexcept;

// ---- Kernel evidence (--kernel-trace; src/platform/kernel_trace.cpp). Linux only.

// What the kernel recorded of this process's threads and of the threads and processes they
// started since tracing began: every switch off and back onto a CPU, the kernel's call chain
// at each switch off, page faults and io_uring requests punted to io-wq. Times are now_ns()'s.
struct KernelEvent {
  enum class Kind : std::uint8_t {
    switched_out,   // left the CPU; `preempted` if it was still runnable
    switched_in,    // came back onto a CPU
    stack,          // the kernel call chain where a thread left the CPU
    page_fault,     // a page fault, in user or kernel mode
    io_uring_punt,  // an io_uring request queued to io-wq (io_uring_queue_async_work)
    exited,         // the thread ended (its last switch is not recorded)
    forked,         // a thread or process began (fdbench trace): `pid` its process, `tid` it
    call_entered,   // a traced call began (fdbench trace): `call`, `value` its second argument
    call_returned,  // a traced call returned (fdbench trace): `call`, `value` its result
  };
  Kind kind = Kind::switched_out;
  bool preempted = false;
  std::int32_t pid = 0;  // the process (thread group)
  std::int32_t tid = 0;
  std::int64_t time_ns = 0;
  std::uint32_t frames_begin = 0;  // stack: its addresses in KernelRecords::frames, innermost first
  std::uint32_t frames_size = 0;
  std::int32_t call = 0;   // call_entered, call_returned: the system call's number
  std::int64_t value = 0;  // call_entered: its second argument; call_returned: its result
};
struct KernelRecords {
  std::vector<KernelEvent> events;  // in time order
  std::vector<std::uint64_t> frames;
  std::uint64_t lost = 0;      // records the kernel dropped: a full buffer or throttled samples
  std::int64_t lost_from = 0;  // the earliest time a record is known to be missing from, or 0
};
// A tracing session, attached to every thread of this process when made, and inherited by
// every thread and process started after that. Detached when destroyed: nothing is left
// attached by a process that ends (the kernel drops the events with their last descriptor),
// and no child holds its descriptors (each closes its copies at fork).
// What a tracer attaches to: this process (--kernel-trace), or another's threads with every
// descriptor-creating call and close they make (fdbench trace).
struct TraceTarget {
  int pid = 0;  // 0: this process; else every thread of that process
  // Also each descriptor-creating call and close, as it begins and returns (the raw_syscalls
  // tracepoints, filtered in the kernel to those calls), and each thread's start.
  bool descriptor_calls = false;
};
class KernelTracer {
 public:
  // Attaches, or returns why it cannot here, in one line with what would enable it.
  static std::unique_ptr<KernelTracer> open(std::string& why_not, const TraceTarget& target = {});
  ~KernelTracer();
  KernelTracer(const KernelTracer&) = delete;
  KernelTracer& operator=(const KernelTracer&) = delete;
  // Everything recorded since the last drain() or discard(), in time order; discard() drops it.
  KernelRecords drain();
  void discard();
  // The threads of this process when tracing began (its harness: the main thread and what
  // it had started).
  [[nodiscard]] const std::vector<int>& threads_at_start() const;
  // Empty when io_uring punts are counted; otherwise why not.
  [[nodiscard]] const std::string& punts_not_counted() const;
  // Descriptors it holds (its events), for the descriptor budget.
  [[nodiscard]] int descriptors() const;

 private:
  struct State;
  explicit KernelTracer(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};
// What a traced system call is, by its number (call_entered's `argument` tells fcntl's F_DUPFD
// from its other commands).
struct DescriptorCall {
  std::string_view name;  // "openat", "socket", ... or "close"; empty: not a call traced
  bool closes = false;    // close
  // Its result is the descriptor (pipe, pipe2 and socketpair write theirs to memory).
  bool returns_descriptor = true;
};
DescriptorCall descriptor_call(std::int32_t call, std::int64_t argument);
// Whether kernel evidence can be recorded here: "" when it can, else the reason and what
// would enable it (tried by attaching to this thread once).
std::string kernel_trace_unavailable();
// The kernel function holding `address` ("expand_files"), from /proc/kallsyms; "" when
// unknown or unreadable (kptr_restrict). The table is read once.
std::string_view kernel_symbol(std::uint64_t address);
// The calling thread's id (gettid), or 0 where there is none to read; this process's (getpid).
int thread_id() noexcept;
int process_id() noexcept;

// ---- Work that hangs (--timeout; src/platform/hung_work.cpp). Linux only: elsewhere the
// OS shows no other thread's system call, and these find nothing and do nothing.

// The files that threads of this process and of its descendants are blocked opening now
// (open, openat, openat2), or looking at (stat, lstat, fstatat, statx: examining the user's
// files), as absolute paths where the directory can be told; nullopt where
// the OS does not show it.
std::optional<std::vector<std::string>> paths_being_opened();
// Makes every other thread of this process stop for good the next time it would run fdbench's
// code (a signal whose handler never returns), so a thread abandoned in a hung call that
// returns later finds nothing freed under it. Returns how many were signalled.
int park_other_threads();
// The current directory when it was made, to go back to once work that changed it for a
// while is abandoned mid-way (--harness published makes a file set's parent the current
// directory during each repetition): relative output paths then mean what they meant when
// fdbench started.
class WorkingDirectory {
 public:
  WorkingDirectory() noexcept;
  ~WorkingDirectory();
  WorkingDirectory(const WorkingDirectory&) = delete;
  WorkingDirectory& operator=(const WorkingDirectory&) = delete;
  // Makes it the current directory again; false where it could not be kept or returned to.
  bool restore() const noexcept;

 private:
  int fd_;
};
// SIGKILLs every process descended from this one (worker processes, fresh children and
// theirs). Returns those it signalled; reaping this process's own children is left to their
// owner (ChildProcess::kill_all).
std::vector<int> kill_descendants();
// A process SIGKILL has not ended: one waiting in the kernel where no signal reaches it (an
// open on a FUSE or NFS mount whose server took the request and never answers: state D).
struct StuckProcess {
  int pid = 0;
  char state = '?';  // from /proc/PID/stat: D (uninterruptible wait), R, S, ...
};
// Which of `pids` (killed) are still there, neither gone nor dead (a zombie), once they have
// had up to `grace` to die. Found nowhere the OS does not show it (empty).
std::vector<StuckProcess> processes_not_ended(const std::vector<int>& pids,
                                              std::chrono::milliseconds grace);

// ---- Host facts for the environment block, and the clock (src/platform/host.cpp)

// Monotonic clock in nanoseconds.
std::int64_t now_ns() noexcept;

std::string os_name();
std::string kernel_release();
std::string cpu_model();
int logical_cpus();
// Filesystem type name of the filesystem holding `path` ("ext4", "tmpfs", "apfs", ...).
std::string fs_type(const std::string& path);
// Where temporary files go: $TMPDIR if set and non-empty, else /tmp.
std::string default_dir();
// Linux knobs recorded with results: /proc/sys/kernel/io_uring_disabled and
// /sys/kernel/rcu_expedited (an expedited RCU hides the table-growth stall). nullopt elsewhere.
std::optional<int> io_uring_disabled();
std::optional<int> rcu_expedited();
// The time the hypervisor ran something else while this machine's CPUs wanted to run, summed
// over every CPU since boot (/proc/stat's steal, in its ticks of 1/USER_HZ s) in ns; nullopt
// where it cannot be read (not Linux). 0 on a VM that does not report it, and on bare metal.
std::optional<std::int64_t> steal_time_ns();
// Why this process cannot set rcu_expedited ("... needs root ..."), or empty when it can
// (src/platform/rcu.cpp).
std::string rcu_expedited_unsettable();
// Writes `value` (0 or 1) to /sys/kernel/rcu_expedited: 0 or an errno value (ENOTSUP where
// there is no such setting).
int set_rcu_expedited(int value) noexcept;
// A process of its own that puts /sys/kernel/rcu_expedited back to the value it was before
// this process changed it, should this process die while the setting is changed (SIGKILL, a
// crash), when no destructor runs (src/platform/rcu.cpp). Started before the first change; one
// at a time, machine-wide: it holds a lock (kRcuExpeditedLock) from before the original is
// read until it is back, so two runs never take each other's setting for the original.
inline constexpr const char* kRcuExpeditedLock = "/run/fdbench-rcu_expedited.lock";
// The lock file also records its holder's pid, the original value and the values the holder
// sets ("PID ORIGINAL SETS"), cleared once the original is back: a record whose process is
// gone while nobody holds the lock is a run killed together with its watcher.
// What a run that takes the setting tells the lock, and what it is told while it waits.
struct RcuLockWait {
  std::vector<int> values;  // the values this run will set, recorded for a waiting run to read
  std::function<void(long)> waiting;  // once, with the holder's pid (0 if unknown), on a wait
  std::function<void(const std::string&)> say;  // a line about a setting put back
  std::chrono::milliseconds limit{0};           // the longest wait for another run's hold
};
// Where the lock's record shows a run killed with its watcher (its pid gone, nobody holding
// the lock) and rcu_expedited is not the original it recorded: puts the original back and
// returns the line that says so; else empty. Clears such a record. Run at every start.
std::string put_back_rcu_expedited_left_changed();
// The pid of another live fdbench run holding the setting whose record says the machine's
// own value is `value`, that it sets nothing else, and that `value` is what it reads now: a
// run asking for `value` need not wait for it. 0 otherwise.
long rcu_expedited_kept_at(int value);
class RcuExpeditedWatcher {
 public:
  // Takes the lock, reads the original and starts the watcher, or returns nullptr with
  // `why_not` set (one line): then the setting must not be changed. While another process
  // holds the lock (an fdbench run with the setting changed) it waits, calling `wait.waiting`
  // once with that run's pid (0 if unknown), and ends the wait on a signal (Interrupted) or
  // after `wait.limit` (`why_not` then names the pid that holds it). A record left by a run
  // killed with its watcher is put back first, said through `wait.say`.
  static std::unique_ptr<RcuExpeditedWatcher> start(std::string& why_not,
                                                    const RcuLockWait& wait);
  // Without restored(): the watcher writes the original back itself, at once.
  ~RcuExpeditedWatcher();
  RcuExpeditedWatcher(const RcuExpeditedWatcher&) = delete;
  RcuExpeditedWatcher& operator=(const RcuExpeditedWatcher&) = delete;
  // The value found before any change, which the watcher puts back.
  [[nodiscard]] int original() const noexcept { return original_; }
  // This process has put the original back: the watcher exits without writing, and with it
  // goes the lock.
  void restored() noexcept;

 private:
  RcuExpeditedWatcher(int socket, int original) noexcept : socket_(socket), original_(original) {}
  int socket_;  // this process's end of the socketpair; the watcher reads the other
  int original_;
};
// Integer from a one-number pseudo-file such as /proc/sys/kernel/io_uring_disabled.
std::optional<int> read_int_file(const std::string& path);
// Text of a small (pseudo-)file, or nullopt when it cannot be read.
std::optional<std::string> read_text_file(const std::string& path);
// Installed memory in bytes where the OS tells it through sysconf; nullopt elsewhere.
std::optional<std::uint64_t> memory_bytes();
// The measured cost of a trivial syscall (getppid), in ns per call: the median of a few
// batches, a few ms in all. Every open and close pays at least this, so it tells why two
// machines differ (page-table isolation alone can make it ten times dearer).
double syscall_ns();

// ---- Who, where, when and how loaded: a run's context (src/platform/machine_load.cpp)

// This machine's name (gethostname); "unknown" where it cannot be read.
std::string host_name();
// The real user id this process runs as.
std::uint32_t user_id() noexcept;
// `when` as UTC in ISO 8601 with seconds: "2026-12-05T09:14:03Z".
std::string utc_date(std::time_t when);
std::string utc_date_now();

// The run-queue load averages over 1, 5 and 15 minutes (getloadavg); nullopt where unknown.
struct LoadAverages {
  double one = 0;
  double five = 0;
  double fifteen = 0;
  bool operator==(const LoadAverages&) const = default;
};
std::optional<LoadAverages> load_averages();

// Linux pressure stall information for the CPU (/proc/pressure/cpu, its "some" line): the
// share of time some runnable task waited for a CPU over the last 10 and 60 seconds, in
// percent, and the total waited since boot in microseconds. nullopt where the file is absent
// (other systems, the portable build, a kernel without PSI).
struct CpuPressure {
  double some_avg10 = 0;
  double some_avg60 = 0;
  std::uint64_t some_total_us = 0;
  bool operator==(const CpuPressure&) const = default;
};
std::optional<CpuPressure> cpu_pressure();
// The same from that file's text; nullopt for text without a whole "some" line.
std::optional<CpuPressure> cpu_pressure_from(std::string_view text);

// ---- Terminals (src/platform/terminal.cpp)

// The width in columns of the terminal `fd` is, or nullopt when it is no terminal (a file, a
// pipe). 80 for a terminal that does not say.
std::optional<int> terminal_columns(int fd) noexcept;
// Its height in rows, or nullopt when it is no terminal; 24 for a terminal that does not say.
std::optional<int> terminal_rows(int fd) noexcept;

// ---- Writes that failed (src/platform/write_failure.cpp)

// Why writing to `fd` failed, in words, as well as it can be told once it has: "it is closed
// (Bad file descriptor)", "nothing reads it any more (Broken pipe)", "No space left on device",
// ..., from what `fd` is now and from `err`, the errno found after the failed write (used only
// when a write can fail with it). "" when it cannot be told.
std::string write_failure_cause(int fd, int err);
// Whether the filesystem holding `path` (a file or a directory) has no block left for this
// user: what a library that says only "disk I/O error" (SQLite) met.
bool filesystem_full(const std::string& path) noexcept;

// ---- CPU budget (src/platform/cpu_budget.cpp)

// CPUs this process may run on (Linux: sched_getaffinity); nullopt where unknown.
std::optional<int> cpus_allowed();
// This process's cgroup v2 CPU quota in CPUs (cpu.max "150000 100000" -> 1.5), the tightest
// along its cgroup's path; nullopt without a quota or without cgroup v2.
std::optional<double> cgroup_cpu_quota();
// Parses cpu.max text; nullopt for "max" (no limit) or text that is no quota.
std::optional<double> cpu_quota_from(std::string_view cpu_max);

// ---- Hypervisor and CPU mitigations (src/platform/virtualization.cpp)

// The hypervisor this runs under, named as systemd-detect-virt names it ("kvm", "xen",
// "vmware", "microsoft", "vm-other", ...); "none" only when the CPU says there is none, and
// "unknown" when nothing tells.
std::string virtualization();
// Linux: /sys/devices/system/cpu/vulnerabilities as vulnerability -> the kernel's status
// ("meltdown" -> "Mitigation: PTI"); empty elsewhere.
std::map<std::string, std::string> cpu_mitigations();
// The same from any directory laid out like that one (one file per vulnerability).
std::map<std::string, std::string> read_vulnerabilities(const std::string& dir);

// ---- Writeback (src/platform/filesystem_sync.cpp)

// Writes what the page cache holds for the filesystem of open descriptor `fd` to disk and
// waits for it (Linux: syncfs). Elsewhere sync(), every filesystem at once: POSIX lets it
// return before the writes are done, so there it only starts them early. Returns 0 or errno.
int sync_filesystem(int fd) noexcept;
// How many times this process has called sync_filesystem(), for tests to observe.
std::uint64_t filesystem_syncs() noexcept;

// ---- Files named only once they are whole (src/platform/unnamed_file.cpp)

// A new regular file in directory `dir`, open for reading and writing, that has no name yet
// (Linux: O_TMPFILE): a process killed while it writes one leaves nothing behind. `mode` as
// open()'s, less the umask. -1 with errno where the OS, the filesystem or this process (no
// /proc to name it through) cannot make one: callers fall back to a file with a name.
int open_unnamed_file(const std::string& dir, unsigned mode) noexcept;
// Gives a file from open_unnamed_file() the name `path`, which must not exist: 0 or errno
// (EEXIST when it does).
int name_unnamed_file(int fd, const std::string& path) noexcept;

// ---- Files a user names as input (src/platform/input_file.cpp)

// What a file of this mode (st_mode) is, in words: "a regular file", "a directory", "a FIFO",
// "a character device", "a block device", "a socket", ...
std::string_view file_type_words(unsigned mode);

struct InputFile {
  UniqueFd fd;             // open for reading; invalid when not opened
  int error = 0;           // errno when it could not be looked at or opened
  unsigned mode = 0;       // what it is (st_mode), when it could be looked at
  std::uint64_t size = 0;  // a regular file's size when opened
};
// Opens `path` (symlinks followed) for reading when it is a regular file or a FIFO (a pipe, as
// a shell's <(...) gives): what a stream of text is read from. Anything else is looked at
// only, never opened (opening a device can act: a tape rewinds), and comes back without fd,
// its mode saying what it is. A FIFO's open waits for a writer; a signal ends that wait
// (throws Interrupted).
InputFile open_input_file(const std::string& path);
// read() of up to `size` bytes: 0 at the end. A signal ends a read that waits (throws
// Interrupted); another error throws Error with its errno text.
std::size_t read_input(int fd, char* buffer, std::size_t size);

// Whether `name` in the directory open at `dir_fd` is, once opened, the regular file on device
// `dev` with inode `ino` that was looked at: opened without following a symlink and without
// blocking (O_PATH where there is one, so nothing of the file's own open runs), its descriptor
// examined, closed again. False for anything else: a FIFO, a device or a link swapped in since.
bool is_the_regular_file(int dir_fd, const char* name, std::uint64_t dev, std::uint64_t ino);

// Opens the directory `rel` below the directory `at` one name at a time, none of them followed
// if it is a symlink (O_NOFOLLOW, O_DIRECTORY, without blocking); empty names and "." are
// skipped. -1 with errno where it cannot: ELOOP where a name on the way is a symlink.
int open_directory_nofollow(int at, std::string_view rel);
// The directory at the absolute path `path` opened as open_directory_nofollow() opens one: no
// symlink on the way followed.
int open_absolute_directory_nofollow(const std::string& path);
// Whether the descriptor is a regular file's (fstat): what an open of the user's files checks
// before anything else is done with what it opened.
bool is_regular_descriptor(int fd) noexcept;
// openat2() with `resolve` (its RESOLVE_* flags), where the kernel has it: -1 with errno, ENOSYS
// where it has not (Linux before 5.6, the other systems).
int open_resolved(int dir_fd, const char* path, int flags, std::uint64_t resolve) noexcept;
// The resolve flags that keep a full path's open on the names the scan saw: no symlink
// followed anywhere on it, no /proc magic link (0 where there is no openat2()).
std::uint64_t no_links_resolve() noexcept;
// Whether open_resolved() works here.
bool has_open_resolved();

// ---- Mounts (src/platform/mounts.cpp)

// Options of the mount holding `path`: the mount's own, then the filesystem's ("rw,relatime,
// discard"); nullopt without a mount table (Linux: /proc/self/mountinfo).
std::optional<std::string> fs_mount_options(const std::string& path);
// The same from mountinfo text, for an absolute path without symlinks: the options of the
// longest mount point containing it.
std::optional<std::string> mount_options_from(std::string_view mountinfo, const std::string& path);
// The name of the pseudo-filesystem holding `path` ("proc", "sysfs", "tracefs", "debugfs",
// "securityfs", "cgroup", "cgroup2", "configfs", "bpf"; the BSDs' procfs, linprocfs and
// linsysfs), where opening a file can act on the kernel: closing tracefs's free_buffer frees
// the trace ring buffer. nullopt for any other filesystem, and where the type cannot be told
// (the portable build). Looks without opening `path` (statfs), and follows a symlink.
std::optional<std::string> pseudo_filesystem(const std::string& path);

// ---- Optional libraries (src/platform/libraries.cpp)

std::optional<std::string> liburing_version();  // nullopt: built without liburing
std::optional<std::string> libuv_version();     // nullopt: built without libuv

}  // namespace fdbench::platform
