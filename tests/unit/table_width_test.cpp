// The table at a glance: every line of a whole run's table fits 100 columns, a row is one line
// unless something about it matters, and --details brings back each row's small print. Drawn
// from the recorded runs in tests/fixtures/runs (the default suite on a busy VM among them).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "model/format.hpp"
#include "model/results_json.hpp"
#include "output/reporter.hpp"

namespace table_width_test {

// A recorded run's table as fdbench prints it: a section wherever the workload changes.
std::string table_of(const fdbench::ResultsDocument& doc, bool details) {
  std::ostringstream out;
  auto table = fdbench::make_reporter("table", out, {.details = details});
  table->begin(doc.environment);
  std::string workload;
  for (const auto& r : doc.results) {
    if (r.workload != workload) {
      workload = r.workload;
      fdbench::Section section;
      section.workload = workload;
      section.per_thread = r.ops;
      section.held = r.holds_descriptors;
      table->section(section);
    }
    table->add(r);
  }
  table->end(doc.results, doc.findings, doc.complete);
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Lines that only --details prints under a row.
bool small_print(const std::string& line) {
  return line.starts_with("  per call: ") || line.starts_with("  per submission: ") ||
         line.starts_with("  while timed, per repetition: ") || line.starts_with("  kernel: ") ||
         line.starts_with("  ! page faults while timed");
}

std::vector<fdbench::ResultsDocument> recorded_runs() {
  std::vector<fdbench::ResultsDocument> docs;
  for (const auto& entry : std::filesystem::directory_iterator(FDBENCH_RUNS_DIR)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    docs.push_back(fdbench::parse_results_json(text.str()));
  }
  return docs;
}

TEST(TableWidth, EveryLineFitsAHundredColumnsAndRowsAreOneLineWithoutDetails) {
  int small = 0;
  for (const auto& doc : recorded_runs()) {
    for (const bool details : {false, true}) {
      const std::string text = table_of(doc, details);
      for (const auto& line : lines_of(text)) {
        EXPECT_LE(fdbench::display_width(line), 100U) << line;
        if (!details) {
          EXPECT_FALSE(small_print(line)) << line;
        } else if (small_print(line)) {
          ++small;
        }
      }
    }
  }
  EXPECT_GT(small, 0) << "--details brings back the rows' small print";
}

// The default suite's output ends on its Answers, one screen of them (a terminal's last
// screen is what a person reads first), every line within 100 columns.
TEST(TableWidth, TheDefaultSuiteEndsOnOneScreenOfAnswers) {
  int suites = 0;
  for (const auto& doc : recorded_runs()) {
    const auto lines = lines_of(table_of(doc, false));
    const auto answers = std::find(lines.begin(), lines.end(), "Answers for this machine");
    if (answers == lines.end()) continue;
    ++suites;
    const std::vector<std::string> last(answers + 1, lines.end());
    EXPECT_LE(last.size(), 22U) << "more than a screen of Answers";
    for (const auto& line : last) {
      EXPECT_TRUE(line.starts_with("- ") || line.starts_with("  "))
          << "after the Answers: " << line;
      EXPECT_LE(fdbench::display_width(line), 100U) << line;
    }
  }
  EXPECT_GT(suites, 0) << "no recorded default suite in " << FDBENCH_RUNS_DIR;
}

// A note that several rows share (another program changed rcu_expedited under all of them) is
// printed under the first of them only, and counted once under the tables.
TEST(TableWidth, ANoteManyRowsShareIsSaidOnce) {
  auto docs = recorded_runs();
  ASSERT_FALSE(docs.empty());
  auto& doc = docs.front();
  ASSERT_GE(doc.results.size(), 3U);
  const std::string note =
      "rcu_expedited was changed from 1 to 0 by another program while this result was measured: "
      "its times mix both";
  for (auto& r : doc.results) r.warn(fdbench::WarningKind::setting_changed, note);
  const std::string text = table_of(doc, false);
  std::size_t said = 0;
  for (const auto& line : lines_of(text)) said += line.starts_with("  ! rcu_expedited was changed");
  EXPECT_EQ(said, 1U) << text;
  std::string joined;  // the legend's wrapped lines as one
  for (const auto& line : lines_of(text)) {
    joined += line.starts_with("  ") ? " " + line.substr(2) : "\n" + line;
  }
  EXPECT_NE(joined.find(fmt::format("({} more rows)", doc.results.size() - 1)), std::string::npos)
      << text;
}

TEST(TableWidth, WrappedSentencesKeepTheirWordsAndIndentation) {
  const std::string line = "- " + std::string(60, 'a') + " " + std::string(60, 'b') + " c";
  EXPECT_EQ(fdbench::wrapped(line, 100),
            "- " + std::string(60, 'a') + "\n  " + std::string(60, 'b') + " c\n");
  EXPECT_EQ(fdbench::wrapped("short", 100), "short\n");
  EXPECT_EQ(fdbench::display_width("±–→µ·"), 5U);
}

}  // namespace table_width_test
