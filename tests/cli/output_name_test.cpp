// --output FILE named .json, .csv, .md or .html writes that format when --format is not given,
// and a --format that disagrees with such a name is refused (exit 2) before anything runs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace output_name_test {

std::vector<std::string> short_socket(const std::string& output) {
  return {"socket", "--threads", "1", "--per-thread", "16",       "--pregrow", "off", "--repeat",
          "2",      "--warmup",  "0", "--quiet",      "--output", output};
}

TEST(OutputName, ItsExtensionChoosesTheFormat) {
  TempDir dir;
  const auto json = run_fdbench(short_socket(dir / "out.json"));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(nlohmann::json::accept(read_text(dir / "out.json")));
  const auto csv = run_fdbench(short_socket(dir / "out.csv"));
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(read_text(dir / "out.csv").rfind("workload,", 0), 0U) << read_text(dir / "out.csv");
  const auto html = run_fdbench(short_socket(dir / "out.html"));
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_EQ(read_text(dir / "out.html").rfind("<!DOCTYPE html>", 0), 0U);
  // Any other name: the table, as before.
  const auto text = run_fdbench(short_socket(dir / "out.txt"));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(read_text(dir / "out.txt").find("threads"), std::string::npos);
}

TEST(OutputName, AFormatThatDisagreesIsRefused) {
  TempDir dir;
  auto args = short_socket(dir / "out.json");
  args.insert(args.end(), {"--format", "csv"});
  const auto run = run_fdbench(args);
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(lines_of(run.err).size(), 1U) << run.err;
  EXPECT_NE(run.err.find("disagree"), std::string::npos) << run.err;
  EXPECT_FALSE(exists(dir / "out.json"));
  // Agreeing is fine.
  args.back() = "json";
  EXPECT_EQ(run_fdbench(args).exit_code, 0);
}

}  // namespace output_name_test
}  // namespace fdbench::testing
