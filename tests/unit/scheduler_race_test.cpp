// --repeat auto as a race, followed repetition by repetition with scripted measurements on a
// scripted clock: a result whose median's 95% interval is separated from every contender's
// (twice in a row) stops as decided; results whose order is still open go on to their time;
// results that contend on nothing never stop as decided; and a result that stops is emitted as
// soon as those before it in the plan are, while the others still race.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "model/statistics.hpp"
#include "run/scheduler.hpp"
#include "support/scripted_measurement.hpp"

namespace fdbench {
namespace scheduler_race_test {

using testing::scripted;
using testing::ScriptedClock;

constexpr std::int64_t kMs = 1'000'000;

// Never within ±3%: `ms` and 1.4 × `ms` in turn, so the median's interval spans both.
std::vector<std::int64_t> around(std::int64_t ms) { return {ms * kMs, 14 * ms * kMs / 10}; }

Contest strategy_at(std::string strategy, int threads) {
  return Contest{std::move(strategy), threads, 64, std::nullopt, Harness::minimal};
}

struct Raced {
  std::vector<Result> results;         // in the order emitted
  std::vector<std::size_t> planned;    // each one's index in the plan
  std::vector<double> emitted_at_s;    // the scripted clock when it was emitted
  double seconds = 0;                  // what the whole plan took
};

// Runs `cycles` with these contests to --repeat auto at ±3%, each result within `max_time_s`.
Raced race(const std::vector<std::vector<std::int64_t>>& cycles,
           const std::vector<std::optional<Contest>>& contests, double max_time_s) {
  ScriptedClock clock;
  std::vector<MeasurementStart> starts;
  std::vector<PlannedResult> plan;
  for (std::size_t i = 0; i < cycles.size(); ++i) {
    plan.push_back(scripted(cycles[i], starts, &clock, "scripted " + std::to_string(i)));
    plan.back().contest = contests[i];
  }
  SchedulerSettings settings{Order::interleaved, false, {}, 0, "scripted"};
  settings.now_ns = clock.reader();
  Scheduler scheduler(settings, nullptr, nullptr);
  Repeat repeat;
  repeat.max_time_s = max_time_s;
  Raced out;
  scheduler.run(plan, StopRule::of(repeat, 1), [&](std::size_t i, Result r) {
    out.results.push_back(std::move(r));
    out.planned.push_back(i);
    out.emitted_at_s.push_back(static_cast<double>(clock.ns.load()) / 1e9);
  });
  out.seconds = static_cast<double>(clock.ns.load()) / 1e9;
  return out;
}

TEST(SchedulerRace, ContendersFarApartStopAsDecidedWithTheFewestRepetitions) {
  const Raced r = race({around(10), around(50)}, {strategy_at("threads", 2), strategy_at("pool", 2)},
                       5);
  ASSERT_EQ(r.results.size(), 2U);
  for (const Result& result : r.results) {
    ASSERT_TRUE(result.auto_repeat.has_value());
    EXPECT_EQ(result.auto_repeat->stopped, RepeatStop::decided);
    EXPECT_EQ(result.stopped(), RepeatStop::decided);
    // Separated at the first interval both have, and again at the next repetition.
    EXPECT_GE(result.repeat, static_cast<int>(min_samples_for()) + 1);
    EXPECT_LE(result.repeat, static_cast<int>(min_samples_for()) + 2);
    EXPECT_TRUE(result.median_ci.reached);
    EXPECT_FALSE(result.missed_precision());  // decided: no more precision was needed
  }
  EXPECT_EQ(separation(r.results[0].median_ci, r.results[1].median_ci), Separation::separated);
  EXPECT_LT(r.seconds, 5);
}

TEST(SchedulerRace, ResultsWhoseOrderIsOpenGetTheTimeTheDecidedOneLeft) {
  // Two that cannot be told apart, and a third far from both: it stops as decided, they run on
  // to --max-time. It is first in the plan, so it is emitted while they still race.
  const Raced r = race({around(100), around(10), around(11)},
                       {strategy_at("uring", 2), strategy_at("threads", 2), strategy_at("pool", 2)},
                       2);
  ASSERT_EQ(r.results.size(), 3U);
  EXPECT_EQ(r.planned, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(r.results[0].stopped(), RepeatStop::decided);
  EXPECT_EQ(r.results[1].stopped(), RepeatStop::max_time);
  EXPECT_EQ(r.results[2].stopped(), RepeatStop::max_time);
  EXPECT_GT(r.results[1].repeat, 3 * r.results[0].repeat);
  EXPECT_LT(r.emitted_at_s[0], r.emitted_at_s[1] / 2);
  EXPECT_TRUE(r.results[1].missed_precision());
}

TEST(SchedulerRace, ResultsThatContendOnNothingAreNeverDecided) {
  // Two strategies at two thread counts differ in two settings; without a contest, none.
  for (const auto& contests :
       {std::vector<std::optional<Contest>>{strategy_at("threads", 1), strategy_at("pool", 2)},
        std::vector<std::optional<Contest>>{std::nullopt, std::nullopt}}) {
    const Raced r = race({around(10), around(50)}, contests, 1);
    ASSERT_EQ(r.results.size(), 2U);
    for (const Result& result : r.results) EXPECT_EQ(result.stopped(), RepeatStop::max_time);
  }
}

TEST(SchedulerRace, ContendersDifferInExactlyOneSetting) {
  const Contest a = strategy_at("threads", 2);
  EXPECT_TRUE(contenders(a, strategy_at("pool", 2)));
  EXPECT_TRUE(contenders(a, strategy_at("threads", 8)));
  EXPECT_FALSE(contenders(a, a));
  EXPECT_FALSE(contenders(a, strategy_at("pool", 8)));
  Contest pregrown = a;
  pregrown.pregrow = Pregrow{Pregrow::Mode::automatic, 0};
  EXPECT_TRUE(contenders(a, pregrown));
  Contest published = a;
  published.harness = Harness::published;
  EXPECT_TRUE(contenders(a, published));
  // A batch tells one strategy's results apart, not two strategies'.
  Contest batched = strategy_at("pool-batch", 2);
  batched.batch = 16;
  EXPECT_TRUE(contenders(a, batched));
  Contest other_batch = batched;
  other_batch.batch = 64;
  EXPECT_TRUE(contenders(batched, other_batch));
}

TEST(SchedulerRace, AFixedRepeatSaysSo) {
  Result r;
  r.times_ns = {1, 2, 3};
  EXPECT_EQ(r.stopped(), RepeatStop::fixed_repeat);
  r.status = Status::cut_short;
  EXPECT_EQ(r.stopped(), RepeatStop::interrupted);
  RepeatStop parsed = RepeatStop::precision;
  for (const RepeatStop s : {RepeatStop::decided, RepeatStop::fixed_repeat}) {
    ASSERT_TRUE(parse_repeat_stop(to_string(s), parsed));
    EXPECT_EQ(parsed, s);
  }
}

}  // namespace scheduler_race_test
}  // namespace fdbench
