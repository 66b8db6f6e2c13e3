// What a timed region took besides its calls (page faults, context switches), on hand-built
// results: the medians per repetition, the warning page faults make, and the detail line.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "output/reporter.hpp"
#include "output/reporters/section_text.hpp"
#include "support/results.hpp"

namespace fdbench {
namespace timed_region_test {

using testing::ResultBuilder;

TEST(TimedRegion, EachCountIsItsOwnMedian) {
  const std::vector<TimedRegion> odd{{5, 0, 1, 9}, {1, 2, 3, 0}, {3, 0, 2, 4}};
  EXPECT_EQ(median_timed_region(odd), (TimedRegion{3, 0, 2, 4}));
  // Of an even number, the mean of the middle two, rounded down: an integer, as JSON has it.
  const std::vector<TimedRegion> even{{0, 0, 1, 2}, {1, 0, 4, 2}, {3, 0, 2, 7}, {9, 1, 8, 3}};
  EXPECT_EQ(median_timed_region(even), (TimedRegion{2, 0, 3, 2}));
  const std::vector<TimedRegion> none;
  EXPECT_FALSE(median_timed_region(none).has_value());
}

TEST(TimedRegion, TheMedianOfHugeCountsDoesNotWrap) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  const std::vector<TimedRegion> two{{kMax, kMax - 1, 0, 1}, {kMax, kMax, 0, 2}};
  EXPECT_EQ(median_timed_region(two), (TimedRegion{kMax, kMax - 1, 0, 1}));
}

TEST(TimedRegion, PageFaultsWhileTimedAreATypedWarning) {
  const Result minor = ResultBuilder::open("threads", 2)
                           .ops(100)
                           .times({10, 11, 12})
                           .timed_regions({{3, 0, 0, 0}, {2, 0, 1, 0}, {4, 0, 0, 0}});
  ASSERT_TRUE(minor.timed_region.has_value());
  EXPECT_EQ(minor.timed_region->minor_faults, 3U);
  ASSERT_TRUE(minor.has_warning(WarningKind::page_faults));
  const Result major =
      ResultBuilder::socket("process", 2).ops(100).times({10}).timed_regions({{0, 1, 0, 0}});
  EXPECT_TRUE(major.has_warning(WarningKind::page_faults));
  for (const auto& w : minor.warnings) {
    if (w.kind != WarningKind::page_faults) continue;
    EXPECT_NE(w.text.find("3 minor and 0 major"), std::string::npos) << w.text;
    EXPECT_NE(w.text.find("not only the calls"), std::string::npos) << w.text;
  }
}

// A median of 0 is no warning, even when some repetitions took a fault; switches alone are
// none either (waiting and being preempted are what the evidence of the kernel is for).
TEST(TimedRegion, NoWarningWithoutAMedianPageFault) {
  const Result some = ResultBuilder::open("threads", 2)
                          .ops(100)
                          .times({10, 11, 12})
                          .timed_regions({{0, 0, 0, 0}, {5, 1, 0, 0}, {0, 0, 0, 0}});
  EXPECT_FALSE(some.has_warning(WarningKind::page_faults));
  const Result switches =
      ResultBuilder::open("pool", 2).ops(100).times({10}).timed_regions({{0, 0, 40, 7}});
  EXPECT_FALSE(switches.has_warning(WarningKind::page_faults));
  const Result uncounted = ResultBuilder::open("threads", 2).ops(100).times({10});
  EXPECT_FALSE(uncounted.timed_region.has_value());
  EXPECT_FALSE(uncounted.has_warning(WarningKind::page_faults));
}

// Counted for every timed repetition or not at all: a median of some would mislead.
TEST(TimedRegion, NotCountedUnlessEveryRepetitionWas) {
  const Result r =
      ResultBuilder::open("threads", 2).ops(100).times({10, 11, 12}).timed_regions({{7, 0, 0, 0}});
  EXPECT_FALSE(r.timed_region.has_value());
  EXPECT_FALSE(r.has_warning(WarningKind::page_faults));
}

TEST(TimedRegion, DetailLineShowsOnlyTheCountsAboveZero) {
  Result r = ResultBuilder::open("threads", 2).ops(100).times({10}).timed_region({3, 0, 0, 2});
  EXPECT_EQ(timed_region_text(r),
            "while timed, per repetition: 3 minor faults, 2 involuntary "
            "switches");
  r.timed_region = TimedRegion{1, 1, 1, 0};
  EXPECT_EQ(timed_region_text(r),
            "while timed, per repetition: 1 minor fault, 1 major fault, 1 voluntary switch");
  r.timed_region = TimedRegion{};
  EXPECT_EQ(timed_region_text(r), "");
  r.timed_region.reset();
  EXPECT_EQ(timed_region_text(r), "");
}

TEST(TimedRegion, TheTableShowsItUnderTheResultWithDetails) {
  const Result r =
      ResultBuilder::open("threads", 2).ops(100).times({10'000}).timed_region({0, 0, 12'000, 1});
  std::ostringstream out;
  auto table = make_reporter("table", out, {.details = true});
  table->add(r);
  EXPECT_NE(out.str().find("\n  while timed, per repetition: 12,000 voluntary switches, 1 "
                           "involuntary switch\n"),
            std::string::npos)
      << out.str();
}

// Without --details a row gets a line only when its events cost kMaterialShare of its median
// at the stated per-event costs, and the legend says those costs once.
TEST(TimedRegion, WithoutDetailsOnlyAMaterialCostIsALine) {
  // 40 switches at 5 µs: 200 µs of a 2 ms median, 10%.
  const Result costly = ResultBuilder::open("threads", 2).ops(100).times({2'000'000}).timed_region(
      {0, 0, 20, 20});
  // 1 switch and 3 minor faults: 8 µs of 2 ms, 0.4%.
  const Result cheap =
      ResultBuilder::open("threads", 1).ops(100).times({2'000'000}).timed_region({3, 0, 0, 1});
  std::ostringstream out;
  auto table = make_reporter("table", out);
  table->add(cheap);
  EXPECT_EQ(out.str().find("while timed"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("page faults while timed"), std::string::npos) << out.str();
  table->add(costly);
  table->end({}, {}, true);
  const std::string text = out.str();
  EXPECT_NE(text.find("\n  ! per repetition: 20 voluntary and 20 involuntary switches ≈ 200 µs, "
                      "10% of the median\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\n! per repetition: the page faults"), std::string::npos) << text;
  EXPECT_NE(region_legend().find("at 5.0 µs a switch, 1.0 µs a minor and 100 µs a major fault"),
            std::string::npos)
      << region_legend();
  EXPECT_NE(text.find("\n--details shows"), std::string::npos) << text;
}

// Kernel evidence of 2 threads, off their CPU `off_ns` of `window_ns` per repetition.
KernelEvidence two_threads_off(std::int64_t off_ns, std::int64_t window_ns) {
  KernelEvidence k;
  k.available = true;
  k.threads = 2;
  k.window_ns = window_ns;
  k.off_cpu_ns = off_ns;
  return k;
}

TEST(KernelLine, PreemptedHasTheMachinesStealTimeBesideIt) {
  KernelEvidence k = two_threads_off(1'000'000, 4'000'000);
  k.off_cpu[static_cast<std::size_t>(OffCpuCause::preempted)] = 1'000'000;
  const Result not_reported =
      ResultBuilder::open("threads", 2).ops(100).times({10, 11, 12}).kernel([&] {
        KernelEvidence e = k;
        e.steal_ns = 0;
        return e;
      }());
  EXPECT_NE(kernel_text(not_reported).find("preempted 1.00 ms (steal time not reported here)"),
            std::string::npos)
      << kernel_text(not_reported);
  KernelEvidence reported = k;
  reported.steal_ns = 2'500'000;
  reported.steal_reported = true;
  const Result stolen =
      ResultBuilder::open("threads", 2).ops(100).times({10, 11, 12}).kernel(reported);
  EXPECT_NE(kernel_text(stolen).find("(the hypervisor's steal time, seen as on-CPU time: 2.50 ms)"),
            std::string::npos)
      << kernel_text(stolen);
  const Result unread = ResultBuilder::open("threads", 2).ops(100).times({10, 11, 12}).kernel(k);
  EXPECT_EQ(kernel_text(unread).find("steal"), std::string::npos) << kernel_text(unread);
}

// Each cause is a median of its own: time off-CPU in most repetitions, but in a different
// cause each time, leaves every cause's median at 0, and the line says so instead of ending
// in a colon.
TEST(KernelLine, OffCpuTimeWithNoCauseInMostRepetitionsSaysSo) {
  const Result r = ResultBuilder::socket("uring-direct", 2)
                       .ops(512)
                       .times({1, 2, 3})
                       .kernel(two_threads_off(11'000, 674'000));
  EXPECT_EQ(kernel_text(r),
            "kernel: off-CPU 11 µs of 2 threads × 674 µs per repetition, no one cause in most "
            "repetitions");
  // Causes that name less than half of the total say the rest has none.
  KernelEvidence some = two_threads_off(569'000, 1'690'000);
  some.off_cpu[static_cast<std::size_t>(OffCpuCause::lock)] = 21'000;
  some.off_cpu[static_cast<std::size_t>(OffCpuCause::preempted)] = 13'000;
  const Result spread =
      ResultBuilder::socket("threads", 2).ops(512).times({1, 2, 3}).kernel(some);
  EXPECT_EQ(kernel_text(spread),
            "kernel: off-CPU 569 µs of 2 threads × 1.69 ms per repetition: lock 21 µs, preempted "
            "13 µs, the rest in no one cause in most repetitions");
}

// The part waiting to start or done is said beside the causes: "lock" alone would read as
// contention.
TEST(KernelLine, TheTimeWaitingToStartOrDoneIsSaid) {
  KernelEvidence k = two_threads_off(300'000, 1'600'000);
  k.off_cpu[static_cast<std::size_t>(OffCpuCause::lock)] = 300'000;
  k.at_edges_ns = 250'000;
  k.at_edges[static_cast<std::size_t>(OffCpuCause::lock)] = 250'000;
  const auto line = [](const KernelEvidence& e) {
    return kernel_text(ResultBuilder::socket("threads", 2).ops(512).times({1, 2, 3}).kernel(e));
  };
  EXPECT_EQ(line(k),
            "kernel: off-CPU 300 µs of 2 threads × 1.60 ms per repetition: lock 300 µs; 250 µs "
            "of it waiting to start or done");
  k.at_edges_ns = 300'000;
  k.page_faults = 1;
  k.io_uring_punts = 1;
  EXPECT_EQ(line(k),
            "kernel: off-CPU 300 µs of 2 threads × 1.60 ms per repetition: lock 300 µs; all of "
            "it waiting to start or done; 1 page fault; 1 io_uring request punted to io-wq");
}

}  // namespace timed_region_test
}  // namespace fdbench
