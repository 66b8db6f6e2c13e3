// The Scheduler with real descriptors: a plan run to a repetition count emits every result in
// the plan's order with the workers its order asks for; --repeat auto's rule followed with
// scripted measurements (tune's budget: tests/unit/scheduler_budget_test.cpp).
#include "run/scheduler.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/measurement.hpp"
#include "engine/strategy.hpp"
#include "engine/workload.hpp"
#include "support/require.hpp"
#include "support/scripted_measurement.hpp"

namespace fdbench {
namespace scheduler_test {

const StrategyInfo& threads_strategy() {
  const StrategyInfo* info = find_strategy("threads");
  EXPECT_NE(info, nullptr);
  return *info;
}

// `results` results of the threads strategy creating 32 sockets, with 1, 2, ... threads;
// `starts` collects how each measurement was asked to start.
std::vector<PlannedResult> socket_plan(std::size_t results, std::vector<MeasurementStart>& starts) {
  std::vector<PlannedResult> plan;
  for (std::size_t i = 0; i < results; ++i) {
    const int threads = static_cast<int>(i) + 1;
    plan.push_back({{0, "threads", threads, std::nullopt, "create"},
                    "threads, " + std::to_string(threads),
                    [&starts, threads](const MeasurementStart& how) {
                      starts.push_back(how);
                      return in_process_measurement(make_socket_workload(SocketKind::tcp, 32),
                                                    threads_strategy(), {threads, 1}, how.repeat,
                                                    how.warmup, how.extras, how.workers);
                    },
                    [](Result& r) { r.parameters["planned"] = "yes"; }});
  }
  return plan;
}

TEST(Scheduler, RunsEachResultToTheRepetitionCountAndEmitsInPlanOrder) {
  for (const Order order : {Order::interleaved, Order::sequential}) {
    SCOPED_TRACE(std::string(to_string(order)));
    std::vector<MeasurementStart> starts;
    const auto plan = socket_plan(3, starts);
    Scheduler scheduler({order, false, {}, 0, "creating sockets"}, nullptr, nullptr);
    std::vector<std::size_t> emitted;
    std::vector<Result> results;
    scheduler.run(plan, {3, 1}, [&](std::size_t planned, Result r) {
      emitted.push_back(planned);
      results.push_back(std::move(r));
    });
    EXPECT_EQ(emitted, (std::vector<std::size_t>{0, 1, 2}));
    ASSERT_EQ(starts.size(), 3U);
    for (const auto& how : starts) {
      EXPECT_EQ(how.repeat, 3);
      EXPECT_EQ(how.warmup, 1);
      // Results that take turns make their workers per repetition; alone, they keep them.
      EXPECT_EQ(how.workers, order == Order::interleaved ? Workers::per_repetition : Workers::kept);
    }
    for (std::size_t i = 0; i < results.size(); ++i) {
      EXPECT_TRUE(results[i].ok()) << results[i].error;
      EXPECT_EQ(results[i].config.threads, static_cast<int>(i) + 1);
      EXPECT_EQ(results[i].times_ns.size(), 3U);
      EXPECT_EQ(results[i].parameters.at("planned"), "yes");
      EXPECT_EQ(results[i].parameters.at("order"), to_string(order));
      EXPECT_EQ(results[i].parameters.count("timeout"), 0U);  // no limit was set
    }
  }
}

// Every repetition runs on the repetition runner's thread, worker 0's share included, and a
// thread can have at most 16 io_uring descriptors registered at once: each measurement must
// be ended on that thread too, or its ring's registration stays behind there and the 17th
// ring cannot be set up ("Device or resource busy"), as a tune sweep found.
TEST(Scheduler, ManyIoUringResultsInARowEachSetUpTheirRing) {
  const StrategyInfo* uring = find_strategy("uring");
  ASSERT_NE(uring, nullptr);
  if (const auto reason = uring->unavailable_reason(); !reason.empty()) {
    FDBENCH_SKIP_WITHOUT("uring") << reason;
  }
  std::vector<PlannedResult> plan;
  for (int i = 0; i < 24; ++i) {
    plan.push_back({{0, "uring", 1, std::nullopt, "create"},
                    "uring, 1 thread, #" + std::to_string(i),
                    [uring](const MeasurementStart& how) {
                      return in_process_measurement(make_socket_workload(SocketKind::tcp, 8),
                                                    *uring, {1, 8}, how.repeat, how.warmup,
                                                    how.extras, how.workers);
                    }});
  }
  Scheduler scheduler({Order::sequential, false, {}, 0, "creating sockets"}, nullptr, nullptr);
  std::vector<Result> results;
  scheduler.run(plan, StopRule::of(Repeat::fixed(1), 0),
                [&](std::size_t, Result r) { results.push_back(std::move(r)); });
  ASSERT_EQ(results.size(), plan.size());
  if (results[0].error.find("IORING_OP_SOCKET") != std::string::npos) {
    FDBENCH_SKIP_WITHOUT("uring") << results[0].error;
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_TRUE(results[i].ok()) << "result " << i << ": " << results[i].error;
  }
}

using testing::scripted;

StopRule automatic(double precision, double max_time_s) {
  Repeat repeat;
  repeat.precision = precision;
  repeat.max_time_s = max_time_s;
  return StopRule::of(repeat, 1);
}

TEST(SchedulerAutoRepeat, EachResultStopsWhenItsMedianIsPreciseEnoughOrItsTimeIsSpent) {
  for (const Order order : {Order::interleaved, Order::sequential}) {
    SCOPED_TRACE(std::string(to_string(order)));
    std::vector<MeasurementStart> starts;
    // Steady: every repetition alike, precise at the first interval. Wide: 100 or 200 in turn,
    // whose median is never known within ±3%.
    const std::vector<PlannedResult> plan{scripted({1000}, starts), scripted({100, 200}, starts)};
    Scheduler scheduler({order, false, {}, 0, "scripted"}, nullptr, nullptr);
    std::vector<Result> results;
    scheduler.run(plan, automatic(0.03, 1e-9),
                  [&](std::size_t, Result r) { results.push_back(std::move(r)); });
    ASSERT_EQ(results.size(), 2U);
    ASSERT_EQ(starts.size(), 2U);
    // The ceiling it was started with is no count anyone asked for.
    EXPECT_EQ(starts[0].repeat, kMaxAutoRepetitions);
    const auto least = static_cast<int>(min_samples_for());

    const Result& steady = results[0];
    EXPECT_EQ(steady.status, Status::measured);
    EXPECT_EQ(steady.repeat, least);
    EXPECT_EQ(steady.times_ns.size(), static_cast<std::size_t>(least));
    ASSERT_TRUE(steady.auto_repeat.has_value());
    EXPECT_EQ(steady.auto_repeat->stopped, RepeatStop::precision);
    EXPECT_DOUBLE_EQ(steady.auto_repeat->precision, 0.03);
    EXPECT_FALSE(steady.missed_precision());

    // The time limit (here none at all) never cuts below a real 95% interval.
    const Result& wide = results[1];
    EXPECT_EQ(wide.status, Status::measured);  // not cut short: it ended by the rule
    EXPECT_EQ(wide.repeat, least);
    ASSERT_TRUE(wide.auto_repeat.has_value());
    EXPECT_EQ(wide.auto_repeat->stopped, RepeatStop::max_time);
    EXPECT_TRUE(wide.missed_precision());
    EXPECT_FALSE(wide.has_warning(WarningKind::cut_short));
  }
}

TEST(SchedulerAutoRepeat, AWideResultGoesOnWhileItHasTimeAndStopsAtTheCeiling) {
  std::vector<MeasurementStart> starts;
  // The median of 100, 200, 150 repeated is 150, and its interval narrows to it as the
  // samples grow: precise only after many repetitions.
  const std::vector<PlannedResult> plan{scripted({100, 200, 150}, starts)};
  Scheduler scheduler({Order::sequential, false, {}, 0, "scripted"}, nullptr, nullptr);
  std::vector<Result> results;
  scheduler.run(plan, automatic(0.03, 3600),
                [&](std::size_t, Result r) { results.push_back(std::move(r)); });
  ASSERT_EQ(results.size(), 1U);
  ASSERT_TRUE(results[0].auto_repeat.has_value());
  EXPECT_EQ(results[0].auto_repeat->stopped, RepeatStop::precision);
  EXPECT_GT(results[0].repeat, static_cast<int>(min_samples_for()));
  EXPECT_FALSE(results[0].missed_precision());

  // What --latency keeps bounds the repetitions: with room for no more than the least, a
  // result that never gets precise stops there, and says why.
  starts.clear();
  const std::vector<PlannedResult> wide{scripted({100, 200}, starts)};
  Scheduler bounded({Order::sequential, true, {0, 1ULL << 40}, 0, "scripted"}, nullptr, nullptr);
  results.clear();
  bounded.run(wide, automatic(0.03, 3600),
              [&](std::size_t, Result r) { results.push_back(std::move(r)); });
  ASSERT_EQ(results.size(), 1U);
  EXPECT_EQ(results[0].repeat, static_cast<int>(min_samples_for()));
  ASSERT_TRUE(results[0].auto_repeat.has_value());
  EXPECT_EQ(results[0].auto_repeat->stopped, RepeatStop::max_repetitions);
}

TEST(SchedulerAutoRepeat, AFixedCountRecordsNoGoal) {
  std::vector<MeasurementStart> starts;
  const std::vector<PlannedResult> plan{scripted({100, 200}, starts)};
  Scheduler scheduler({Order::sequential, false, {}, 0, "scripted"}, nullptr, nullptr);
  std::vector<Result> results;
  scheduler.run(plan, StopRule::of(Repeat::fixed(4), 0),
                [&](std::size_t, Result r) { results.push_back(std::move(r)); });
  ASSERT_EQ(results.size(), 1U);
  EXPECT_EQ(results[0].repeat, 4);
  EXPECT_FALSE(results[0].auto_repeat.has_value());
  EXPECT_FALSE(results[0].missed_precision());
}

}  // namespace scheduler_test
}  // namespace fdbench
