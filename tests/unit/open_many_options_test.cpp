// A measured setting becomes open_many's options in one place (fdbench/tune.hpp), so that no
// program matches strategy names itself: what open_many runs is taken as measured, what it
// cannot run as exactly becomes threads at the same count, and uring-direct never applies.
#include <gtest/gtest.h>

#include "fdbench/open_many.hpp"
#include "fdbench/tune.hpp"

namespace fdbench {
namespace open_many_options_test {

TEST(OpenStrategy, NamesAreFdbenchsOwn) {
  EXPECT_EQ(open_strategy("threads"), OpenStrategy::threads);
  EXPECT_EQ(open_strategy("uring"), OpenStrategy::uring);
  EXPECT_EQ(open_strategy("uring-direct"), std::nullopt);
  EXPECT_EQ(open_strategy("pool"), std::nullopt);
  EXPECT_EQ(open_strategy(""), std::nullopt);
  EXPECT_EQ(to_string(OpenStrategy::threads), "threads");
  EXPECT_EQ(to_string(OpenStrategy::uring), "uring");
}

TEST(OpenManyOptionsFrom, ASettingOpenManyRunsIsTakenAsMeasured) {
  const auto uring = open_many_options(TunedSetting{"uring", 2, 64, 1e6});
  ASSERT_TRUE(uring.has_value());
  EXPECT_EQ(uring->strategy, OpenStrategy::uring);
  EXPECT_EQ(uring->threads, 2);
  EXPECT_EQ(uring->batch, 64);

  const auto threads = open_many_options(TunedSetting{"threads", 4, 1, 1e5});
  ASSERT_TRUE(threads.has_value());
  EXPECT_EQ(threads->strategy, OpenStrategy::threads);
  EXPECT_EQ(threads->threads, 4);
}

TEST(OpenManyOptionsFrom, OtherStrategiesBecomeThreadsAtTheSameCount) {
  for (const char* name : {"fast-pool", "pool-batch", "process", "libuv"}) {
    SCOPED_TRACE(name);
    const auto options = open_many_options(TunedSetting{name, 3, 16, 1e5});
    ASSERT_TRUE(options.has_value());
    EXPECT_EQ(options->strategy, OpenStrategy::threads);
    EXPECT_EQ(options->threads, 3);
  }
  EXPECT_EQ(open_many_options(TunedSetting{"uring-direct", 1, 64, 2e6}), std::nullopt);
}

TEST(OpenManyOptionsFrom, ARecommendationPrefersASettingOpenManyRunsAsMeasured) {
  Recommendation rec;
  rec.best = {"uring-direct", 1, 64, 2e6};
  rec.within_noise = {{"fast-pool", 2, 1, 1.9e6}, {"uring", 2, 256, 1.8e6}};
  auto options = open_many_options(rec);
  ASSERT_TRUE(options.has_value());
  EXPECT_EQ(options->strategy, OpenStrategy::uring);
  EXPECT_EQ(options->threads, 2);
  EXPECT_EQ(options->batch, 256);

  rec.within_noise = {{"fast-pool", 2, 1, 1.9e6}};
  options = open_many_options(rec);
  ASSERT_TRUE(options.has_value());
  EXPECT_EQ(options->strategy, OpenStrategy::threads);
  EXPECT_EQ(options->threads, 2);

  rec.within_noise.clear();
  EXPECT_EQ(open_many_options(rec), std::nullopt);
}

}  // namespace open_many_options_test
}  // namespace fdbench
