// The runner with real descriptors: measure() with the open workload over every strategy,
// and measure_in_fresh_child() with sockets, where the descriptor table's growth is visible.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/capture.hpp"
#include "engine/measure.hpp"
#include "fdbench/error.hpp"
#include "inputs/file_set.hpp"
#include "output/reporter.hpp"
#include "platform/platform.hpp"
#include "run/session.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"
#include "support/warnings.hpp"

namespace fdbench {
namespace runner_test {

using testing::TempDir;

class MeasureOpen : public ::testing::Test {
 protected:
  static constexpr std::size_t kFiles = 200;
  TempDir parent_;
  FileSet files_ = FileSet::create(parent_.path(), kFiles);
};

TEST_F(MeasureOpen, EveryStrategyOpensEveryFileWithoutFailuresOrLeaks) {
  const auto work = make_open_workload(files_.dir_fd(), files_.path(), files_.names());
  for (const StrategyInfo& info : strategy_registry()) {
    if (info.accepts_only) continue;  // accept's alone
    if (const auto reason = info.unavailable_reason(); !reason.empty()) {
      std::printf("skipping %s: %s\n", std::string(info.name).c_str(), reason.c_str());
      continue;
    }
    for (const int threads : {1, 3}) {
      SCOPED_TRACE(std::string(info.name) + " threads=" + std::to_string(threads));
      const auto held_before = platform::open_descriptors();
      const Result r = measure(*work, info, {threads, 16}, 3, 1);
      EXPECT_EQ(platform::open_descriptors(), held_before);
      EXPECT_EQ(r.error, "");
      EXPECT_EQ(r.failures, 0U) << r.first_failure;
      EXPECT_TRUE(testing::warnings_besides_noise(r.warnings).empty()) << r.warnings.front();
      EXPECT_EQ(r.times_ns.size(), 3U);
      EXPECT_EQ(r.stats.count, 3U);
      EXPECT_EQ(r.workload, "open");
      EXPECT_EQ(r.config.kind, DescriptorKind::file);
      EXPECT_EQ(r.config.strategy, info.name);
      EXPECT_EQ(r.config.threads, threads);
      EXPECT_EQ(r.config.batch, info.uses_batch() ? 16 : 1);
      EXPECT_EQ(r.ops, kFiles);
      EXPECT_EQ(r.repeat, 3);
      EXPECT_EQ(r.warmup, 1);
      EXPECT_TRUE(r.ok());
    }
  }
}

TEST_F(MeasureOpen, MissingFilesAreCountedAsFailures) {
  PathTable names;
  names.add("1.txt");
  names.add("no-such-file");
  names.add("2.txt");
  const auto work = make_open_workload(files_.dir_fd(), files_.path(), names);
  const Result r = measure(*work, *find_strategy("threads"), {2, 1}, 2, 1);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.failures, 2U);  // one per timed repetition: the warm-up's is not counted
  EXPECT_NE(r.first_failure, "");
  EXPECT_FALSE(r.ok());
}

// Workers made for each repetition (--order interleaved) first do the work once untimed; its
// failures are not the repetition's: a row must say "2 of 6", not "4 of 6".
TEST_F(MeasureOpen, FailuresAreCountedInTimedRepetitionsOnlyAlsoWithWorkersPerRepetition) {
  PathTable names;
  names.add("1.txt");
  names.add("no-such-file");
  names.add("2.txt");
  const auto work = make_open_workload(files_.dir_fd(), files_.path(), names);
  const Result r = in_process_measurement(*work, *find_strategy("threads"), {2, 1}, 2, 1, {},
                                          Workers::per_repetition)
                       ->run_all();
  EXPECT_EQ(r.times_ns.size(), 2U);
  EXPECT_EQ(r.failures, 2U) << "one per timed repetition; warm-up and primer passes not counted";
}

// A strategy that cannot run here is reported, not run.
TEST(Measure, UnavailableStrategyIsAnErrorNotARun) {
  StrategyInfo info{"never", "cannot run anywhere", BatchUnit::none, nullptr,
                    [] { return std::string("built without it"); }};
  const auto work = make_socket_workload(SocketKind::tcp, 4);
  const Result r = measure(*work, info, {1, 1}, 3, 0);
  EXPECT_EQ(r.error, "built without it");
  EXPECT_TRUE(r.times_ns.empty());
  EXPECT_EQ(r.config.strategy, "never");
  EXPECT_FALSE(r.ok());
}

// A strategy that finds at run time that it cannot do the work throws Error: the result
// carries the message, the process carries on.
TEST(Measure, StrategyErrorBecomesTheResultsError) {
  StrategyInfo info{"refuses", "throws", BatchUnit::none,
                    [](const StrategyConfig&) -> std::unique_ptr<Strategy> {
                      throw Error("EPERM from io_uring_setup");
                    }};
  const auto work = make_socket_workload(SocketKind::tcp, 4);
  const auto held_before = platform::open_descriptors();
  const Result r = measure(*work, info, {1, 1}, 3, 0);
  EXPECT_EQ(platform::open_descriptors(), held_before);
  EXPECT_EQ(r.error, "EPERM from io_uring_setup");
  EXPECT_TRUE(r.times_ns.empty());
}

class FreshChildSockets : public ::testing::Test {
 protected:
  static constexpr std::size_t kPerThread = 128;
  static constexpr int kThreads = 2;

  static Result run(const Pregrow& pregrow) {
    const auto held_before = platform::open_descriptors();
    Result r =
        measure_in_fresh_child(socket_workload_recipe(SocketKind::tcp, kThreads * kPerThread),
                               *find_strategy("threads"), {kThreads, 1}, pregrow, 2, 1);
    EXPECT_EQ(platform::open_descriptors(), held_before) << "the parent leaked a descriptor";
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.failures, 0U) << r.first_failure;
    EXPECT_TRUE(testing::warnings_besides_noise(r.warnings).empty());
    EXPECT_EQ(r.times_ns.size(), 2U);
    EXPECT_EQ(r.workload, "socket");
    EXPECT_EQ(r.config.kind, DescriptorKind::tcp);
    EXPECT_EQ(r.config.threads, kThreads);
    EXPECT_EQ(r.ops, kThreads * kPerThread);
    EXPECT_EQ(r.config.pregrow, pregrow);
    if (!table_visible()) {  // sizes this platform does not show are left out, never guessed
      EXPECT_EQ(r.fdsize_before, std::nullopt);
      EXPECT_EQ(r.fdsize_after, std::nullopt);
    }
    return r;
  }

  // Whether this platform shows the descriptor table's size (Linux's FDSize).
  static bool table_visible() { return platform::fd_table_size().has_value(); }
};

TEST_F(FreshChildSockets, WithoutPregrowTheTableStartsSmallAndGrows) {
  const Result r = run(Pregrow{});
  if (!table_visible()) FDBENCH_SKIP_WITHOUT("proc_status") << "the table size is not visible";
  ASSERT_TRUE(r.fdsize_before.has_value());
  ASSERT_TRUE(r.fdsize_after.has_value());
  // A fresh child holding fds 0-3 starts from the kernel's smallest table...
  EXPECT_EQ(*r.fdsize_before, platform::kSmallestFdTable);
  // ...and 256 held sockets cannot fit in it.
  EXPECT_GE(*r.fdsize_after, 128);
  EXPECT_GT(*r.fdsize_after, static_cast<int>(kThreads * kPerThread));
}

TEST_F(FreshChildSockets, AutoPregrowSizesTheTableBeforeTheRun) {
  const Result r = run(Pregrow{Pregrow::Mode::automatic, 0});
  if (!table_visible()) FDBENCH_SKIP_WITHOUT("proc_status") << "the table size is not visible";
  ASSERT_TRUE(r.fdsize_before.has_value());
  ASSERT_TRUE(r.fdsize_after.has_value());
  // Room for fds 0-3 and every socket before the first worker starts; no growth during it.
  EXPECT_GE(*r.fdsize_before, static_cast<int>(kThreads * kPerThread) + 4);
  EXPECT_EQ(*r.fdsize_after, *r.fdsize_before);
}

TEST_F(FreshChildSockets, PregrowToAnFdHoldsThatFd) {
  const Result r = run(Pregrow{Pregrow::Mode::fd, 1000});
  if (!table_visible()) FDBENCH_SKIP_WITHOUT("proc_status") << "the table size is not visible";
  ASSERT_TRUE(r.fdsize_before.has_value());
  EXPECT_GT(*r.fdsize_before, 1000);
  EXPECT_EQ(r.fdsize_after, r.fdsize_before);
}

TEST_F(MeasureOpen, EveryStrategyRunsInAFreshChildHoldingItsFiles) {
  // What `open --keep-open` does: the child holds only fds 0-2, so the workload opens the
  // directory itself, and holds every file to the end of the repetition.
  OpenSpec spec;
  spec.dir_path = files_.path();
  spec.paths = &files_.names();
  spec.keep_open = true;
  for (const StrategyInfo& info : strategy_registry()) {
    if (info.accepts_only) continue;  // accept's alone
    if (!info.unavailable_reason().empty()) continue;
    SCOPED_TRACE(std::string(info.name));
    const auto held_before = platform::open_descriptors();
    const Result r =
        measure_in_fresh_child(open_workload_recipe(spec), info, {2, 8}, Pregrow{}, 1, 0);
    EXPECT_EQ(platform::open_descriptors(), held_before);
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.failures, 0U) << r.first_failure;
    EXPECT_EQ(r.times_ns.size(), 1U);
    EXPECT_EQ(r.ops, kFiles);
  }
}

// The parent learns what the workload is from the recipe, never by making one; the child
// checks that what it made is what the recipe says.
TEST(FreshChild, TheParentNeverMakesTheWorkload) {
  int made_here = 0;
  WorkloadRecipe recipe = socket_workload_recipe(SocketKind::udp, 8);
  const WorkloadFactory make = recipe.make;
  recipe.make = [&made_here, make] {
    ++made_here;  // in the child's copy of this process's memory
    return make();
  };
  const Result r =
      measure_in_fresh_child(recipe, *find_strategy("threads"), {2, 1}, Pregrow{}, 2, 1);
  EXPECT_EQ(made_here, 0);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.workload, "socket");
  EXPECT_EQ(r.config.kind, DescriptorKind::udp);
  EXPECT_EQ(r.ops, 8U);
  EXPECT_EQ(r.times_ns.size(), 2U);

  const WorkloadRecipe pipes = socket_workload_recipe(SocketKind::pipe, 8);
  EXPECT_EQ(pipes.facts.descriptors_per_item, 2);
  EXPECT_EQ(measure_in_fresh_child(pipes, *find_strategy("threads"), {1, 1}, Pregrow{}, 1, 0).ops,
            16U);
}

TEST(FreshChild, ARecipeThatDoesNotMatchWhatItMakesIsAnError) {
  WorkloadRecipe recipe = socket_workload_recipe(SocketKind::tcp, 8);
  recipe.facts.ops = 9;
  const Result r =
      measure_in_fresh_child(recipe, *find_strategy("threads"), {1, 1}, Pregrow{}, 2, 0);
  EXPECT_NE(
      r.error.find("the child made a socket workload of 8 tcp items, not the socket of 9 tcp"),
      std::string::npos)
      << r.error;
  EXPECT_TRUE(r.times_ns.empty());
}

// Session drives measure() and hands each result to its reporters, in order.
class RecordingReporter final : public Reporter {
 public:
  explicit RecordingReporter(std::vector<std::string>& log,
                             std::vector<Section>* sections = nullptr)
      : log_(log), sections_(sections) {}
  void begin(const Environment& /*env*/) override { log_.push_back("begin"); }
  void section(const Section& section) override {
    log_.push_back("section");
    if (sections_ != nullptr) sections_->push_back(section);
  }
  void add(const Result& r) override { log_.push_back("add " + r.config.strategy); }
  void end(std::span<const Result> all, std::span<const Finding> /*findings*/,
           bool complete) override {
    log_.push_back("end " + std::to_string(all.size()) + (complete ? " complete" : " cut"));
  }

 private:
  std::vector<std::string>& log_;
  std::vector<Section>* sections_;
};

TEST(Session, RunsOpenAndReportsEachResultThenCleansUp) {
  TempDir dir;
  std::vector<std::string> log;
  std::vector<std::unique_ptr<Reporter>> reporters;
  reporters.push_back(std::make_unique<RecordingReporter>(log));
  const auto held_before = platform::open_descriptors();
  {
    Session session(capture_environment(dir.path()), std::move(reporters));
    OpenOptions options;
    options.files = 50;
    options.threads = {1, 2};
    options.strategies = {"threads", "pool"};
    options.repeat = Repeat::fixed(2);
    options.warmup = 0;
    options.dir = dir.path();
    session.run_open(options);
    session.finish(true);
    session.finish(true);  // a second call must not report twice
    ASSERT_EQ(session.results().size(), 4U);
    for (const auto& r : session.results()) {
      EXPECT_EQ(r.error, "");
      EXPECT_EQ(r.failures, 0U);
      EXPECT_EQ(r.ops, 50U);
    }
  }
  EXPECT_EQ(log, (std::vector<std::string>{"begin", "section", "add threads", "add threads",
                                           "add pool", "add pool", "end 4 complete"}));
  EXPECT_TRUE(testing::list_names(dir.path()).empty()) << "the file set was left behind";
  EXPECT_EQ(platform::open_descriptors(), held_before);
}

// Before the results, the reporters learn what they measure, as data.
TEST(Session, AnnouncesWhatTheNextResultsMeasure) {
  TempDir dir;
  std::vector<std::string> log;
  std::vector<Section> sections;
  std::vector<std::unique_ptr<Reporter>> reporters;
  reporters.push_back(std::make_unique<RecordingReporter>(log, &sections));
  Session session(capture_environment(dir.path()), std::move(reporters));
  OpenOptions open;
  open.files = 30;
  open.subdirs = 2;
  open.threads = {1};
  open.strategies = {"threads"};
  open.repeat = Repeat::fixed(2);
  open.warmup = 1;
  open.keep_open = true;
  open.dir = dir.path();
  session.run_open(open);
  SocketOptions socket;
  socket.kind = SocketKind::pipe;
  socket.threads = {1};
  socket.per_thread = 5;
  socket.pregrow = {Pregrow{}};
  socket.repeat = Repeat::fixed(1);
  socket.warmup = 0;
  session.run_socket(socket);
  session.finish(true);
  ASSERT_EQ(sections.size(), 2U);

  const Section& files = sections[0];
  EXPECT_EQ(files.workload, "open");
  EXPECT_EQ(files.kind, DescriptorKind::file);
  ASSERT_TRUE(files.input.has_value());
  EXPECT_EQ(files.input->source, InputSource::private_set);
  EXPECT_EQ(files.input->origin, dir.path());
  EXPECT_EQ(files.input->files, 30U);
  EXPECT_EQ(files.fs_type, platform::fs_type(dir.path()));
  EXPECT_EQ(files.subdirs, 2U);
  EXPECT_EQ(files.repeat, Repeat::fixed(2));
  EXPECT_EQ(files.warmup, 1);
  EXPECT_TRUE(files.held);
  EXPECT_TRUE(files.fresh_child);

  const Section& pipes = sections[1];
  EXPECT_EQ(pipes.workload, "socket");
  EXPECT_EQ(pipes.kind, DescriptorKind::pipe);
  EXPECT_EQ(pipes.descriptors_per_item, 2);
  EXPECT_EQ(pipes.per_thread, 5U);
  EXPECT_FALSE(pipes.input.has_value());
  EXPECT_EQ(pipes.repeat, Repeat::fixed(1));
  EXPECT_EQ(pipes.warmup, 0);
  EXPECT_TRUE(pipes.held);
  EXPECT_TRUE(pipes.fresh_child);
}

}  // namespace runner_test
}  // namespace fdbench
