// tune's stop rule (StopRule::within_budget) followed repetition by repetition, with scripted
// measurements on a scripted clock: a combination stops once its median is precise enough or
// its share of the budget is spent, never below the 6 repetitions a 95% interval needs; one
// that is precise early leaves its share to the others; and the whole plan ends within the
// budget, but for the last repetition of each result.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "model/statistics.hpp"
#include "run/scheduler.hpp"
#include "support/scripted_measurement.hpp"

namespace fdbench {
namespace scheduler_budget_test {

using testing::scripted;
using testing::ScriptedClock;

constexpr std::int64_t kMs = 1'000'000;

struct Sweep {
  std::vector<Result> results;  // in the plan's order
  double seconds = 0;           // what the whole plan took on the scripted clock
};

// Runs `cycles` (each result's repetition times, in turn) to tune's rule: ±`precision`, the
// whole plan within `budget_s`, one warm-up each.
Sweep sweep(const std::vector<std::vector<std::int64_t>>& cycles, double precision, double budget_s,
            Order order = Order::interleaved) {
  ScriptedClock clock;
  std::vector<MeasurementStart> starts;
  std::vector<PlannedResult> plan;
  for (std::size_t i = 0; i < cycles.size(); ++i) {
    plan.push_back(scripted(cycles[i], starts, &clock, "scripted " + std::to_string(i)));
  }
  SchedulerSettings settings{order, false, {}, 0, "scripted"};
  settings.now_ns = clock.reader();
  Scheduler scheduler(settings, nullptr, nullptr);
  Sweep out;
  scheduler.run(plan, StopRule::within_budget(precision, budget_s, 1),
                [&](std::size_t, Result r) { out.results.push_back(std::move(r)); });
  out.seconds = static_cast<double>(clock.ns.load()) / 1e9;
  return out;
}

// What a result took on the scripted clock: its warm-up (as long as its first repetition) and
// its repetitions.
double seconds_of(const Result& r) {
  std::int64_t ns = r.times_ns.empty() ? 0 : r.times_ns.front();
  for (const auto t : r.times_ns) ns += t;
  return static_cast<double>(ns) / 1e9;
}

std::int64_t longest(const std::vector<std::int64_t>& cycle) {
  return *std::max_element(cycle.begin(), cycle.end());
}

TEST(SchedulerBudget, ACombinationStopsOnPrecisionAndLeavesItsShareToTheOthers) {
  // Steady: every repetition alike, precise at the first interval. Wide: 100 or 200 ms in
  // turn, whose median is never known within ±3%.
  const Sweep s = sweep({{5 * kMs}, {100 * kMs, 200 * kMs}}, 0.03, 10);
  ASSERT_EQ(s.results.size(), 2U);
  const auto least = static_cast<int>(min_samples_for());

  const Result& steady = s.results[0];
  EXPECT_EQ(steady.repeat, least);
  ASSERT_TRUE(steady.auto_repeat.has_value());
  EXPECT_EQ(steady.auto_repeat->stopped, RepeatStop::precision);
  EXPECT_DOUBLE_EQ(steady.auto_repeat->precision, 0.03);
  EXPECT_FALSE(steady.missed_precision());

  // The wide one had the budget the steady one did not use: far more than half of it.
  const Result& wide = s.results[1];
  ASSERT_TRUE(wide.auto_repeat.has_value());
  EXPECT_EQ(wide.auto_repeat->stopped, RepeatStop::budget);
  EXPECT_TRUE(wide.missed_precision());
  EXPECT_GT(seconds_of(wide), 9.5);
  EXPECT_GT(wide.repeat, 60);
  // Its share when it stopped: all but what the steady one took.
  EXPECT_NEAR(wide.auto_repeat->max_time_s, 10 - seconds_of(steady), 1e-9);
  EXPECT_EQ(wide.status, Status::measured);  // ended by the rule, not cut short

  EXPECT_GE(s.seconds, 10);
  EXPECT_LE(s.seconds, 10 + 0.2);
}

TEST(SchedulerBudget, EachCombinationStopsOnItsShareAndTheWholeStaysWithinTheBudget) {
  // Three that never get precise, at 1, 10 and 100 ms a repetition (±50%).
  const std::vector<std::vector<std::int64_t>> cycles = {
      {1 * kMs, 2 * kMs}, {10 * kMs, 20 * kMs}, {100 * kMs, 200 * kMs}};
  for (const Order order : {Order::interleaved, Order::sequential}) {
    SCOPED_TRACE(std::string(to_string(order)));
    const double budget = 6;
    const Sweep s = sweep(cycles, 0.03, budget, order);
    ASSERT_EQ(s.results.size(), 3U);
    double overshoot = 0;  // at most the last repetition of each
    for (const auto& cycle : cycles) overshoot += static_cast<double>(longest(cycle)) / 1e9;
    for (std::size_t i = 0; i < s.results.size(); ++i) {
      const Result& r = s.results[i];
      ASSERT_TRUE(r.auto_repeat.has_value());
      EXPECT_EQ(r.auto_repeat->stopped, RepeatStop::budget) << i;
      EXPECT_GE(r.repeat, static_cast<int>(min_samples_for())) << i;
      // Each had a third of the budget, give or take the last repetitions (its own, and the
      // others' before it, which were taken out of what it shared).
      EXPECT_NEAR(seconds_of(r), budget / 3, overshoot) << i;
    }
    // In turns, the fast ones took many more repetitions in the same time.
    EXPECT_GT(s.results[0].repeat, 10 * s.results[2].repeat);
    EXPECT_GE(s.seconds, budget);
    EXPECT_LE(s.seconds, budget + overshoot);
  }
}

TEST(SchedulerBudget, NeverBelowTheRepetitionsA95PercentIntervalNeeds) {
  // A budget far smaller than one repetition: every combination still gets its 6, and says
  // that the budget (its share of which is next to nothing) stopped it.
  const Sweep s = sweep({{100 * kMs, 200 * kMs}, {1 * kMs, 3 * kMs}}, 0.03, 0.001);
  ASSERT_EQ(s.results.size(), 2U);
  for (const Result& r : s.results) {
    EXPECT_EQ(r.repeat, static_cast<int>(min_samples_for()));
    EXPECT_EQ(r.times_ns.size(), min_samples_for());
    ASSERT_TRUE(r.auto_repeat.has_value());
    EXPECT_EQ(r.auto_repeat->stopped, RepeatStop::budget);
    EXPECT_LE(r.auto_repeat->max_time_s, 0.001);
    EXPECT_TRUE(r.median_ci.reached);  // a real 95% interval, so it can be compared
  }
  EXPECT_GT(s.seconds, 0.001);  // overrun, as tune then says
}

}  // namespace scheduler_budget_test
}  // namespace fdbench
