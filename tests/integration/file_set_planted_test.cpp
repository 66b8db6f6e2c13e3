// FileSet::remove() when someone has put things in the private directory under fdbench's own
// names: a symlink, a hard link to their file, a file with content, a symlink in place of a
// subdirectory. None of them is removed or followed; the directory is then left in place.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "inputs/file_set.hpp"
#include "support/temp_dir.hpp"

namespace fdbench {
namespace file_set_planted_test {

using testing::exists;
using testing::list_names;
using testing::read_text;
using testing::TempDir;
using testing::write_text;

// Replaces `path` atomically with a symlink to `target`.
void replace_with_symlink(const std::string& path, const std::string& target) {
  const std::string tmp = path + ".planting";
  ASSERT_EQ(symlink(target.c_str(), tmp.c_str()), 0);
  ASSERT_EQ(std::rename(tmp.c_str(), path.c_str()), 0);
}

class PlantedEntries : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"1.txt", "2.txt", "3.txt", "4.txt"}) {
      write_text(user_ / name, std::string("user data in ") + name + "\n");
    }
  }
  void expect_user_files_intact() {
    for (const char* name : {"1.txt", "2.txt", "3.txt", "4.txt"}) {
      EXPECT_EQ(read_text(user_ / name), std::string("user data in ") + name + "\n") << name;
    }
  }
  TempDir parent_;
  TempDir user_;
};

TEST_F(PlantedEntries, SymlinkUnderOneOfOurNamesIsLeftAndSoIsTheDirectory) {
  FileSet set = FileSet::create(parent_.path(), 4);
  const std::string path = set.path();
  replace_with_symlink(path + "/3.txt", user_ / "3.txt");
  EXPECT_FALSE(set.remove());
  EXPECT_EQ(list_names(path), std::vector<std::string>{"3.txt"});
  expect_user_files_intact();
}

TEST_F(PlantedEntries, HardLinkToAUserFileIsLeft) {
  FileSet set = FileSet::create(parent_.path(), 4);
  const std::string path = set.path();
  const std::string theirs = parent_ / "theirs.txt";  // same filesystem as the set
  write_text(theirs, "linked\n");
  ASSERT_EQ(unlink((path + "/2.txt").c_str()), 0);
  ASSERT_EQ(link(theirs.c_str(), (path + "/2.txt").c_str()), 0);
  EXPECT_FALSE(set.remove());
  EXPECT_EQ(list_names(path), std::vector<std::string>{"2.txt"});
  struct stat info {};
  ASSERT_EQ(stat(theirs.c_str(), &info), 0);
  EXPECT_EQ(info.st_nlink, 2U);
}

TEST_F(PlantedEntries, FileWithContentUnderOneOfOurNamesIsLeft) {
  FileSet set = FileSet::create(parent_.path(), 4);
  const std::string path = set.path();
  write_text(path + "/4.txt", "someone wrote here\n");
  EXPECT_FALSE(set.remove());
  EXPECT_EQ(read_text(path + "/4.txt"), "someone wrote here\n");
}

TEST_F(PlantedEntries, SymlinkedMarkerIsLeft) {
  FileSet set = FileSet::create(parent_.path(), 2);
  const std::string path = set.path();
  replace_with_symlink(path + "/" + FileSet::kMarkerName, user_ / "1.txt");
  EXPECT_FALSE(set.remove());
  EXPECT_EQ(list_names(path), std::vector<std::string>{FileSet::kMarkerName});
  expect_user_files_intact();
}

TEST_F(PlantedEntries, SubdirectoryReplacedBySymlinkIsNeverFollowed) {
  // dirs:2 puts 1.txt and 3.txt in d0: the user's directory has files of those names.
  FileSet set = FileSet::create(parent_.path(), 8, 2);
  const std::string path = set.path();
  ASSERT_EQ(std::rename((path + "/d0").c_str(), (path + "/moved").c_str()), 0);
  ASSERT_EQ(symlink(user_.path().c_str(), (path + "/d0").c_str()), 0);
  EXPECT_FALSE(set.remove());
  expect_user_files_intact();
  EXPECT_EQ(list_names(user_.path()).size(), 4U);
  // d1 and its files, and the marker, are gone; what was moved and the symlink remain.
  EXPECT_EQ(list_names(path), (std::vector<std::string>{"d0", "moved"}));
  EXPECT_FALSE(exists(path + "/d1"));
}

TEST_F(PlantedEntries, WithNothingPlantedEverythingIsRemoved) {
  std::string path;
  {
    const FileSet set = FileSet::create(parent_.path(), 10, 3);
    path = set.path();
  }
  EXPECT_FALSE(exists(path));
  EXPECT_EQ(list_names(parent_.path()), std::vector<std::string>{});
}

// `fdbench clean` applies the same test to what a killed run left.
TEST_F(PlantedEntries, CleanLeavesAHardLinkUnderOneOfOurNames) {
  const std::string dir = parent_ / "fdbench-AbCdEf";
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
  write_text(dir + "/" + FileSet::kMarkerName, "fdbench private directory\npid 999999999\n");
  write_text(dir + "/1.txt", "");
  ASSERT_EQ(link((user_ / "2.txt").c_str(), (dir + "/2.txt").c_str()), 0);  // both under /tmp
  write_text(dir + "/3.txt", "not empty\n");
  const auto report = FileSet::clean_leftovers(parent_.path());
  EXPECT_TRUE(report.removed.empty());
  ASSERT_EQ(report.kept.size(), 1U);
  EXPECT_NE(report.kept[0].find("did not create"), std::string::npos) << report.kept[0];
  EXPECT_EQ(read_text(dir + "/3.txt"), "not empty\n");
  expect_user_files_intact();
}

}  // namespace file_set_planted_test
}  // namespace fdbench
