// Kernel evidence: what the scheduler saw of this process's threads, through perf events.
//
// One interface, perf_event_open(2), and no other: per thread and per CPU, a software
// context-switch event sampled at every switch with the kernel's call chain (where the thread
// slept), with PERF_RECORD_SWITCH records (when it left and came back, and whether it left
// runnable: preempted), a page-fault event and, where tracefs shows it, the tracepoint
// io_uring:io_uring_queue_async_work. Every event is inherited, so the threads and processes
// started later (workers, fresh children) are traced by the kernel without asking; inherited
// events write into their parent's ring buffer, one per CPU here, read between repetitions.
// Software events need no tracefs, no BPF and no raw tracepoint data, which keeps what is
// required down to kernel.perf_event_paranoid <= 1 (kernel call chains) or CAP_PERFMON.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "platform/os.hpp"
#include "platform/platform.hpp"

#ifdef FDBENCH_LINUX
#include <dirent.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace fdbench::platform {

#ifdef FDBENCH_LINUX

// What one of the tracer's events records (its State maps each event's id to this).
enum class TraceSource : std::uint8_t { switches, faults, punts, calls_entered, calls_returned };

namespace {

constexpr std::uint64_t kTraceSampleType =
    PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
constexpr int kTraceMaxStack = 48;  // frames kept of a call chain: schedule() is rarely deeper

int perf_open(perf_event_attr& attr, int tid, int cpu) {
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

perf_event_attr trace_attr(TraceSource source, std::uint64_t tracepoint) {
  perf_event_attr a{};
  a.size = sizeof(a);
  a.sample_period = 1;
  a.sample_type = kTraceSampleType;
  a.inherit = 1;
  a.sample_id_all = 1;
  a.use_clockid = 1;
  a.clockid = CLOCK_MONOTONIC;  // now_ns()'s clock, in every process
  a.exclude_hv = 1;
  switch (source) {
    case TraceSource::switches:
      a.type = PERF_TYPE_SOFTWARE;
      a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
      a.sample_type |= PERF_SAMPLE_CALLCHAIN;
      a.exclude_callchain_user = 1;
      a.sample_max_stack = kTraceMaxStack;
      a.context_switch = 1;
      a.task = 1;  // a thread's end: its events go before its last switch does
      break;
    case TraceSource::faults:
      a.type = PERF_TYPE_SOFTWARE;
      a.config = PERF_COUNT_SW_PAGE_FAULTS;
      break;
    case TraceSource::punts:
      a.type = PERF_TYPE_TRACEPOINT;
      a.config = tracepoint;
      break;
    case TraceSource::calls_entered:
    case TraceSource::calls_returned:
      a.type = PERF_TYPE_TRACEPOINT;
      a.config = tracepoint;
      a.sample_type |= PERF_SAMPLE_RAW;  // the call's number, argument or result
      break;
  }
  return a;
}

// The calls fdbench trace follows: every one that makes a descriptor, and close. pipe,
// pipe2 and socketpair return 0 and write their descriptors to memory, so their numbers are
// not seen.
struct DescriptorSyscall {
  long nr;
  DescriptorCall call;
};
// Calls whose result is a descriptor, those that write theirs to memory, and close.
constexpr DescriptorCall returning(std::string_view name) {
  return {name, false, true};
}
constexpr DescriptorCall writing(std::string_view name) {
  return {name, false, false};
}
const DescriptorSyscall kDescriptorSyscalls[] = {
#ifdef SYS_open
    {SYS_open, returning("open")},
#endif
#ifdef SYS_creat
    {SYS_creat, returning("creat")},
#endif
#ifdef SYS_openat2
    {SYS_openat2, returning("openat2")},
#endif
#ifdef SYS_accept
    {SYS_accept, returning("accept")},
#endif
#ifdef SYS_pipe
    {SYS_pipe, writing("pipe")},
#endif
#ifdef SYS_dup2
    {SYS_dup2, returning("dup2")},
#endif
#ifdef SYS_eventfd
    {SYS_eventfd, returning("eventfd")},
#endif
#ifdef SYS_epoll_create
    {SYS_epoll_create, returning("epoll_create")},
#endif
    {SYS_openat, returning("openat")},
    {SYS_socket, returning("socket")},
    {SYS_socketpair, writing("socketpair")},
    {SYS_accept4, returning("accept4")},
    {SYS_pipe2, writing("pipe2")},
    {SYS_dup, returning("dup")},
    {SYS_dup3, returning("dup3")},
    {SYS_fcntl, returning("fcntl")},
    {SYS_eventfd2, returning("eventfd2")},
    {SYS_epoll_create1, returning("epoll_create1")},
    {SYS_memfd_create, returning("memfd_create")},
    {SYS_close, {"close", true, false}},
};

// The kernel's filter of raw_syscalls events: only those calls are recorded.
std::string descriptor_call_filter() {
  std::vector<std::string> terms;
  for (const DescriptorSyscall& c : kDescriptorSyscalls)
    terms.push_back(fmt::format("id == {}", c.nr));
  return fmt::format("{}", fmt::join(terms, " || "));
}

constexpr const char* kTracefsRoots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
constexpr const char* kEnterId = "/events/raw_syscalls/sys_enter/id";
constexpr const char* kExitId = "/events/raw_syscalls/sys_exit/id";

std::uint64_t read_id(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[32] = {};
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  return n > 0 ? std::strtoull(text, nullptr, 10) : 0;
}

// Where tracefs is not mounted: a child process mounts it in a mount namespace of its own, reads
// the two ids and ends, so that nothing is mounted for anyone else. Needs CAP_SYS_ADMIN.
std::pair<std::uint64_t, std::uint64_t> syscall_tracepoints_in_namespace() {
  int ids[2];
  if (pipe2(ids, O_CLOEXEC) != 0) return {0, 0};
  const pid_t pid = fork();
  if (pid == 0) {
    std::uint64_t found[2] = {0, 0};
    if (unshare(CLONE_NEWNS) == 0 &&
        mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
        mount("nodev", kTracefsRoots[0], "tracefs", 0, nullptr) == 0) {
      found[0] = read_id(std::string(kTracefsRoots[0]) + kEnterId);
      found[1] = read_id(std::string(kTracefsRoots[0]) + kExitId);
    }
    (void)!write(ids[1], found, sizeof found);
    _exit(0);
  }
  close(ids[1]);
  std::uint64_t found[2] = {0, 0};
  if (pid > 0) {
    if (read(ids[0], found, sizeof found) != static_cast<ssize_t>(sizeof found)) found[0] = 0;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  close(ids[0]);
  return {found[0], found[1]};
}

// raw_syscalls' sys_enter and sys_exit tracepoint ids, or {0, 0} with `why` set.
std::pair<std::uint64_t, std::uint64_t> syscall_tracepoints(std::string& why) {
  static const std::pair<std::uint64_t, std::uint64_t> ids = [] {
    for (const char* root : kTracefsRoots) {
      const std::uint64_t enter = read_id(std::string(root) + kEnterId);
      const std::uint64_t exit = read_id(std::string(root) + kExitId);
      if (enter != 0 && exit != 0) return std::pair{enter, exit};
    }
    return syscall_tracepoints_in_namespace();
  }();
  if (ids.first == 0 || ids.second == 0) {
    why =
        "tracing calls needs the raw_syscalls tracepoints' ids from tracefs, which is not "
        "mounted and could not be (mount it: sudo mount -t tracefs nodev /sys/kernel/tracing)";
  }
  return ids;
}

std::string read_first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Why a context-switch event with kernel call chains cannot be opened, from its errno.
std::string trace_refused(int err) {
  if (err == EACCES || err == EPERM) {
    const std::string paranoid = read_first_line("/proc/sys/kernel/perf_event_paranoid");
    return fmt::format(
        "kernel evidence needs root or CAP_PERFMON, or kernel.perf_event_paranoid at 1 or "
        "less (it is {}: sudo sysctl kernel.perf_event_paranoid=1)",
        paranoid.empty() ? "unreadable" : paranoid);
  }
  if (err == ENOSYS)
    return "kernel evidence needs perf events, which this kernel was built without";
  if (err == EMFILE || err == ENFILE) {
    return "kernel evidence needs a descriptor per CPU and event: the descriptor limit is reached";
  }
  return fmt::format("this kernel refused a context-switch event with call chains: {}",
                     std::strerror(err));
}

// io_uring_queue_async_work's tracepoint id, or 0 with `why` set.
std::uint64_t punt_tracepoint(std::string& why) {
  for (const char* root : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}) {
    const std::string line = read_first_line(
        (std::string(root) + "/events/io_uring/io_uring_queue_async_work/id").c_str());
    if (!line.empty()) return std::strtoull(line.c_str(), nullptr, 10);
  }
  why =
      "io_uring punts are not counted: the tracepoint io_uring_queue_async_work is not readable "
      "in /sys/kernel/tracing (mount tracefs, as root)";
  return 0;
}

std::vector<int> threads_of(int pid) {
  std::vector<int> tids;
  const std::string task = pid == 0 ? "/proc/self/task" : fmt::format("/proc/{}/task", pid);
  if (DIR* dir = opendir(task.c_str())) {
    while (const dirent* e = readdir(dir)) {
      if (e->d_name[0] != '.') tids.push_back(std::atoi(e->d_name));
    }
    closedir(dir);
  }
  std::sort(tids.begin(), tids.end());
  return tids;
}

class KernelSymbols {
 public:
  static const KernelSymbols& get() {
    static const KernelSymbols table;
    return table;
  }
  [[nodiscard]] bool readable() const { return !symbols_.empty(); }
  [[nodiscard]] std::string_view at(std::uint64_t address) const {
    auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                               [](std::uint64_t a, const auto& s) { return a < s.first; });
    if (it == symbols_.begin()) return {};
    return std::prev(it)->second;
  }

 private:
  KernelSymbols() {
    std::ifstream in("/proc/kallsyms");
    std::string line;
    while (std::getline(in, line)) {
      // "ffffffff8123abcd T expand_files" or with a trailing "\t[module]"
      const auto a = line.find(' ');
      if (a == std::string::npos || a + 3 > line.size()) continue;
      const char type = line[a + 1];
      if (type != 't' && type != 'T' && type != 'w' && type != 'W') continue;
      const std::uint64_t address = std::strtoull(line.substr(0, a).c_str(), nullptr, 16);
      if (address == 0) continue;  // hidden (kptr_restrict): nothing here is usable
      auto name = line.substr(a + 3);
      if (const auto tab = name.find('\t'); tab != std::string::npos) name.resize(tab);
      symbols_.emplace_back(address, std::move(name));
    }
    std::sort(symbols_.begin(), symbols_.end());
  }
  std::vector<std::pair<std::uint64_t, std::string>> symbols_;
};

// The tracer's descriptors, closed in every child fork makes (pthread_atfork) and forgotten
// there, so that the child's own children close nothing that reuses their numbers. A child is
// traced through inheritance, which needs none of them; one that held them would keep the
// events alive after fdbench is gone, tracing its own tasks into a buffer no one reads: a
// `process` worker stuck in an open that even SIGKILL cannot end at once (an uninterruptible
// wait) would. The buffers' mappings are not inherited at all: perf marks them VM_DONTCOPY.
std::atomic<const std::vector<UniqueFd>*> g_traced_fds{nullptr};

void close_traced_fds_in_child() {
  if (const auto* fds = g_traced_fds.exchange(nullptr)) {
    for (const UniqueFd& fd : *fds) close(fd.get());
  }
}

// Why /proc/kallsyms shows this user no addresses, and what would change it: the kernel shows
// them to a process with CAP_SYSLOG, or where kernel.kptr_restrict is 0 and
// kernel.perf_event_paranoid is 1 or less (kallsyms_show_value()).
std::string hidden_addresses() {
  const std::string paranoid = read_first_line("/proc/sys/kernel/perf_event_paranoid");
  const std::string restrict = read_first_line("/proc/sys/kernel/kptr_restrict");
  std::vector<std::string> settings;
  if (paranoid.empty() || std::atoi(paranoid.c_str()) > 1) {
    settings.push_back("kernel.perf_event_paranoid=1");
  }
  if (restrict != "0") settings.push_back("kernel.kptr_restrict=0");
  return fmt::format(
      "kernel evidence needs kernel symbol addresses, which /proc/kallsyms shows only to root "
      "(CAP_SYSLOG), or where kernel.perf_event_paranoid is 1 or less and kernel.kptr_restrict "
      "is 0 (they are {} and {}{}{})",
      paranoid.empty() ? "unreadable" : paranoid, restrict.empty() ? "unreadable" : restrict,
      settings.empty() ? "" : ": sudo sysctl ", fmt::join(settings, " "));
}

// One record's body, read at byte offsets (records are packed, not aligned).
struct RecordBody {
  const char* body;
  std::size_t size;
  [[nodiscard]] std::uint64_t u64_at(std::size_t offset) const {
    std::uint64_t v = 0;
    std::memcpy(&v, body + offset, sizeof v);
    return v;
  }
  [[nodiscard]] std::uint32_t u32_at(std::size_t offset) const {
    std::uint32_t v = 0;
    std::memcpy(&v, body + offset, sizeof v);
    return v;
  }
  // The sample_id every record but a sample ends with: pid, tid, time, identifier.
  bool ids_at_end(KernelEvent& e) const {
    if (size < 24) return false;
    e.pid = static_cast<std::int32_t>(u32_at(size - 24));
    e.tid = static_cast<std::int32_t>(u32_at(size - 20));
    e.time_ns = static_cast<std::int64_t>(u64_at(size - 16));
    return true;
  }
};

// Records that say some were lost: how many, and from when.
void note_lost(const perf_event_header& h, const RecordBody& r, KernelRecords& out) {
  const auto from = [&](std::int64_t t) {
    if (out.lost_from == 0 || t < out.lost_from) out.lost_from = t;
  };
  if (h.type == PERF_RECORD_LOST) {
    if (r.size >= 16) out.lost += r.u64_at(8);
    KernelEvent e;
    if (r.ids_at_end(e)) from(e.time_ns);
    return;
  }
  ++out.lost;  // throttled: samples are dropped until it is unthrottled, how many is not said
  if (r.size >= 8) from(static_cast<std::int64_t>(r.u64_at(0)));
}

}  // namespace

struct KernelTracer::State {
  struct Ring {
    void* base = MAP_FAILED;
    std::size_t length = 0;
  };
  std::vector<UniqueFd> fds;
  std::vector<Ring> rings;                                 // one per CPU
  std::unordered_map<std::uint64_t, TraceSource> sources;  // event id -> what it records
  std::vector<int> threads;
  std::string punts_why;
  std::vector<char> record;  // one record copied out of a ring where it wraps
  std::vector<int> leaders;  // per CPU: the event whose buffer the others write into, or -1
  std::string call_filter;   // the kernel's filter of the call events
  std::vector<long> ring_pages{512L, 128L, 32L};  // a buffer's size, tried in turn

  ~State() {
    for (const Ring& r : rings) {
      if (r.base != MAP_FAILED) munmap(r.base, r.length);
    }
  }

  // What attach() did with one event.
  enum class Attach { done, thread_gone, cpu_offline, refused };
  Attach attach(TraceSource source, std::uint64_t tracepoint, int tid, int cpu, int& leader,
                std::string& why_not);
  std::vector<std::pair<TraceSource, std::uint64_t>> choose_sources(const TraceTarget& target,
                                                                    std::string& why_not);
  bool attach_thread(int tid, const std::vector<std::pair<TraceSource, std::uint64_t>>& chosen,
                     std::string& why_not);
  void read_ring(Ring& ring, KernelRecords& out, bool keep);
  void parse(const perf_event_header& h, const char* body, KernelRecords& out);
  bool parse_sample(const RecordBody& r, KernelEvent& e, KernelRecords& out) const;
  Ring map_ring(int fd, long page, std::string& why_not) const;
};

KernelTracer::KernelTracer(std::unique_ptr<State> state) : s_(std::move(state)) {
  static std::once_flag registered;
  std::call_once(registered, [] { pthread_atfork(nullptr, nullptr, close_traced_fds_in_child); });
  g_traced_fds.store(&s_->fds);
}

KernelTracer::~KernelTracer() {
  const std::vector<UniqueFd>* mine = &s_->fds;
  g_traced_fds.compare_exchange_strong(mine, nullptr);
}

// One CPU's buffer, mapped on its first event's descriptor: 2 MiB of records, less where the
// locked-memory limit allows less. Empty `why_not` when it is mapped.
KernelTracer::State::Ring KernelTracer::State::map_ring(int fd, long page,
                                                        std::string& why_not) const {
  Ring ring;
  for (const long pages : ring_pages) {
    ring.length = static_cast<std::size_t>((pages + 1) * page);
    ring.base = mmap(nullptr, ring.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ring.base != MAP_FAILED) return ring;
  }
  why_not = fmt::format(
      "kernel evidence needs a buffer of locked memory per CPU, refused: {} (raise "
      "kernel.perf_event_mlock_kb or run as root)",
      std::strerror(errno));
  return ring;
}

// Opens `source`'s event for thread `tid` on `cpu`: the first of a CPU leads it and gets its
// buffer, the others write into the leader's. What happened, with `why_not` for a refusal.
KernelTracer::State::Attach KernelTracer::State::attach(TraceSource source,
                                                        std::uint64_t tracepoint, int tid, int cpu,
                                                        int& leader, std::string& why_not) {
  perf_event_attr attr = trace_attr(source, tracepoint);
  const int fd = perf_open(attr, tid, cpu);
  if (fd < 0) {
    const int err = errno;
    if (err == ESRCH) return Attach::thread_gone;  // nothing to trace
    if (err == ENODEV && leader < 0) return Attach::cpu_offline;
    if (source == TraceSource::punts) {
      punts_why = fmt::format("io_uring punts are not counted: {}", std::strerror(err));
      return Attach::done;
    }
    why_not = trace_refused(err);
    return Attach::refused;
  }
  fds.emplace_back(fd);
  std::uint64_t id = 0;
  if (ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0) {
    why_not = fmt::format("perf events gave no event id: {}", std::strerror(errno));
    return Attach::refused;
  }
  sources[id] = source;
  const bool calls = source == TraceSource::calls_entered || source == TraceSource::calls_returned;
  if (calls && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, call_filter.c_str()) != 0) {
    why_not = fmt::format("this kernel refused to filter the raw_syscalls events: {}",
                          std::strerror(errno));
    return Attach::refused;
  }
  if (leader >= 0) {
    if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, leader) == 0) return Attach::done;
    why_not = fmt::format("perf events could not share a buffer: {}", std::strerror(errno));
    return Attach::refused;
  }
  leader = fd;
  const Ring ring = map_ring(fd, sysconf(_SC_PAGESIZE), why_not);
  if (ring.base == MAP_FAILED) return Attach::refused;
  rings.push_back(ring);
  return Attach::done;
}

// What open() attaches for `target`, with each event's tracepoint id (0 for a software event).
std::vector<std::pair<TraceSource, std::uint64_t>> KernelTracer::State::choose_sources(
    const TraceTarget& target, std::string& why_not) {
  std::vector<std::pair<TraceSource, std::uint64_t>> chosen{{TraceSource::switches, 0}};
  if (target.pid == 0) {
    chosen.emplace_back(TraceSource::faults, 0);
    const std::uint64_t punts = punt_tracepoint(punts_why);
    if (punts != 0) chosen.emplace_back(TraceSource::punts, punts);
  }
  if (target.descriptor_calls) {
    const auto [enter, exit] = syscall_tracepoints(why_not);
    if (enter == 0) return {};
    chosen.emplace_back(TraceSource::calls_entered, enter);
    chosen.emplace_back(TraceSource::calls_returned, exit);
    call_filter = descriptor_call_filter();
    ring_pages = {2048L, 512L, 128L, 32L};  // calls come thousands a millisecond
  }
  return chosen;
}

// Every event of `sources` for thread `tid`, on every CPU. False with `why_not` on a refusal.
bool KernelTracer::State::attach_thread(
    int tid, const std::vector<std::pair<TraceSource, std::uint64_t>>& chosen,
    std::string& why_not) {
  for (std::size_t cpu = 0; cpu < leaders.size(); ++cpu) {
    for (const auto& [source, tracepoint] : chosen) {
      const Attach attached =
          attach(source, tracepoint, tid, static_cast<int>(cpu), leaders[cpu], why_not);
      if (attached == Attach::refused) return false;
      if (attached != Attach::done) break;
    }
  }
  return true;
}

std::unique_ptr<KernelTracer> KernelTracer::open(std::string& why_not, const TraceTarget& target) {
  if (!KernelSymbols::get().readable()) {
    why_not = hidden_addresses();
    return nullptr;
  }
  auto s = std::make_unique<State>();
  const auto chosen = s->choose_sources(target, why_not);
  if (chosen.empty()) return nullptr;
  s->leaders.assign(static_cast<std::size_t>(sysconf(_SC_NPROCESSORS_CONF)), -1);
  // Threads a thread not yet attached starts are not inherited: look again until none is new.
  for (std::vector<int> found = threads_of(target.pid); !found.empty();) {
    for (const int tid : found) {
      if (!s->attach_thread(tid, chosen, why_not)) return nullptr;
      s->threads.push_back(tid);
    }
    std::sort(s->threads.begin(), s->threads.end());
    found.clear();
    if (target.pid == 0) break;
    for (const int tid : threads_of(target.pid)) {
      if (!std::binary_search(s->threads.begin(), s->threads.end(), tid)) found.push_back(tid);
    }
  }
  if (s->threads.empty()) {
    why_not = fmt::format("there is no process {} to trace", target.pid);
    return nullptr;
  }
  if (s->rings.empty()) {
    why_not = "kernel evidence found no CPU to trace";
    return nullptr;
  }
  return std::unique_ptr<KernelTracer>(new KernelTracer(std::move(s)));
}

// A sample: a page fault, an io_uring punt, or the call chain of a switch. False for one
// that is cut short or not ours.
bool KernelTracer::State::parse_sample(const RecordBody& r, KernelEvent& e,
                                       KernelRecords& out) const {
  if (r.size < 24) return false;
  const auto source = sources.find(r.u64_at(0));
  if (source == sources.end()) return false;
  e.pid = static_cast<std::int32_t>(r.u32_at(8));
  e.tid = static_cast<std::int32_t>(r.u32_at(12));
  e.time_ns = static_cast<std::int64_t>(r.u64_at(16));
  if (source->second == TraceSource::faults) {
    e.kind = KernelEvent::Kind::page_fault;
    return true;
  }
  if (source->second == TraceSource::punts) {
    e.kind = KernelEvent::Kind::io_uring_punt;
    return true;
  }
  if (source->second == TraceSource::calls_entered ||
      source->second == TraceSource::calls_returned) {
    // The raw record: its size, then the tracepoint's fields: 8 bytes common to every event,
    // the call's number, then its six arguments (sys_enter) or its result (sys_exit).
    const bool entered = source->second == TraceSource::calls_entered;
    if (r.size < 28 + (entered ? 32 : 24)) return false;
    e.kind = entered ? KernelEvent::Kind::call_entered : KernelEvent::Kind::call_returned;
    e.call = static_cast<std::int32_t>(r.u64_at(28 + 8));
    e.value = static_cast<std::int64_t>(r.u64_at(28 + (entered ? 24 : 16)));
    return true;
  }
  if (r.size < 32) return false;
  const std::uint64_t n = r.u64_at(24);
  if (n > (r.size - 32) / 8) return false;
  e.kind = KernelEvent::Kind::stack;
  e.frames_begin = static_cast<std::uint32_t>(out.frames.size());
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t ip = r.u64_at(32 + 8 * i);
    if (ip >= static_cast<std::uint64_t>(PERF_CONTEXT_MAX)) continue;  // a context marker
    out.frames.push_back(ip);
  }
  e.frames_size = static_cast<std::uint32_t>(out.frames.size() - e.frames_begin);
  return true;
}

void KernelTracer::State::parse(const perf_event_header& h, const char* body, KernelRecords& out) {
  const RecordBody r{body, h.size - sizeof h};
  KernelEvent e;
  switch (h.type) {
    case PERF_RECORD_SAMPLE:
      if (!parse_sample(r, e, out)) return;
      break;
    case PERF_RECORD_SWITCH:
      if (!r.ids_at_end(e)) return;
      e.kind = (h.misc & PERF_RECORD_MISC_SWITCH_OUT) != 0 ? KernelEvent::Kind::switched_out
                                                           : KernelEvent::Kind::switched_in;
      e.preempted = (h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
      break;
    case PERF_RECORD_EXIT:  // pid, ppid, tid, ptid, time
    case PERF_RECORD_FORK:
      if (r.size < 24) return;
      e.kind = h.type == PERF_RECORD_EXIT ? KernelEvent::Kind::exited : KernelEvent::Kind::forked;
      e.pid = static_cast<std::int32_t>(r.u32_at(0));
      e.tid = static_cast<std::int32_t>(r.u32_at(8));
      e.time_ns = static_cast<std::int64_t>(r.u64_at(16));
      break;
    case PERF_RECORD_LOST:
    case PERF_RECORD_THROTTLE:
      note_lost(h, r, out);
      return;
    default:
      return;
  }
  out.events.push_back(e);
}

void KernelTracer::State::read_ring(Ring& ring, KernelRecords& out, bool keep) {
  auto* meta = static_cast<perf_event_mmap_page*>(ring.base);
  char* data = static_cast<char*>(ring.base) + sysconf(_SC_PAGESIZE);
  const std::uint64_t size = ring.length - static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  std::uint64_t tail = meta->data_tail;
  while (keep && tail + sizeof(perf_event_header) <= head) {
    const auto copy_out = [&](std::uint64_t from, std::size_t n, char* to) {
      const std::uint64_t at = from % size;
      const std::size_t first = std::min<std::uint64_t>(n, size - at);
      std::memcpy(to, data + at, first);
      std::memcpy(to + first, data, n - first);
    };
    perf_event_header h{};
    copy_out(tail, sizeof h, reinterpret_cast<char*>(&h));
    if (h.size < sizeof h || tail + h.size > head) break;
    record.resize(h.size);
    copy_out(tail, h.size, record.data());
    parse(h, record.data() + sizeof h, out);
    tail += h.size;
  }
  __atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
}

KernelRecords KernelTracer::drain() {
  KernelRecords out;
  for (State::Ring& ring : s_->rings) s_->read_ring(ring, out, true);
  std::stable_sort(
      out.events.begin(), out.events.end(),
      [](const KernelEvent& a, const KernelEvent& b) { return a.time_ns < b.time_ns; });
  return out;
}

void KernelTracer::discard() {
  KernelRecords none;
  for (State::Ring& ring : s_->rings) s_->read_ring(ring, none, false);
}

const std::vector<int>& KernelTracer::threads_at_start() const {
  return s_->threads;
}
const std::string& KernelTracer::punts_not_counted() const {
  return s_->punts_why;
}
int KernelTracer::descriptors() const {
  return static_cast<int>(s_->fds.size());
}

DescriptorCall descriptor_call(std::int32_t call, std::int64_t argument) {
  if (call == SYS_fcntl && argument != F_DUPFD && argument != F_DUPFD_CLOEXEC) return {};
  for (const DescriptorSyscall& c : kDescriptorSyscalls) {
    if (c.nr == call) return c.call;
  }
  return {};
}

std::string kernel_trace_unavailable() {
  // The first symbol's address says whether they are shown, without reading them all.
  const std::string first = read_first_line("/proc/kallsyms");
  if (first.empty() || first.find_first_not_of('0') == first.find(' ')) return hidden_addresses();
  perf_event_attr attr = trace_attr(TraceSource::switches, 0);
  attr.inherit = 0;
  attr.disabled = 1;
  const int fd = perf_open(attr, 0, -1);
  if (fd < 0) return trace_refused(errno);
  close(fd);
  return {};
}

std::string_view kernel_symbol(std::uint64_t address) {
  return KernelSymbols::get().at(address);
}

int thread_id() noexcept {
  return static_cast<int>(syscall(SYS_gettid));
}

#else  // not Linux, or the portable build

struct KernelTracer::State {
  std::vector<int> threads;
  std::string punts_why;
};

KernelTracer::KernelTracer(std::unique_ptr<State> state) : s_(std::move(state)) {}
KernelTracer::~KernelTracer() = default;

std::unique_ptr<KernelTracer> KernelTracer::open(std::string& why_not, const TraceTarget&) {
  why_not = kernel_trace_unavailable();
  return nullptr;
}
DescriptorCall descriptor_call(std::int32_t, std::int64_t) {
  return {};
}
KernelRecords KernelTracer::drain() {
  return {};
}
void KernelTracer::discard() {}
const std::vector<int>& KernelTracer::threads_at_start() const {
  return s_->threads;
}
const std::string& KernelTracer::punts_not_counted() const {
  return s_->punts_why;
}
int KernelTracer::descriptors() const {
  return 0;
}

std::string kernel_trace_unavailable() {
  return "kernel evidence needs Linux perf events; this build has only the portable interfaces";
}
std::string_view kernel_symbol(std::uint64_t) {
  return {};
}
int thread_id() noexcept {
  return 0;
}

#endif

int process_id() noexcept {
  return static_cast<int>(getpid());
}

}  // namespace fdbench::platform
