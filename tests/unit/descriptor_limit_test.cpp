// The descriptor budget's arithmetic: a new descriptor takes the lowest free number, so the
// limit a run needs is where its last new descriptor lands beside those held, not the highest
// held plus everything (issue 21 item 9: an inherited fd 251 made fdbench ask for 268 and
// refuse `open --files 10` under a hard limit of 256).
#include <gtest/gtest.h>

#include <vector>

#include "engine/descriptor_budget.hpp"

namespace fdbench {
namespace descriptor_limit_test {

TEST(DescriptorLimit, NewDescriptorsFillTheLowestFreeNumbers) {
  EXPECT_EQ(limit_for(std::vector<int>{}, 0), 0U);
  EXPECT_EQ(limit_for(std::vector<int>{}, 5), 5U);           // 0..4
  EXPECT_EQ(limit_for(std::vector<int>{0, 1, 2}, 20), 23U);  // 3..22
  // A high descriptor held (a shell's 255, inherited) costs one number, not 256.
  EXPECT_EQ(limit_for(std::vector<int>{0, 1, 2, 255}, 20), 23U);
  EXPECT_EQ(limit_for(std::vector<int>{0, 1, 2, 251}, 10 + kOwnDescriptors), 29U);
  // Held numbers among the free ones push the last one up, one each.
  EXPECT_EQ(limit_for(std::vector<int>{0, 1, 2, 5, 22}, 20), 25U);  // 3,4,6..21,23,24
  EXPECT_EQ(limit_for(std::vector<int>{3, 4}, 3), 3U);              // 0,1,2
  EXPECT_EQ(limit_for(std::vector<int>{3, 4}, 4), 6U);              // 0,1,2,5
  EXPECT_EQ(limit_for(std::vector<int>{0, 1, 2}, 0), 0U);           // nothing new
}

TEST(DescriptorLimit, TheBudgetNeedsRoomForEveryonesNewDescriptorsAndThePregrow) {
  DescriptorBudget budget;
  budget.held = {0, 1, 2, 251};
  budget.strategy = 64;
  budget.workload = 100;
  EXPECT_EQ(budget.own(), 4 + kOwnDescriptors);
  EXPECT_EQ(budget.needed(), 3 + 64 + 100 + kOwnDescriptors);
  budget.pregrow_fd = 4096;  // --pregrow 4095
  EXPECT_EQ(budget.needed(), 4096 + kOwnDescriptors);
}

}  // namespace descriptor_limit_test
}  // namespace fdbench
