#include "fdbench/statistics.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <vector>

#include "fdbench/result.hpp"
#include "fdbench/workload.hpp"

namespace fdbench {
namespace {

TEST(Statistics, EmptyIsAllZero) {
  const Summary s = summarize({});
  EXPECT_EQ(s.count, 0U);
  EXPECT_EQ(s.min, 0);
  EXPECT_EQ(s.max, 0);
  EXPECT_EQ(s.median, 0);
}

TEST(Statistics, OneSample) {
  const std::vector<std::int64_t> v{42};
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 1U);
  EXPECT_EQ(s.min, 42);
  EXPECT_EQ(s.max, 42);
  EXPECT_DOUBLE_EQ(s.median, 42);
  EXPECT_DOUBLE_EQ(s.mean, 42);
  EXPECT_DOUBLE_EQ(s.stddev, 0);
}

TEST(Statistics, OddCountMedianIsMiddle) {
  const std::vector<std::int64_t> v{9, 1, 5};
  const Summary s = summarize(v);
  EXPECT_DOUBLE_EQ(s.median, 5);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 9);
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_DOUBLE_EQ(s.stddev, 4);  // sample stddev of {1,5,9}
}

TEST(Statistics, EvenCountMedianAveragesTheMiddleTwo) {
  const std::vector<std::int64_t> v{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(summarize(v).median, 2.5);
}

TEST(Statistics, PercentileInterpolates) {
  const std::vector<std::int64_t> v{10, 20, 30, 40, 50};
  EXPECT_DOUBLE_EQ(percentile(v, 0), 10);
  EXPECT_DOUBLE_EQ(percentile(v, 50), 30);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 50);
  EXPECT_DOUBLE_EQ(percentile(v, 25), 20);
  EXPECT_DOUBLE_EQ(percentile(v, 90), 46);
}

TEST(Statistics, EvenCountStatistics) {
  const std::vector<std::int64_t> v{10, 40, 20, 30};
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 4U);
  EXPECT_EQ(s.min, 10);
  EXPECT_EQ(s.max, 40);
  EXPECT_DOUBLE_EQ(s.median, 25);
  EXPECT_DOUBLE_EQ(s.mean, 25);
  EXPECT_NEAR(s.stddev, 12.909944487358056, 1e-9);  // sqrt(500 / 3)
}

TEST(Statistics, TwoSamples) {
  const std::vector<std::int64_t> v{7, 3};
  const Summary s = summarize(v);
  EXPECT_DOUBLE_EQ(s.median, 5);
  EXPECT_NEAR(s.stddev, 2.8284271247461903, 1e-9);  // sample stddev: |7 - 3| / sqrt(2)
}

TEST(Statistics, DuplicatesAndLargeValuesAreExact) {
  const std::int64_t big = 9'000'000'000'000;  // 2.5 hours in ns: beyond 32 bits
  const std::vector<std::int64_t> v{big, big, big};
  const Summary s = summarize(v);
  EXPECT_EQ(s.min, big);
  EXPECT_EQ(s.max, big);
  EXPECT_DOUBLE_EQ(s.median, static_cast<double>(big));
  EXPECT_DOUBLE_EQ(s.stddev, 0);
}

TEST(Statistics, InputOrderDoesNotMatter) {
  const std::vector<std::int64_t> a{5, 1, 4, 2, 3};
  const std::vector<std::int64_t> b{1, 2, 3, 4, 5};
  const Summary sa = summarize(a);
  const Summary sb = summarize(b);
  EXPECT_DOUBLE_EQ(sa.median, 3);
  EXPECT_DOUBLE_EQ(sb.median, 3);
  EXPECT_DOUBLE_EQ(sa.mean, 3);
  EXPECT_DOUBLE_EQ(sb.mean, 3);
  EXPECT_NEAR(sa.stddev, 1.5811388300841898, 1e-9);  // sqrt(10 / 4)
  EXPECT_NEAR(sb.stddev, 1.5811388300841898, 1e-9);
  EXPECT_DOUBLE_EQ(percentile(a, 75), 4);
  EXPECT_DOUBLE_EQ(percentile(b, 75), 4);
}

TEST(Statistics, PercentileEdgeCases) {
  EXPECT_DOUBLE_EQ(percentile({}, 50), 0);
  const std::vector<std::int64_t> one{8};
  EXPECT_DOUBLE_EQ(percentile(one, 0), 8);
  EXPECT_DOUBLE_EQ(percentile(one, 99), 8);
  const std::vector<std::int64_t> v{10, 20};
  EXPECT_DOUBLE_EQ(percentile(v, -5), 10);   // clamped to 0
  EXPECT_DOUBLE_EQ(percentile(v, 250), 20);  // clamped to 100
}

TEST(Statistics, FinalizeFillsRate) {
  Result r;
  r.ops = 1000;
  r.times_ns = {2'000'000, 1'000'000, 3'000'000};
  finalize(r);
  EXPECT_EQ(r.stats.count, 3U);
  EXPECT_DOUBLE_EQ(r.ops_per_sec, 500'000);  // ops / median
  Result empty;
  empty.ops = 10;
  finalize(empty);
  EXPECT_DOUBLE_EQ(empty.ops_per_sec, 0);  // no samples: no rate, no division by zero
}

TEST(Tally, CountsFailuresAndKeepsTheFirstErrno) {
  Tally a;
  a.fail(EMFILE);
  a.fail(ENOENT);
  Tally b;
  b.fail(EACCES);
  Tally merged;
  merged.merge(Tally{});  // nothing failed: nothing changes
  EXPECT_EQ(merged.failures, 0U);
  merged.merge(b);
  merged.merge(a);
  EXPECT_EQ(merged.failures, 3U);
  EXPECT_EQ(merged.first_errno, EACCES);
  EXPECT_EQ(a.first_errno, EMFILE);
}

}  // namespace
}  // namespace fdbench
