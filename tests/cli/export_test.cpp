// --export-json/--export-csv/--export-markdown: each file holds the run so far while it runs,
// all formats combine in one run, an interrupted run leaves every file with the results it
// finished (JSON says complete: false), and no temporary file is ever left beside them.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "output/reporter.hpp"
#include "model/results_json.hpp"
#include "support/contract.hpp"
#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace {

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

TEST(ExportErrors, AnExportThatCannotBeWrittenStopsTheRunWithOneLine) {
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

}  // namespace
}  // namespace fdbench::testing
