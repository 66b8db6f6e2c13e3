#include "engine/descriptor_trace.hpp"

#include <algorithm>
#include <bit>

#include "fdbench/error.hpp"
#include "model/statistics.hpp"

namespace fdbench {

namespace {

// The table's size after growing for `fd`: the next power of two past it (alloc_fdtable()).
int grown_size(std::int64_t fd) {
  return static_cast<int>(std::bit_ceil(static_cast<std::uint64_t>(fd) + 1));
}

void add_off(OffCpuByCause& to, const OffCpuByCause& from) {
  for (std::size_t c = 0; c < kOffCpuCauses; ++c) to[c] += from[c];
}

}  // namespace

DescriptorTrace::DescriptorTrace(const TraceStart& start, SymbolOf symbol)
    : start_(start), symbol_(std::move(symbol)), table_slots_(start.table_slots.value_or(0)) {
  alive_[start.pid] = std::max(start.threads, 1);
}

void DescriptorTrace::add(const platform::KernelRecords& records, std::int64_t settled_ns) {
  using K = platform::KernelEvent::Kind;
  lost_ += records.lost;
  for (const platform::KernelEvent& k : records.events) {
    if (k.kind == K::page_fault || k.kind == K::io_uring_punt) continue;
    Event e{k.kind, k.preempted, k.pid, k.tid, k.time_ns, k.call, k.value, {}};
    // Classified now: the call chain's frames go with this drain's records.
    if (k.kind == K::stack) e.cause = classify_switch(records, k, false, symbol_);
    pending_.push_back(std::move(e));
  }
  std::stable_sort(pending_.begin(), pending_.end(),
                   [](const Event& a, const Event& b) { return a.time_ns < b.time_ns; });
  const auto settled = std::find_if(pending_.begin(), pending_.end(),
                                    [&](const Event& e) { return e.time_ns >= settled_ns; });
  for (auto it = pending_.begin(); it != settled; ++it) read(*it);
  pending_.erase(pending_.begin(), settled);
}

void DescriptorTrace::read(const Event& e) {
  using K = platform::KernelEvent::Kind;
  if (!start_.follow && e.pid != start_.pid) return;
  ThreadState& t = threads_[e.tid];
  switch (e.kind) {
    case K::forked:
      if (e.pid == e.tid) {
        alive_[e.pid] = 1;  // a new process: its table is its own
      } else {
        ++alive_[e.pid];
      }
      break;
    case K::exited:
      if (alive_[e.pid] > 0) --alive_[e.pid];
      threads_.erase(e.tid);
      break;
    case K::stack:
      t.pending = e.cause;
      t.has_pending = true;
      break;
    case K::switched_out:
      t.off = true;
      t.off_since = e.time_ns;
      t.off_cause = e.preempted || !t.has_pending
                        ? (e.preempted ? OffCpuCause::preempted : OffCpuCause::other)
                        : t.pending.cause.value_or(OffCpuCause::other);
      t.grace = t.has_pending ? t.pending.grace : std::string();
      t.has_pending = false;
      break;
    case K::switched_in:
      switched_in(e, t);
      break;
    case K::call_entered: {
      const platform::DescriptorCall what = platform::descriptor_call(e.call, e.value);
      if (what.name.empty()) {
        t.call.reset();
      } else {
        t.call = OpenCall{what, e.time_ns, {}};
      }
      break;
    }
    case K::call_returned:
      returned(e, t);
      break;
    case K::page_fault:
    case K::io_uring_punt:
      break;
  }
}

void DescriptorTrace::switched_in(const Event& e, ThreadState& t) {
  if (t.off && t.call && e.time_ns > t.off_since) {
    t.call->off[static_cast<std::size_t>(t.off_cause)] += e.time_ns - t.off_since;
    if (t.off_cause == OffCpuCause::fd_table_growth && !t.grace.empty()) grace_ = t.grace;
  }
  t.off = false;
}

void DescriptorTrace::returned(const Event& e, ThreadState& t) {
  if (!t.call) return;  // entered before tracing began, or not a call of ours
  const OpenCall call = *t.call;
  t.call.reset();
  record(e, call);
  // A call that writes its descriptors to memory (pipe2) is counted; its numbers are unseen.
  if (e.value >= 0 && e.pid == start_.pid && call.what.returns_descriptor && table_slots_ > 0 &&
      e.value >= table_slots_) {
    grew(e, call);
  }
}

void DescriptorTrace::record(const Event& e, const OpenCall& call) {
  const std::int64_t ns = e.time_ns - call.start_ns;
  const bool creating = !call.what.closes;
  Kind& kind = creating ? kinds_[std::string(call.what.name)] : closes_;
  for (Kind* k : {&kind, creating ? &all_creating_ : nullptr}) {
    if (k == nullptr) continue;
    k->times.push_back(ns);
    ++k->calls.count;
    k->calls.total_ns += ns;
    add_off(k->calls.off_cpu, call.off);
    // A result in (-4096, 0) is an errno; a larger negative one is a value (an fd never is).
    if (e.value < 0 && e.value > -4096) {
      ++k->calls.failures_by_errno[errno_name(static_cast<int>(-e.value))];
    }
  }
  TracedThread& who = callers_[e.tid];
  who.pid = e.pid;
  who.tid = e.tid;
  if (creating) {
    ++who.created;
    who.creating_ns += ns;
  } else {
    ++who.closed;
  }
  processes_[e.pid] = true;
}

void DescriptorTrace::grew(const Event& e, const OpenCall& call) {
  TableGrowth g;
  g.at_ns = call.start_ns - start_.time_ns;
  g.pid = e.pid;
  g.tid = e.tid;
  g.call = std::string(call.what.name);
  g.fd = static_cast<int>(e.value);
  g.from_slots = table_slots_;
  g.to_slots = grown_size(e.value);
  g.call_ns = e.time_ns - call.start_ns;
  g.threads_sharing = std::max(alive_[e.pid], 1);
  g.off_cpu = call.off;
  table_slots_ = g.to_slots;
  growths_.push_back(std::move(g));
}

TracedCalls DescriptorTrace::summary(Kind& kind) {
  std::sort(kind.times.begin(), kind.times.end());
  const auto at = [&](double p) {
    return static_cast<std::int64_t>(percentile(kind.times, p) + 0.5);
  };
  TracedCalls calls = kind.calls;
  calls.p50_ns = at(50);
  calls.p99_ns = at(99);
  calls.p999_ns = at(99.9);
  calls.max_ns = kind.times.empty() ? 0 : kind.times.back();
  return calls;
}

TraceReport DescriptorTrace::finish(std::int64_t end_ns) {
  for (const Event& e : pending_) read(e);
  pending_.clear();
  TraceReport report;
  report.pid = start_.pid;
  report.wall_ns = end_ns - start_.time_ns;
  report.table_at_start = start_.table_slots;
  for (auto& [name, kind] : kinds_) {
    report.creating.push_back(summary(kind));
    report.creating.back().call = name;
  }
  std::sort(report.creating.begin(), report.creating.end(),
            [](const TracedCalls& a, const TracedCalls& b) { return a.total_ns > b.total_ns; });
  report.all_creating = summary(all_creating_);
  report.all_creating.call = "all";
  report.closes = summary(closes_);
  report.closes.call = "close";
  for (const auto& [tid, who] : callers_) report.threads.push_back(who);
  std::stable_sort(
      report.threads.begin(), report.threads.end(),
      [](const TracedThread& a, const TracedThread& b) { return a.created > b.created; });
  report.growths = growths_;
  report.processes = processes_.size();
  for (const auto& [tid, t] : threads_) report.unfinished += t.call ? 1 : 0;
  report.lost = lost_;
  report.grace_period = grace_;
  return report;
}

}  // namespace fdbench
