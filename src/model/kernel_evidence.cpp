#include "model/kernel_evidence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "model/statistics.hpp"

namespace fdbench {

namespace {

constexpr std::array<std::string_view, kOffCpuCauses> kCauseNames = {
    "fd-table-growth", "waiting-on-growth", "io_uring-wait", "io-wq",
    "page-fault",      "lock",              "preempted",     "other"};

constexpr std::array<std::string_view, kOffCpuCauses> kCauseWords = {
    "in an RCU grace period growing the descriptor table (expand_files)",
    "waiting in expand_files for another thread's table growth",
    "waiting for io_uring completions",
    "waiting on io_uring's io-wq workers",
    "in page faults that had to wait",
    "waiting on a futex, mutex or semaphore (a lock, or a wait for work)",
    "preempted while runnable (the scheduler gave its CPU to another thread)",
    "elsewhere in the kernel"};

bool named_any(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool starts_with_any(std::string_view name, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](std::string_view p) { return name.starts_with(p); });
}

// The scheduler's own frames, the same for every wait: left out of a call chain as shown.
bool scheduler_frame(std::string_view name) {
  return name == "__schedule" || name == "schedule" || name == "schedule_idle" ||
         name == "__cond_resched" || name == "__switch_to" || name == "context_switch" ||
         name == "finish_task_switch" || starts_with_any(name, {"preempt_schedule", "perf_"});
}

constexpr std::size_t kShownFrames = 5;

}  // namespace

std::string_view cause_name(OffCpuCause cause) {
  return kCauseNames[static_cast<std::size_t>(cause)];
}

std::optional<OffCpuCause> cause_named(std::string_view name) {
  for (const OffCpuCause c : kEveryOffCpuCause) {
    if (cause_name(c) == name) return c;
  }
  return std::nullopt;
}

std::string_view cause_words(OffCpuCause cause) {
  return kCauseWords[static_cast<std::size_t>(cause)];
}

std::int64_t KernelSample::off_cpu_total() const {
  return std::accumulate(off_cpu.begin(), off_cpu.end(), std::int64_t{0});
}

std::int64_t KernelSample::at_edges_total() const {
  return std::accumulate(at_edges.begin(), at_edges.end(), std::int64_t{0});
}

std::int64_t KernelEvidence::in_work(OffCpuCause cause) const {
  const auto c = static_cast<std::size_t>(cause);
  return std::max<std::int64_t>(0, off_cpu[c] - at_edges[c]);
}

std::int64_t KernelEvidence::in_work_ns() const {
  return std::max<std::int64_t>(0, off_cpu_ns - at_edges_ns);
}

bool MeasuringThreads::may_measure(int pid, int tid) const {
  if (pid != own_pid) return true;  // a worker process, a fresh child, a helper
  if (in_child) return false;       // this process only waits for the child
  return !std::binary_search(harness.begin(), harness.end(), tid);
}

KernelAttribution::KernelAttribution(MeasuringThreads who, SymbolOf symbol)
    : who_(std::move(who)), symbol_(std::move(symbol)) {
  std::sort(who_.harness.begin(), who_.harness.end());
}

KernelAttribution::Classified KernelAttribution::classify(const platform::KernelRecords& records,
                                                          const platform::KernelEvent& stack,
                                                          bool preempted) const {
  Classified c;
  std::vector<std::string_view> names;
  std::vector<std::string> shown;
  for (std::uint32_t i = 0; i < stack.frames_size; ++i) {
    const std::uint64_t ip = records.frames[stack.frames_begin + i];
    const std::string_view name = symbol_(ip);
    names.push_back(name);
    if (shown.size() < kShownFrames && !scheduler_frame(name)) {
      shown.push_back(name.empty() ? fmt::format("{:#x}", ip) : std::string(name));
    }
  }
  const auto any = [&](std::initializer_list<std::string_view> prefixes) {
    return std::any_of(names.begin(), names.end(),
                       [&](std::string_view n) { return starts_with_any(n, prefixes); });
  };
  c.stack = fmt::format("{}", fmt::join(shown, " ← "));
  if (any({"do_exit", "do_task_dead"})) return c;  // the thread ended: no longer measuring
  // wait4/waitid, by exact name: do_wait_for_common is a completion's wait (an RCU grace
  // period's among them).
  c.reaping = std::any_of(names.begin(), names.end(), [](std::string_view n) {
    return named_any(n, {"do_wait", "kernel_wait4", "kernel_waitid"});
  });
  if (preempted) {
    c.cause = OffCpuCause::preempted;
  } else if (any({"expand_files", "expand_fdtable"})) {
    const bool grace = any({"synchronize_rcu", "__wait_rcu_gp", "wait_rcu_gp"});
    c.cause = grace ? OffCpuCause::fd_table_growth : OffCpuCause::waiting_on_growth;
    if (grace) c.grace = any({"synchronize_rcu_expedited"}) ? "expedited" : "normal";
  } else if (any({"io_cqring_wait", "io_uring_cqring_wait"})) {
    c.cause = OffCpuCause::io_uring_wait;
  } else if (any({"io_wq_", "io_worker"})) {
    c.cause = OffCpuCause::io_wq;
  } else if (any({"exc_page_fault", "do_user_addr_fault", "handle_mm_fault", "do_page_fault",
                  "__do_fault", "filemap_fault"})) {
    c.cause = OffCpuCause::page_fault;
  } else if (any({"futex_", "__futex", "__mutex_lock", "mutex_lock", "rwsem_down", "down_read",
                  "down_write", "percpu_rwsem", "rt_mutex", "__vma_start_write",
                  "__vma_enter_locked"})) {
    // __vma_start_write waits for a VMA's readers to leave: the per-VMA lock of an mmap or munmap.
    c.cause = OffCpuCause::lock;
  } else {
    c.cause = OffCpuCause::other;
  }
  return c;
}

void KernelAttribution::before(const platform::KernelRecords& records) {
  std::unordered_map<int, const platform::KernelEvent*> stacks;
  for (const platform::KernelEvent& e : records.events) {
    if (who_.may_measure(e.pid, e.tid)) step(records, e, stacks);
  }
}

void KernelAttribution::step(const platform::KernelRecords& records,
                             const platform::KernelEvent& e,
                             std::unordered_map<int, const platform::KernelEvent*>& stacks) {
  using Kind = platform::KernelEvent::Kind;
  ThreadState& t = threads_[e.tid];
  switch (e.kind) {
    case Kind::stack:
      stacks[e.tid] = &e;
      break;
    case Kind::switched_out: {
      t.off = true;
      t.since = e.time_ns;
      const auto s = stacks.find(e.tid);
      if (s == stacks.end()) {  // its call chain was lost: a cause cannot be told
        t.exited = false;
        t.cause = e.preempted ? OffCpuCause::preempted : OffCpuCause::other;
        t.stack = "(call chain not recorded)";
        t.grace.clear();
        t.reaping = false;
        break;
      }
      Classified c = classify(records, *s->second, e.preempted);
      stacks.erase(s);
      t.exited = !c.cause;
      t.cause = c.cause.value_or(OffCpuCause::other);
      t.stack = std::move(c.stack);
      t.grace = std::move(c.grace);
      t.reaping = c.reaping;
      break;
    }
    case Kind::switched_in:
      t.off = false;
      break;
    case Kind::exited:
      threads_.erase(e.tid);
      break;
    case Kind::page_fault:
    case Kind::io_uring_punt:
      break;
  }
}

KernelSample KernelAttribution::during(const platform::KernelRecords& records,
                                       std::int64_t start_ns, std::int64_t end_ns) {
  using Kind = platform::KernelEvent::Kind;
  KernelSample sample;
  sample.window_ns = end_ns - start_ns;
  sample.complete = records.lost == 0 || (records.lost_from != 0 && records.lost_from >= end_ns);
  struct Seen {
    bool ran = false;
    std::uint64_t switches = 0;
    OffCpuByCause off{};
    OffCpuByCause at_edges{};
    std::map<std::string, std::int64_t> other;
    std::string grace;
    bool reaping = false;  // waited for a child process to end
  };
  std::unordered_map<int, Seen> seen;
  const auto off_until = [&](int tid, const ThreadState& t, std::int64_t to) {
    if (!t.off || t.exited) return;
    // Off as the region opened, or still off as it closed: waiting to start, or done.
    const bool at_an_edge = t.since < start_ns || to >= end_ns;
    const std::int64_t from = std::max(t.since, start_ns);
    to = std::min(to, end_ns);
    if (to <= from) return;
    Seen& s = seen[tid];
    s.reaping = s.reaping || t.reaping;
    if (t.reaping) return;
    s.off[static_cast<std::size_t>(t.cause)] += to - from;
    if (at_an_edge) s.at_edges[static_cast<std::size_t>(t.cause)] += to - from;
    if (keep_spans_) sample.spans.push_back({tid, from, to, t.cause});
    if (t.cause == OffCpuCause::other) s.other[t.stack] += to - from;
    if (t.cause == OffCpuCause::fd_table_growth && !t.grace.empty()) s.grace = t.grace;
  };
  // A thread on a CPU as the window opens runs in it: it may never switch, and leave no record.
  bool opened = false;
  const auto open_window = [&] {
    opened = true;
    for (const auto& [tid, t] : threads_) {
      if (!t.off && !t.exited) seen[tid].ran = true;
    }
  };
  std::unordered_map<int, const platform::KernelEvent*> stacks;
  for (const platform::KernelEvent& e : records.events) {
    if (!who_.may_measure(e.pid, e.tid)) continue;
    if (!opened && e.time_ns >= start_ns) open_window();
    const bool inside = e.time_ns >= start_ns && e.time_ns < end_ns;
    // A thread already ending (switched out in do_exit) does no more work: one that another
    // result's teardown left to finish its exit here is not measuring, though it runs.
    const bool ending = threads_[e.tid].exited;
    switch (e.kind) {
      case Kind::page_fault:
        if (inside) ++sample.page_faults;
        break;
      case Kind::io_uring_punt:
        if (inside) ++sample.io_uring_punts;
        break;
      case Kind::switched_in:
        off_until(e.tid, threads_[e.tid], e.time_ns);
        if (inside && !ending) seen[e.tid].ran = true;
        break;
      case Kind::switched_out:
        if (inside && !ending) {
          Seen& s = seen[e.tid];
          s.ran = true;  // it was on a CPU until now
          ++s.switches;
        }
        break;
      case Kind::exited:
        off_until(e.tid, threads_[e.tid], e.time_ns);
        break;
      case Kind::stack:
        break;
    }
    step(records, e, stacks);
    // A thread that ended in the window did not switch out to wait: no switch to count.
    if (e.kind == Kind::switched_out && inside && !ending && threads_[e.tid].exited) {
      --seen[e.tid].switches;
    }
    if (e.kind == Kind::switched_out && inside && threads_[e.tid].reaping) {
      seen[e.tid].reaping = true;
    }
  }
  if (!opened) open_window();
  // Threads still off at the end of the window were off until it.
  for (const auto& [tid, t] : threads_) {
    if (seen.contains(tid)) off_until(tid, t, end_ns);
  }
  for (const auto& [tid, s] : seen) {
    if (!s.ran) continue;  // never ran in it: a thread of another result, idle meanwhile
    // One that waited for a child process to end in it works for none: a fresh child's middle
    // process (forked again for a smaller table), waiting for the one that measures.
    if (s.reaping) continue;
    ++sample.threads;
    sample.switches += s.switches;
    for (std::size_t c = 0; c < kOffCpuCauses; ++c) {
      sample.off_cpu[c] += s.off[c];
      sample.at_edges[c] += s.at_edges[c];
    }
    for (const auto& [stack, ns] : s.other) sample.other_stacks[stack] += ns;
    if (!s.grace.empty()) sample.grace_period = s.grace;
  }
  return sample;
}

CallOffCpu off_cpu_during(const std::vector<OffCpuSpan>& spans, int tid, std::int64_t start_ns,
                          std::int64_t ns) {
  CallOffCpu out;
  OffCpuByCause by{};
  const std::int64_t end_ns = start_ns + ns;
  for (const OffCpuSpan& s : spans) {
    if (s.tid != tid) continue;
    const std::int64_t from = std::max(s.from_ns, start_ns);
    const std::int64_t to = std::min(s.to_ns, end_ns);
    if (to > from) by[static_cast<std::size_t>(s.cause)] += to - from;
  }
  for (const OffCpuCause c : kEveryOffCpuCause) {
    const std::int64_t t = by[static_cast<std::size_t>(c)];
    out.off_ns += t;
    if (t > 0 && (!out.main || t > by[static_cast<std::size_t>(*out.main)])) out.main = c;
  }
  return out;
}

KernelEvidence summarize_kernel(const std::vector<KernelSample>& samples, bool punts_counted) {
  KernelEvidence k;
  if (samples.empty()) return k;
  k.available = true;
  k.repetitions = static_cast<int>(samples.size());
  // Every figure from one repetition, the median one: medians of each figure apart come from
  // different repetitions, and need neither add up nor fit in the threads' time.
  std::vector<std::int64_t> windows;
  windows.reserve(samples.size());
  for (const KernelSample& s : samples) windows.push_back(s.window_ns);
  const KernelSample& m = samples[median_index(windows)];
  k.threads = m.threads;
  k.window_ns = m.window_ns;
  k.off_cpu = m.off_cpu;
  k.off_cpu_ns = m.off_cpu_total();
  k.at_edges = m.at_edges;
  k.at_edges_ns = m.at_edges_total();
  k.switches = m.switches;
  k.page_faults = m.page_faults;
  if (punts_counted) k.io_uring_punts = m.io_uring_punts;
  for (const auto& [stack, ns] : m.other_stacks) k.other_stacks.push_back({stack, ns});
  std::sort(k.other_stacks.begin(), k.other_stacks.end(),
            [](const StackTime& a, const StackTime& b) { return a.ns > b.ns; });
  constexpr std::size_t kStacksKept = 5;
  if (k.other_stacks.size() > kStacksKept) k.other_stacks.resize(kStacksKept);
  // The machine's steal time comes in 10 ms ticks: a mean over every repetition says more.
  if (std::all_of(samples.begin(), samples.end(),
                  [](const KernelSample& s) { return s.steal_ns.has_value(); })) {
    std::int64_t steal = 0;
    for (const KernelSample& s : samples) steal += *s.steal_ns;
    k.steal_ns = steal / static_cast<std::int64_t>(samples.size());
  }
  k.grace_period = m.grace_period;
  for (const KernelSample& s : samples) {
    if (k.grace_period.empty()) k.grace_period = s.grace_period;
    if (!s.complete) ++k.incomplete;
  }
  return k;
}

}  // namespace fdbench
