// Attribution of off-CPU time on hand-made kernel records: each cause from its call chain,
// the timed region's edges, which threads count, lost records, and a result's medians.
#include "engine/kernel_attribution.hpp"
#include "model/kernel_evidence.hpp"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <vector>

namespace fdbench {
namespace kernel_evidence_test {

using Kind = platform::KernelEvent::Kind;
constexpr int kPid = 100;   // this process
constexpr int kMain = 100;  // its main thread: the harness
constexpr std::int64_t kMs = 1'000'000;

// Addresses 1, 2, 3, ... name the functions below, in order.
const std::vector<std::string> kFunctions = {"__schedule",
                                             "schedule",
                                             "schedule_timeout",
                                             "wait_for_completion",
                                             "synchronize_rcu_normal",
                                             "expand_files",
                                             "alloc_fd",
                                             "__sys_socket",
                                             "synchronize_rcu_expedited",
                                             "futex_wait_queue",
                                             "futex_wait",
                                             "io_cqring_wait",
                                             "do_nanosleep",
                                             "hrtimer_nanosleep",
                                             "exc_page_fault",
                                             "handle_mm_fault",
                                             "__vma_start_write",
                                             "__split_vma",
                                             "do_exit",
                                             "do_task_dead",
                                             "do_wait",
                                             "kernel_wait4",
                                             "__do_sys_wait4",
                                             "do_wait_for_common",
                                             "__lock_sock",
                                             "lock_sock_nested",
                                             "inet_csk_accept"};

std::string_view symbol(std::uint64_t address) {
  return address >= 1 && address <= kFunctions.size() ? std::string_view(kFunctions[address - 1])
                                                       : std::string_view();
}

std::uint64_t at(std::string_view name) {
  for (std::size_t i = 0; i < kFunctions.size(); ++i) {
    if (kFunctions[i] == name) return i + 1;
  }
  ADD_FAILURE() << "no function " << name;
  return 0;
}

// Records made in time order, as a drain gives them.
class Records {
 public:
  // `tid` leaves its CPU at `ms` with this call chain (innermost first).
  Records& out(int tid, double ms, std::vector<std::string_view> chain, bool preempted = false,
               int pid = kPid) {
    platform::KernelEvent stack{Kind::stack, false, pid, tid, time(ms)};
    stack.frames_begin = static_cast<std::uint32_t>(r_.frames.size());
    for (const auto name : chain) r_.frames.push_back(at(name));
    stack.frames_size = static_cast<std::uint32_t>(chain.size());
    r_.events.push_back(stack);
    r_.events.push_back({Kind::switched_out, preempted, pid, tid, time(ms)});
    return *this;
  }
  Records& in(int tid, double ms, int pid = kPid) {
    r_.events.push_back({Kind::switched_in, false, pid, tid, time(ms)});
    return *this;
  }
  Records& event(Kind kind, int tid, double ms, int pid = kPid) {
    r_.events.push_back({kind, false, pid, tid, time(ms)});
    return *this;
  }
  Records& lost(std::uint64_t n, double from_ms) {
    r_.lost = n;
    r_.lost_from = time(from_ms);
    return *this;
  }
  [[nodiscard]] const platform::KernelRecords& get() const { return r_; }

 private:
  static std::int64_t time(double ms) { return static_cast<std::int64_t>(ms * kMs); }
  platform::KernelRecords r_;
};

KernelAttribution in_process() {
  return KernelAttribution(MeasuringThreads{kPid, false, {kMain}}, symbol);
}

std::int64_t off(const KernelSample& s, OffCpuCause cause) {
  return s.off_cpu[static_cast<std::size_t>(cause)];
}

}  // namespace kernel_evidence_test

using namespace kernel_evidence_test;

TEST(KernelEvidence, TableGrowthAndTheWaitForItAreToldApart) {
  KernelAttribution a = in_process();
  Records r;
  r.in(101, 0).in(102, 0);
  r.out(101, 1, {"__schedule", "schedule", "schedule_timeout", "wait_for_completion",
                 "synchronize_rcu_normal", "expand_files", "alloc_fd", "__sys_socket"});
  r.out(102, 2, {"__schedule", "schedule", "expand_files", "alloc_fd", "__sys_socket"});
  r.in(101, 6).in(102, 7);
  const KernelSample s = a.during(r.get(), 0, 10 * kMs);
  EXPECT_EQ(s.threads, 2);
  EXPECT_EQ(off(s, OffCpuCause::fd_table_growth), 5 * kMs);
  EXPECT_EQ(off(s, OffCpuCause::waiting_on_growth), 5 * kMs);
  EXPECT_EQ(s.off_cpu_total(), 10 * kMs);
  EXPECT_EQ(s.grace_period, "normal");
  EXPECT_EQ(s.switches, 2U);
  EXPECT_TRUE(s.complete);
}

TEST(KernelEvidence, EachCauseFromItsCallChain) {
  KernelAttribution a = in_process();
  Records r;
  r.in(101, 0);
  r.out(101, 1, {"__schedule", "synchronize_rcu_expedited", "expand_files"}).in(101, 2);
  r.out(101, 3, {"__schedule", "schedule", "futex_wait_queue", "futex_wait"}).in(101, 4);
  r.out(101, 5, {"__schedule", "schedule", "io_cqring_wait"}).in(101, 6);
  r.out(101, 7, {"__schedule", "handle_mm_fault", "exc_page_fault"}).in(101, 8);
  r.out(101, 9, {"__schedule", "schedule", "do_nanosleep", "hrtimer_nanosleep"}).in(101, 10);
  r.out(101, 11, {"__schedule", "schedule", "futex_wait"}, /*preempted=*/true).in(101, 12);
  r.out(101, 13, {"__schedule", "schedule", "__vma_start_write", "__split_vma"}).in(101, 14);
  r.out(101, 15, {"__schedule", "schedule", "__lock_sock", "lock_sock_nested", "inet_csk_accept"})
      .in(101, 16);
  const KernelSample s = a.during(r.get(), 0, 20 * kMs);
  EXPECT_EQ(off(s, OffCpuCause::fd_table_growth), kMs);
  EXPECT_EQ(s.grace_period, "expedited");
  EXPECT_EQ(off(s, OffCpuCause::lock), 3 * kMs)
      << "a futex, a VMA's lock in an mmap, and a listener's socket lock in accept";
  EXPECT_EQ(off(s, OffCpuCause::io_uring_wait), kMs);
  EXPECT_EQ(off(s, OffCpuCause::page_fault), kMs);
  EXPECT_EQ(off(s, OffCpuCause::other), kMs);
  EXPECT_EQ(off(s, OffCpuCause::preempted), kMs) << "preempted whatever the call chain says";
  // The scheduler's own frames are left out of the chain shown.
  ASSERT_EQ(s.other_stacks.size(), 1U);
  EXPECT_EQ(s.other_stacks.begin()->first, "do_nanosleep ← hrtimer_nanosleep");
  EXPECT_EQ(s.switches, 8U);
}

TEST(KernelEvidence, OnlyTheTimedRegionCounts) {
  KernelAttribution a = in_process();
  Records before;
  before.in(101, 0).out(101, 1, {"__schedule", "futex_wait"});  // waits for the release
  a.before(before.get());
  Records during;
  during.in(101, 5);  // released at 3, running at 5
  during.out(101, 8, {"__schedule", "do_nanosleep"}).in(101, 12);  // past the end at 10
  const KernelSample s = a.during(during.get(), 3 * kMs, 10 * kMs);
  EXPECT_EQ(s.window_ns, 7 * kMs);
  EXPECT_EQ(off(s, OffCpuCause::lock), 2 * kMs) << "from the release to its start";
  EXPECT_EQ(off(s, OffCpuCause::other), 2 * kMs) << "to the end of the region, not past it";
  EXPECT_EQ(s.threads, 1);
  EXPECT_EQ(s.at_edges_total(), 4 * kMs) << "both stretches touch an edge";
}

TEST(KernelEvidence, WaitingToStartOrDoneIsToldApartFromTheWorksWaits) {
  KernelAttribution a = in_process();
  Records before;
  before.in(101, 0).out(101, 1, {"__schedule", "futex_wait"});  // waits for its release
  before.in(102, 0);                                              // spins for it
  a.before(before.get());
  Records r;
  r.in(101, 4);                                                  // released at 2: a CPU at 4
  r.out(101, 5, {"__schedule", "futex_wait"}).in(101, 6);        // a lock, in the work
  r.out(101, 7, {"__schedule", "futex_wait"});                   // done at 7, waits to the end
  r.out(102, 3, {"__schedule", "schedule", "do_nanosleep"}).in(102, 8);  // in the work
  r.out(102, 8.5, {"__schedule", "schedule", "io_cqring_wait"}, true);   // preempted to the end
  const KernelSample s = a.during(r.get(), 2 * kMs, 10 * kMs);
  EXPECT_EQ(s.threads, 2);
  EXPECT_EQ(off(s, OffCpuCause::lock), 6 * kMs) << "2 waiting to start, 1 in the work, 3 done";
  EXPECT_EQ(s.at_edges[static_cast<std::size_t>(OffCpuCause::lock)], 5 * kMs);
  EXPECT_EQ(off(s, OffCpuCause::other), 5 * kMs);
  EXPECT_EQ(s.at_edges[static_cast<std::size_t>(OffCpuCause::other)], 0) << "back before the end";
  EXPECT_EQ(off(s, OffCpuCause::preempted), kMs + kMs / 2);
  EXPECT_EQ(s.at_edges[static_cast<std::size_t>(OffCpuCause::preempted)], kMs + kMs / 2);
  EXPECT_EQ(s.at_edges_total(), 6 * kMs + kMs / 2);

  std::vector<KernelSample> samples(3, s);
  const KernelEvidence k = summarize_kernel(samples, false);
  EXPECT_EQ(k.at_edges_ns, 6 * kMs + kMs / 2);
  EXPECT_EQ(k.in_work(OffCpuCause::lock), kMs);
  EXPECT_EQ(k.in_work(OffCpuCause::other), 5 * kMs);
  EXPECT_EQ(k.in_work(OffCpuCause::preempted), 0);
  EXPECT_EQ(k.in_work_ns(), 6 * kMs);
}

TEST(KernelEvidence, AThreadRunningThroughoutCountsWithNoRecordInTheRegion) {
  KernelAttribution a = in_process();
  Records before;
  before.in(101, 0);
  a.before(before.get());
  const KernelSample s = a.during(Records().get(), kMs, 2 * kMs);
  EXPECT_EQ(s.threads, 1);
  EXPECT_EQ(s.off_cpu_total(), 0);
}

TEST(KernelEvidence, TheHarnessAndIdleThreadsAreNotMeasuring) {
  KernelAttribution a = in_process();
  Records before;
  before.in(103, 0).out(103, 0.5, {"__schedule", "futex_wait"});  // another result's worker
  a.before(before.get());
  Records r;
  r.in(101, 1);
  r.out(kMain, 1, {"__schedule", "futex_wait"}).in(kMain, 9);  // the main thread waits
  const KernelSample s = a.during(r.get(), 1 * kMs, 9 * kMs);
  EXPECT_EQ(s.threads, 1);
  EXPECT_EQ(s.off_cpu_total(), 0);
}

TEST(KernelEvidence, AFreshChildsThreadsMeasureAndThisProcessOnlyWaits) {
  KernelAttribution a(MeasuringThreads{kPid, true, {kMain}}, symbol);
  Records r;
  r.in(105, 0);  // the runner thread of this process (not in the harness list) waits
  r.out(105, 0, {"__schedule", "futex_wait"}, false, kPid);
  r.in(201, 0, 200).out(201, 1, {"__schedule", "do_nanosleep"}, false, 200).in(201, 3, 200);
  r.event(Kind::page_fault, 201, 2, 200).event(Kind::page_fault, 105, 2);
  r.event(Kind::io_uring_punt, 201, 2.5, 200);
  const KernelSample s = a.during(r.get(), 0, 4 * kMs);
  EXPECT_EQ(s.threads, 1);
  EXPECT_EQ(off(s, OffCpuCause::other), 2 * kMs);
  EXPECT_EQ(s.page_faults, 1U) << "the child's, not this process's";
  EXPECT_EQ(s.io_uring_punts, 1U);
}

TEST(KernelEvidence, AThreadThatEndedIsNoLongerCounted) {
  KernelAttribution a = in_process();
  Records r;
  r.in(101, 0).in(102, 0);
  r.event(Kind::exited, 102, 1);
  const KernelSample s = a.during(r.get(), 0, 5 * kMs);
  EXPECT_EQ(s.threads, 2) << "both ran";
  EXPECT_EQ(s.off_cpu_total(), 0);
  const KernelSample next = a.during(Records().get(), 6 * kMs, 8 * kMs);
  EXPECT_EQ(next.threads, 1);
}

TEST(KernelEvidence, AThreadFinishingItsExitFromBeforeTheRegionIsNotMeasuring) {
  // Another result's worker, joined before this region began, was switched out inside its
  // exit: it runs here only to end.
  KernelAttribution a = in_process();
  Records before;
  before.in(103, 0).out(103, 0.5, {"__schedule", "do_exit"}, /*preempted=*/true);
  a.before(before.get());
  Records r;
  r.in(101, 1);
  r.in(103, 2).out(103, 2.5, {"__schedule", "do_task_dead", "do_exit"});
  r.event(Kind::exited, 103, 2.5);
  const KernelSample s = a.during(r.get(), 1 * kMs, 5 * kMs);
  EXPECT_EQ(s.threads, 1);
  EXPECT_EQ(s.switches, 0U);
  EXPECT_EQ(s.off_cpu_total(), 0);
}

TEST(KernelEvidence, LostRecordsMakeASampleIncomplete) {
  KernelAttribution a = in_process();
  Records r;
  r.in(101, 0).lost(12, 3);
  EXPECT_FALSE(a.during(r.get(), 0, 5 * kMs).complete);
  Records after;
  after.in(101, 0).lost(12, 7);
  EXPECT_TRUE(a.during(after.get(), 0, 5 * kMs).complete) << "lost after the region ended";
}

TEST(KernelEvidence, AResultKeepsItsMedianRepetitionsFigures) {
  std::vector<KernelSample> samples(3);
  for (int i = 0; i < 3; ++i) {
    KernelSample& s = samples[static_cast<std::size_t>(i)];
    s.window_ns = (12 - i) * kMs;  // the median is the second
    s.threads = 2;
    s.off_cpu[static_cast<std::size_t>(OffCpuCause::fd_table_growth)] = (i + 1) * kMs;
    s.off_cpu[static_cast<std::size_t>(OffCpuCause::other)] = (i + 3) * kMs;
    s.other_stacks = {{"do_nanosleep", (i + 3) * kMs}};
    s.page_faults = static_cast<std::uint64_t>(10 * i);
    s.grace_period = i == 1 ? "" : "normal";
  }
  samples[0].complete = false;
  const KernelEvidence k = summarize_kernel(samples, false);
  EXPECT_TRUE(k.available);
  EXPECT_EQ(k.repetitions, 3);
  EXPECT_EQ(k.window_ns, 11 * kMs);
  EXPECT_EQ(k.off_cpu[static_cast<std::size_t>(OffCpuCause::fd_table_growth)], 2 * kMs);
  EXPECT_EQ(k.off_cpu[static_cast<std::size_t>(OffCpuCause::other)], 4 * kMs);
  EXPECT_EQ(k.off_cpu_ns, 6 * kMs);
  EXPECT_EQ(k.page_faults, 10U);
  EXPECT_FALSE(k.io_uring_punts.has_value()) << "not counted";
  EXPECT_EQ(k.grace_period, "normal") << "the kind, from a repetition that grew the table";
  EXPECT_EQ(k.incomplete, 1);
  ASSERT_EQ(k.other_stacks.size(), 1U);
  EXPECT_EQ(k.other_stacks[0].ns, 4 * kMs);
}

// Each cause's median comes from a repetition of its own: 5 ms of three causes in two of three
// repetitions each, which a thread's 10 ms could not hold. One repetition's causes fit.
TEST(KernelEvidence, TheCausesShownAddUpAndFitInTheThreadsTime) {
  const std::array<std::array<std::int64_t, 3>, 3> causes = {{{5, 5, 0}, {0, 5, 5}, {5, 0, 5}}};
  std::vector<KernelSample> samples(3);
  for (std::size_t i = 0; i < 3; ++i) {
    samples[i].window_ns = 10 * kMs;
    samples[i].threads = 1;
    samples[i].off_cpu[static_cast<std::size_t>(OffCpuCause::lock)] = causes[i][0] * kMs;
    samples[i].off_cpu[static_cast<std::size_t>(OffCpuCause::preempted)] = causes[i][1] * kMs;
    samples[i].off_cpu[static_cast<std::size_t>(OffCpuCause::other)] = causes[i][2] * kMs;
  }
  const KernelEvidence k = summarize_kernel(samples, false);
  std::int64_t parts = 0;
  for (const std::int64_t ns : k.off_cpu) parts += ns;
  EXPECT_EQ(parts, k.off_cpu_ns);
  EXPECT_LE(parts, k.threads * k.window_ns);
}

// The case seen under load: a fresh child whose table was too big forks again, and the
// middle process waits (wait4) for the one that measures. Where it runs into a repetition's
// timed region before it sleeps, it is no third thread: its wait is no part of the work.
TEST(KernelEvidence, AProcessWaitingForItsChildIsNotMeasuring) {
  KernelAttribution a(MeasuringThreads{kPid, true, {kMain}}, symbol);
  constexpr int kMiddle = 150;
  constexpr int kChild = 200;
  const std::vector<std::string_view> wait4 = {"__schedule", "schedule", "do_wait", "kernel_wait4",
                                               "__do_sys_wait4"};
  // A completion's wait (do_wait_for_common) is no wait for a child.
  const std::vector<std::string_view> growth = {"__schedule",
                                                "schedule",
                                                "do_wait_for_common",
                                                "wait_for_completion",
                                                "synchronize_rcu_normal",
                                                "expand_files",
                                                "alloc_fd"};
  std::vector<KernelSample> samples;
  for (int rep = 0; rep < 4; ++rep) {
    const double t0 = 100.0 * rep;  // each repetition's region: [t0 + 1, t0 + 11) ms
    const int middle = kMiddle + 10 * rep;
    const int child = kChild + 10 * rep;  // its two threads: child + 1, child + 2
    Records r;
    r.in(middle, t0, middle);  // forked the child, and still on a CPU ...
    r.in(child + 1, t0, child).in(child + 2, t0, child);
    // ... into the region, or not
    r.out(middle, rep < 2 ? t0 + 2 : t0 + 0.5, wait4, false, middle);
    r.out(child + 1, t0 + 2, growth, /*preempted=*/true, child).in(child + 1, t0 + 10.5, child);
    r.out(child + 2, t0 + 2, growth, false, child).in(child + 2, t0 + 10.5, child);
    r.event(Kind::exited, child + 2, t0 + 20, child).event(Kind::exited, child + 1, t0 + 20, child);
    r.in(middle, t0 + 21, middle).event(Kind::exited, middle, t0 + 22, middle);
    samples.push_back(a.during(r.get(), static_cast<std::int64_t>((t0 + 1) * kMs),
                               static_cast<std::int64_t>((t0 + 11) * kMs)));
    EXPECT_EQ(samples.back().threads, 2) << "repetition " << rep;
    EXPECT_LE(samples.back().off_cpu_total(), 2 * samples.back().window_ns) << "repetition " << rep;
    EXPECT_EQ(samples.back().off_cpu[static_cast<std::size_t>(OffCpuCause::fd_table_growth)],
              static_cast<std::int64_t>(8.5 * kMs));
  }
  const KernelEvidence k = summarize_kernel(samples, false);
  EXPECT_LE(k.off_cpu_ns, k.threads * k.window_ns) << k.off_cpu_ns;
  EXPECT_TRUE(k.other_stacks.empty()) << k.other_stacks.front().stack;
}

TEST(KernelEvidence, StealTimeIsTheMeanWhereEverySampleHasIt) {
  std::vector<KernelSample> samples(3);
  samples[0].steal_ns = 0;
  samples[1].steal_ns = 0;
  samples[2].steal_ns = 30 * kMs;  // one 10 ms tick in three repetitions would be a median of 0
  EXPECT_EQ(summarize_kernel(samples, false).steal_ns, 10 * kMs);
  samples[1].steal_ns.reset();  // a repetition /proc/stat could not be read for
  EXPECT_FALSE(summarize_kernel(samples, false).steal_ns);
}

TEST(KernelEvidence, CausesHaveOneNameEach) {
  for (const OffCpuCause c : kEveryOffCpuCause) {
    EXPECT_EQ(cause_named(cause_name(c)), c);
    EXPECT_FALSE(cause_words(c).empty());
  }
  EXPECT_FALSE(cause_named("sleeping").has_value());
}


TEST(KernelEvidence, KeptSpansSayWhenEachThreadWasOffItsCpuAndWhy) {
  const auto records = Records()
                           .out(202, 0.5, {"__schedule"}, true)  // off before the window
                           .out(201, 1, {"__schedule", "schedule", "expand_files", "alloc_fd"})
                           .in(202, 2)
                           .in(201, 4)
                           .get();
  KernelAttribution a = in_process();
  a.keep_spans(true);
  const KernelSample s = a.during(records, 1 * kMs, 10 * kMs);
  ASSERT_EQ(s.spans.size(), 2U);
  EXPECT_EQ(s.spans[0], (OffCpuSpan{202, 1 * kMs, 2 * kMs, OffCpuCause::preempted}));  // clipped
  EXPECT_EQ(s.spans[1], (OffCpuSpan{201, 1 * kMs, 4 * kMs, OffCpuCause::waiting_on_growth}));
  KernelAttribution untold = in_process();
  EXPECT_TRUE(untold.during(records, 1 * kMs, 10 * kMs).spans.empty());  // kept only if asked
}

TEST(KernelEvidence, ACallsOffCpuTimeIsItsOwnThreadsWithTheLongestCause) {
  const std::vector<OffCpuSpan> spans = {
      {201, 1 * kMs, 2 * kMs, OffCpuCause::preempted},
      {201, 3 * kMs, 6 * kMs, OffCpuCause::fd_table_growth},
      {202, 0, 10 * kMs, OffCpuCause::lock}};  // another thread's: not this call's
  const CallOffCpu call = off_cpu_during(spans, 201, 0, 5 * kMs);
  EXPECT_EQ(call.off_ns, 3 * kMs);  // 1 ms preempted, and 2 of the growth's 3 ms in the call
  EXPECT_EQ(call.main, OffCpuCause::fd_table_growth);
  EXPECT_EQ(off_cpu_during(spans, 201, 7 * kMs, kMs).off_ns, 0);
  EXPECT_FALSE(off_cpu_during(spans, 201, 7 * kMs, kMs).main);
  EXPECT_FALSE(off_cpu_during(spans, 203, 0, 10 * kMs).main);  // a thread never seen
}

}  // namespace fdbench
