// What cannot run is refused early (issue 34, item 7): a command none of whose strategy x
// harness pairs can run here (a workload a strategy has no call for, a harness it lacks, io_uring
// absent) is a usage error in one line, exit 2, before any file is made or child started; one
// where only some cannot runs the others and names those first. (A run where every result still
// came out unavailable or failed exits 1: process_limit_test.cpp and errors_test.cpp.)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/strategy.hpp"
#include "platform/platform.hpp"
#include "support/error_line.hpp"
#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace unrunnable_test {

struct Refused {
  std::vector<std::string> args;
  std::vector<std::string> parts;  // the strategy, the cause, the fix
};

// Why `strategy` cannot run here at all ("built without libuv"), or `otherwise`: what the
// refusal names first.
std::string unless_unavailable(const char* strategy, std::string otherwise) {
  const std::string why = find_strategy(strategy)->unavailable_reason();
  return why.empty() ? otherwise : why;
}

TEST(Unrunnable, NothingThatCanRunIsRefusedBeforeAnythingIsMade) {
  const std::vector<Refused> cases{
      // The first seed's harness exists for threads and pool: 10,000 files were made for none.
      {{"open", "--harness", "published", "--strategy", "uring"},
       {"fdbench open: ", "uring (--harness published): ",
        unless_unavailable("uring", "the published harness exists for"),
        "choose --strategy threads,pool"}},
      {{"open", "--harness", "published", "--strategy", "fast-pool,process", "--files", "100"},
       {"fast-pool, process (--harness published): the published harness exists for",
        "choose --strategy threads,pool"}},
      // libuv opens files; it has no call that makes a socket.
      {{"socket", "--strategy", "libuv"},
       {"fdbench socket: ", "libuv: ", unless_unavailable("libuv", "libuv opens files only"),
        "choose --strategy threads,"}},
      // io_uring has no operation that makes an eventfd or a pipe.
      {{"socket", "--kind", "pipe", "--strategy", "uring,uring-direct"},
       {"uring", "uring-direct", "choose --strategy threads,"}},
      {{"socket", "--harness", "published", "--strategy", "process"},
       {"process (--harness published)", "choose --strategy threads"}},
  };
  for (const auto& [args, parts] : cases) {
    SCOPED_TRACE(describe(args));
    FastTempDir dir;
    std::vector<std::string> in_dir = args;
    if (args[0] == "open") in_dir.insert(in_dir.end(), {"--dir", dir.path()});
    RunOptions options = as_a_job();
    FdbenchProcess child(in_dir, options);
    const RunResult run = child.wait();
    EXPECT_EQ(run.exit_code, 2) << run.err;
    expect_one_error_line(run.err, parts);
    EXPECT_EQ(run.out, "");
    EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{}) << "a file set was made";
    EXPECT_EQ(child.events(""), 0U) << "the run started";
    const auto left = child.leftovers();
    EXPECT_EQ(left.running + left.orphans, 0);
  }
}

// The README's own example: uring-direct cannot make eventfds, threads and process can. The run
// goes on, says first which rows will be unavailable and why, and exits 0.
TEST(Unrunnable, SomeThatCannotRunAreNamedFirstAndTheOthersRun) {
  if (!platform::has_eventfd()) GTEST_SKIP() << "no eventfd on this system";
  const RunResult run =
      run_fdbench({"socket", "--kind", "eventfd", "--strategy", "threads,process,uring-direct",
                   "--per-thread", "16", "--repeat", "2", "--pregrow", "off", "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string first_line = run.err.substr(0, run.err.find('\n'));
  EXPECT_EQ(first_line.rfind("fdbench socket: will be unavailable here (their rows say why): "
                             "uring-direct: ",
                             0),
            0U)
      << run.err;
  EXPECT_EQ(first_line.find("threads"), std::string::npos) << first_line;
  EXPECT_EQ(first_line.find("process"), std::string::npos) << first_line;
  const auto doc = nlohmann::json::parse(run.out);
  ASSERT_EQ(doc.at("results").size(), 3U);
  for (const auto& r : doc.at("results")) {
    SCOPED_TRACE(r.dump());
    EXPECT_EQ(r.at("status"), r.at("strategy") == "uring-direct" ? "unavailable" : "measured");
  }
  EXPECT_EQ(run.err.find("nothing was measured"), std::string::npos) << run.err;
}

// Everything that can run says nothing up front.
TEST(Unrunnable, ARunWhereEverythingCanRunSaysNothingOfIt) {
  const RunResult run =
      run_fdbench({"socket", "--strategy", "threads,process", "--per-thread", "16", "--repeat", "2",
                   "--pregrow", "off", "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.find("unavailable"), std::string::npos) << run.err;
}

}  // namespace unrunnable_test
}  // namespace fdbench::testing
