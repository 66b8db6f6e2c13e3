#pragma once
// Kernel evidence (--kernel-trace): where the measuring threads were off their CPU during a
// timed region, by cause, as data: a sample per repetition (engine/kernel_attribution.hpp
// reads them from the kernel's records), a result's figures from its median repetition's.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fdbench {

// Why a thread was off its CPU, from the kernel's call chain where it left it.
enum class OffCpuCause : std::uint8_t {
  fd_table_growth,    // growing the descriptor table: an RCU grace period from expand_files
  waiting_on_growth,  // waiting in expand_files for a sibling's resize to end
  io_uring_wait,      // waiting for io_uring completions
  io_wq,              // waiting on io-wq, io_uring's worker threads
  page_fault,         // a page fault that had to wait
  lock,               // a futex, mutex or rw-semaphore
  // Still runnable: the (guest's) scheduler gave its CPU to another thread. A hypervisor
  // that takes a VM's CPU away switches no thread out: that time counts as on the CPU (and
  // as the machine's steal time, where the hypervisor reports it).
  preempted,
  other,              // anything else (its call chains are listed)
};
inline constexpr std::size_t kOffCpuCauses = 8;
inline constexpr std::array<OffCpuCause, kOffCpuCauses> kEveryOffCpuCause = {
    OffCpuCause::fd_table_growth, OffCpuCause::waiting_on_growth, OffCpuCause::io_uring_wait,
    OffCpuCause::io_wq,           OffCpuCause::page_fault,        OffCpuCause::lock,
    OffCpuCause::preempted,       OffCpuCause::other};
// "fd-table-growth", "waiting-on-growth", "io_uring-wait", "io-wq", "page-fault", "lock",
// "preempted", "other".
std::string_view cause_name(OffCpuCause cause);
std::optional<OffCpuCause> cause_named(std::string_view name);
// What it is, in a few plain words ("in an RCU grace period growing the descriptor table").
std::string_view cause_words(OffCpuCause cause);

using OffCpuByCause = std::array<std::int64_t, kOffCpuCauses>;  // ns, indexed by the enum

// A call chain's time, as "synchronize_rcu_normal ← expand_files ← alloc_fd".
struct StackTime {
  std::string stack;
  std::int64_t ns = 0;
  bool operator==(const StackTime&) const = default;
};

// One stretch of a measuring thread's time off its CPU inside a timed region, and why: what
// a slow call's own thread was doing while the call took long (Stall's cause when traced).
struct OffCpuSpan {
  int tid = 0;
  std::int64_t from_ns = 0;  // CLOCK_MONOTONIC, clipped to the timed region
  std::int64_t to_ns = 0;
  OffCpuCause cause = OffCpuCause::other;
  bool operator==(const OffCpuSpan&) const = default;
};

// What the kernel says of one call made by thread `tid` over [start_ns, start_ns + ns): how
// long the thread was off its CPU meanwhile, and the cause that took most of it (nullopt when
// it never left its CPU).
struct CallOffCpu {
  std::int64_t off_ns = 0;
  std::optional<OffCpuCause> main;
};
// `spans` in any order.
CallOffCpu off_cpu_during(const std::vector<OffCpuSpan>& spans, int tid, std::int64_t start_ns,
                          std::int64_t ns);

// One timed repetition's evidence, summed over the threads that measured in it.
struct KernelSample {
  std::int64_t window_ns = 0;  // the timed region
  int threads = 0;             // threads that ran in it
  OffCpuByCause off_cpu{};
  // The part of off_cpu at the region's edges: stretches a thread began before the region
  // opened (asleep until its release, then waiting for a CPU) or was still in when it closed
  // (done with its share while others worked on). Waiting to start, or done: not a cost of
  // the work, whatever the call chain (a futex, mostly) says.
  OffCpuByCause at_edges{};
  std::uint64_t switches = 0;  // times a measuring thread left its CPU
  std::uint64_t page_faults = 0;
  std::uint64_t io_uring_punts = 0;
  std::map<std::string, std::int64_t> other_stacks;  // "other" time by call chain
  std::string grace_period;  // "expedited" or "normal": the grace period the table growth waited
  bool complete = true;      // no record was lost from it
  // The machine's steal time (every CPU) from just before the repetition to just after it
  // (platform::steal_time_ns); nullopt where it cannot be read.
  std::optional<std::int64_t> steal_ns;
  // Every stretch off a CPU, when the attribution keeps them (KernelAttribution::keep_spans):
  // for the stalls of this repetition; not kept in a result.
  std::vector<OffCpuSpan> spans;

  [[nodiscard]] std::int64_t off_cpu_total() const;
  [[nodiscard]] std::int64_t at_edges_total() const;
};

// A result's kernel evidence: the figures of its median repetition (median_index() of the
// traced repetitions' windows, which are their times: the repetition the HTML report's events
// chart draws), so that the causes add up to the total and the total fits in the threads' time
// (medians of each figure apart come from different repetitions and do neither); or why there
// is none.
struct KernelEvidence {
  bool available = false;
  std::string reason;  // why not, when not available
  int repetitions = 0;
  int threads = 0;
  std::int64_t window_ns = 0;
  std::int64_t off_cpu_ns = 0;  // the sum of off_cpu
  OffCpuByCause off_cpu{};
  // Of that, waiting to start or done (KernelSample::at_edges): its total and each cause's.
  std::int64_t at_edges_ns = 0;
  OffCpuByCause at_edges{};
  std::uint64_t switches = 0;
  std::uint64_t page_faults = 0;
  std::optional<std::uint64_t> io_uring_punts;  // nullopt: not counted here
  std::vector<StackTime> other_stacks;  // the "other" call chains, most time first (5 at most)
  std::string grace_period;  // the median repetition's, else any's; "" when none grew the table
  int incomplete = 0;                   // repetitions with records lost
  // Beside `preempted`: the machine's steal time per repetition (the mean over them, every
  // CPU; /proc/stat counts it in 10 ms ticks, so a mean, not a median), where every sample
  // had it; and whether this machine reports steal time at all (any since boot: a VM whose
  // hypervisor does not report it shows 0, and its preemptions only as on-CPU time).
  std::optional<std::int64_t> steal_ns;
  bool steal_reported = false;

  // Off-CPU time between each thread's first and last run in the region, by cause and in all:
  // off_cpu less at_edges (never below 0: a document before schema 9 held medians).
  [[nodiscard]] std::int64_t in_work(OffCpuCause cause) const;
  [[nodiscard]] std::int64_t in_work_ns() const;

  bool operator==(const KernelEvidence&) const = default;
};
// The figures of the median one of `samples` (at least one), the steal time's mean and the
// incomplete ones counted; `punts_counted` false leaves io_uring_punts out.
KernelEvidence summarize_kernel(const std::vector<KernelSample>& samples, bool punts_counted);

}  // namespace fdbench
