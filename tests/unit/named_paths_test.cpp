// named_paths(): which paths a command line names, as the look before the builders sees them
// (issue 39 item 6). Every one missed here would be stat()ed by fdbench itself first, where a
// dead mount holds it for good.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "application/checks.hpp"
#include "application/option_rows.hpp"

namespace fdbench::app {
namespace named_paths_test {

// The "what" of each path, in order.
std::vector<std::string> whats(const std::vector<NamedPath>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(p.what);
  return out;
}

// `command`'s defaults with `given` named on the command line.
OptionValues given(Cmd command, const std::vector<std::pair<Opt, std::string>>& given) {
  OptionValues values = defaults_of(command);
  for (const auto& [id, text] : given) {
    values.text[id] = text;
    values.named.insert(id);
  }
  return values;
}

// Sets TMPDIR for one test, and puts back what it was.
class Tmpdir {
 public:
  explicit Tmpdir(const char* value) {
    if (const char* old = getenv("TMPDIR")) old_ = old;
    setenv("TMPDIR", value, 1);
  }
  ~Tmpdir() {
    if (old_.empty()) {
      unsetenv("TMPDIR");
    } else {
      setenv("TMPDIR", old_.c_str(), 1);
    }
  }
  Tmpdir(const Tmpdir&) = delete;
  Tmpdir& operator=(const Tmpdir&) = delete;

 private:
  std::string old_;
};

TEST(NamedPaths, AMeasuringCommandWorkingInTmpdirNamesItAndItsOutputs) {
  const Tmpdir tmpdir("/mnt/t");
  const auto paths = named_paths(
      Cmd::open, given(Cmd::open, {{Opt::output, "o.json"}, {Opt::export_csv, "/x/r.csv"}}));
  EXPECT_EQ(whats(paths), (std::vector<std::string>{"TMPDIR /mnt/t", "--output o.json",
                                                     "--export-csv /x/r.csv"}));
  for (const auto& p : paths) EXPECT_FALSE(p.input) << p.what;
}

TEST(NamedPaths, DirOrAKeptSetInsteadOfTmpdir) {
  const Tmpdir tmpdir("/mnt/t");
  EXPECT_EQ(whats(named_paths(Cmd::open, given(Cmd::open, {{Opt::dir, "/d"}}))),
            (std::vector<std::string>{"--dir /d"}));
  EXPECT_EQ(whats(named_paths(Cmd::open, given(Cmd::open, {{Opt::keep_files, "/k"}}))),
            (std::vector<std::string>{"--keep-files /k"}));
  EXPECT_EQ(whats(named_paths(Cmd::open, given(Cmd::open, {{Opt::list, "l.txt"}}))),
            (std::vector<std::string>{"--list l.txt"}));
  EXPECT_EQ(whats(named_paths(Cmd::socket, given(Cmd::socket, {}))),
            std::vector<std::string>{});  // no files of its own
}

TEST(NamedPaths, CompareInputsAreOpenedAndNamedByThemselves) {
  OptionValues values = defaults_of(Cmd::compare);
  values.list[Opt::results] = {"/m/a.json", "b.json"};
  values.text[Opt::baseline] = "last";
  values.named.insert(Opt::baseline);
  const auto paths = named_paths(Cmd::compare, values);
  ASSERT_EQ(whats(paths), (std::vector<std::string>{"/m/a.json", "b.json"}));
  for (const auto& p : paths) EXPECT_TRUE(p.input) << p.what;
}

TEST(NamedPaths, HistoryNamesFilesOnlyForImport) {
  OptionValues values = given(Cmd::history, {{Opt::action, "rm"}, {Opt::history_file, "h.db"}});
  values.list[Opt::arguments] = {"3"};
  EXPECT_EQ(whats(named_paths(Cmd::history, values)),
            (std::vector<std::string>{"--history h.db"}));
  values.text[Opt::action] = "import";
  values.list[Opt::arguments] = {"/m/a.json"};
  const auto paths = named_paths(Cmd::history, values);
  ASSERT_EQ(paths.size(), 2U);
  EXPECT_EQ(paths[1].what, "/m/a.json");
  EXPECT_TRUE(paths[1].input);
}

TEST(NamedPaths, CleanLooksInTmpdirOnlyWithoutSets) {
  const Tmpdir tmpdir("/mnt/t");
  OptionValues values = defaults_of(Cmd::clean);
  EXPECT_EQ(whats(named_paths(Cmd::clean, values)), (std::vector<std::string>{"TMPDIR /mnt/t"}));
  values.list[Opt::sets] = {"/s"};
  EXPECT_EQ(whats(named_paths(Cmd::clean, values)), (std::vector<std::string>{"/s"}));
}

}  // namespace named_paths_test
}  // namespace fdbench::app
