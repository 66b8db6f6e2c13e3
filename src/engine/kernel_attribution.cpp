#include "engine/kernel_attribution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

namespace fdbench {

namespace {

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
  return classify_switch(records, stack, preempted, symbol_);
}

SwitchCause classify_switch(const platform::KernelRecords& records,
                            const platform::KernelEvent& stack, bool preempted,
                            const SymbolOf& symbol_) {
  SwitchCause c;
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
                  "__vma_enter_locked", "__lock_sock", "lock_sock_nested"})) {
    // __vma_start_write waits for a VMA's readers to leave: the per-VMA lock of an mmap or munmap.
    // __lock_sock waits for a socket's owner: threads accepting on one listener take turns at
    // its lock in inet_csk_accept, and wait out the holder's preemption.
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
    case Kind::forked:
    case Kind::call_entered:
    case Kind::call_returned:
      break;
  }
}

// One repetition's region [start_ns, end_ns) as the records go by: who ran in it, and how
// long each was off its CPU and why.
class KernelAttribution::Window {
 public:
  Window(KernelAttribution& attribution, const platform::KernelRecords& records,
         std::int64_t start_ns, std::int64_t end_ns)
      : a_(attribution), records_(records), start_ns_(start_ns), end_ns_(end_ns) {
    sample_.window_ns = end_ns - start_ns;
    sample_.complete =
        records.lost == 0 || (records.lost_from != 0 && records.lost_from >= end_ns);
  }

  // The next record of a measuring thread, in time order.
  void event(const platform::KernelEvent& e) {
    using Kind = platform::KernelEvent::Kind;
    if (!opened_ && e.time_ns >= start_ns_) open();
    const bool inside = e.time_ns >= start_ns_ && e.time_ns < end_ns_;
    // A thread already ending (switched out in do_exit) does no more work: one that another
    // result's teardown left to finish its exit here is not measuring, though it runs.
    const bool ending = a_.threads_[e.tid].exited;
    count(e, inside, ending);
    a_.step(records_, e, stacks_);
    // A thread that ended in the window did not switch out to wait: no switch to count.
    if (e.kind == Kind::switched_out && inside && !ending && a_.threads_[e.tid].exited) {
      --seen_[e.tid].switches;
    }
    if (e.kind == Kind::switched_out && inside && a_.threads_[e.tid].reaping) {
      seen_[e.tid].reaping = true;
    }
  }

  // The sample, once every record has gone by.
  KernelSample finish() {
    if (!opened_) open();
    // Threads still off at the end of the window were off until it.
    for (const auto& [tid, t] : a_.threads_) {
      if (seen_.contains(tid)) off_until(tid, t, end_ns_);
    }
    for (const auto& [tid, s] : seen_) {
      if (!s.ran) continue;  // never ran in it: a thread of another result, idle meanwhile
      // One that waited for a child process to end in it works for none: a fresh child's
      // middle process (forked again for a smaller table), waiting for the one that measures.
      if (s.reaping) continue;
      add(s);
    }
    return std::move(sample_);
  }

 private:
  struct Seen {
    bool ran = false;
    std::uint64_t switches = 0;
    OffCpuByCause off{};
    OffCpuByCause at_edges{};
    std::map<std::string, std::int64_t> other;
    std::string grace;
    bool reaping = false;  // waited for a child process to end
  };

  void count(const platform::KernelEvent& e, bool inside, bool ending) {
    using Kind = platform::KernelEvent::Kind;
    switch (e.kind) {
      case Kind::page_fault:
        if (inside) ++sample_.page_faults;
        break;
      case Kind::io_uring_punt:
        if (inside) ++sample_.io_uring_punts;
        break;
      case Kind::switched_in:
        off_until(e.tid, a_.threads_[e.tid], e.time_ns);
        if (inside && !ending) seen_[e.tid].ran = true;
        break;
      case Kind::switched_out:
        if (inside && !ending) {
          Seen& s = seen_[e.tid];
          s.ran = true;  // it was on a CPU until now
          ++s.switches;
        }
        break;
      case Kind::exited:
        off_until(e.tid, a_.threads_[e.tid], e.time_ns);
        break;
      case Kind::stack:
      case Kind::forked:
      case Kind::call_entered:
      case Kind::call_returned:
        break;
    }
  }

  // A thread on a CPU as the window opens runs in it: it may never switch, and leave no record.
  void open() {
    opened_ = true;
    for (const auto& [tid, t] : a_.threads_) {
      if (!t.off && !t.exited) seen_[tid].ran = true;
    }
  }

  void off_until(int tid, const ThreadState& t, std::int64_t to) {
    if (!t.off || t.exited) return;
    // Off as the region opened, or still off as it closed: waiting to start, or done.
    const bool at_an_edge = t.since < start_ns_ || to >= end_ns_;
    const std::int64_t from = std::max(t.since, start_ns_);
    to = std::min(to, end_ns_);
    if (to <= from) return;
    Seen& s = seen_[tid];
    s.reaping = s.reaping || t.reaping;
    if (t.reaping) return;
    s.off[static_cast<std::size_t>(t.cause)] += to - from;
    if (at_an_edge) s.at_edges[static_cast<std::size_t>(t.cause)] += to - from;
    if (a_.keep_spans_) sample_.spans.push_back({tid, from, to, t.cause});
    if (t.cause == OffCpuCause::other) s.other[t.stack] += to - from;
    if (t.cause == OffCpuCause::fd_table_growth && !t.grace.empty()) s.grace = t.grace;
  }

  void add(const Seen& s) {
    ++sample_.threads;
    sample_.switches += s.switches;
    for (std::size_t c = 0; c < kOffCpuCauses; ++c) {
      sample_.off_cpu[c] += s.off[c];
      sample_.at_edges[c] += s.at_edges[c];
    }
    for (const auto& [stack, ns] : s.other) sample_.other_stacks[stack] += ns;
    if (!s.grace.empty()) sample_.grace_period = s.grace;
  }

  KernelAttribution& a_;
  const platform::KernelRecords& records_;
  std::int64_t start_ns_;
  std::int64_t end_ns_;
  KernelSample sample_;
  std::unordered_map<int, Seen> seen_;
  std::unordered_map<int, const platform::KernelEvent*> stacks_;
  bool opened_ = false;
};

KernelSample KernelAttribution::during(const platform::KernelRecords& records,
                                       std::int64_t start_ns, std::int64_t end_ns) {
  Window window(*this, records, start_ns, end_ns);
  for (const platform::KernelEvent& e : records.events) {
    if (who_.may_measure(e.pid, e.tid)) window.event(e);
  }
  return window.finish();
}

}  // namespace fdbench
