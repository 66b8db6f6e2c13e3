// bench/performance checks its arguments before it builds or measures anything: --help and
// every usage error return at once (exit 0, or exit 2 with "Error: ..."), so these tests take
// milliseconds and never start a measurement. Its results are never asserted here.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace bench_script_test {

struct ScriptRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// The script in the source tree this test was built from: bench/performance.
std::string script() {
  return FDBENCH_BENCH_SCRIPT;  // set by tests/CMakeLists.txt: __FILE__ may be relative
}

ScriptRun run_script(const std::string& args) {
  const TempDir capture;
  const std::string command =
      script() + " " + args + " </dev/null >" + (capture / "out") + " 2>" + (capture / "err");
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(capture / "out"),
          read_text(capture / "err")};
}

void expect_usage_error(const std::string& args, const std::string& cause) {
  const ScriptRun run = run_script(args);
  EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.err;
  EXPECT_EQ(run.err.rfind("Error: ", 0), 0U) << run.err;
  EXPECT_NE(run.err.find(cause), std::string::npos) << "lacks '" << cause << "': " << run.err;
  EXPECT_EQ(run.err.find("building"), std::string::npos) << "built before checking: " << run.err;
}

TEST(BenchScript, Exists) {
  ASSERT_TRUE(std::filesystem::exists(script())) << script();
}

TEST(BenchScript, HelpNamesEveryOption) {
  const ScriptRun run = run_script("--help");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.rfind("Usage: bench/performance", 0), 0U) << run.out;
  for (const char* option : {"--quick", "--dir", "--rounds", "--help"}) {
    EXPECT_NE(run.out.find(option), std::string::npos) << option;
  }
  EXPECT_TRUE(run.err.empty()) << run.err;
}

TEST(BenchScript, UnknownArgument) {
  expect_usage_error("--bogus", "unknown argument '--bogus'");
}

TEST(BenchScript, RoundsMustBeAWholeNumber) {
  expect_usage_error("--rounds 0", "--rounds must be a whole number");
  expect_usage_error("--rounds x", "--rounds must be a whole number");
  expect_usage_error("--rounds", "--rounds needs a number");
}

TEST(BenchScript, DirMustBeAWritableDirectory) {
  const TempDir scratch;
  expect_usage_error("--dir " + (scratch / "missing"), "is not a directory");
  expect_usage_error("--dir", "--dir needs a directory");
}

}  // namespace bench_script_test
}  // namespace fdbench::testing
