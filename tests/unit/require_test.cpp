// FDBENCH_TEST_REQUIRE (tests/support/require.hpp): what CI names must be features the tests
// know, and a required feature's skip is a failure.
#include "support/require.hpp"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

namespace fdbench {
namespace require_test {

// Sets FDBENCH_TEST_REQUIRE for one test and puts back what was there.
class RequireVariable : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* value = std::getenv("FDBENCH_TEST_REQUIRE")) saved_ = value;
  }
  void TearDown() override {
    if (saved_) {
      setenv("FDBENCH_TEST_REQUIRE", saved_->c_str(), 1);
    } else {
      unsetenv("FDBENCH_TEST_REQUIRE");
    }
  }
  std::optional<std::string> saved_;
};

void skip_without_uring() {
  FDBENCH_SKIP_WITHOUT("uring") << "probe said no";
}

TEST(RequiredFeatures, AreAllKnown) {
  for (const auto& name : testing::required_features()) {
    EXPECT_NE(std::find(testing::kFeatures.begin(), testing::kFeatures.end(), name),
              testing::kFeatures.end())
        << "FDBENCH_TEST_REQUIRE names '" << name << "', which no test skips for";
  }
}

TEST(RequiredFeatures, StrategiesNeedTheirFamily) {
  EXPECT_EQ(testing::strategy_feature("uring-direct"), "uring");
  EXPECT_EQ(testing::strategy_feature("uring"), "uring");
  EXPECT_EQ(testing::strategy_feature("libuv"), "libuv");
}

TEST_F(RequireVariable, ARequiredFeatureFailsWhereItWouldSkip) {
  setenv("FDBENCH_TEST_REQUIRE", "libuv,uring", 1);
  EXPECT_FATAL_FAILURE(skip_without_uring(),
                       "uring, which FDBENCH_TEST_REQUIRE requires, is "
                       "unavailable:\nprobe said no");
}

TEST_F(RequireVariable, NamesAreMatchedWhole) {
  setenv("FDBENCH_TEST_REQUIRE", "uring-direct,,xuring", 1);
  EXPECT_FALSE(testing::is_required("uring"));
  setenv("FDBENCH_TEST_REQUIRE", "uring", 1);
  EXPECT_TRUE(testing::is_required("uring"));
  EXPECT_EQ(testing::skip_kind("uring"), ::testing::TestPartResult::kFatalFailure);
  unsetenv("FDBENCH_TEST_REQUIRE");
  EXPECT_EQ(testing::skip_kind("uring"), ::testing::TestPartResult::kSkip);
  EXPECT_EQ(testing::skip_kind("no-such-feature"), ::testing::TestPartResult::kFatalFailure)
      << "a skip for a feature nobody listed is a mistake in the test";
}

}  // namespace require_test
}  // namespace fdbench
