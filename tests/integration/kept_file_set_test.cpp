// Kept sets with real files: --keep-files makes one and leaves it, --reuse-files checks it and
// uses it without changing anything, `fdbench clean SET` removes it with the care of every
// other removal, and none of them touches anything fdbench did not create.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fdbench/error.hpp"
#include "inputs/file_set.hpp"
#include "support/temp_dir.hpp"

namespace fdbench {
namespace kept_file_set_test {

using testing::exists;
using testing::list_names;
using testing::read_text;
using testing::TempDir;
using testing::tree_of;
using testing::write_text;

// The message of the Error `make` throws, or "" if it throws none.
template <typename Make>
std::string error_of(Make make) {
  try {
    make();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

class KeptSet : public ::testing::Test {
 protected:
  // A kept set of `count` files at set_, its object gone: what a --keep-files run leaves.
  void keep(std::size_t count, std::size_t subdirs = 0) {
    const FileSet set = FileSet::create_kept(set_, count, subdirs);
    EXPECT_TRUE(set.kept());
  }

  TempDir parent_;
  const std::string set_ = parent_ / "set";
};

TEST_F(KeptSet, KeepThenReuseThenClean) {
  keep(30, 3);
  ASSERT_TRUE(exists(set_)) << "a kept set was removed with its object";
  const std::string marker = read_text(set_ + "/" + FileSet::kMarkerName);
  EXPECT_NE(marker.find("files 30\n"), std::string::npos) << marker;
  EXPECT_NE(marker.find("layout dirs:3\n"), std::string::npos) << marker;
  const auto made = tree_of(set_);
  EXPECT_EQ(made.size(), 30U + 3 + 1);  // files, subdirectories, marker

  {
    const FileSet reused = FileSet::open_kept(set_, std::nullopt, std::nullopt);
    EXPECT_TRUE(reused.kept());
    EXPECT_EQ(reused.size(), 30U);
    EXPECT_EQ(reused.subdirs(), 3U);
    EXPECT_STREQ(reused.names()[0], "d0/1.txt");
    EXPECT_GE(reused.dir_fd(), 0);
  }
  EXPECT_EQ(tree_of(set_), made) << "reusing a set changed it";
  EXPECT_EQ(read_text(set_ + "/" + FileSet::kMarkerName), marker);

  // Asking for what it holds is the same as leaving it to the marker.
  EXPECT_EQ(FileSet::open_kept(set_, 30, 3).size(), 30U);

  const auto report = FileSet::clean_kept(set_);
  EXPECT_EQ(report.removed, std::vector<std::string>{set_});
  EXPECT_EQ(report.kept, std::vector<std::string>{});
  EXPECT_FALSE(exists(set_));
  EXPECT_EQ(list_names(parent_.path()), std::vector<std::string>{});
}

TEST_F(KeptSet, ManyFilesAreMadeByEveryCreatorAndAllFound) {
  // Past 1,024 files a file a creator, up to the CPUs: every range must be there.
  keep(5000);
  EXPECT_EQ(list_names(set_).size(), 5001U);
  EXPECT_EQ(FileSet::open_kept(set_, std::nullopt, std::nullopt).size(), 5000U);
}

TEST_F(KeptSet, KeepRefusesADirectoryThatIsNotAKeptSet) {
  ASSERT_EQ(mkdir(set_.c_str(), 0700), 0);
  write_text(set_ + "/1.txt", "the user's\n");
  const std::string why = error_of([&] { FileSet::create_kept(set_, 5); });
  EXPECT_NE(why.find("is not a set fdbench kept"), std::string::npos) << why;
  EXPECT_EQ(list_names(set_), std::vector<std::string>{"1.txt"});
  EXPECT_EQ(read_text(set_ + "/1.txt"), "the user's\n");
}

TEST_F(KeptSet, KeepOverAKeptSetPointsToReuse) {
  keep(5);
  const auto before = tree_of(set_);
  const std::string why = error_of([&] { FileSet::create_kept(set_, 5); });
  EXPECT_NE(why.find("already holds this kept set"), std::string::npos) << why;
  EXPECT_NE(why.find("--reuse-files " + set_), std::string::npos) << why;
  EXPECT_NE(error_of([&] { FileSet::create_kept(set_, 6); }).find("a different kept set"),
            std::string::npos);
  EXPECT_EQ(tree_of(set_), before);
}

TEST_F(KeptSet, ReuseRefusesAMissingFileAndChangesNothing) {
  keep(20, 2);
  ASSERT_EQ(unlink((set_ + "/d0/7.txt").c_str()), 0);
  ASSERT_EQ(unlink((set_ + "/d1/8.txt").c_str()), 0);
  const auto before = tree_of(set_);
  const std::string why = error_of([&] { FileSet::open_kept(set_, std::nullopt, std::nullopt); });
  EXPECT_NE(why.find("2 of 20 files are missing"), std::string::npos) << why;
  EXPECT_NE(why.find("d0/7.txt is the first"), std::string::npos) << why;
  EXPECT_NE(why.find("fdbench clean " + set_), std::string::npos) << why;
  EXPECT_EQ(tree_of(set_), before) << "a refused reuse changed the set";
}

TEST_F(KeptSet, ReuseRefusesAFileReplacedByADirectoryOrSymlink) {
  keep(5);
  ASSERT_EQ(unlink((set_ + "/2.txt").c_str()), 0);
  ASSERT_EQ(mkdir((set_ + "/2.txt").c_str(), 0700), 0);
  ASSERT_EQ(unlink((set_ + "/3.txt").c_str()), 0);
  ASSERT_EQ(symlink((set_ + "/1.txt").c_str(), (set_ + "/3.txt").c_str()), 0);
  const std::string why = error_of([&] { FileSet::open_kept(set_, std::nullopt, std::nullopt); });
  EXPECT_NE(why.find("2 of 5 files are missing or not regular files"), std::string::npos) << why;
}

TEST_F(KeptSet, ReuseRefusesAnotherCountOrLayout) {
  keep(10, 2);
  std::string why = error_of([&] { FileSet::open_kept(set_, 11, std::nullopt); });
  EXPECT_NE(why.find("holds 10 files, --files asks for 11"), std::string::npos) << why;
  why = error_of([&] { FileSet::open_kept(set_, std::nullopt, 0); });
  EXPECT_NE(why.find("laid out dirs:2, --layout asks for flat"), std::string::npos) << why;
}

TEST_F(KeptSet, ReuseRefusesADirectoryWithoutOrWithAForeignMarker) {
  ASSERT_EQ(mkdir(set_.c_str(), 0700), 0);
  write_text(set_ + "/1.txt", "");
  std::string why = error_of([&] { FileSet::open_kept(set_, std::nullopt, std::nullopt); });
  EXPECT_NE(why.find("no .fdbench-private marker"), std::string::npos) << why;

  write_text(set_ + "/" + FileSet::kMarkerName, "someone's own notes\nfiles 1\nlayout flat\n");
  why = error_of([&] { FileSet::open_kept(set_, std::nullopt, std::nullopt); });
  EXPECT_NE(why.find("not the marker of a kept set"), std::string::npos) << why;

  write_text(set_ + "/" + FileSet::kMarkerName, "fdbench private directory\npid 1\n");
  why = error_of([&] { FileSet::open_kept(set_, std::nullopt, std::nullopt); });
  EXPECT_NE(why.find("private directory, not a kept set"), std::string::npos) << why;
  EXPECT_EQ(read_text(set_ + "/1.txt"), "");
}

TEST_F(KeptSet, ReuseRefusesASetWhoseCreationDidNotFinish) {
  keep(5);
  // What a run killed while making it leaves: the marker without its last line.
  const std::string marker = set_ + "/" + FileSet::kMarkerName;
  std::string text = read_text(marker);
  ASSERT_EQ(text.substr(text.size() - 9), "complete\n");
  write_text(marker, text.substr(0, text.size() - 9));
  const std::string why = error_of([&] { FileSet::open_kept(set_, std::nullopt, std::nullopt); });
  EXPECT_NE(why.find("did not finish"), std::string::npos) << why;
  // clean removes it all the same.
  EXPECT_EQ(FileSet::clean_kept(set_).removed, std::vector<std::string>{set_});
}

TEST_F(KeptSet, CleanLeavesForeignFilesAndSaysSo) {
  keep(10, 2);
  write_text(set_ + "/d1/holiday.jpg", "the user's\n");
  const auto report = FileSet::clean_kept(set_);
  EXPECT_EQ(report.removed, std::vector<std::string>{});
  ASSERT_EQ(report.kept.size(), 1U);
  EXPECT_NE(report.kept[0].find("holiday.jpg"), std::string::npos) << report.kept[0];
  EXPECT_EQ(read_text(set_ + "/d1/holiday.jpg"), "the user's\n");
}

TEST_F(KeptSet, CleanRefusesWhatIsNotAKeptSet) {
  ASSERT_EQ(mkdir(set_.c_str(), 0700), 0);
  write_text(set_ + "/1.txt", "");
  auto report = FileSet::clean_kept(set_);
  ASSERT_EQ(report.kept.size(), 1U);
  EXPECT_NE(report.kept[0].find("not a set fdbench made"), std::string::npos) << report.kept[0];
  EXPECT_EQ(list_names(set_), std::vector<std::string>{"1.txt"});

  // A symlink to a kept set is never followed.
  const TempDir elsewhere;
  { const FileSet set = FileSet::create_kept(elsewhere / "set", 3); }
  ASSERT_EQ(symlink((elsewhere / "set").c_str(), (parent_ / "link").c_str()), 0);
  report = FileSet::clean_kept(parent_ / "link");
  ASSERT_EQ(report.kept.size(), 1U);
  EXPECT_NE(report.kept[0].find("symlink is never followed"), std::string::npos) << report.kept[0];
  EXPECT_EQ(list_names(elsewhere / "set").size(), 4U);
}

TEST_F(KeptSet, CleanLeavesASetInUse) {
  keep(5);
  {
    const FileSet in_use = FileSet::open_kept(set_, std::nullopt, std::nullopt);
    const auto report = FileSet::clean_kept(set_);
    ASSERT_EQ(report.kept.size(), 1U);
    EXPECT_NE(report.kept[0].find("running fdbench is using it"), std::string::npos)
        << report.kept[0];
    EXPECT_EQ(list_names(set_).size(), 6U);
  }
  EXPECT_EQ(FileSet::clean_kept(set_).removed, std::vector<std::string>{set_});
}

TEST_F(KeptSet, LeftoverSweepLeavesKeptSets) {
  // Named like a private directory, but kept on purpose: only `clean SET` removes it.
  const std::string kept = parent_ / (std::string(FileSet::kDirPrefix) + "mine");
  { const FileSet set = FileSet::create_kept(kept, 3); }
  const auto report = FileSet::clean_leftovers(parent_.path());
  EXPECT_EQ(report.removed, std::vector<std::string>{});
  EXPECT_EQ(report.kept, std::vector<std::string>{});
  EXPECT_EQ(list_names(kept).size(), 4U);
}

}  // namespace kept_file_set_test
}  // namespace fdbench
