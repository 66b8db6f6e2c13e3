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
#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace fdbench::platform {

#ifdef FDBENCH_LINUX

// What one of the tracer's events records (its State maps each event's id to this).
enum class TraceSource : std::uint8_t { switches, faults, punts };

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
  }
  return a;
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

std::vector<int> threads_of_self() {
  std::vector<int> tids;
  if (DIR* dir = opendir("/proc/self/task")) {
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

  ~State() {
    for (const Ring& r : rings) {
      if (r.base != MAP_FAILED) munmap(r.base, r.length);
    }
  }

  // What attach() did with one event.
  enum class Attach { done, thread_gone, cpu_offline, refused };
  Attach attach(TraceSource source, std::uint64_t punts, int tid, int cpu, int& leader,
                std::string& why_not);
  void read_ring(Ring& ring, KernelRecords& out, bool keep);
  void parse(const perf_event_header& h, const char* body, KernelRecords& out);
  bool parse_sample(const RecordBody& r, KernelEvent& e, KernelRecords& out) const;
  static Ring map_ring(int fd, long page, std::string& why_not);
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
KernelTracer::State::Ring KernelTracer::State::map_ring(int fd, long page, std::string& why_not) {
  Ring ring;
  for (const long pages : {512L, 128L, 32L}) {
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
KernelTracer::State::Attach KernelTracer::State::attach(TraceSource source, std::uint64_t punts,
                                                        int tid, int cpu, int& leader,
                                                        std::string& why_not) {
  perf_event_attr attr = trace_attr(source, punts);
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

std::unique_ptr<KernelTracer> KernelTracer::open(std::string& why_not) {
  if (!KernelSymbols::get().readable()) {
    why_not = hidden_addresses();
    return nullptr;
  }
  auto s = std::make_unique<State>();
  const std::uint64_t punts = punt_tracepoint(s->punts_why);
  const int cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_CONF));
  s->threads = threads_of_self();
  std::vector<TraceSource> sources{TraceSource::switches, TraceSource::faults};
  if (punts != 0) sources.push_back(TraceSource::punts);
  for (int cpu = 0; cpu < cpus; ++cpu) {
    int leader = -1;
    bool offline = false;
    for (const int tid : s->threads) {
      if (offline) break;
      for (const TraceSource source : sources) {
        const State::Attach attached = s->attach(source, punts, tid, cpu, leader, why_not);
        if (attached == State::Attach::refused) return nullptr;
        offline = attached == State::Attach::cpu_offline;
        if (attached != State::Attach::done) break;
      }
    }
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
      if (r.size < 24) return;
      e.kind = KernelEvent::Kind::exited;
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

std::unique_ptr<KernelTracer> KernelTracer::open(std::string& why_not) {
  why_not = kernel_trace_unavailable();
  return nullptr;
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
