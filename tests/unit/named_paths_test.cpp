// named_paths(): which paths a command line names, as the look before the builders sees them
// (issue 39 item 6). Every one missed here would be stat()ed by fdbench itself first, where a
// dead mount holds it for good.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>
#include <string>
#include <utility>
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

// Sets an environment variable for one test, and puts back what it was.
class Variable {
 public:
  Variable(std::string name, const char* value) : name_(std::move(name)) {
    if (const char* old = getenv(name_.c_str())) old_ = old;
    setenv(name_.c_str(), value, 1);
  }
  ~Variable() {
    if (old_) {
      setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  Variable(const Variable&) = delete;
  Variable& operator=(const Variable&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// The history too (issue 49 item 1): an output is compared with it, whether the run saves or
// not, so it is looked at first as the outputs are.
TEST(NamedPaths, AMeasuringCommandWorkingInTmpdirNamesItAndItsOutputs) {
  const Variable tmpdir("TMPDIR", "/mnt/t");
  const Variable data("XDG_DATA_HOME", "/data");
  const auto paths = named_paths(
      Cmd::open, given(Cmd::open, {{Opt::output, "o.json"}, {Opt::export_csv, "/x/r.csv"}}));
  EXPECT_EQ(whats(paths),
            (std::vector<std::string>{"TMPDIR /mnt/t", "the history /data/fdbench/history.db",
                                      "--output o.json", "--export-csv /x/r.csv"}));
  for (const auto& p : paths) EXPECT_FALSE(p.input) << p.what;
}

TEST(NamedPaths, DirOrAKeptSetInsteadOfTmpdir) {
  const Variable tmpdir("TMPDIR", "/mnt/t");
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
  values.text[Opt::history_file] = "h.db";
  values.named.insert(Opt::history_file);
  const auto paths = named_paths(Cmd::compare, values);
  ASSERT_EQ(whats(paths), (std::vector<std::string>{"--history h.db", "/m/a.json", "b.json"}));
  EXPECT_FALSE(paths[0].input);
  EXPECT_TRUE(paths[1].input);
  EXPECT_TRUE(paths[2].input);
}

// The history where it lives by default is a path too: a home on a dead NFS mount holds a
// --save, a baseline taken from the history and every history action.
TEST(NamedPaths, TheDefaultHistoryIsNamedWhereARunUsesIt) {
  const Variable data("XDG_DATA_HOME", "/nfs/data");
  const std::string history = "the history /nfs/data/fdbench/history.db";
  OptionValues save = given(Cmd::socket, {});
  save.set[Opt::save] = true;
  save.named.insert(Opt::save);
  EXPECT_EQ(whats(named_paths(Cmd::socket, save)), std::vector<std::string>{history});
  EXPECT_EQ(whats(named_paths(Cmd::socket, given(Cmd::socket, {}))), std::vector<std::string>{});
  EXPECT_EQ(whats(named_paths(Cmd::history, given(Cmd::history, {{Opt::action, "list"}}))),
            std::vector<std::string>{history});
  const auto baseline = named_paths(Cmd::compare, given(Cmd::compare, {{Opt::baseline, "7"}}));
  EXPECT_EQ(whats(baseline), (std::vector<std::string>{"the history /nfs/data/fdbench/history.db",
                                                       "--baseline 7"}));
  const Variable variable("FDBENCH_HISTORY", "1");
  EXPECT_EQ(whats(named_paths(Cmd::socket, given(Cmd::socket, {}))),
            std::vector<std::string>{history});
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
  const Variable tmpdir("TMPDIR", "/mnt/t");
  OptionValues values = defaults_of(Cmd::clean);
  EXPECT_EQ(whats(named_paths(Cmd::clean, values)), (std::vector<std::string>{"TMPDIR /mnt/t"}));
  values.list[Opt::sets] = {"/s"};
  EXPECT_EQ(whats(named_paths(Cmd::clean, values)), (std::vector<std::string>{"/s"}));
}

}  // namespace named_paths_test
}  // namespace fdbench::app
