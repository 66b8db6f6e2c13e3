// Every command's --help, as its option table makes it: each option that takes a value names
// what the value is (N, LIST, FILE, ...), never CLI11's generic TEXT, and shows the default
// the options struct holds where it has one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace help_test {

const std::vector<std::vector<std::string>> kHelps = {
    {"--help"},          {"open", "--help"},   {"socket", "--help"},
    {"clean", "--help"}, {"env", "--help"},    {"compare", "--help"},
    {"tune", "--help"},  {"report", "--help"}, {"completion", "--help"}};

TEST(Help, EveryValueIsNamed) {
  for (const auto& args : kHelps) {
    SCOPED_TRACE(args.front());
    const auto run = run_fdbench(args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.out.find("Options:"), std::string::npos) << run.out;
    for (const auto& line : lines_of(run.out)) {
      EXPECT_EQ(line.find(" TEXT"), std::string::npos) << line;
    }
  }
}

// The defaults --help shows are OpenOptions' and SocketOptions' own, written as flags.
TEST(Help, ShowsTheOptionsStructsDefaults) {
  const auto open = run_fdbench({"open", "--help"});
  ASSERT_EQ(open.exit_code, 0) << open.err;
  EXPECT_NE(open.out.find("N=10000 "), std::string::npos) << open.out;            // --files
  EXPECT_NE(open.out.find("LIST=1,2,4,8,16 "), std::string::npos) << open.out;    // --threads
  EXPECT_NE(open.out.find("LIST=off "), std::string::npos) << open.out;           // --pregrow
  EXPECT_NE(open.out.find("ORDER=interleaved "), std::string::npos) << open.out;  // --order
  const auto socket = run_fdbench({"socket", "--help"});
  ASSERT_EQ(socket.exit_code, 0) << socket.err;
  EXPECT_NE(socket.out.find("LIST=off,auto "), std::string::npos) << socket.out;  // --pregrow
  EXPECT_NE(socket.out.find("N=256 "), std::string::npos) << socket.out;          // --per-thread
}

}  // namespace help_test
}  // namespace fdbench::testing
