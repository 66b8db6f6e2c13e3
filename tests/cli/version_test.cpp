#include <gtest/gtest.h>

#include <cstdio>
#include <string>

TEST(Cli, VersionPrintsNameAndVersion) {
  FILE* p = popen(FDBENCH_BINARY " --version", "r");
  ASSERT_NE(p, nullptr);
  char buf[128] = {};
  const size_t n = fread(buf, 1, sizeof buf - 1, p);
  EXPECT_EQ(pclose(p), 0);
  EXPECT_EQ(std::string(buf, n).rfind("fdbench ", 0), 0U);
}
