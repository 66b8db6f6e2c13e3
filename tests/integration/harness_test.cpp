// --harness published: the seeds' own harnesses run beside the minimal one, open every file by
// the seed's names, record `harness` in each result, leave the current directory and the
// descriptors as they were, and say "unavailable" for a strategy no seed had.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <memory>
#include <string>
#include <vector>

#include "engine/measure.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "model/environment.hpp"
#include "model/path_table.hpp"
#include "output/reporter.hpp"
#include "platform/platform.hpp"
#include "run/session.hpp"
#include "support/quiet_session.hpp"
#include "support/temp_dir.hpp"

namespace fdbench {
namespace harness_test {

using testing::TempDir;

std::string current_directory() {
  char cwd[PATH_MAX];
  return getcwd(cwd, sizeof cwd) != nullptr ? cwd : "";
}

const Result* find(const std::vector<Result>& results, const std::string& strategy, int threads,
                   Harness harness) {
  for (const auto& r : results) {
    if (r.config.strategy == strategy && r.config.threads == threads && r.config.harness == harness)
      return &r;
  }
  return nullptr;
}

TEST(PublishedHarness, OpenRunsBesideTheMinimalOneForThreadsAndPoolOnly) {
  TempDir dir;
  const std::string cwd = current_directory();
  const auto held_before = platform::open_descriptors();
  OpenOptions options;
  options.files = 40;
  options.threads = {1, 3};  // 40 files over 3 threads: the seed gives the last one the rest
  options.strategies = {"threads", "pool", "fast-pool"};
  options.harness = {Harness::minimal, Harness::published};
  options.repeat = Repeat::fixed(2);
  options.warmup = 1;
  options.dir = dir.path();
  auto session = testing::quiet_session(dir.path());
  session->run_open(options);
  session->finish(true);
  const std::vector<Result> results(session->results().begin(), session->results().end());
  ASSERT_EQ(results.size(), 12U);  // 3 strategies x 2 thread counts x 2 harnesses
  for (const char* strategy : {"threads", "pool"}) {
    for (const int threads : {1, 3}) {
      SCOPED_TRACE(std::string(strategy) + " threads=" + std::to_string(threads));
      const Result* minimal = find(results, strategy, threads, Harness::minimal);
      const Result* published = find(results, strategy, threads, Harness::published);
      ASSERT_NE(minimal, nullptr);
      ASSERT_NE(published, nullptr);
      EXPECT_EQ(published->status, Status::measured) << published->error;
      EXPECT_EQ(published->failures, 0U) << published->first_failure;
      EXPECT_EQ(published->ops, 40U);
      EXPECT_EQ(published->times_ns.size(), 2U);
      EXPECT_EQ(published->unit, "files");
      EXPECT_EQ(published->workload_kind, WorkloadKind::open);
      EXPECT_EQ(published->config.paths, PathMode::relative);
      EXPECT_NE(published->parameters.at("paths_note").find("std::ifstream"), std::string::npos);
      EXPECT_EQ(minimal->parameters.count("paths_note"), 0U);
    }
  }
  for (const int threads : {1, 3}) {
    const Result* published = find(results, "fast-pool", threads, Harness::published);
    ASSERT_NE(published, nullptr);
    EXPECT_EQ(published->status, Status::unavailable);
    EXPECT_NE(published->error.find("the published harness exists for threads and pool"),
              std::string::npos)
        << published->error;
    EXPECT_TRUE(published->times_ns.empty());
    EXPECT_EQ(find(results, "fast-pool", threads, Harness::minimal)->status, Status::measured);
  }
  EXPECT_EQ(current_directory(), cwd);
  session.reset();
  EXPECT_EQ(platform::open_descriptors(), held_before);
}

// The seed's names really are opened: a file taken away fails by its name, once per repetition.
TEST(PublishedHarness, OpensTheSeedsNamesAndCountsWhatFails) {
  TempDir dir;
  PathTable names;
  for (int i = 1; i <= 12; ++i) {
    const std::string name = std::to_string(i) + ".txt";
    names.add(name);
    if (i != 7) testing::write_text(dir / name, "");
  }
  const std::string cwd = current_directory();
  const StrategyInfo& threads = *find_strategy("threads");
  for (const int t : {1, 2, 5}) {
    SCOPED_TRACE("threads=" + std::to_string(t));
    StrategyConfig config;
    config.threads = t;
    config.harness = Harness::published;
    auto work = make_published_open_workload(dir.path(), names);
    const Result r = measure(*work, threads, config, 3, 0);
    EXPECT_EQ(r.status, Status::measured) << r.error;
    EXPECT_EQ(r.config.harness, Harness::published);
    EXPECT_EQ(r.times_ns.size(), 3U);
    EXPECT_EQ(r.failures, 3U);  // 7.txt, in each of 3 repetitions
    EXPECT_EQ(r.failures_by_errno.count("ENOENT"), 1U);
    EXPECT_EQ(current_directory(), cwd);
  }
  PathTable other;
  other.add("a.txt");
  EXPECT_THROW(make_published_open_workload(dir.path(), other), Error);
}

TEST(PublishedHarness, SocketRunsTheSecondSeedsThreadsBesideTheMinimalOnes) {
  TempDir dir;
  const auto held_before = platform::open_descriptors();
  SocketOptions options;
  options.strategies = {"threads", "process"};
  options.threads = {2};
  options.per_thread = 16;
  options.pregrow = {Pregrow{}};
  options.harness = {Harness::minimal, Harness::published};
  options.repeat = Repeat::fixed(2);
  options.warmup = 0;
  auto session = testing::quiet_session(dir.path());
  session->run_socket(options);
  session->finish(true);
  const std::vector<Result> results(session->results().begin(), session->results().end());
  ASSERT_EQ(results.size(), 4U);
  const Result* published = find(results, "threads", 2, Harness::published);
  ASSERT_NE(published, nullptr);
  EXPECT_EQ(published->status, Status::measured) << published->error;
  EXPECT_EQ(published->failures, 0U) << published->first_failure;
  EXPECT_EQ(published->ops, 32U);
  EXPECT_EQ(published->times_ns.size(), 2U);
  // Each repetition in a fresh child that starts from the smallest table, as the seed's does
  // (where the system shows the table's size: Linux).
  if (platform::fd_table_size().has_value()) {
    ASSERT_TRUE(published->fdsize_before.has_value());
    EXPECT_EQ(*published->fdsize_before, 64);
  }
  const Result* process = find(results, "process", 2, Harness::published);
  ASSERT_NE(process, nullptr);
  EXPECT_EQ(process->status, Status::unavailable);
  EXPECT_NE(process->error.find("the published harness exists for threads"), std::string::npos)
      << process->error;
  EXPECT_EQ(find(results, "threads", 2, Harness::minimal)->status, Status::measured);
  session.reset();
  EXPECT_EQ(platform::open_descriptors(), held_before);
}

}  // namespace harness_test
}  // namespace fdbench
