#include "model/latency.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <utility>

#include "model/statistics.hpp"

namespace fdbench {

namespace {

// As percentile() interpolates, on samples sorted once (percentile() sorts a copy per call).
std::int64_t at_percentile(std::span<const std::int64_t> sorted, double p) {
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(rank));
  const auto upper = static_cast<std::size_t>(std::ceil(rank));
  const double fraction = rank - static_cast<double>(lower);
  return std::llround(static_cast<double>(sorted[lower]) +
                      fraction * static_cast<double>(sorted[upper] - sorted[lower]));
}

LatencyPercentiles percentiles_of(std::vector<std::int64_t> samples) {
  LatencyPercentiles out;
  if (samples.empty()) return out;
  std::sort(samples.begin(), samples.end());
  out.count = samples.size();
  out.p50 = at_percentile(samples, 50);
  out.p90 = at_percentile(samples, 90);
  out.p99 = at_percentile(samples, 99);
  out.p999 = at_percentile(samples, 99.9);
  out.max = samples.back();
  return out;
}

std::int64_t median_of(std::vector<std::int64_t> samples) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  return at_percentile(samples, 50);
}

std::int64_t stall_threshold(std::int64_t p50) {
  return std::max(kStallP50Multiple * p50, kStallFloorNs);
}

bool overlap(std::int64_t a_start, std::int64_t a_ns, std::int64_t b_start, std::int64_t b_ns) {
  return a_start < b_start + b_ns && b_start < a_start + a_ns;
}

// The cause of a call of `worker` over [start, start + ns), measured, never guessed.
std::string cause_of(std::span<const CallRecord> records, std::span<const GrowthEvent> growth,
                     std::uint64_t index, bool is_creation, std::int64_t start, std::int64_t ns) {
  const int worker = records[index].worker;
  for (const auto& g : growth) {
    if (is_creation && g.index == index) {
      return std::string(g.shared ? cause_name(OffCpuCause::fd_table_growth) : kUnexplainedCause);
    }
  }
  for (const auto& g : growth) {
    const CallRecord& grew = records[g.index];
    if (grew.worker != worker && g.shared && overlap(start, ns, grew.start_ns, grew.create_ns)) {
      return std::string(cause_name(OffCpuCause::waiting_on_growth));
    }
  }
  return kUnexplainedCause;
}

// A stall as the timing alone tells it, or, where the kernel recorded its thread, as the
// kernel does.
Stall stall_of(std::span<const CallRecord> records, std::span<const GrowthEvent> growth,
               std::size_t index, bool is_creation, std::string op, int repetition,
               const KernelCalls* kernel) {
  const CallRecord& r = records[index];
  const std::int64_t start = is_creation ? r.start_ns : r.start_ns + r.create_ns;
  const std::int64_t ns = is_creation ? r.create_ns : r.close_ns;
  Stall s{repetition, r.worker, index, std::move(op), r.fd, ns,
          cause_of(records, growth, index, is_creation, start, ns), std::nullopt};
  if (kernel == nullptr || kernel->off_cpu == nullptr || r.worker < 0) return s;
  const auto worker = static_cast<std::size_t>(r.worker);
  if (worker >= kernel->worker_tids.size() || kernel->worker_tids[worker] <= 0) return s;
  const CallOffCpu off = off_cpu_during(*kernel->off_cpu, kernel->worker_tids[worker], start, ns);
  s.off_cpu_ns = off.off_ns;
  s.cause = off.main && 2 * off.off_ns >= ns ? std::string(cause_name(*off.main)) : kOnCpuCause;
  return s;
}

}  // namespace

std::vector<GrowthEvent> growth_events(std::span<const CallRecord> records, int fdsize_before,
                                       bool shared, int repetition) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (records[i].fd >= 0 && records[i].create_ns >= 0) order.push_back(i);
  }
  // Descriptors are handed out lowest-free first, so the call that met a full table is the
  // lowest fd at or above its size, whatever the workers' interleaving.
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (records[a].fd != records[b].fd) return records[a].fd < records[b].fd;
    return records[a].start_ns < records[b].start_ns;
  });
  std::vector<GrowthEvent> events;
  int size = std::max(fdsize_before, 1);
  for (const std::size_t i : order) {
    const CallRecord& r = records[i];
    if (r.fd < size) continue;
    GrowthEvent e;
    e.repetition = repetition;
    e.worker = r.worker;
    e.index = i;
    e.fd = r.fd;
    e.ns = r.create_ns;
    e.fdsize_before = size;
    e.fdsize_after = static_cast<int>(std::bit_ceil(static_cast<unsigned>(r.fd) + 1U));
    e.shared = shared;
    events.push_back(e);
    size = e.fdsize_after;
  }
  return events;
}

std::vector<Stall> stalls(std::span<const CallRecord> records, std::span<const GrowthEvent> growth,
                          const std::string& create_op, bool closes, int repetition,
                          const KernelCalls* kernel) {
  // What a kind of record's two durations are called, and the limits above which they stall:
  // per-call records and submissions each against their own medians.
  struct Ops {
    std::string create;
    std::string close;
    std::int64_t create_limit;
    std::int64_t close_limit;
  };
  const auto ops_for = [records](CallKind kind, std::string create, std::string close) {
    std::vector<std::int64_t> creates;
    std::vector<std::int64_t> closes_ns;
    for (const auto& r : records) {
      if (r.kind != kind) continue;
      if (r.create_ns >= 0) creates.push_back(r.create_ns);
      if (r.close_ns >= 0) closes_ns.push_back(r.close_ns);
    }
    return Ops{std::move(create), std::move(close), stall_threshold(median_of(std::move(creates))),
               stall_threshold(median_of(std::move(closes_ns)))};
  };
  const Ops calls = ops_for(CallKind::call, create_op, "close");
  const Ops submissions = ops_for(CallKind::submission, kSubmitOp, kSubmitCloseOp);
  std::vector<Stall> out;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const CallRecord& r = records[i];
    const Ops& ops = r.kind == CallKind::submission ? submissions : calls;
    if (r.create_ns > ops.create_limit) {
      out.push_back(stall_of(records, growth, i, true, ops.create, repetition, kernel));
    }
    // A submission's closes start right after its creations are reaped (their SQEs aside).
    if (closes && r.close_ns > ops.close_limit) {
      out.push_back(stall_of(records, growth, i, false, ops.close, repetition, kernel));
    }
  }
  return out;
}

std::map<std::string, StallCause> causes_of(std::span<const Stall> stalls) {
  std::map<std::string, StallCause> causes;
  for (const Stall& s : stalls) {
    StallCause& c = causes[s.cause];
    ++c.count;
    c.total_ns += s.ns;
    if (s.off_cpu_ns) ++c.from_kernel;
  }
  return causes;
}

bool per_submission(const Latency& latency) {
  return latency.ns.count(kSubmitOp) != 0;
}

std::string per_submission_note(int batch) {
  return "per submission (submit → last completion of a batch of up to " + std::to_string(batch) +
         " items), not per call: io_uring makes the calls inside the kernel";
}

LatencyCollector::LatencyCollector(std::string create_op, bool closes)
    : create_op_(std::move(create_op)), closes_(closes) {}

void LatencyCollector::add(std::span<const CallRecord> records, std::int64_t repetition_ns,
                           int fdsize_before, bool shared, const KernelCalls* kernel) {
  const int repetition = repetitions_++;
  total_ns_ += repetition_ns;
  for (const auto& r : records) {
    const bool submission = r.kind == CallKind::submission;
    if (r.create_ns >= 0) (submission ? submit_ns_ : create_ns_).push_back(r.create_ns);
    if (closes_ && r.close_ns >= 0) {
      (submission ? submit_close_ns_ : close_ns_).push_back(r.close_ns);
    }
  }
  if (fdsize_before <= 0) latency_.growth_known = false;
  const auto growth = latency_.growth_known
                          ? growth_events(records, fdsize_before, shared, repetition)
                          : std::vector<GrowthEvent>();
  for (const auto& g : growth) {
    latency_.growth_events.push_back(g);
    ++latency_.growth_totals.count;
    latency_.growth_totals.total_ns += g.ns;
  }
  const std::vector<Stall> found = stalls(records, growth, create_op_, closes_, repetition, kernel);
  for (const auto& [name, c] : causes_of(found)) {
    StallCause& cause = latency_.stall_causes[name];
    cause.count += c.count;
    cause.total_ns += c.total_ns;
    cause.from_kernel += c.from_kernel;
    latency_.stall_totals.count += c.count;
    latency_.stall_totals.total_ns += c.total_ns;
  }
  latency_.stalls_per_repetition.push_back(found.size());
  kept_.insert(
      kept_.end(), found.begin(),
      found.begin() + static_cast<std::ptrdiff_t>(std::min(found.size(), kMaxListedStalls)));
  repetition_ns_.push_back(repetition_ns);
}

Latency LatencyCollector::finish() const {
  Latency out = latency_;
  // The first stalls, and the median repetition's, so that what draws it draws them all.
  const auto median = static_cast<int>(median_index(repetition_ns_));
  for (const Stall& s : kept_) {
    if (out.stalls.size() < kMaxListedStalls || s.repetition == median) out.stalls.push_back(s);
  }
  // Per call unless only submissions were recorded: then the calls' empty figures would say
  // that there were none, not that they were not timed one by one.
  if (!create_ns_.empty() || submit_ns_.empty()) {
    out.ns[create_op_] = percentiles_of(create_ns_);
    if (closes_) out.ns["close"] = percentiles_of(close_ns_);
  }
  if (!submit_ns_.empty()) out.ns[kSubmitOp] = percentiles_of(submit_ns_);
  if (!submit_close_ns_.empty()) out.ns[kSubmitCloseOp] = percentiles_of(submit_close_ns_);
  if (total_ns_ > 0) {
    out.growth_totals.share_of_repetition =
        static_cast<double>(out.growth_totals.total_ns) / static_cast<double>(total_ns_);
    out.stall_totals.share_of_repetition =
        static_cast<double>(out.stall_totals.total_ns) / static_cast<double>(total_ns_);
  }
  return out;
}

}  // namespace fdbench
