// How far a --tree walk goes (issue 21 item 2): it stays on the tree's own filesystem unless
// --cross-mounts, refuses the kernel's pseudo-filesystems (as the tree, or mounted below it)
// unless --allow-pseudo-fs, before it opens anything there, and never opens a file without a
// read permission bit for the user, root included. Open and tune alike.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "platform/platform.hpp"
#include "support/error_line.hpp"
#include "support/fdbench_process.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"
#include "support/tmpfs.hpp"

namespace fdbench::testing {
namespace tree_walk_test {

RunResult run_bounded(const std::vector<std::string>& args) {
  RunOptions options = as_a_job();
  options.timeout = std::chrono::seconds(60);
  FdbenchProcess child(args, options);
  RunResult run = child.wait();
  EXPECT_NE(run.exit_code, -1) << "fdbench hung: " << describe(args);
  return run;
}

std::vector<std::string> open_tree(const std::string& dir, std::vector<std::string> more = {}) {
  std::vector<std::string> args{"open",    "--tree",   dir, "--threads", "1", "--strategy",
                                "threads", "--repeat", "1", "--warmup",  "0"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// `command` (open or tune) of the tree `dir`, as small as it goes.
std::vector<std::string> walk(const std::string& command, const std::string& dir,
                              std::vector<std::string> more = {}) {
  std::vector<std::string> args =
      command == "tune" ? std::vector<std::string>{"tune", "--tree",     dir,      "--budget",
                                                   "1",    "--strategy", "threads"}
                        : open_tree(dir);
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// What a JSON run of `args` says of its input.
nlohmann::json input_of(const std::vector<std::string>& args) {
  auto json = args;
  json.insert(json.end(), {"--format", "json"});
  const RunResult run = run_bounded(json);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  if (run.exit_code != 0) return nlohmann::json::object();
  return nlohmann::json::parse(run.out).at("results").at(0).at("input");
}

// The directory `path` is in.
std::string parent_of(const std::string& path) {
  return path.substr(0, path.rfind('/'));
}

// A filesystem mounted at `path` for one test with `mount ARGS`, unmounted at the end.
class Mount {
 public:
  Mount(const std::string& args, std::string path) : path_(std::move(path)) {
    mkdir(path_.c_str(), 0755);
    mounted_ = std::system(("mount " + args + " '" + path_ + "' 2>/dev/null").c_str()) == 0;
  }
  Mount(const Mount&) = delete;
  Mount& operator=(const Mount&) = delete;
  ~Mount() {
    if (mounted_) {
      [[maybe_unused]] const int done = std::system(("umount -l '" + path_ + "'").c_str());
    }
  }
  [[nodiscard]] bool mounted() const { return mounted_; }

 private:
  std::string path_;
  bool mounted_ = false;
};

TEST(TreeWalk, FilesWithoutAReadPermissionBitAreSkippedAndCounted) {
  TempDir dir;
  write_text(dir / "readable.txt", "");
  // Write-only, as sysfs's and tracefs's triggers are; and no permission at all. Root could
  // open both, and must not.
  for (const auto& [name, mode] : {std::pair{"write-only", 0200}, std::pair{"none", 0000}}) {
    write_text(dir / name, "");
    ASSERT_EQ(chmod((dir / name).c_str(), static_cast<mode_t>(mode)), 0);
  }
  const auto input = input_of(open_tree(dir.path()));
  EXPECT_EQ(input.value("files", 0), 1) << input.dump();
  EXPECT_EQ(input.at("skipped").value("no read permission", 0), 2) << input.dump();

  const RunResult table = run_bounded(open_tree(dir.path()));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("2 entries skipped (2 without read permission)"), std::string::npos)
      << table.out;
}

// /proc/self is proc whoever runs the test: refused before anything there is opened.
TEST(TreeWalk, APseudoFilesystemIsRefusedUnlessAllowed) {
  if (!platform::uses_linux_interfaces()) {
    GTEST_SKIP() << "the portable build cannot tell a filesystem's type (statfs magic is Linux's)";
  }
  for (const std::string tree : {"/proc/self", "/sys/kernel"}) {
    SCOPED_TRACE(tree);
    struct stat info {};
    if (stat(tree.c_str(), &info) != 0) continue;
    for (const std::string command : {"open", "tune"}) {
      SCOPED_TRACE(command);
      const RunResult run = run_bounded(walk(command, tree));
      EXPECT_EQ(run.exit_code, 1) << run.err;
      expect_one_error_line(run.err,
                            {"--tree " + tree, tree == "/proc/self" ? "on proc," : "on sysfs,",
                             "pseudo-filesystem", "--allow-pseudo-fs"});
    }
  }
}

// Allowed, it is walked like any tree: here files whose opening for reading does nothing.
TEST(TreeWalk, APseudoFilesystemIsWalkedWhenAllowed) {
  if (!platform::uses_linux_interfaces()) GTEST_SKIP() << "nothing is refused in this build";
  const std::string tree = "/proc/sys/kernel/random";
  struct stat info {};
  if (stat(tree.c_str(), &info) != 0) GTEST_SKIP() << tree << " is not here";
  const auto input = input_of(open_tree(tree, {"--allow-pseudo-fs"}));
  EXPECT_GT(input.value("files", 0), 0) << input.dump();
}

TEST(TreeWalk, TheOptionsNeedTree) {
  for (const char* flag : {"--cross-mounts", "--allow-pseudo-fs"}) {
    const RunResult run = run_bounded({"open", flag, "--files", "10"});
    EXPECT_EQ(run.exit_code, 2) << run.err;
    expect_one_error_line(run.err, {flag, "needs --tree"});
  }
}

// A tmpfs mounted below the tree: left out unless --cross-mounts; a proc mounted below it is
// refused with --cross-mounts unless --allow-pseudo-fs.
TEST(TreeWalk, StaysOnItsFilesystemUnlessToldToCrossMounts) {
  const Tmpfs below("size=1m");
  if (!below.mounted()) FDBENCH_SKIP_WITHOUT("mount") << "cannot mount a tmpfs (not root?)";
  const std::string tree = parent_of(below.path());
  write_text(tree + "/top.txt", "");
  write_text(below.path() + "/below.txt", "");
  ASSERT_EQ(mkdir((below.path() + "/sub").c_str(), 0755), 0);
  write_text(below.path() + "/sub/deeper.txt", "");

  const auto stays = input_of(open_tree(tree));
  EXPECT_EQ(stays.value("files", 0), 1) << stays.dump();
  EXPECT_EQ(stays.at("skipped").value("other filesystem", 0), 1) << stays.dump();
  const RunResult table = run_bounded(open_tree(tree));
  EXPECT_NE(table.out.find("1 on another filesystem (see --cross-mounts)"), std::string::npos)
      << table.out;

  const auto crosses = input_of(open_tree(tree, {"--cross-mounts"}));
  EXPECT_EQ(crosses.value("files", 0), 3) << crosses.dump();
  EXPECT_EQ(crosses.at("skipped").value("other filesystem", 0), 0) << crosses.dump();

  if (!platform::uses_linux_interfaces()) return;  // the type of what is below is not told
  const std::string kernel = tree + "/kernel";
  const Mount proc("-t proc proc", kernel);
  if (!proc.mounted()) GTEST_SKIP() << "cannot mount a proc below the tree";
  EXPECT_EQ(input_of(open_tree(tree)).at("skipped").value("other filesystem", 0), 2);
  for (const std::string command : {"open", "tune"}) {
    SCOPED_TRACE(command);
    const RunResult refused = run_bounded(walk(command, tree, {"--cross-mounts"}));
    EXPECT_EQ(refused.exit_code, 1) << refused.err;
    expect_one_error_line(refused.err, {"--tree " + tree, kernel + " is proc", "--allow-pseudo-fs",
                                        "--cross-mounts"});
  }
}

}  // namespace tree_walk_test
}  // namespace fdbench::testing

namespace fdbench::testing {
namespace tree_walk_test {

// A --tree directory's name with terminal commands in it (OSC 52 writes the clipboard, CSI 2J
// clears the screen, a C1 CSI) reaches no format's output raw (issue 49 item 7: Markdown printed
// it as it was): every text format shows it as \xNN, the HTML page too.
TEST(TreeWalk, ADirectoryNameReachesNoFormatAsATerminalCommand) {
  TempDir dir;
  const std::string tree = dir / "t\x1b]52;c;b3duZWQ=\x07\x1b[2J\xc2\x9b";
  ASSERT_EQ(mkdir(tree.c_str(), 0755), 0);
  write_text(tree + "/a", "a");
  for (const char* format : {"table", "csv", "markdown", "html"}) {
    SCOPED_TRACE(format);
    const RunResult run = run_bounded(open_tree(tree, {"--format", format}));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    for (const char control : {'\x1b', '\x07', '\x9b'}) {
      EXPECT_EQ(run.out.find(control), std::string::npos) << int(control) << "\n" << run.out;
    }
    if (std::string(format) != "csv") {  // CSV's rows do not name the tree
      EXPECT_NE(run.out.find("\\x1b]52;c;b3duZWQ=\\x07"), std::string::npos) << run.out;
    }
  }
}

}  // namespace tree_walk_test
}  // namespace fdbench::testing
