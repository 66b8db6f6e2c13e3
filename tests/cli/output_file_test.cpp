// --output FILE is never left half-written: an existing FILE is replaced only by a complete
// document (complete: false after a runtime error or a signal), stays as it was when nothing
// ran or fdbench was killed outright, and no temporary file is ever left beside it.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "model/results_json.hpp"
#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace output_file_test {

constexpr const char* kOld = "{\"the previous results\": true}\n";

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override { write_text(output_, kOld); }
  void TearDown() override {
    EXPECT_EQ(list_names(dir_.path()), std::vector<std::string>{"results.json"})
        << "something beside the output file (a temporary?) was left";
  }
  TempDir dir_;
  const std::string output_ = dir_ / "results.json";
  FastTempDir work_;
};

TEST_F(OutputFile, RuntimeErrorStillReplacesItWithACompleteDocument) {
  RunOptions limited = as_a_job();
  limited.nofile = 256;  // --keep-open with 1,000 files cannot run under this hard limit
  limited.timeout = std::chrono::seconds(30);
  FdbenchProcess child({"open", "--keep-open", "--files", "1000", "--threads", "1", "--repeat", "1",
                        "--dir", work_.path(), "--format", "json", "--output", output_},
                       limited);
  const RunResult run = child.wait();
  EXPECT_EQ(run.exit_code, 1) << run.err;
  // Its one Error line (a build without io_uring first says which rows will be unavailable).
  EXPECT_NE(run.err.find("Error: needs "), std::string::npos) << run.err;
  const auto doc = nlohmann::json::parse(read_text(output_));
  EXPECT_EQ(doc.at("schema_version"), kSchemaVersion);
  EXPECT_EQ(doc.at("complete"), false);
  EXPECT_TRUE(doc.at("results").is_array());
}

TEST_F(OutputFile, UsageErrorLeavesItAsItWas) {
  FdbenchProcess child({"open", "--files", "0", "--format", "json", "--output", output_},
                       as_a_job());
  const RunResult run = child.wait();
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(read_text(output_), kOld);
}

TEST_F(OutputFile, SigkillLeavesItAsItWas) {
  FdbenchProcess child(
      {"open", "--files", "50", "--threads", "1", "--strategy", "threads", "--repeat", "100000",
       "--warmup", "0", "--dir", work_.path(), "--format", "json", "--output", output_},
      as_a_job());
  ASSERT_TRUE(wait_until([&] { return !private_dirs(work_.path()).empty(); }));
  child.signal(SIGKILL, true);
  EXPECT_EQ(child.wait().exit_code, 128 + SIGKILL);
  EXPECT_EQ(read_text(output_), kOld);
}

// Under a file-size limit (ulimit -f) an output that outgrows it is an error in one line, not
// death by SIGXFSZ: exit 1, the old file as it was, no temporary file, no private set left.
TEST_F(OutputFile, AFileSizeLimitIsAnErrorThatCleansUp) {
  RunOptions limited = as_a_job();
  limited.program = "/bin/sh";
  // 4 blocks (2 KiB in dash's 512-byte blocks, 4 KiB in bash's): far below one document.
  FdbenchProcess child({"-c", "ulimit -f 4 && exec \"$0\" \"$@\"", fdbench_binary(), "open",
                        "--files", "50", "--threads", "1", "--strategy", "threads", "--repeat", "2",
                        "--dir", work_.path(), "--format", "json", "--output", output_},
                       limited);
  const RunResult run = child.wait();
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("cannot write --output " + output_ + ": File too large"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(read_text(output_), kOld);
  EXPECT_EQ(private_dirs(work_.path()), std::vector<std::string>{});
}

TEST_F(OutputFile, InterruptReplacesItWithACompleteDocument) {
  for (const char* format : {"json", "csv", "table"}) {
    SCOPED_TRACE(format);
    // A name of the format's own: a .json name with another --format is refused.
    const bool json = std::string(format) == "json";
    const std::string output = json ? output_ : dir_ / "results";
    write_text(output, kOld);
    FdbenchProcess child(
        {"open", "--files", "50", "--threads", "1", "--strategy", "threads", "--repeat", "100000",
         "--warmup", "0", "--dir", work_.path(), "--format", format, "--output", output},
        as_a_job());
    ASSERT_TRUE(wait_until([&] { return !private_dirs(work_.path()).empty(); }));
    child.signal(SIGTERM, false);
    const RunResult run = child.wait();
    EXPECT_EQ(run.exit_code, 128 + SIGTERM) << run.err;
    const std::string text = read_text(output);
    EXPECT_NE(text, kOld);
    if (json) {
      EXPECT_EQ(nlohmann::json::parse(text).at("complete"), false);
    } else {
      EXPECT_FALSE(text.empty());
      EXPECT_EQ(text.back(), '\n') << "the last line is cut";
      std::filesystem::remove(output);
    }
  }
}

}  // namespace output_file_test
}  // namespace fdbench::testing
