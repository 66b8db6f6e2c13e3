// tune's text says when the sweep overran its --budget, and by how much (issue 21 item 16:
// tune --budget 1 ran 21.6 s and said nothing of it). Hand-built reports: no sweep runs here.
#include <gtest/gtest.h>

#include <string>

#include "run/tune_sweep.hpp"

namespace fdbench {
namespace tune_text_test {

TuneReport report_of(double seconds, double budget) {
  TuneReport report;
  report.combinations = 24;
  report.rounds = 1;
  report.seconds = seconds;
  report.budget_seconds = budget;
  return report;
}

TEST(TuneText, AnOverrunBudgetIsSaidWithTheFigure) {
  const TuneReport over = report_of(21.6, 1);
  EXPECT_EQ(budget_overrun_text(over), "the sweep took 21.6 s, more than its --budget of 1 s");
  const std::string text = tune_text(over);
  EXPECT_NE(text.find("(the sweep took 21.6 s, more than its --budget of 1 s: every combination "
                      "runs one round at least"),
            std::string::npos)
      << text;
}

TEST(TuneText, ASweepWithinItsBudgetSaysNothingOfIt) {
  const TuneReport within = report_of(19.2, 20);
  EXPECT_EQ(budget_overrun_text(within), "");
  EXPECT_EQ(tune_text(within).find("--budget of"), std::string::npos) << tune_text(within);
}

}  // namespace tune_text_test
}  // namespace fdbench
