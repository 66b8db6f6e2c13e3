// --latency's analysis on hand-built call records: which calls grew the table, which stalled
// and why, and the percentiles and totals of a result.
#include "model/latency.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace fdbench {
namespace latency_test {

constexpr std::int64_t kUs = 1000;

CallRecord call(std::int64_t start_us, std::int64_t ns, int fd, int worker) {
  CallRecord r;
  r.start_ns = start_us * kUs;
  r.create_ns = ns;
  r.fd = fd;
  r.worker = static_cast<std::int16_t>(worker);
  return r;
}

// Two workers taking fds 3 .. 3+n-1 in turn, 3 µs each, one call every 10 µs.
std::vector<CallRecord> alternating(int n) {
  std::vector<CallRecord> records;
  for (int i = 0; i < n; ++i) records.push_back(call(10 * i, 3 * kUs, 3 + i, i % 2));
  return records;
}

// One io_uring submission: a batch timed as a whole, `fd` the highest of the table it returned.
CallRecord submission(std::int64_t start_us, std::int64_t ns, int fd, int worker) {
  CallRecord r = call(start_us, ns, fd, worker);
  r.kind = CallKind::submission;
  return r;
}

// One worker's n items in batches of `batch`, one submission every 200 µs taking 100 µs, on
// the slot of each batch's first item (the others never run); fds 3 .. 3+n-1, or none of the
// table (`direct`: ring slots).
std::vector<CallRecord> batches(int n, int batch, bool direct) {
  std::vector<CallRecord> records(static_cast<std::size_t>(n));
  for (int first = 0; first < n; first += batch) {
    const int highest = direct ? -1 : 3 + std::min(n, first + batch) - 1;
    records[static_cast<std::size_t>(first)] = submission(2 * first, 100 * kUs, highest, 0);
  }
  return records;
}

std::vector<int> fds_of(const std::vector<GrowthEvent>& events) {
  std::vector<int> fds;
  for (const auto& e : events) fds.push_back(e.fd);
  return fds;
}

TEST(GrowthEvents, TheCallsAtEachPowerOfTwoFromTheStartingSize) {
  const auto events = growth_events(alternating(600), 64, true, 2);
  EXPECT_EQ(fds_of(events), (std::vector<int>{64, 128, 256, 512}));
  EXPECT_EQ(events[0].fdsize_before, 64);
  EXPECT_EQ(events[0].fdsize_after, 128);
  EXPECT_EQ(events[3].fdsize_after, 1024);
  EXPECT_EQ(events[0].index, 61U);  // fd 64 was item 61's
  EXPECT_EQ(events[0].worker, 1);
  EXPECT_EQ(events[0].repetition, 2);
  EXPECT_TRUE(events[0].shared);
}

TEST(GrowthEvents, NoneInATableGrownFirst) {
  EXPECT_TRUE(growth_events(alternating(600), 1024, true, 0).empty());
}

TEST(GrowthEvents, GoByDescriptorNotByStartTime) {
  // Worker 1 started first but waited; worker 0 met the full table and took fd 64.
  std::vector<CallRecord> records = alternating(61);  // fds 3 .. 63
  records.push_back(call(1000, 50 * kUs, 65, 1));
  records.push_back(call(1001, 49 * kUs, 64, 0));
  const auto events = growth_events(records, 64, true, 0);
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].fd, 64);
  EXPECT_EQ(events[0].worker, 0);
  EXPECT_EQ(events[0].ns, 49 * kUs);
}

TEST(GrowthEvents, FailedAndUnrunCallsAreNone) {
  std::vector<CallRecord> records(3);          // never run
  records.push_back(call(0, 3 * kUs, -1, 0));  // failed
  EXPECT_TRUE(growth_events(records, 1, true, 0).empty());
}

TEST(Stalls, AGrowthOfASharedTableAndTheCallsOverlappingIt) {
  std::vector<CallRecord> records = alternating(70);  // fd 64 is item 61, worker 1, at 610 µs
  records[61].create_ns = 5000 * kUs;                 // it took 5 ms
  records[62].create_ns = 4990 * kUs;                 // worker 0's next call waited
  records[69].start_ns = 20000 * kUs;                 // long after: not waiting
  records[69].create_ns = 900 * kUs;
  const auto growth = growth_events(records, 64, true, 0);
  const auto found = stalls(records, growth, "create", false, 0);
  ASSERT_EQ(found.size(), 3U);
  EXPECT_EQ(found[0].index, 61U);
  EXPECT_EQ(found[0].cause, "fd-table-growth");
  EXPECT_EQ(found[0].fd, 64);
  EXPECT_EQ(found[1].index, 62U);
  EXPECT_EQ(found[1].cause, "waiting-on-growth");
  EXPECT_EQ(found[2].index, 69U);
  EXPECT_EQ(found[2].cause, "unexplained");
}

TEST(Stalls, AGrowthOfAnUnsharedTableExplainsNothing) {
  std::vector<CallRecord> records = alternating(70);
  records[61].create_ns = 5000 * kUs;
  records[62].create_ns = 4990 * kUs;
  const auto growth = growth_events(records, 64, false, 0);
  for (const auto& s : stalls(records, growth, "create", false, 0)) {
    EXPECT_EQ(s.cause, "unexplained") << s.index;
  }
}

TEST(Stalls, TheThresholdIsTwentyMediansButAtLeast200Microseconds) {
  std::vector<CallRecord> records = alternating(100);  // median 3 µs: the floor decides
  records[10].create_ns = 199 * kUs;
  records[20].create_ns = 201 * kUs;
  auto found = stalls(records, {}, "create", false, 0);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].index, 20U);
  for (auto& r : records) r.create_ns *= 100;  // median 300 µs: 20 × it decides
  records[30].create_ns = 5999 * kUs;
  found = stalls(records, {}, "create", false, 0);
  ASSERT_EQ(found.size(), 2U);  // 19,900 and 20,100 µs; not 5,999 µs (under 6 ms)
  EXPECT_EQ(found[0].index, 10U);
  EXPECT_EQ(found[1].index, 20U);
}

TEST(Stalls, ClosesAreTheirOwnOperation) {
  std::vector<CallRecord> records = alternating(100);
  for (auto& r : records) r.close_ns = 2 * kUs;
  records[5].close_ns = 400 * kUs;
  const auto found = stalls(records, {}, "open", true, 0);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].op, "close");
  EXPECT_EQ(found[0].index, 5U);
  EXPECT_TRUE(stalls(records, {}, "open", false, 0).empty());  // held files have no close
}

TEST(LatencyCollector, PercentilesTotalsAndShares) {
  LatencyCollector collector("create", false);
  std::vector<CallRecord> records = alternating(600);
  records[61].create_ns = 5000 * kUs;
  for (int rep = 0; rep < 2; ++rep) collector.add(records, 10'000 * kUs, 64, true);
  const Latency l = collector.finish();
  ASSERT_EQ(l.ns.count("create"), 1U);
  EXPECT_EQ(l.ns.count("close"), 0U);
  const LatencyPercentiles& p = l.ns.at("create");
  EXPECT_EQ(p.count, 1200U);
  EXPECT_EQ(p.p50, 3 * kUs);
  EXPECT_EQ(p.max, 5000 * kUs);
  EXPECT_EQ(l.growth_totals.count, 8U);  // 64, 128, 256, 512 in each repetition
  EXPECT_EQ(l.growth_events.size(), 8U);
  EXPECT_EQ(l.growth_events[4].repetition, 1);
  EXPECT_EQ(l.growth_totals.total_ns, 2 * (5000 + 3 * 3) * kUs);
  EXPECT_DOUBLE_EQ(l.growth_totals.share_of_repetition, (5009.0 * 2) / 20'000);
  EXPECT_EQ(l.stall_totals.count, 2U);
  ASSERT_EQ(l.stalls.size(), 2U);
  EXPECT_EQ(l.stalls[1].repetition, 1);
}

TEST(LatencyCollector, WithoutTheTableSizeNoGrowthIsClaimed) {
  LatencyCollector collector("create", false);
  collector.add(alternating(600), 10'000 * kUs, 0, true);  // 0: the OS does not show it
  const Latency l = collector.finish();
  EXPECT_FALSE(l.growth_known);
  EXPECT_TRUE(l.growth_events.empty());
  EXPECT_EQ(l.ns.at("create").count, 600U);
}

TEST(LatencyCollector, ListsAtMostAHundredStallsButCountsThemAll) {
  LatencyCollector collector("create", false);
  std::vector<CallRecord> records = alternating(1000);
  for (std::size_t i = 0; i < 150; ++i) records[i * 6].create_ns = 300 * kUs;
  collector.add(records, 1, 4096, true);
  const Latency l = collector.finish();
  EXPECT_EQ(l.stall_totals.count, 150U);
  EXPECT_EQ(l.stalls.size(), kMaxListedStalls);
  EXPECT_EQ(l.stall_causes.at("unexplained").count, 150U);
  EXPECT_EQ(l.stalls_per_repetition, std::vector<std::uint64_t>{150});
}

// Issue 34, case 3: 40 repetitions of 7 stalls each, whose median repetition is #20. Causes
// count all 280, not the first 100 listed (repetitions 0 to 14); the median repetition's are
// listed too, so a chart of it draws them.
TEST(LatencyCollector, CountsEveryRepetitionAndListsTheMedianRepetitionsStalls) {
  std::vector<CallRecord> records = alternating(600);
  records[61].create_ns = 300 * kUs;  // grows the table at fd 64
  records[40].create_ns = 300 * kUs;  // worker 0, over worker 1's growth
  for (const std::size_t i : {300U, 320U, 340U, 360U, 380U}) records[i].create_ns = 300 * kUs;
  LatencyCollector collector("create", false);
  for (int rep = 0; rep < 40; ++rep) {
    const std::int64_t ns = rep == 20 ? 500 : rep < 20 ? 100 + rep : 1000 + rep;
    collector.add(records, ns * kUs, 64, true);
  }
  const Latency l = collector.finish();
  EXPECT_EQ(l.stall_totals.count, 280U);
  EXPECT_EQ(l.stall_causes.at("fd-table-growth").count, 40U);
  EXPECT_EQ(l.stall_causes.at("waiting-on-growth").count, 40U);
  EXPECT_EQ(l.stall_causes.at("unexplained").count, 200U);
  EXPECT_EQ(l.stall_causes.at("unexplained").total_ns, 200 * 300 * kUs);
  EXPECT_EQ(l.stall_causes.at("unexplained").from_kernel, 0U);
  EXPECT_EQ(l.stalls_per_repetition, std::vector<std::uint64_t>(40, 7));
  EXPECT_EQ(l.growth_totals.count, 160U);
  EXPECT_EQ(l.stalls.size(), kMaxListedStalls + 7);
  EXPECT_EQ(l.stalls[kMaxListedStalls - 1].repetition, 14);
  EXPECT_EQ(std::count_if(l.stalls.begin(), l.stalls.end(),
                          [](const Stall& s) { return s.repetition == 20; }),
            7);
}

TEST(Submissions, AreOperationsOfTheirOwnCountedOncePerBatch) {
  LatencyCollector collector("open", true);
  std::vector<CallRecord> records = batches(600, 64, false);  // 10 submissions
  for (std::size_t i = 0; i < records.size(); i += 64) records[i].close_ns = 50 * kUs;
  for (int rep = 0; rep < 2; ++rep) collector.add(records, 10'000 * kUs, 1024, false);
  const Latency l = collector.finish();
  EXPECT_TRUE(per_submission(l));
  EXPECT_EQ(l.ns.count("open"), 0U);  // not timed one by one: no empty figures that say "none"
  EXPECT_EQ(l.ns.count("close"), 0U);
  ASSERT_EQ(l.ns.count(kSubmitOp), 1U);
  EXPECT_EQ(l.ns.at(kSubmitOp).count, 20U);
  EXPECT_EQ(l.ns.at(kSubmitOp).p50, 100 * kUs);
  ASSERT_EQ(l.ns.count(kSubmitCloseOp), 1U);
  EXPECT_EQ(l.ns.at(kSubmitCloseOp).count, 20U);
  EXPECT_EQ(l.ns.at(kSubmitCloseOp).p50, 50 * kUs);
}

TEST(Submissions, HeldDescriptorsHaveNoCloseSubmission) {
  LatencyCollector collector("create", false);
  collector.add(batches(600, 64, false), 10'000 * kUs, 1024, false);
  const Latency l = collector.finish();
  EXPECT_EQ(l.ns.at(kSubmitOp).count, 10U);
  EXPECT_EQ(l.ns.count(kSubmitCloseOp), 0U);
  EXPECT_EQ(l.ns.count("create"), 0U);
}

TEST(Submissions, PerCallRecordsAreNotPerSubmission) {
  LatencyCollector collector("create", false);
  collector.add(alternating(100), 1, 1024, true);
  EXPECT_FALSE(per_submission(collector.finish()));
}

TEST(Submissions, GrowTheTableWhenTheirBatchsHighestDescriptorDoesNotFit) {
  // Highest fds 66, 130, 194, 258, ..., 514, 578, 602: the batches that crossed 64, 128, 256
  // and 512 grew the table, the one that crossed 64 from 64 to 128 slots.
  const auto events = growth_events(batches(600, 64, false), 64, true, 0);
  EXPECT_EQ(fds_of(events), (std::vector<int>{66, 130, 258, 514}));
  EXPECT_EQ(events[0].index, 0U);  // the batch's first item
  EXPECT_EQ(events[0].fdsize_before, 64);
  EXPECT_EQ(events[0].fdsize_after, 128);
  EXPECT_EQ(events[3].fdsize_after, 1024);
  EXPECT_EQ(events[1].ns, 100 * kUs);  // the whole submission's time
}

TEST(Submissions, ABatchCanGrowTheTableSeveralTimesInOneEvent) {
  // 300 sockets in one submission from a 64-slot table: 64 -> 128 -> 256 -> 512, one event.
  const auto events = growth_events(batches(300, 300, false), 64, true, 0);
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].fd, 302);
  EXPECT_EQ(events[0].fdsize_before, 64);
  EXPECT_EQ(events[0].fdsize_after, 512);
}

TEST(Submissions, OfDirectDescriptorsNeverGrowTheTable) {
  LatencyCollector collector("create", false);
  std::vector<CallRecord> records = batches(600, 64, true);
  records[128].create_ns = 5000 * kUs;  // slow, but it grew nothing
  collector.add(records, 10'000 * kUs, 64, false);
  const Latency l = collector.finish();
  EXPECT_TRUE(l.growth_events.empty());
  ASSERT_EQ(l.stalls.size(), 1U);
  EXPECT_EQ(l.stalls[0].op, kSubmitOp);
  EXPECT_EQ(l.stalls[0].fd, -1);
  EXPECT_EQ(l.stalls[0].cause, "unexplained");
}

TEST(Submissions, StallAgainstTheSubmissionsMedianWithTheirCause) {
  // Two workers' batches: worker 0's batch that crossed fd 64 took 5 ms in a shared table,
  // and worker 1's submission at the same time waited; both well above 20 × 100 µs.
  std::vector<CallRecord> records = batches(600, 64, false);
  records[64].create_ns = 5000 * kUs;  // fds up to 130: grew 128 -> 256
  records[65] = submission(128, 4000 * kUs, 131, 1);
  records[66] = submission(128, 100 * kUs, 132, 1);  // as fast as the others: no stall
  const auto growth = growth_events(records, 128, true, 0);
  const auto found = stalls(records, growth, "create", false, 0);
  ASSERT_EQ(found.size(), 2U);
  EXPECT_EQ(found[0].index, 64U);
  EXPECT_EQ(found[0].op, kSubmitOp);
  EXPECT_EQ(found[0].cause, "fd-table-growth");
  EXPECT_EQ(found[1].index, 65U);
  EXPECT_EQ(found[1].cause, "waiting-on-growth");
}

TEST(Submissions, AreHeldAgainstTheirOwnMedianNotThePerCallOne) {
  // Per-call records of 3 µs and submissions of 300 µs in one trace: the submissions are no
  // stalls of 20 × 3 µs (and the 200 µs floor).
  std::vector<CallRecord> records = batches(640, 64, true);
  for (std::size_t i = 0; i < records.size(); i += 64) records[i].create_ns = 300 * kUs;
  for (int i = 1; i < 64; ++i) records[static_cast<std::size_t>(i)] = call(i, 3 * kUs, -1, 1);
  EXPECT_TRUE(stalls(records, {}, "create", false, 0).empty());
}

TEST(Submissions, TheirParameterSaysPerSubmissionAndTheBatch) {
  const std::string note = per_submission_note(64);
  EXPECT_TRUE(note.starts_with("per submission (submit → last completion of a batch of up to 64"))
      << note;
}

}  // namespace latency_test
}  // namespace fdbench

namespace fdbench::latency_test {

// What the kernel recorded of alternating()'s two workers, thread 501 (worker 0) and 502.
std::vector<OffCpuSpan> kernel_spans() {
  return {{502, 700 * kUs, 5500 * kUs, OffCpuCause::fd_table_growth},     // item 61's growth
          {501, 630 * kUs, 5500 * kUs, OffCpuCause::waiting_on_growth},   // item 62 waits
          {502, 20'000 * kUs, 20'100 * kUs, OffCpuCause::preempted}};     // item 69: 100 of 900 µs
}

TEST(Stalls, WithKernelRecordsTheCauseIsWhereTheCallsOwnThreadWas) {
  std::vector<CallRecord> records = alternating(70);
  records[61].create_ns = 5000 * kUs;
  records[62].create_ns = 4990 * kUs;
  records[69].start_ns = 20000 * kUs;
  records[69].create_ns = 900 * kUs;
  const auto growth = growth_events(records, 64, true, 0);
  const std::vector<OffCpuSpan> spans = kernel_spans();
  const std::int32_t tids[] = {501, 502};
  const KernelCalls kernel{&spans, tids};
  const auto found = stalls(records, growth, "create", false, 0, &kernel);
  ASSERT_EQ(found.size(), 3U);
  EXPECT_EQ(found[0].cause, "fd-table-growth");
  EXPECT_EQ(found[0].off_cpu_ns, 4800 * kUs);  // from 700 µs to the call's end at 5,610 µs
  EXPECT_EQ(found[1].cause, "waiting-on-growth");
  // Off its CPU for 100 of 900 µs: the call ran, slowly, on it.
  EXPECT_EQ(found[2].cause, kOnCpuCause);
  EXPECT_EQ(found[2].off_cpu_ns, 100 * kUs);
}

TEST(Stalls, AWorkerWhoseThreadIsUnknownKeepsTheCauseTheTimingGives) {
  std::vector<CallRecord> records = alternating(70);
  records[61].create_ns = 5000 * kUs;
  records[62].create_ns = 4990 * kUs;
  const auto growth = growth_events(records, 64, true, 0);
  const std::vector<OffCpuSpan> spans = kernel_spans();
  const std::int32_t tids[] = {501};  // worker 1's thread was not noted
  const KernelCalls kernel{&spans, tids};
  const auto found = stalls(records, growth, "create", false, 0, &kernel);
  ASSERT_EQ(found.size(), 2U);
  EXPECT_EQ(found[0].cause, "fd-table-growth");  // worker 1's: inferred
  EXPECT_FALSE(found[0].off_cpu_ns);
  EXPECT_EQ(found[1].cause, "waiting-on-growth");  // worker 0's: the kernel's
  EXPECT_TRUE(found[1].off_cpu_ns);
}

}  // namespace fdbench::latency_test
