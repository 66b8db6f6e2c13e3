// --latency's analysis on hand-built call records: which calls grew the table, which stalled
// and why, and the percentiles and totals of a result.
#include "fdbench/latency.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace fdbench {
namespace {

constexpr std::int64_t kUs = 1000;

CallRecord call(std::int64_t start_us, std::int64_t ns, int fd, int worker) {
  CallRecord r;
  r.start_ns = start_us * kUs;
  r.create_ns = ns;
  r.fd = fd;
  r.worker = worker;
  return r;
}

// Two workers taking fds 3 .. 3+n-1 in turn, 3 µs each, one call every 10 µs.
std::vector<CallRecord> alternating(int n) {
  std::vector<CallRecord> records;
  for (int i = 0; i < n; ++i) records.push_back(call(10 * i, 3 * kUs, 3 + i, i % 2));
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
}

}  // namespace
}  // namespace fdbench
