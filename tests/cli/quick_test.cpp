// fdbench --quick: the default suite cut to the fewest results that answer both seeds'
// questions. It says so above its tables, and its output ends on the Answers, one for each
// question (open's fastest way and knee, the pool's cost, the socket stall, the accept burst).
// No time is asserted: "about 10 s" is a goal on a quiet machine, not something a test can hold.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "platform/platform.hpp"
#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace quick_test {

TEST(Quick, AnswersBothSeedsAndSaysItMeasuredLess) {
  FastTempDir work;
  const auto run = run_fdbench({"--quick", "--quiet", "--dir", work.path()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("! --quick: fewer results"), std::string::npos) << run.out;
  const auto answers = run.out.rfind("\nAnswers for this machine\n");
  ASSERT_NE(answers, std::string::npos) << run.out;
  const auto lines = lines_of(run.out.substr(answers + 1));
  std::size_t items = 0;
  for (const auto& line : lines) {
    items += line.starts_with("- ");
    EXPECT_TRUE(line.starts_with("- ") || line.starts_with("  ") || line == lines.front()) << line;
  }
  // The stall's two questions need the table's size, which the portable build (macOS, the
  // BSDs) cannot see: there the open questions alone are answered.
  const std::size_t questions = platform::fd_table_size() ? 4U : 2U;
  EXPECT_EQ(items, questions) << run.out.substr(answers);
  // Fewer results than the full suite's 50: open's 12, socket's 2, accept's 2.
  const auto json = run_fdbench(
      {"--quick", "--quiet", "--dir", work.path(), "--format", "json", "--budget", "1"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto results = nlohmann::json::parse(json.out).at("results").size();
  EXPECT_LE(results, 16U);
}

}  // namespace quick_test
}  // namespace fdbench::testing
