#pragma once
// What --latency makes of the per-call records of a result's timed repetitions: percentiles
// per operation, the calls that grew the descriptor table, and the stalls, each with a cause
// that rests on what was measured. Records of io_uring submissions (CallKind::submission) are
// operations of their own, "submit" and "submit-close": a batch is the call there, so it is
// the batch that grows the table or stalls.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/call_record.hpp"
#include "model/kernel_evidence.hpp"

namespace fdbench {

struct LatencyPercentiles {
  std::uint64_t count = 0;
  std::int64_t p50 = 0;
  std::int64_t p90 = 0;
  std::int64_t p99 = 0;
  std::int64_t p999 = 0;
  std::int64_t max = 0;

  bool operator==(const LatencyPercentiles&) const = default;
};

// A call whose descriptor did not fit the table as it was: the one that ran expand_fdtable().
// For a submission: the one whose batch's highest descriptor did not, which may have grown
// the table more than once (fdsize_after tells).
struct GrowthEvent {
  int repetition = 0;  // 0-based, among the timed repetitions
  int worker = 0;
  std::uint64_t index = 0;  // the item
  int fd = 0;
  std::int64_t ns = 0;  // that call's duration
  int fdsize_before = 0;
  int fdsize_after = 0;
  bool shared = false;  // more than one thread of the process was alive: growth waited for RCU

  bool operator==(const GrowthEvent&) const = default;
};

// A call slower than max(kStallP50Multiple × its operation's median in that repetition,
// kStallFloorNs).
struct Stall {
  int repetition = 0;
  int worker = 0;
  std::uint64_t index = 0;
  std::string op;  // "open", "close", "create"; for submissions "submit", "submit-close"
  int fd = -1;
  std::int64_t ns = 0;
  // Inferred from the timing (not traced): "fd-table-growth": the call is a growth event in a
  // shared table; "waiting-on-growth": it overlaps in time another worker's growth event;
  // otherwise "unexplained".
  // From the kernel (--kernel-trace; off_cpu_ns is set): the cause (cause_name()) that kept
  // the call's own thread off its CPU longest while it ran, where the thread was off its CPU
  // for at least half the call; otherwise kOnCpuCause.
  std::string cause;
  std::optional<std::int64_t> off_cpu_ns;  // --kernel-trace: its thread's time off its CPU

  bool operator==(const Stall&) const = default;
};

struct EventTotals {
  std::uint64_t count = 0;
  std::int64_t total_ns = 0;
  double share_of_repetition = 0;  // total_ns over the timed repetitions' summed time

  bool operator==(const EventTotals&) const = default;
};

// The stalls of one cause, over every timed repetition.
struct StallCause {
  std::uint64_t count = 0;
  std::int64_t total_ns = 0;
  std::uint64_t from_kernel = 0;  // of them, caused as --kernel-trace recorded (off_cpu_ns set)

  bool operator==(const StallCause&) const = default;
};

struct Latency {
  // By operation: "open" and "close" for files closed at once, "open" for files kept open,
  // "create" for sockets and other descriptors; a strategy that submits batches itself
  // (io_uring) has "submit" (one per batch of creations) and, where a batch's closes are a
  // submission of their own, "submit-close" instead.
  std::map<std::string, LatencyPercentiles> ns;
  // False where the OS does not show the table's size (not Linux): growth cannot be told
  // apart, and growth_events and growth_totals stay empty.
  bool growth_known = true;
  std::vector<GrowthEvent> growth_events;
  // Listed: the first kMaxListedStalls, and the median repetition's (median_index() of the
  // repetitions' times, the one the HTML report draws) up to kMaxListedStalls of them. The
  // figures below count every stall.
  std::vector<Stall> stalls;
  EventTotals growth_totals;
  EventTotals stall_totals;
  // Every stall by its cause, over every timed repetition. Read from a document older than
  // schema 9: its listed stalls' causes only (fewer than stall_totals where some were not
  // listed).
  std::map<std::string, StallCause> stall_causes;
  // Each timed repetition's stalls, listed or not; empty where not recorded (before schema 9).
  std::vector<std::uint64_t> stalls_per_repetition;

  bool operator==(const Latency&) const = default;
};

// The causes of `stalls` alone: all that a document before schema 9 tells of its stalls'.
std::map<std::string, StallCause> causes_of(std::span<const Stall> stalls);

// The operations of submission records (CallKind::submission).
inline constexpr const char* kSubmitOp = "submit";
inline constexpr const char* kSubmitCloseOp = "submit-close";

// Whether `latency` was timed per submission (io_uring), not per call.
[[nodiscard]] bool per_submission(const Latency& latency);
// What a result's "latency" parameter says of a latency timed per submission, for batches of
// up to `batch` items.
[[nodiscard]] std::string per_submission_note(int batch);

// A traced stall whose thread was on its CPU for most of the call: the kernel worked, or, in a
// VM, the hypervisor ran something else on that CPU (which the guest cannot see).
inline constexpr const char* kOnCpuCause = "on-cpu";

// What the kernel recorded of one repetition's threads (--kernel-trace), for its stalls:
// every measuring thread's stretches off its CPU, and each worker's thread id (0: unknown).
struct KernelCalls {
  const std::vector<OffCpuSpan>* off_cpu = nullptr;
  std::span<const std::int32_t> worker_tids;
};

inline constexpr std::int64_t kStallP50Multiple = 20;
inline constexpr std::int64_t kStallFloorNs = 200'000;
inline constexpr std::size_t kMaxListedStalls = 100;

// Turns the records of each timed repetition into a Latency, one repetition at a time, so
// that the records of a huge set need not all be kept. Every figure counts every repetition;
// only the listing of stalls is capped.
class LatencyCollector {
 public:
  // `create_op`: what the creation call is called ("open", "create"); `closes`: whether the
  // workload closes each descriptor at once (a "close" operation of its own).
  LatencyCollector(std::string create_op, bool closes);

  // One timed repetition: its records, its duration, the table size it started with, and
  // whether the table was shared while it ran.
  // `fdsize_before` 0: not known here (no growth events are looked for).
  // `kernel`, where the repetition was traced: each stall's cause is the kernel's.
  void add(std::span<const CallRecord> records, std::int64_t repetition_ns, int fdsize_before,
           bool shared, const KernelCalls* kernel = nullptr);
  [[nodiscard]] Latency finish() const;

 private:
  std::string create_op_;
  bool closes_;
  int repetitions_ = 0;
  std::int64_t total_ns_ = 0;
  std::vector<std::int64_t> create_ns_;
  std::vector<std::int64_t> close_ns_;
  std::vector<std::int64_t> submit_ns_;
  std::vector<std::int64_t> submit_close_ns_;
  std::vector<std::int64_t> repetition_ns_;
  // Each repetition's first kMaxListedStalls stalls, until finish() knows which is the median.
  std::vector<Stall> kept_;
  Latency latency_;
};

// The calls of one repetition that grew a table of `fdsize_before` slots: in descriptor
// order, every call whose fd did not fit the table as it was (the table then grows to the
// next power of two above that fd, as alloc_fdtable() does).
std::vector<GrowthEvent> growth_events(std::span<const CallRecord> records, int fdsize_before,
                                       bool shared, int repetition);

// The stalls of one repetition, given its growth events. Per-call records and submission
// records are held against their own operations' medians. With `kernel`, a stall whose
// worker's thread is known takes its cause from the kernel's records.
std::vector<Stall> stalls(std::span<const CallRecord> records, std::span<const GrowthEvent> growth,
                          const std::string& create_op, bool closes, int repetition,
                          const KernelCalls* kernel = nullptr);

}  // namespace fdbench
