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
