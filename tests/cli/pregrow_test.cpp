// fdbench pregrow N -- CMD and the standalone fdbench-pregrow: the program they run starts with
// the grown table (exec keeps an unshared table's size), its arguments and descriptors as they
// were; a command missing or not executable exits 127 or 126 as a shell does; a bad N or one
// above ulimit -n is refused with exit 2.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "platform/platform.hpp"
#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace pregrow_test {

// The launcher's command line: fdbench's subcommand, or the standalone program's.
struct Launcher {
  const char* name;
  std::vector<std::string> prefix;
  std::string program;
};

void PrintTo(const Launcher& launcher, std::ostream* out) {
  *out << launcher.name;
}

std::vector<Launcher> launchers() {
  return {{"fdbench", {"pregrow"}, ""}, {"fdbench-pregrow", {}, FDBENCH_PREGROW_BINARY}};
}

RunResult launch(const Launcher& launcher, std::vector<std::string> args, rlim_t nofile = 8192) {
  std::vector<std::string> line = launcher.prefix;
  line.insert(line.end(), args.begin(), args.end());
  RunOptions options;
  options.program = launcher.program;
  options.nofile = nofile;
  return run_fdbench(line, options);
}

const char* const kFdSize = "grep FDSize /proc/$$/status";

class Launchers : public ::testing::TestWithParam<Launcher> {};

TEST_P(Launchers, TheProgramStartsWithTheGrownTable) {
  if (!platform::uses_linux_interfaces()) GTEST_SKIP() << "no FDSize to read here";
  const RunResult run = launch(GetParam(), {"4096", "--", "sh", "-c", kFdSize});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "FDSize:\t4096\n");
}

TEST_P(Launchers, RoundsUpAsTheKernelDoes) {
  if (!platform::uses_linux_interfaces()) GTEST_SKIP() << "no FDSize to read here";
  const RunResult run = launch(GetParam(), {"3000", "--", "sh", "-c", kFdSize});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "FDSize:\t4096\n");
}

TEST_P(Launchers, PassesArgumentsAndTheExitStatusThrough) {
  const RunResult run =
      launch(GetParam(), {"256", "--", "sh", "-c", "echo \"$1\"; exit 7", "sh", "two words"});
  EXPECT_EQ(run.exit_code, 7) << run.err;
  EXPECT_EQ(run.out, "two words\n");
}

TEST_P(Launchers, AMissingCommandExits127) {
  const RunResult run = launch(GetParam(), {"256", "--", "fdbench-no-such-command-here"});
  EXPECT_EQ(run.exit_code, 127);
  EXPECT_NE(run.err.find("fdbench-no-such-command-here: command not found"), std::string::npos)
      << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
}

TEST_P(Launchers, ACommandThatCannotRunExits126) {
  TempDir dir;
  const std::string script = dir.path() + "/not-executable";
  std::ofstream(script) << "#!/bin/sh\necho ran\n";
  chmod(script.c_str(), 0644);
  const RunResult run = launch(GetParam(), {"256", "--", script});
  EXPECT_EQ(run.exit_code, 126) << run.err;
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("not-executable"), std::string::npos) << run.err;
}

TEST_P(Launchers, RefusesABadSize) {
  for (const char* bad : {"0", "-5", "lots", "4096x"}) {
    const RunResult run = launch(GetParam(), {bad, "--", "true"});
    EXPECT_EQ(run.exit_code, 2) << bad << ": " << run.err;
  }
}

TEST_P(Launchers, RefusesASizeAboveTheLimitNamingBoth) {
  const RunResult run = launch(GetParam(), {"5000", "--", "true"}, 1024);
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("5000"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("1024"), std::string::npos) << run.err;
}

std::string launcher_name(const ::testing::TestParamInfo<Launcher>& param) {
  return param.param.program.empty() ? "Subcommand" : "Standalone";
}

INSTANTIATE_TEST_SUITE_P(Both, Launchers, ::testing::ValuesIn(launchers()), launcher_name);

// The descriptors the program gets are the caller's, no more: fdbench's own are close-on-exec.
TEST(PregrowCommand, HandsOnTheCallersDescriptorsAndNoneOfItsOwn) {
  if (!platform::uses_linux_interfaces()) GTEST_SKIP() << "no /proc/self/fd here";
  RunOptions options;
  options.nofile = 8192;
  const RunResult launched = run_fdbench({"pregrow", "4096", "--", "ls", "/proc/self/fd"}, options);
  ASSERT_EQ(launched.exit_code, 0) << launched.err;
  options.program = "/bin/ls";
  const RunResult plain = run_fdbench({"/proc/self/fd"}, options);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(launched.out, plain.out);
}

}  // namespace pregrow_test
}  // namespace fdbench::testing
