// A machine-wide setting that changes while results are measured (another program writes
// /sys/kernel/rcu_expedited): the Scheduler asks after every repetition
// (SchedulerSettings::changed_setting), and each result that had a repetition after the change
// carries the warning, once; a result finished before it does not. Scripted measurements and a
// scripted setting: nothing on the machine is changed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "run/scheduler.hpp"
#include "support/scripted_measurement.hpp"

namespace fdbench {
namespace scheduler_setting_test {

using testing::scripted;

constexpr std::int64_t kMs = 1'000'000;

struct Measured {
  std::vector<Result> results;  // in the plan's order
  int asked = 0;                // how often the Scheduler asked about the setting
};

// Measures `results` scripted results of `repeat` repetitions each, in `order`; the setting
// reads as changed from the `changed_from`-th question on (1-based; 0: never).
Measured measure(std::size_t results, int repeat, Order order, int changed_from) {
  std::vector<MeasurementStart> starts;
  std::vector<PlannedResult> plan;
  for (std::size_t i = 0; i < results; ++i) {
    plan.push_back(scripted({kMs}, starts, nullptr, "scripted " + std::to_string(i)));
  }
  Measured run;
  SchedulerSettings settings{order, false, {}, 0, "scripted"};
  settings.changed_setting = [&run, changed_from]() -> std::string {
    ++run.asked;
    return changed_from > 0 && run.asked >= changed_from ? "rcu_expedited changed" : "";
  };
  Scheduler scheduler(settings, nullptr, nullptr);
  scheduler.run(plan, StopRule{repeat, 0},
                [&](std::size_t, Result r) { run.results.push_back(std::move(r)); });
  return run;
}

long warnings_about_the_setting(const Result& r) {
  return std::count_if(r.warnings.begin(), r.warnings.end(), [](const Warning& w) {
    return w.kind == WarningKind::setting_changed && w.text == "rcu_expedited changed";
  });
}

TEST(SchedulerSetting, AskedAfterEveryRepetitionAndNothingSaidWhileItHolds) {
  const Measured run = measure(2, 5, Order::interleaved, 0);
  EXPECT_EQ(run.asked, 10);
  ASSERT_EQ(run.results.size(), 2U);
  for (const auto& r : run.results) EXPECT_TRUE(r.warnings.empty()) << r.warnings.front().text;
}

TEST(SchedulerSetting, EveryResultMeasuredAfterTheChangeSaysSoOnce) {
  // Interleaved, both results have repetitions after the 3rd question: both are warned, once
  // each however many repetitions followed.
  const Measured run = measure(2, 5, Order::interleaved, 3);
  ASSERT_EQ(run.results.size(), 2U);
  for (const auto& r : run.results) EXPECT_EQ(warnings_about_the_setting(r), 1);
}

TEST(SchedulerSetting, AResultFinishedBeforeTheChangeIsNotWarned) {
  // One after another: the first result's 5 repetitions end before the 6th question.
  const Measured run = measure(2, 5, Order::sequential, 6);
  ASSERT_EQ(run.results.size(), 2U);
  EXPECT_EQ(warnings_about_the_setting(run.results[0]), 0);
  EXPECT_EQ(warnings_about_the_setting(run.results[1]), 1);
}

}  // namespace scheduler_setting_test
}  // namespace fdbench
