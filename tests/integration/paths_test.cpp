// --paths: every strategy opens every file whether it names it relative to its directory or
// by its absolute path, each open result records which, and a strategy that can only use
// absolute paths (libuv: no openat) says so when relative ones were asked for.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/strategy.hpp"
#include "model/environment.hpp"
#include "output/reporter.hpp"
#include "platform/platform.hpp"
#include "run/session.hpp"
#include "support/quiet_session.hpp"
#include "support/temp_dir.hpp"
#include "support/warnings.hpp"

namespace fdbench {
namespace paths_test {

using testing::TempDir;

std::vector<Result> run_open(const OpenOptions& options) {
  const auto session = testing::quiet_session(options.dir.empty() ? platform::default_dir() : options.dir);
  session->run_open(options);
  session->finish(true);
  return {session->results().begin(), session->results().end()};
}

bool available(const std::string& strategy) {
  const StrategyInfo* info = find_strategy(strategy);
  return info != nullptr && info->unavailable_reason().empty();
}

// Every file opened, nothing failed, nothing left behind, and `paths` recorded as expected.
void expect_clean(const std::vector<Result>& results, std::size_t files, const std::string& paths) {
  for (const Result& r : results) {
    SCOPED_TRACE(r.config.strategy + " threads=" + std::to_string(r.config.threads));
    ASSERT_TRUE(r.input.has_value());
    EXPECT_EQ(r.input->files, files);
    ASSERT_TRUE(r.config.paths.has_value());
    EXPECT_EQ(to_string(*r.config.paths), paths);
    EXPECT_EQ(r.parameters.count("paths_note"), 0U);
    if (!available(r.config.strategy)) continue;
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.failures, 0U) << r.first_failure;
    EXPECT_EQ(r.times_ns.size(), static_cast<std::size_t>(r.repeat));
    EXPECT_TRUE(testing::warnings_besides_noise(r.warnings).empty()) << r.warnings.front();
  }
}

OpenOptions small_run(const TempDir& dir) {
  OpenOptions options;
  options.files = 40;
  options.threads = {1, 2};
  options.repeat = Repeat::fixed(1);
  options.warmup = 0;
  options.dir = dir.path();
  options.paths = PathMode::absolute;
  return options;
}

TEST(PathsAbsolute, EveryStrategyOpensEveryFile) {
  TempDir dir;
  const auto held_before = platform::open_descriptors();
  for (const bool keep_open : {false, true}) {  // kept open: each repetition in a fresh child
    SCOPED_TRACE(keep_open ? "keep-open" : "open+close");
    OpenOptions options = small_run(dir);
    options.subdirs = keep_open ? 3 : 0;
    options.keep_open = keep_open;
    const auto results = run_open(options);
    EXPECT_EQ(results.size(), 2 * strategy_names_for(WorkloadKind::open).size());
    expect_clean(results, *options.files, "absolute");
  }
  EXPECT_EQ(platform::open_descriptors(), held_before);
  EXPECT_TRUE(testing::list_names(dir.path()).empty()) << "the file set was left behind";
}

TEST(PathsRelative, LibuvSaysItCouldOnlyUseAbsolutePaths) {
  TempDir dir;
  OpenOptions options = small_run(dir);
  options.paths = PathMode::relative;
  options.threads = {1};
  options.strategies = {"threads", "libuv"};
  const auto results = run_open(options);
  ASSERT_EQ(results.size(), 2U);
  expect_clean({results[0]}, *options.files, "relative");
  const Result& libuv = results[1];
  EXPECT_EQ(libuv.config.paths, PathMode::absolute);
  ASSERT_EQ(libuv.parameters.count("paths_note"), 1U);
  EXPECT_NE(libuv.parameters.at("paths_note").find("openat"), std::string::npos);
  EXPECT_NE(libuv.parameters.at("paths_note").find("--paths relative"), std::string::npos);
  if (available("libuv")) {
    EXPECT_EQ(libuv.error, "");
    EXPECT_EQ(libuv.failures, 0U);
  }
}

// Runs the rest of a test from `dir`, and goes back to where it was at the end.
class InDirectory {
 public:
  explicit InDirectory(const std::string& dir) : back_(open(".", O_RDONLY | O_CLOEXEC)) {
    EXPECT_EQ(chdir(dir.c_str()), 0);
  }
  InDirectory(const InDirectory&) = delete;
  InDirectory& operator=(const InDirectory&) = delete;
  ~InDirectory() {
    EXPECT_EQ(fchdir(back_), 0);
    close(back_);
  }

 private:
  int back_;
};

TEST(PathsAbsolute, RelativeTreeAndListEntriesAreResolvedAgainstTheCurrentDirectory) {
  TempDir dir;
  ASSERT_EQ(mkdir((dir / "tree").c_str(), 0700), 0);
  ASSERT_EQ(mkdir((dir / "tree/sub").c_str(), 0700), 0);
  for (const char* name : {"tree/a", "tree/b", "tree/sub/c"}) testing::write_text(dir / name, "");
  // Relative and absolute entries mixed, as `find` output and hand-made lists are.
  testing::write_text(dir / "list", "tree/a\n" + (dir / "tree/b") + "\n./tree/sub/c\n");
  InDirectory here(dir.path());
  for (const PathMode mode : {PathMode::relative, PathMode::absolute}) {
    SCOPED_TRACE(std::string(to_string(mode)));
    // The user's files by full path need openat2(), which follows no link on the path: where
    // there is none (the portable build), --paths absolute is refused for them.
    if (mode == PathMode::absolute && !platform::has_open_resolved()) continue;
    for (const bool from_list : {false, true}) {
      OpenOptions options = small_run(dir);
      options.paths = mode;
      options.strategies = {"threads", "process", "uring"};
      (from_list ? options.list : options.tree) = from_list ? "list" : "tree";
      const auto results = run_open(options);
      ASSERT_EQ(results.size(), 6U);
      expect_clean(results, 3, std::string(to_string(mode)));
      EXPECT_TRUE(results[0].input->missing.empty());
    }
  }
}

}  // namespace paths_test
}  // namespace fdbench
