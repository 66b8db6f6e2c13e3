// --export-json/--export-csv/--export-markdown: each file holds the run so far while it runs,
// all formats combine in one run, an interrupted run leaves every file with the results it
// finished (JSON says complete: false), and no temporary file is ever left beside them. An
// output that cannot be written is said once and given up; the run and the others go on.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "model/results_json.hpp"
#include "output/reporter.hpp"
#include "support/contract.hpp"
#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"
#include "support/tmpfs.hpp"

namespace fdbench::testing {
namespace export_test {

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

class Exports : public ::testing::Test {
 protected:
  std::vector<std::string> args(const std::string& repeat) const {
    return {
        "open",         "--files",       "20",   "--threads",    "1,2,4",     "--strategy",
        "threads,pool", "--repeat",      repeat, "--warmup",     "0",         "--dir",
        work_.path(),   "--export-json", json_,  "--export-csv", csv_,        "--export-markdown",
        markdown_,      "--format",      "json", "--order",      "sequential"};
  }
  // The three files agree with each other and with the results in the JSON one.
  void expect_consistent(bool complete) const {
    const auto doc = nlohmann::json::parse(read_text(json_));
    expect_document_contract(doc);
    EXPECT_EQ(doc.at("complete"), complete);
    const std::size_t n = doc.at("results").size();
    EXPECT_GE(n, 1U);
    EXPECT_EQ(parse_results_json(read_text(json_)).results.size(), n);  // fdbench reads it back
    const std::string csv = read_text(csv_);
    ASSERT_FALSE(csv.empty());
    EXPECT_EQ(csv.back(), '\n') << "the last line is cut";
    const auto rows = lines_of(csv);
    ASSERT_EQ(rows.size(), n + 1) << csv;
    EXPECT_EQ(rows[0], csv_header());
    const std::string markdown = read_text(markdown_);
    EXPECT_EQ(count_of(markdown, "\n| threads | ") + count_of(markdown, "\n| pool | "), n)
        << markdown;
    EXPECT_EQ(markdown.find("before the stop") != std::string::npos,
              !complete && markdown.find("## Findings") != std::string::npos);
  }
  void TearDown() override {
    auto names = list_names(out_.path());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"run.csv", "run.json", "run.md"}))
        << "a temporary file was left beside the exports";
  }

  FastTempDir work_;
  TempDir out_;
  const std::string json_ = out_ / "run.json";
  const std::string csv_ = out_ / "run.csv";
  const std::string markdown_ = out_ / "run.md";
};

TEST_F(Exports, AFinishedRunWritesEveryFormatCompleteAndStdoutToo) {
  FdbenchProcess child(args("2"));
  const RunResult run = child.wait();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_consistent(true);
  EXPECT_EQ(nlohmann::json::parse(run.out).at("results").size(), 6U);
  EXPECT_EQ(nlohmann::json::parse(read_text(json_)).at("results").size(), 6U);
  for (const auto& file : {json_, csv_, markdown_}) {
    EXPECT_NE(run.err.find("wrote " + file + " (6 results)"), std::string::npos) << run.err;
  }
}

TEST_F(Exports, TheFilesHoldEachFinishedResultDuringTheRunAndAfterAnInterrupt) {
  // Enough repetitions that the run is still going when the first result lands (one result
  // after the other: interleaved, every result lands at the end).
  FdbenchProcess child(args("3000"));
  ASSERT_TRUE(wait_until([&] { return exists(json_); }, std::chrono::seconds(120)))
      << "no result was exported";
  // Written atomically: whatever is there now is a whole document of finished results.
  const auto during = nlohmann::json::parse(read_text(json_));
  EXPECT_EQ(during.at("complete"), false);
  EXPECT_GE(during.at("results").size(), 1U);
  child.signal(SIGTERM);
  const RunResult run = child.wait();
  EXPECT_EQ(run.exit_code, 128 + SIGTERM) << run.err;
  expect_consistent(false);
  const auto after = nlohmann::json::parse(read_text(json_));
  EXPECT_GE(after.at("results").size(), during.at("results").size());
  EXPECT_LT(after.at("results").size(), 6U) << "the run finished before the signal";
  EXPECT_EQ(nlohmann::json::parse(run.out).at("results"), after.at("results"));
}

TEST(ExportErrors, AnExportThatCannotBeWrittenIsSaidInOneLine) {
  // The directory goes away after parsing accepted it: the first write fails.
  FastTempDir work;
  TempDir out;
  const std::string sub = out / "gone";
  ASSERT_EQ(mkdir(sub.c_str(), 0755), 0);
  FdbenchProcess child({"open", "--files", "20000", "--threads", "1", "--strategy", "threads",
                        "--repeat", "1", "--warmup", "0", "--dir", work.path(), "--export-json",
                        sub + "/run.json"});
  ASSERT_TRUE(wait_until([&] { return !private_dirs(work.path()).empty(); }));
  ASSERT_EQ(rmdir(sub.c_str()), 0);
  const RunResult run = child.wait();
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("Error: cannot write --export-json " + sub + "/run.json"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(count_of(run.err, "Error:"), 1U) << run.err;
}

// A full disk under one output (issue 21, item 8): that output is given up and said once, in
// one line naming it and the errno's text; the measurement, stdout and the other outputs go on
// to the end; the exit code says an output failed (1). Nothing is left on the full disk.
TEST(ExportErrors, AFullDiskUnderOneOutputLeavesTheRunAndTheOtherOutputsWhole) {
  const Tmpfs full("size=64k");
  if (!full.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (not root?)";
  {  // fill it up
    const int fd = open((full.path() + "/filler").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    const std::string block(4096, 'x');
    while (write(fd, block.data(), block.size()) > 0) {
    }
    close(fd);
  }
  FastTempDir work;
  TempDir out;
  struct Case {
    std::string flag;
    std::string file;
    std::vector<std::string> extra;  // what makes the output large
  };
  // --trace-out: 4 results of 10,000 files, rows written a megabyte at a time while it runs.
  const std::vector<Case> cases{{"--export-html", "run.html", {"--files", "20"}},
                                {"--trace-out", "trace.csv", {"--files", "10000"}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.flag);
    const std::string failing = full.path() + "/" + c.file;
    std::vector<std::string> args{"open",
                                  "--threads",
                                  "1,2",
                                  "--strategy",
                                  "threads,fast-pool",
                                  "--repeat",
                                  "2",
                                  "--warmup",
                                  "0",
                                  "--order",
                                  "sequential",
                                  "--dir",
                                  work.path(),
                                  "--format",
                                  "json",
                                  c.flag,
                                  failing,
                                  "--export-csv",
                                  out / "run.csv"};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const RunResult run = run_fdbench(args);
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_EQ(count_of(run.err, "Error:"), 1U) << run.err;
    EXPECT_NE(run.err.find("Error: cannot write " + c.flag + " " + failing +
                           ": No space left on device\n"),
              std::string::npos)
        << run.err;
    // The measurement went on to the end, and stdout and the CSV have every result.
    const auto doc = nlohmann::json::parse(run.out);
    EXPECT_EQ(doc.at("complete"), true);
    ASSERT_EQ(doc.at("results").size(), 4U);
    for (const auto& result : doc.at("results")) EXPECT_EQ(result.at("status"), "measured");
    EXPECT_EQ(lines_of(read_text(out / "run.csv")).size(), 5U);
    EXPECT_NE(run.err.find("wrote " + out / "run.csv" + " (4 results)"), std::string::npos)
        << run.err;
    EXPECT_EQ(list_names(full.path()), std::vector<std::string>{"filler"});
    EXPECT_EQ(list_names(out.path()), std::vector<std::string>{"run.csv"});
    EXPECT_EQ(private_dirs(work.path()), std::vector<std::string>{});
  }
}

}  // namespace export_test
}  // namespace fdbench::testing
