#include "fdbench/statistics.hpp"

#include <gtest/gtest.h>

#include <vector>

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

}  // namespace
}  // namespace fdbench
