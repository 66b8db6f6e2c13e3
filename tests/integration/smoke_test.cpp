#include <gtest/gtest.h>

#include "fdbench/platform.hpp"

TEST(Platform, ListsStandardDescriptors) {
  const auto fds = fdbench::platform::open_descriptors();
  ASSERT_FALSE(fds.empty());
  EXPECT_EQ(fds.front(), 0);
}
