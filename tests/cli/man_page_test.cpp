// docs/fdbench.1 against the binary it documents: every option each --help lists is described
// in that command's section of the man page, every option the man page describes exists, the
// version matches, and groff renders it without a warning.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace man_page_test {

const std::string kOutputOptions = "OUTPUT OPTIONS";

// The man page cut at its .SS and .SH headings: heading -> the lines under it.
std::map<std::string, std::vector<std::string>> sections_of(const std::string& page) {
  std::map<std::string, std::vector<std::string>> sections;
  std::string current;
  const std::regex heading(R"re(^\.S[SH] "?([^"]*)"?$)re");
  for (const auto& line : lines_of(page)) {
    std::smatch m;
    if (std::regex_match(line, m, heading)) {
      current = m[1];
      continue;
    }
    sections[current].push_back(line);
  }
  return sections;
}

// The options a section describes: those an item (.TP or .TQ) names on its first line.
std::set<std::string> described(const std::vector<std::string>& lines) {
  std::set<std::string> options;
  const std::regex option(R"(\\-\\-[a-z0-9]+(?:\\-[a-z0-9]+)*)");
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (lines[i] != ".TP" && lines[i] != ".TQ") continue;
    const std::string& item = lines[i + 1];
    for (auto it = std::sregex_iterator(item.begin(), item.end(), option);
         it != std::sregex_iterator(); ++it) {
      std::string plain;
      for (const char c : it->str()) {
        if (c != '\\') plain += c;
      }
      options.insert(plain);
    }
  }
  return options;
}

std::set<std::string> long_options_in_help(const std::vector<std::string>& args) {
  const auto run = run_fdbench(args);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  std::set<std::string> options;
  const std::regex option(R"(^\s+(?:-\w,)?(--[a-z0-9-]+))");
  for (const auto& line : lines_of(run.out)) {
    std::smatch m;
    if (std::regex_search(line, m, option) && m[1] != "--help" && m[1] != "--version") {
      options.insert(m[1]);
    }
  }
  return options;
}

class ManPage : public ::testing::Test {
 protected:
  void SetUp() override {
    page_ = read_text(FDBENCH_MAN_PAGE);
    ASSERT_FALSE(page_.empty()) << "cannot read " << FDBENCH_MAN_PAGE;
    sections_ = sections_of(page_);
  }

  std::string page_;
  std::map<std::string, std::vector<std::string>> sections_;
};

TEST_F(ManPage, DescribesEveryOptionOfEveryCommandAndNoOther) {
  const std::map<std::string, std::vector<std::string>> commands = {
      {"fdbench (no subcommand)", {"--help"}},  {"fdbench open", {"open", "--help"}},
      {"fdbench socket", {"socket", "--help"}}, {"fdbench strategies", {"strategies", "--help"}},
      {"fdbench accept", {"accept", "--help"}}, {"fdbench pregrow", {"pregrow", "--help"}},
      {"fdbench server", {"server", "--help"}},
      {"fdbench env", {"env", "--help"}},       {"fdbench compare", {"compare", "--help"}},
      {"fdbench clean", {"clean", "--help"}},   {"fdbench completion", {"completion", "--help"}},
      {"fdbench report", {"report", "--help"}}, {"fdbench tune", {"tune", "--help"}},
      {"fdbench history", {"history", "--help"}},
      {"fdbench trace", {"trace", "--help"}},
  };
  const auto shared = described(sections_[kOutputOptions]);
  ASSERT_FALSE(shared.empty());
  for (const auto& [heading, args] : commands) {
    ASSERT_TRUE(sections_.count(heading)) << "no section " << heading;
    const auto& lines = sections_[heading];
    auto documented = described(lines);
    const bool refers_to_shared = std::any_of(
        lines.begin(), lines.end(),
        [](const std::string& line) { return line.find(kOutputOptions) != std::string::npos; });
    if (refers_to_shared) documented.insert(shared.begin(), shared.end());
    const auto in_help = long_options_in_help(args);
    for (const auto& option : in_help) {
      EXPECT_TRUE(documented.count(option)) << heading << ": " << option << " is not described";
    }
    for (const auto& option : documented) {
      EXPECT_TRUE(in_help.count(option))
          << heading << ": describes " << option << ", which --help does not list";
    }
  }
}

TEST_F(ManPage, CarriesTheBinarysVersion) {
  const auto run = run_fdbench({"--version"});
  ASSERT_EQ(run.exit_code, 0);
  std::string version = run.out.substr(0, run.out.find('\n'));  // "fdbench 0.1.0"
  EXPECT_NE(page_.find(".TH FDBENCH 1 "), std::string::npos);
  EXPECT_NE(page_.find("\"" + version + "\""), std::string::npos)
      << "the .TH line should name \"" << version << "\"";
}

TEST_F(ManPage, RendersWithoutWarnings) {
  TempDir scratch;
  const std::string command =
      std::string("groff -man -ww -z '") + FDBENCH_MAN_PAGE + "' 2>'" + (scratch / "err") + "'";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << command;
  ASSERT_NE(WEXITSTATUS(status), 127) << "groff is missing: run scripts/setup (groff-base)";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(read_text(scratch / "err"), "");
}

}  // namespace man_page_test
}  // namespace fdbench::testing
