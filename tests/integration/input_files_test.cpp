// Existing files as input (--tree, --list): special files are skipped and never opened, the
// tree is never modified, and failures are counted, not fatal.
#include "inputs/input_files.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <map>

#include "engine/measure.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "fdbench/unique_fd.hpp"
#include "platform/platform.hpp"
#include "support/temp_dir.hpp"
#include "support/warnings.hpp"

namespace fdbench {
namespace input_files_test {

using testing::TempDir;
using testing::write_text;

struct Snapshot {
  off_t size;
  std::int64_t mtime_ns;
  std::int64_t ctime_ns;
  bool operator==(const Snapshot&) const = default;
};

// Size, mtime and ctime of every entry (links not followed), keyed by path.
std::map<std::string, Snapshot> snapshot(const std::string& root) {
  std::map<std::string, Snapshot> out;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           root, std::filesystem::directory_options::none, ignored)) {
    struct stat info {};
    if (lstat(entry.path().c_str(), &info) != 0) continue;
    out[entry.path().string()] = {info.st_size,
                                  info.st_mtim.tv_sec * 1'000'000'000LL + info.st_mtim.tv_nsec,
                                  info.st_ctim.tv_sec * 1'000'000'000LL + info.st_ctim.tv_nsec};
  }
  return out;
}

// A tree with every kind of entry a real one may hold. Returns the Unix socket (it must stay
// bound while the test runs).
UniqueFd make_hostile_tree(const TempDir& dir) {
  std::filesystem::create_directories(dir / "src/deep/er");
  write_text(dir / "a.txt", "alpha");
  write_text(dir / "src/b.txt", "bravo");
  write_text(dir / "src/deep/er/c.txt", "charlie");
  write_text(dir / "unreadable.txt", "secret");
  chmod((dir / "unreadable.txt").c_str(), 0);
  EXPECT_EQ(mkfifo((dir / "fifo").c_str(), 0644), 0);
  EXPECT_EQ(symlink("/nonexistent/target", (dir / "dangling").c_str()), 0);
  EXPECT_EQ(symlink("loop", (dir / "loop").c_str()), 0);       // points at itself
  EXPECT_EQ(symlink("..", (dir / "src/deep/up").c_str()), 0);  // a directory cycle
  EXPECT_EQ(symlink((dir / "a.txt").c_str(), (dir / "link-to-a").c_str()), 0);
  UniqueFd sock(socket(AF_UNIX, SOCK_STREAM, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string path = dir / "socket";
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  EXPECT_EQ(bind(sock.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  return sock;
}

TEST(InputFiles, TreeKeepsRegularFilesAndCountsEverythingElse) {
  TempDir dir;
  const UniqueFd sock = make_hostile_tree(dir);
  const InputFiles input = scan_tree(dir.path());
  EXPECT_EQ(input.paths.size(), 3U);  // a, b, c
  // Mode 0: no read permission bit for anyone, root included, so never opened.
  EXPECT_EQ(input.skipped.at("no read permission"), 1U);
  EXPECT_EQ(input.skipped.at("fifo"), 1U);
  EXPECT_EQ(input.skipped.at("socket"), 1U);
  EXPECT_EQ(input.skipped.at("symlink"), 4U);
  EXPECT_EQ(input.skipped.count("device"), 0U);
}

TEST(InputFiles, OpeningATreeNeverChangesItAndNeverBlocks) {
  TempDir dir;
  const UniqueFd sock = make_hostile_tree(dir);
  const auto before = snapshot(dir.path());
  const InputFiles input = scan_tree(dir.path());
  OpenSpec spec;
  spec.dir_path = input.dir_path;
  spec.paths = &input.paths;
  spec.foreign = true;
  for (const auto& info : strategy_registry()) {
    if (info.accepts_only) continue;  // accept's alone
    if (!info.unavailable_reason().empty()) continue;
    SCOPED_TRACE(std::string(info.name));
    const auto work = make_open_workload(spec);
    const Result r = measure(*work, info, {2, 2}, 2, 0);
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(r.ops, 3U);  // the file without a read permission bit was left out
    EXPECT_EQ(r.failures, 0U) << r.first_failure;
    EXPECT_TRUE(testing::warnings_besides_noise(r.warnings).empty());
  }
  EXPECT_EQ(snapshot(dir.path()), before);
}

TEST(InputFiles, AFileRemovedAfterTheScanIsAFailureNotAnAbort) {
  TempDir dir;
  write_text(dir / "stays.txt", "");
  write_text(dir / "goes.txt", "");
  const InputFiles input = scan_tree(dir.path());
  ASSERT_EQ(input.paths.size(), 2U);
  std::filesystem::remove(dir / "goes.txt");
  OpenSpec spec;
  spec.dir_path = input.dir_path;
  spec.paths = &input.paths;
  spec.foreign = true;
  const auto work = make_open_workload(spec);
  const Result r = measure(*work, *find_strategy("threads"), {1, 1}, 3, 0);
  EXPECT_EQ(r.failures, 3U);  // once per repetition
  EXPECT_EQ(r.failures_by_errno.at("ENOENT").count, 3U);
}

TEST(InputFiles, AFileSwappedForAFifoAfterItWasLookedAtIsNotKept) {
  TempDir dir;
  write_text(dir / "stays.txt", "");
  write_text(dir / "x.txt", "");
  TreeWalk walk;
  walk.looked_at = [&dir](const std::string& path) {
    if (path != "x.txt") return;
    std::filesystem::remove(dir / "x.txt");
    ASSERT_EQ(mkfifo((dir / "x.txt").c_str(), 0644), 0);
  };
  const InputFiles input = scan_tree(dir.path(), walk);
  ASSERT_EQ(input.paths.size(), 1U);
  EXPECT_EQ(std::string(input.paths[0]), "stays.txt");
  EXPECT_EQ(input.skipped.at("changed during the scan"), 1U);
}

TEST(InputFiles, AFileReplacedByAnotherAfterItWasLookedAtIsNotKept) {
  TempDir dir;
  write_text(dir / "x.txt", "");
  write_text(dir / "other.txt", "");
  TreeWalk walk;
  walk.looked_at = [&dir](const std::string& path) {
    // A regular file still, but not the one looked at: a hard link to another.
    if (path == "x.txt") std::filesystem::remove(dir / "x.txt");
    if (path == "x.txt") std::filesystem::create_hard_link(dir / "other.txt", dir / "x.txt");
  };
  const InputFiles input = scan_tree(dir.path(), walk);
  EXPECT_EQ(input.skipped.at("changed during the scan"), 1U);
}

// tt/a/b/x.txt, with tt/a swapped for a link to elsewhere once tt/a/b has been looked at: the
// walk must not follow the link into the other tree.
TEST(InputFiles, ADirectorySwappedForALinkAfterItWasLookedAtIsNotFollowed) {
  TempDir dir;
  std::filesystem::create_directories(dir / "tt/a/b");
  std::filesystem::create_directories(dir / "evil/b");
  write_text(dir / "tt/a/b/x.txt", "");
  write_text(dir / "evil/b/x.txt", "");
  TreeWalk walk;
  walk.looked_at = [&dir](const std::string& path) {
    if (path != "a/b") return;
    std::filesystem::rename(dir / "tt/a", dir / "a_orig");
    std::filesystem::create_directory_symlink(dir / "evil", dir / "tt/a");
  };
  const InputFiles input = scan_tree(dir / "tt", walk);
  EXPECT_TRUE(input.paths.empty()) << input.paths[0];
  EXPECT_EQ(input.skipped.at("changed during the scan"), 1U);
}

TEST(InputFiles, ADirectoryReplacedByAnotherAfterItWasLookedAtIsNotRead) {
  TempDir dir;
  std::filesystem::create_directories(dir / "tt/s");
  std::filesystem::create_directories(dir / "elsewhere");
  write_text(dir / "tt/s/x.txt", "");
  write_text(dir / "elsewhere/y.txt", "");
  TreeWalk walk;
  walk.looked_at = [&dir](const std::string& path) {
    if (path != "s") return;
    std::filesystem::rename(dir / "tt/s", dir / "s_orig");
    std::filesystem::rename(dir / "elsewhere", dir / "tt/s");
  };
  const InputFiles input = scan_tree(dir / "tt", walk);
  EXPECT_TRUE(input.paths.empty()) << input.paths[0];
  EXPECT_EQ(input.skipped.at("changed during the scan"), 1U);
}

// A list is held to --tree's rules: a file on one of the kernel's pseudo-filesystems is
// refused before anything is opened, unless allowed.
TEST(InputFiles, AListNamingAPseudoFilesystemFileIsRefusedUnlessAllowed) {
  if (!platform::uses_linux_interfaces()) GTEST_SKIP() << "nothing is refused in this build";
  TempDir dir;
  write_text(dir / "one.txt", "1");
  // /proc/PID, not /proc/self: a listed path is followed through no symlink.
  const std::string status = "/proc/" + std::to_string(getpid()) + "/status";
  write_text(dir / "list", (dir / "one.txt") + "\n" + status + "\n");
  try {
    read_list(dir / "list", false);
    ADD_FAILURE() << "a listed /proc file was kept";
  } catch (const Error& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find(status + " is on proc"), std::string::npos) << text;
    EXPECT_NE(text.find("--allow-pseudo-fs"), std::string::npos) << text;
  }
  const InputFiles allowed = read_list(dir / "list", false, true);
  EXPECT_EQ(allowed.paths.size(), 2U);
}

// The header names the filesystem of each listed file, not one of them (nor the cwd's).
TEST(InputFiles, AListNamesEveryFilesystemItsFilesAreOn) {
  if (!platform::uses_linux_interfaces()) GTEST_SKIP() << "filesystems are not told apart here";
  TempDir dir;
  write_text(dir / "one.txt", "1");
  const std::string here = platform::fs_type(dir.path());
  const std::string proc = platform::fs_type("/proc/self/status");
  if (here == proc) GTEST_SKIP() << "the test directory is on " << here;
  write_text(dir / "list", (dir / "one.txt") + "\n/proc/" + std::to_string(getpid()) +
                               "/status\n" + (dir / "one.txt") + "\n");
  const InputFiles input = read_list(dir / "list", false, true);
  EXPECT_EQ(input.fs_type, here + ", " + proc);
}

TEST(InputFiles, ListCountsMissingAndSpecialEntries) {
  TempDir dir;
  write_text(dir / "one.txt", "1");
  write_text(dir / "two.txt", "2");
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0644), 0);
  write_text(dir / "list", (dir / "one.txt") + "\n" + (dir / "missing") + "\n\n" + dir.path() +
                               "\n" + (dir / "fifo") + "\r\n" + (dir / "two.txt") + "\n");
  const InputFiles input = read_list(dir / "list", false);
  EXPECT_EQ(input.paths.size(), 2U);
  EXPECT_EQ(input.missing.at("No such file or directory"), 1U);
  EXPECT_EQ(input.skipped.at("directory"), 1U);
  EXPECT_EQ(input.skipped.at("fifo"), 1U);
}

TEST(InputFiles, NulSeparatedListKeepsNewlinesInNames) {
  TempDir dir;
  write_text(dir / "odd\nname", "x");
  const std::string list = (dir / "odd\nname") + std::string(1, '\0');
  write_text(dir / "list0", list);
  const InputFiles input = read_list(dir / "list0", true);
  ASSERT_EQ(input.paths.size(), 1U);
  EXPECT_EQ(std::string(input.paths[0]), dir / "odd\nname");
}

TEST(InputFiles, MissingTreeOrListIsAnError) {
  EXPECT_THROW(scan_tree("/nonexistent/fdbench-test"), Error);
  EXPECT_THROW(read_list("/nonexistent/fdbench-test", false), Error);
}

}  // namespace input_files_test
}  // namespace fdbench
