// FileSet with real files: it creates what it promises, removes only what it created, and
// never touches anything beside or inside its directory that someone else put there.
#include "inputs/file_set.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "fdbench/error.hpp"
#include "platform/platform.hpp"
#include "support/temp_dir.hpp"

namespace fdbench {
namespace file_set_test {

using testing::exists;
using testing::list_names;
using testing::read_text;
using testing::TempDir;
using testing::write_text;

bool is_regular_empty(const std::string& path) {
  struct stat info {};
  return lstat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && info.st_size == 0;
}

class FileSetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A neighbour the FileSet must leave exactly as it is.
    write_text(neighbour(), kNeighbourText);
  }
  void TearDown() override {
    EXPECT_EQ(read_text(neighbour()), kNeighbourText) << "the file beside the set was touched";
  }
  [[nodiscard]] std::string neighbour() const { return parent_ / "neighbour.txt"; }

  static constexpr const char* kNeighbourText = "belongs to the test, not to fdbench\n";
  TempDir parent_;
};

TEST_F(FileSetTest, CreatesNFilesAndAMarkerInAPrivateDirectory) {
  std::string path;
  {
    const FileSet set = FileSet::create(parent_.path(), 25);
    path = set.path();
    EXPECT_EQ(set.size(), 25U);
    EXPECT_EQ(std::filesystem::path(path).parent_path(), std::filesystem::path(parent_.path()));
    EXPECT_EQ(std::filesystem::path(path).filename().string().rfind(FileSet::kDirPrefix, 0), 0U)
        << path;
    EXPECT_TRUE(exists(path + "/" + FileSet::kMarkerName));
    for (std::size_t i = 0; i < set.size(); ++i) {
      EXPECT_TRUE(is_regular_empty(path + "/" + set.names()[i])) << set.names()[i];
    }
    EXPECT_TRUE(exists(path + "/1.txt"));
    EXPECT_TRUE(exists(path + "/25.txt"));
    EXPECT_EQ(list_names(path).size(), 26U);  // the files and the marker, nothing else
    EXPECT_GE(set.dir_fd(), 0);
  }
  EXPECT_FALSE(exists(path)) << "the private directory outlived its FileSet";
  EXPECT_EQ(list_names(parent_.path()), std::vector<std::string>{"neighbour.txt"});
}

// Once per set, after its files exist, so that their writeback happens before any timing.
TEST_F(FileSetTest, ANewSetIsWrittenBackOnceBeforeItIsUsed) {
  const std::uint64_t before = platform::filesystem_syncs();
  {
    const FileSet set = FileSet::create(parent_.path(), 3000);  // two creators
    EXPECT_EQ(platform::filesystem_syncs(), before + 1);
    EXPECT_EQ(set.size(), 3000U);
  }
  // A set that cannot be made is not written back: there is nothing to measure.
  EXPECT_THROW(FileSet::create(parent_ / "missing", 10), Error);
  EXPECT_EQ(platform::filesystem_syncs(), before + 1);
}

TEST_F(FileSetTest, LargeSetsCreatedByTwoThreadsAreCompleteAndRemoved) {
  // From 2,048 files on, creation is split over two threads: both halves must exist and
  // both must be removed.
  constexpr std::size_t kCount = 2101;
  std::string path;
  {
    const FileSet set = FileSet::create(parent_.path(), kCount);
    path = set.path();
    EXPECT_EQ(list_names(path).size(), kCount + 1);
    EXPECT_TRUE(is_regular_empty(path + "/1050.txt"));
    EXPECT_TRUE(is_regular_empty(path + "/1051.txt"));
    EXPECT_TRUE(is_regular_empty(path + "/2101.txt"));
  }
  EXPECT_FALSE(exists(path));
}

TEST_F(FileSetTest, HoldsNoDescriptorAfterDestruction) {
  const auto before = platform::open_descriptors();
  { const FileSet set = FileSet::create(parent_.path(), 10); }
  EXPECT_EQ(platform::open_descriptors(), before);
}

TEST_F(FileSetTest, MoveTransfersOwnership) {
  std::string path;
  {
    FileSet first = FileSet::create(parent_.path(), 3);
    path = first.path();
    const FileSet second(std::move(first));
    EXPECT_EQ(second.path(), path);
    EXPECT_TRUE(exists(path + "/3.txt"));
  }  // the moved-from set must not remove, the new owner must
  EXPECT_FALSE(exists(path));
}

TEST_F(FileSetTest, ForeignFileInsideKeepsTheDirectory) {
  FileSet set = FileSet::create(parent_.path(), 5);
  const std::string path = set.path();
  const std::string foreign = path + "/foreign.txt";
  write_text(foreign, "someone else's\n");

  EXPECT_FALSE(set.remove());
  EXPECT_TRUE(exists(path)) << "a directory holding a foreign file was removed";
  EXPECT_EQ(read_text(foreign), "someone else's\n");
  // Everything fdbench created is gone; only the foreign file is left.
  EXPECT_EQ(list_names(path), std::vector<std::string>{"foreign.txt"});
  set.remove();  // again, as the destructor will: still nothing foreign is touched
  EXPECT_EQ(read_text(foreign), "someone else's\n");
}

TEST_F(FileSetTest, ForeignFileInsideSurvivesTheDestructor) {
  std::string foreign;
  {
    const FileSet set = FileSet::create(parent_.path(), 5);
    foreign = set.path() + "/foreign.txt";
    write_text(foreign, "keep me\n");
  }
  EXPECT_EQ(read_text(foreign), "keep me\n");
}

TEST_F(FileSetTest, ForeignDirectoryInsideIsNeverEntered) {
  std::string inner;
  {
    const FileSet set = FileSet::create(parent_.path(), 5);
    std::filesystem::create_directory(set.path() + "/sub");
    inner = set.path() + "/sub/1.txt";  // the same name as one of ours, one level down
    write_text(inner, "nested\n");
  }
  EXPECT_EQ(read_text(inner), "nested\n");
}

TEST_F(FileSetTest, MissingParentThrowsAndLeavesNothing) {
  const std::string missing = parent_ / "missing";
  EXPECT_THROW(FileSet::create(missing, 5), Error);
  EXPECT_FALSE(exists(missing));
}

TEST_F(FileSetTest, ParentThatIsAFileThrows) {
  EXPECT_THROW(FileSet::create(neighbour(), 5), Error);
}

TEST_F(FileSetTest, ZeroFilesIsJustTheMarker) {
  std::string path;
  {
    const FileSet set = FileSet::create(parent_.path(), 0);
    path = set.path();
    EXPECT_EQ(list_names(path), std::vector<std::string>{FileSet::kMarkerName});
  }
  EXPECT_FALSE(exists(path));
}

}  // namespace file_set_test
}  // namespace fdbench
