// `fdbench completion bash`, run by bash itself: the script the binary prints is sourced and
// its function called as bash's programmable completion calls it, with COMP_WORDS set. Every
// option each subcommand's --help lists must be offered, and values come from the same
// choices the command line accepts.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace completion_test {

const std::vector<std::string> kSubcommands = {
    "open",   "socket",  "accept",    "strategies", "clean",
    "tune",   "report",  "env",       "compare",    "completion"};

class Completion : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto run = run_fdbench({"completion", "bash"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    write_text(scratch_ / "fdbench.bash", run.out);
  }

  // What completing the last of `words` offers (the words after `fdbench`).
  std::vector<std::string> offered(const std::vector<std::string>& words) {
    std::string array = "fdbench";
    for (const auto& word : words) array += " '" + word + "'";
    write_text(scratch_ / "driver.bash", "source '" + (scratch_ / "fdbench.bash") +
                                             "'\nCOMP_WORDS=(" + array +
                                             ")\nCOMP_CWORD=" + std::to_string(words.size()) +
                                             "\n_fdbench\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n");
    const std::string command = "bash --norc --noprofile '" + (scratch_ / "driver.bash") + "' >'" +
                                (scratch_ / "out") + "' 2>'" + (scratch_ / "err") + "'";
    const int status = std::system(command.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_text(scratch_ / "err");
    std::vector<std::string> lines;
    for (auto& line : lines_of(read_text(scratch_ / "out"))) {
      if (!line.empty()) lines.push_back(line);
    }
    std::sort(lines.begin(), lines.end());
    return lines;
  }

  TempDir scratch_;
};

// The long options a --help text lists.
std::set<std::string> long_options_in(const std::string& help) {
  std::set<std::string> options;
  const std::regex option(R"(^\s+(?:-\w,)?(--[a-z0-9-]+))");
  for (const auto& line : lines_of(help)) {
    std::smatch m;
    if (std::regex_search(line, m, option)) options.insert(m[1]);
  }
  return options;
}

TEST_F(Completion, OffersEverySubcommandFirst) {
  const auto words = offered({""});
  for (const auto& sub : kSubcommands) {
    EXPECT_NE(std::find(words.begin(), words.end(), sub), words.end()) << sub;
  }
  EXPECT_EQ(offered({"co"}), (std::vector<std::string>{"compare", "completion"}));
}

TEST_F(Completion, OffersEveryOptionEachHelpLists) {
  std::vector<std::string> commands = kSubcommands;
  commands.emplace_back("");  // the default suite
  for (const auto& command : commands) {
    std::vector<std::string> args;
    if (!command.empty()) args.push_back(command);
    args.emplace_back("--help");
    const auto help = run_fdbench(args);
    ASSERT_EQ(help.exit_code, 0) << help.err;
    const auto options = long_options_in(help.out);
    ASSERT_FALSE(options.empty()) << help.out;
    args.back() = "--";
    const auto words = offered(args);
    for (const auto& option : options) {
      EXPECT_NE(std::find(words.begin(), words.end(), option), words.end())
          << "fdbench " << command << " " << option;
    }
    for (const auto& word : words) {
      EXPECT_TRUE(options.count(word)) << "offered but not in --help: " << command << " " << word;
    }
  }
}

TEST_F(Completion, ValuesAreTheChoicesTheCommandLineAccepts) {
  EXPECT_EQ(offered({"open", "--strategy", "threads,uring"}),
            (std::vector<std::string>{"threads,uring", "threads,uring-direct"}));
  EXPECT_EQ(offered({"socket", "--pregrow", "off,a"}), (std::vector<std::string>{"off,auto"}));
  EXPECT_EQ(offered({"env", "--format", ""}), (std::vector<std::string>{"json", "table"}));
  EXPECT_EQ(offered({"open", "--format", "m"}), (std::vector<std::string>{"markdown"}));
  EXPECT_EQ(offered({"socket", "--kind", "tcp"}), (std::vector<std::string>{"tcp", "tcp6"}));
  EXPECT_TRUE(offered({"open", "--files", ""}).empty());  // a number: nothing to guess
  EXPECT_EQ(offered({"completion", ""}), (std::vector<std::string>{"bash", "fish", "zsh"}));
}

TEST_F(Completion, DirectoriesWhereADirectoryIsNamedAndFilesWhereAFileIs) {
  TempDir place;
  ASSERT_TRUE(std::filesystem::create_directory(place / "subdir"));
  write_text(place / "results.json", "{}");
  const std::string prefix = place.path() + "/";
  EXPECT_EQ(offered({"open", "--tree", prefix}), (std::vector<std::string>{prefix + "subdir"}));
  EXPECT_EQ(offered({"compare", prefix}),
            (std::vector<std::string>{prefix + "results.json", prefix + "subdir"}));
  EXPECT_EQ(offered({"open", "--export-json", prefix + "r"}),
            (std::vector<std::string>{prefix + "results.json"}));
}

// zsh gets the same script through its bash emulation; fish gets `complete` lines made from
// the same rows; any other shell is refused.
TEST_F(Completion, ZshAndFishToo) {
  const auto zsh = run_fdbench({"completion", "zsh"});
  ASSERT_EQ(zsh.exit_code, 0) << zsh.err;
  EXPECT_EQ(zsh.out.rfind("#compdef fdbench\n", 0), 0U);
  EXPECT_NE(zsh.out.find("bashcompinit"), std::string::npos);
  EXPECT_NE(zsh.out.find(run_fdbench({"completion", "bash"}).out), std::string::npos);
  const auto fish = run_fdbench({"completion", "fish"});
  ASSERT_EQ(fish.exit_code, 0) << fish.err;
  EXPECT_NE(fish.out.find("-l strategy -r -f -a '(__fdbench_items "), std::string::npos)
      << fish.out;
  EXPECT_NE(fish.out.find("__fish_seen_subcommand_from socket' -l pregrow"), std::string::npos)
      << fish.out;
  const auto other = run_fdbench({"completion", "tcsh"});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("'tcsh' is not a shell fdbench writes for (bash, zsh, fish)"),
            std::string::npos)
      << other.err;
  EXPECT_EQ(run_fdbench({"completion"}).exit_code, 2);
}

// A comma list is never offered an item it has already.
TEST_F(Completion, AnItemAlreadyInTheListIsNotOfferedAgain) {
  const auto offered_now = offered({"open", "--strategy", "threads,"});
  EXPECT_EQ(std::count(offered_now.begin(), offered_now.end(), "threads,threads"), 0);
  EXPECT_EQ(std::count(offered_now.begin(), offered_now.end(), "threads,pool"), 1);
  EXPECT_EQ(offered({"socket", "--pregrow", "off,auto,o"}), std::vector<std::string>{});
}

}  // namespace completion_test
}  // namespace fdbench::testing
