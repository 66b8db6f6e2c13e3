#include "model/statistics.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <tuple>
#include <vector>

#include "engine/workload.hpp"
#include "model/format.hpp"
#include "model/result.hpp"

namespace fdbench {
namespace statistics_test {

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

// The repetition that stands for the median: the middle one, the upper of the middle two for
// an even count, equal samples in their order.
TEST(Statistics, TheMedianIndexIsTheMiddleSamplesPlace) {
  EXPECT_EQ(median_index(std::vector<std::int64_t>{30, 10, 20}), 2U);
  EXPECT_EQ(median_index(std::vector<std::int64_t>{40, 10, 30, 20}), 2U);
  EXPECT_EQ(median_index(std::vector<std::int64_t>{5, 5, 5, 5, 5}), 2U);
  EXPECT_EQ(median_index(std::vector<std::int64_t>{7}), 0U);
  EXPECT_EQ(median_index(std::vector<std::int64_t>{}), 0U);
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

// 1..n in a scrambled order, times `scale`: the k-th order statistic is k * scale.
std::vector<std::int64_t> scrambled(std::int64_t n, std::int64_t scale) {
  std::vector<std::int64_t> v;
  for (std::int64_t i = 0; i < n; ++i) v.push_back(((i * 7) % n + 1) * scale);  // 7 is coprime
  return v;
}

TEST(MedianInterval, TenSamplesGiveTheSecondAndNinth) {
  // P(Binomial(10, 1/2) <= 1) = 11/1024, so [x(2), x(9)] holds the median with 1 - 22/1024;
  // [x(3), x(8)] would have only 1 - 112/1024 = 89%.
  const MedianInterval ci = median_interval(scrambled(10, 100));
  EXPECT_EQ(ci.lo, 200);
  EXPECT_EQ(ci.hi, 900);
  EXPECT_DOUBLE_EQ(ci.level, 1 - 22.0 / 1024);
  EXPECT_TRUE(ci.reached);
}

TEST(MedianInterval, TwentySamplesGiveTheSixthAndFifteenth) {
  // The textbook table: n = 20 -> x(6), x(15); P(X <= 5) = 21,700 / 2^20.
  const MedianInterval ci = median_interval(scrambled(20, 1));
  EXPECT_EQ(ci.lo, 6);
  EXPECT_EQ(ci.hi, 15);
  EXPECT_NEAR(ci.level, 1 - 2 * 21700.0 / 1048576, 1e-12);
  EXPECT_TRUE(ci.reached);
}

TEST(MedianInterval, SixSamplesAreTheFewestThatReach95Percent) {
  const MedianInterval six = median_interval(scrambled(6, 1));
  EXPECT_EQ(six.lo, 1);
  EXPECT_EQ(six.hi, 6);
  EXPECT_DOUBLE_EQ(six.level, 1 - 2.0 / 64);
  EXPECT_TRUE(six.reached);
  // Five cannot: the full range, flagged, with the level it does have.
  const MedianInterval five = median_interval(scrambled(5, 1));
  EXPECT_EQ(five.lo, 1);
  EXPECT_EQ(five.hi, 5);
  EXPECT_DOUBLE_EQ(five.level, 1 - 2.0 / 32);
  EXPECT_FALSE(five.reached);
}

TEST(MedianInterval, OneAndNoSamples) {
  const std::vector<std::int64_t> one{42};
  const MedianInterval ci = median_interval(one);
  EXPECT_EQ(ci.lo, 42);
  EXPECT_EQ(ci.hi, 42);
  EXPECT_FALSE(ci.reached);
  const MedianInterval none = median_interval({});
  EXPECT_EQ(none.lo, 0);
  EXPECT_EQ(none.hi, 0);
  EXPECT_DOUBLE_EQ(none.level, 0);
  EXPECT_FALSE(none.reached);
}

TEST(MedianInterval, ManySamplesStayFiniteAndNarrow) {
  // 0.5^2000 underflows a double: the binomial terms must not.
  const MedianInterval ci = median_interval(scrambled(2000, 1));
  EXPECT_TRUE(ci.reached);
  EXPECT_GE(ci.level, 0.95);
  EXPECT_LT(ci.level, 0.96);
  // About 1.96 * sqrt(2000) / 2 = 44 order statistics either side of the middle.
  EXPECT_NEAR(static_cast<double>(ci.lo), 956, 3);
  EXPECT_NEAR(static_cast<double>(ci.hi), 1045, 3);
}

TEST(MedianInterval, OtherConfidenceLevels) {
  const auto v = scrambled(10, 1);
  const MedianInterval loose = median_interval(v, 0.5);
  EXPECT_EQ(loose.lo, 4);  // P(X <= 3) = 176/1024: [x(4), x(7)] has 66%, [x(5), x(6)] 25%
  EXPECT_EQ(loose.hi, 7);
  EXPECT_DOUBLE_EQ(loose.level, 1 - 352.0 / 1024);
}

TEST(MedianInterval, SixSamplesAreTheFewestFor95Percent) {
  EXPECT_EQ(min_samples_for(0.95), 6U);
  EXPECT_EQ(min_samples_for(0.90), 5U);  // 1 - 2/32 = 93.75%
  EXPECT_EQ(min_samples_for(0.99), 8U);  // 1 - 2/128 = 98.4%, 1 - 2/256 = 99.2%
  // The number agrees with the interval itself: one fewer does not reach the level.
  EXPECT_TRUE(median_interval(scrambled(static_cast<std::int64_t>(min_samples_for()), 1)).reached);
  EXPECT_FALSE(
      median_interval(scrambled(static_cast<std::int64_t>(min_samples_for()) - 1, 1)).reached);
}

TEST(Separation, IntervalsThatOverlapOrTouchAreNotSeparated) {
  const MedianInterval a{100, 200, 0.95, true};
  const MedianInterval b{200, 300, 0.95, true};
  const MedianInterval c{201, 300, 0.95, true};
  const MedianInterval inside{120, 130, 0.95, true};
  EXPECT_EQ(separation(a, b), Separation::cannot_tell);
  EXPECT_EQ(separation(b, a), Separation::cannot_tell);
  EXPECT_EQ(separation(a, c), Separation::separated);
  EXPECT_EQ(separation(c, a), Separation::separated);
  EXPECT_EQ(separation(a, inside), Separation::cannot_tell);
  EXPECT_EQ(separation(inside, a), Separation::cannot_tell);
  EXPECT_TRUE(overlap(separation(a, b)));
  EXPECT_FALSE(overlap(separation(a, c)));
}

TEST(Separation, SamenessNeedsIntervalsNarrowEnoughToExcludeTheMargin) {
  // Overlapping, and every value either interval allows within 10% of every other: the same.
  const MedianInterval a{1000, 1040, 0.95, true};
  const MedianInterval b{1020, 1100, 0.95, true};
  EXPECT_EQ(separation(a, b), Separation::same);
  EXPECT_EQ(separation(b, a), Separation::same);
  // The same medians with one wide interval: a 10% difference is not excluded, so no sameness.
  const MedianInterval wide{900, 1300, 0.95, true};
  EXPECT_EQ(separation(a, wide), Separation::cannot_tell);
  // Just past the margin.
  const MedianInterval edge{1000, 1101, 0.95, true};
  EXPECT_EQ(separation(edge, b), Separation::cannot_tell);
}

TEST(Separation, AnIntervalNotReachedSeparatesNothing) {
  const MedianInterval reached{100, 110, 0.95, true};
  const MedianInterval far_range{400, 500, 0.9375, false};  // 5 samples: min–max only
  const MedianInterval near_range{100, 500, 0.9375, false};
  // Neither apart nor within noise, whatever the ranges look like: too few to tell.
  EXPECT_EQ(separation(reached, far_range), Separation::too_few);
  EXPECT_EQ(separation(far_range, reached), Separation::too_few);
  EXPECT_EQ(separation(reached, near_range), Separation::too_few);
  EXPECT_EQ(separation(far_range, near_range), Separation::too_few);
}

TEST(Outliers, BeyondOneAndAHalfInterquartileRanges) {
  // Sorted 10 10 11 11 12 100: Q1 10.25, Q3 11.75, fences 8 and 14.
  const std::vector<std::int64_t> slow_one{10, 11, 12, 10, 100, 11};
  EXPECT_EQ(outlier_indices(slow_one), std::vector<std::size_t>{4});
  const std::vector<std::int64_t> fast_one{1, 101, 102, 100, 101, 100};
  EXPECT_EQ(outlier_indices(fast_one), std::vector<std::size_t>{0});
  const std::vector<std::int64_t> both{500, 100, 101, 102, 100, 101, 1};
  EXPECT_EQ(outlier_indices(both), (std::vector<std::size_t>{0, 6}));
}

TEST(Outliers, NoneInEvenlySpreadOrTinySamples) {
  EXPECT_TRUE(outlier_indices(scrambled(10, 3)).empty());
  const std::vector<std::int64_t> two{1, 1'000'000};
  EXPECT_TRUE(outlier_indices(two).empty());
  EXPECT_TRUE(outlier_indices({}).empty());
  const std::vector<std::int64_t> on_the_fence{10, 10, 11, 11, 12, 14};  // 14 is the fence
  EXPECT_TRUE(outlier_indices(on_the_fence).empty());
}

// Ten repetitions around a median of 100 whose 95% interval, [x(2), x(9)], is [100 - below,
// 100 + above]: a result whose ± column is the larger of the two.
Result ten_around_100(std::int64_t below, std::int64_t above) {
  Result r;
  r.ops = 10;
  r.times_ns = {50, 100 - below, 99, 99, 100, 100, 101, 101, 100 + above, 300};
  finalize(r);
  return r;
}

// One rule, the ± column's: more than ±10% shown is noisy, and nothing else is. Issue 34,
// case 7: `15.77 ±17%*` had no mark while `16.40~ ±12%*` had one, by a whole-width rule.
TEST(Noise, APlusOrMinusShownAboveTenPercentIsNoisyAndNoOtherIs) {
  for (const auto& [below, above, shown, noisy] :
       std::vector<std::tuple<std::int64_t, std::int64_t, const char*, bool>>{
           {17, 3, "17%", true},   // was not marked: the whole width, 20%, was not over 20%
           {12, 12, "12%", true},  // was marked: the whole width, 24%, was
           {9, 9, "9%", false},    // min–max is 250%: not what is judged
           {2, 10, "10%", false},
           {2, 11, "11%", true}}) {
    const Result r = ten_around_100(below, above);
    ASSERT_TRUE(r.precision()) << below;
    EXPECT_EQ(format_percent(*r.precision()), shown);
    EXPECT_EQ(is_noisy(r), noisy) << shown;
    EXPECT_EQ(r.has_warning(WarningKind::noisy), noisy) << shown;
  }
  const Result r = ten_around_100(17, 3);
  ASSERT_EQ(r.warnings.size(), 1U);
  EXPECT_EQ(r.warnings[0].text, "noisy: the median's 95% interval reaches ±17% of it (over ±10%)");
}

// As displayed: ±10.4% is shown as "±10%", and is not noisy; ±10.6% is "±11%", and is.
TEST(Noise, TheRuleJudgesThePercentageAsShown) {
  Result r;
  r.times_ns = {0, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1104, 3000};
  finalize(r);
  EXPECT_EQ(format_percent(*r.precision()), "10%");
  EXPECT_FALSE(is_noisy(r));
  r.times_ns[8] = 1106;
  finalize(r);
  EXPECT_EQ(format_percent(*r.precision()), "11%");
  EXPECT_TRUE(is_noisy(r));
}

// Below 6 repetitions there is no 95% interval: no ± is shown, and no row is called noisy,
// however spread (the interquartile range is not judged instead).
TEST(Noise, TooFewRepetitionsAreNotJudged) {
  Result few;
  few.times_ns = {100, 100, 130, 160, 400};
  finalize(few);
  EXPECT_FALSE(few.precision());
  EXPECT_FALSE(is_noisy(few));
  EXPECT_TRUE(few.warnings.empty());
}

// Read back, a result is judged again: a noisy warning written by an older rule goes where
// this one does not call it noisy, and is reworded in its place where it does.
TEST(Noise, AWarningReadBackIsJudgedAgainInItsPlace) {
  Result calm;
  calm.times_ns = {100, 100, 100, 100, 100, 100};
  calm.warnings = {{WarningKind::cut_short, "interrupted"},
                   {WarningKind::noisy, "noisy: the interquartile range is 40% of the median"}};
  finalize(calm);
  ASSERT_EQ(calm.warnings.size(), 1U);
  EXPECT_EQ(calm.warnings[0].kind, WarningKind::cut_short);
  Result spread;
  spread.times_ns = {50, 83, 99, 99, 100, 100, 101, 101, 103, 300};
  spread.warnings = {{WarningKind::noisy, "noisy: the width of its 95% interval is 20%"},
                     {WarningKind::setting_changed, "rcu_expedited changed"}};
  finalize(spread);
  finalize(spread);  // as a reader does after reading the warnings back
  ASSERT_EQ(spread.warnings.size(), 2U);
  EXPECT_EQ(spread.warnings[0].text,
            "noisy: the median's 95% interval reaches ±17% of it (over ±10%)");
  EXPECT_EQ(spread.warnings[1].kind, WarningKind::setting_changed);
}

TEST(Noise, ThePlusOrMinusDoesNotGrowWithMoreRepetitionsOfTheSameMachine) {
  // The same spread of times, repeated: min–max stays, the interval narrows.
  std::vector<std::int64_t> some;
  std::vector<std::int64_t> many;
  for (int i = 0; i < 10; ++i) some.push_back(90 + 2 * i);
  for (int k = 0; k < 10; ++k) many.insert(many.end(), some.begin(), some.end());
  many.push_back(60);  // two outliers more: min–max widens, the interval hardly moves
  many.push_back(140);
  const auto half = [](const std::vector<std::int64_t>& v) {
    return *relative_half_width(median_interval(v), summarize(v).median);
  };
  EXPECT_LT(half(many), half(some));
}

TEST(Statistics, FinalizeFillsIntervalAndOutliers) {
  Result r;
  r.ops = 10;
  r.times_ns = {100, 100, 200, 100, 100, 100};
  finalize(r);
  EXPECT_EQ(r.median_ci.lo, 100);
  EXPECT_EQ(r.median_ci.hi, 200);  // six samples: the full range
  EXPECT_EQ(r.outliers, std::vector<std::size_t>{2});
  ASSERT_EQ(r.warnings.size(), 1U);  // ±100%
  EXPECT_EQ(r.warnings[0].kind, WarningKind::noisy) << r.warnings[0].text;
  Result single;
  single.times_ns = {100};
  finalize(single);
  EXPECT_TRUE(single.warnings.empty());
  EXPECT_TRUE(single.outliers.empty());
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

}  // namespace statistics_test
}  // namespace fdbench
