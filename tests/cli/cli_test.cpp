// The built binary, end to end, on small sizes: exit codes, output in every format, the
// JSON contract, --output, usage errors, and that nothing is left in --dir afterwards.
#include "cli.hpp"
#include "support/parse_line.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "engine/strategy.hpp"
#include "fdbench/version.hpp"
#include "output/reporter.hpp"
#include "platform/platform.hpp"
#include "support/commands.hpp"
#include "support/contract.hpp"
#include "support/fdbench_process.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"
#include "support/warnings.hpp"

namespace fdbench::testing {
namespace cli_test {

std::size_t csv_fields(const std::string& line) {
  std::size_t fields = 1;
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) ++fields;
  }
  return fields;
}

// The strategies the binary runs for `args`: what the same parser says in-process.
std::vector<std::string> strategies_for(const std::vector<std::string>& args) {
  const auto [parsed, out, err] = testing::parse_line(args);
  EXPECT_TRUE(parsed.command.has_value()) << err;
  return parsed.command ? open_of(*parsed.command).strategies : std::vector<std::string>{};
}

bool available(const std::string& strategy) {
  const StrategyInfo* info = find_strategy(strategy);
  return info != nullptr && info->unavailable_reason().empty();
}

class OpenCommand : public ::testing::TestWithParam<std::string> {
 protected:
  [[nodiscard]] std::vector<std::string> args() const {
    return {"open",     "--files", "200",   "--threads", "1,2",      "--repeat", "2",
            "--warmup", "0",       "--dir", dir_.path(), "--format", GetParam()};
  }
  void TearDown() override {
    EXPECT_EQ(private_dirs(dir_.path()), std::vector<std::string>{}) << "--dir was not cleaned up";
    EXPECT_EQ(list_names(dir_.path()), std::vector<std::string>{});
  }
  TempDir dir_;
};

TEST_P(OpenCommand, RunsEveryStrategyAndThreadCount) {
  const auto a = args();
  SCOPED_TRACE(describe(a));
  const auto strategies = strategies_for(a);
  ASSERT_FALSE(strategies.empty());
  const RunResult run = run_fdbench(a);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.find("Error:"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("leak"), std::string::npos) << run.err;

  if (GetParam() == "json") {
    const auto doc = nlohmann::json::parse(run.out);
    expect_document_contract(doc);
    const auto& results = doc.at("results");
    ASSERT_EQ(results.size(), strategies.size() * 2);
    std::set<std::pair<std::string, int>> seen;
    for (const auto& r : results) {
      const auto strategy = r.at("strategy").get<std::string>();
      SCOPED_TRACE(strategy);
      seen.emplace(strategy, r.at("threads").get<int>());
      EXPECT_EQ(r.at("workload"), "open");
      EXPECT_EQ(r.at("ops"), 200);
      EXPECT_EQ(r.at("repeat"), 2);
      EXPECT_EQ(r.at("warmup"), 0);
      // Only a strategy this machine cannot run may come back with an error.
      EXPECT_EQ(r.at("status") == "unavailable", !available(strategy)) << r.dump();
      if (r.contains("error")) continue;
      EXPECT_EQ(r.at("failures"), 0);
      EXPECT_EQ(r.at("times_ns").size(), 2U);
      EXPECT_TRUE(warnings_besides_noise(r).empty()) << r.at("warnings");
    }
    for (const auto& strategy : strategies) {
      EXPECT_TRUE(seen.count({strategy, 1}) == 1 && seen.count({strategy, 2}) == 1) << strategy;
    }
  } else if (GetParam() == "csv") {
    const auto lines = lines_of(run.out);
    ASSERT_EQ(lines.size(), 1 + strategies.size() * 2) << run.out;
    EXPECT_EQ(lines[0], csv_header());
    for (std::size_t i = 1; i < lines.size(); ++i) {
      EXPECT_EQ(csv_fields(lines[i]), csv_fields(lines[0])) << lines[i];
      EXPECT_EQ(lines[i].rfind("open,", 0), 0U) << lines[i];
    }
    for (const auto& strategy : strategies) {
      int rows = 0;
      for (const auto& line : lines) rows += line.rfind("open," + strategy + ",", 0) == 0;
      EXPECT_EQ(rows, 2) << strategy;
    }
  } else {
    EXPECT_NE(run.out.find("fdbench " + std::string(version())), std::string::npos);
    for (const auto& strategy : strategies) {
      EXPECT_NE(run.out.find(" " + strategy + " "), std::string::npos) << strategy << "\n"
                                                                       << run.out;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, OpenCommand,
                         ::testing::Values("table", "json", "csv", "markdown"),
                         [](const auto& param_info) { return param_info.param; });

// Where the system has no eventfd (the portable build stands for macOS), `--kind eventfd` is
// refused before it starts, saying so (no strategy could make one), never a run of calls
// failing with ENOSYS.
TEST(SocketCommand, EventfdIsMeasuredOrRefusedWhereTheSystemHasNone) {
  const RunResult run = run_fdbench({"socket", "--kind", "eventfd", "--per-thread", "16",
                                     "--repeat", "2", "--pregrow", "off", "--format", "json"});
  if (!platform::has_eventfd()) {
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_NE(run.err.find("no eventfd"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("try --kind pipe"), std::string::npos) << run.err;
    return;
  }
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  const auto& result = doc.at("results").at(0);
  EXPECT_EQ(result.at("status"), "measured") << result.dump();
  EXPECT_EQ(result.at("failures"), 0);
}

TEST(SocketCommand, ComparesPregrowOffAndAuto) {
  const std::vector<std::string> args{"socket", "--per-thread", "16",  "--repeat",
                                      "2",      "--format",     "json"};
  const RunResult run = run_fdbench(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  expect_document_contract(doc);
  const auto& results = doc.at("results");
  ASSERT_EQ(results.size(), 2U);
  EXPECT_EQ(results[0].at("pregrow"), "off");
  EXPECT_EQ(results[1].at("pregrow"), "auto");
  for (const auto& r : results) {
    EXPECT_EQ(r.at("workload"), "socket");
    EXPECT_EQ(r.at("strategy"), "threads");
    EXPECT_EQ(r.at("kind"), "tcp");
    EXPECT_EQ(r.at("threads"), 2);
    EXPECT_EQ(r.at("ops"), 32);
    EXPECT_EQ(r.at("failures"), 0);
    EXPECT_EQ(r.at("times_ns").size(), 2U);
    EXPECT_EQ(r.at("status"), "measured") << r.dump();
  }
  // The table's sizes are reported exactly where this build can see them (Linux's FDSize),
  // and are null elsewhere.
  const bool table_visible = platform::fd_table_size().has_value();
  EXPECT_EQ(doc.at("environment").at("fdsize_at_start").is_number_integer(), table_visible);
  for (const auto& r : results) {
    ASSERT_EQ(r.at("fdsize_before").is_number_integer(), table_visible) << r.dump();
    ASSERT_EQ(r.at("fdsize_after").is_number_integer(), table_visible) << r.dump();
  }
  if (table_visible) {
    EXPECT_EQ(results[0].at("fdsize_before"), 64);  // a fresh child: the smallest table
    EXPECT_EQ(results[1].at("fdsize_after"), results[1].at("fdsize_before"));
  }
}

// --uring-tuning and --uring-close reach the strategies, and every io_uring result says which
// ring features it used: none at all when tuning is off.
TEST(UringOptions, ResultsRecordTheRingFeaturesAndTheCloseMode) {
  if (!available("uring-direct")) FDBENCH_SKIP_WITHOUT("uring") << "no direct descriptors";
  TempDir dir;
  for (const std::string close : {"batched", "linked"}) {
    SCOPED_TRACE(close);
    const RunResult run =
        run_fdbench({"open", "--files", "50", "--threads", "1", "--strategy", "uring,uring-direct",
                     "--repeat", "1", "--warmup", "0", "--dir", dir.path(), "--uring-tuning",
                     "none", "--uring-close", close, "--format", "json"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const auto doc = nlohmann::json::parse(run.out);
    expect_document_contract(doc);
    ASSERT_EQ(doc.at("results").size(), 2U);
    for (const auto& r : doc.at("results")) {
      EXPECT_EQ(r.at("status"), "measured") << r.dump();
      EXPECT_EQ(r.at("failures"), 0);
      EXPECT_EQ(r.at("parameters").at("ring_setup"), "none");
      EXPECT_EQ(r.at("parameters").at("ring_fd"), "not registered");
      EXPECT_EQ(r.at("parameters").contains("close"), r.at("strategy") == "uring-direct");
    }
    EXPECT_EQ(doc.at("results")[1].at("parameters").at("close"), close);
  }
  EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{});
}

TEST(OutputFlag, WritesTheFileInsteadOfStdout) {
  TempDir dir;
  const std::string output = dir / "result.json";
  const RunResult run = run_fdbench({"socket", "--per-thread", "8", "--repeat", "1", "--warmup",
                                     "0", "--format", "json", "--output", output});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.find('{'), std::string::npos) << "the JSON went to stdout too:\n" << run.out;
  const auto doc = nlohmann::json::parse(read_text(output));
  expect_document_contract(doc);
  EXPECT_EQ(doc.at("results").size(), 2U);
  // Written atomically: no temporary file is left beside it.
  EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{"result.json"});
}

TEST(OutputFlag, CsvToAFile) {
  TempDir dir;
  const std::string output = dir / "result.csv";
  const RunResult run = run_fdbench({"open", "--files", "20", "--threads", "1", "--strategy",
                                     "threads", "--repeat", "1", "--warmup", "0", "--dir",
                                     dir.path(), "--format", "csv", "--output", output});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "");
  const auto lines = lines_of(read_text(output));
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0], csv_header());
  EXPECT_EQ(private_dirs(dir.path()), std::vector<std::string>{});
}

TEST(OpenCommandPaths, DirNamedWithBytesThatAreNotUtf8) {
  TempDir parent;
  const std::string dir = parent / "latin1-caf\xe9";
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  const RunResult run =
      run_fdbench({"open", "--files", "10", "--threads", "1", "--strategy", "threads", "--repeat",
                   "1", "--warmup", "0", "--dir", dir, "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  expect_document_contract(doc);
  EXPECT_EQ(doc.at("results").size(), 1U);
  EXPECT_EQ(list_names(dir), std::vector<std::string>{});
}

TEST(UsageErrors, ExitTwoWithAnErrorLineOnStderr) {
  TempDir dir;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"open", "--files", "0"}, "--files"},
      {{"open", "--threads", "1,,2"}, "--threads"},
      {{"open", "--strategy", "unknown"}, "--strategy"},
      {{"open", "--paths", "sideways"}, "--paths"},
      {{"open", "--dir", dir / "missing"}, "--dir"},
      {{"socket", "--kind", "bogus"}, "--kind"},
      {{"socket", "--pregrow", "-5"}, "--pregrow"},
      {{"socket", "--uring-tuning", "fast"}, "--uring-tuning"},
      {{"open", "--uring-close", "later"}, "--uring-close"},
      {{"--format", "xml"}, "--format"},
      {{"--repeat", "3", "open"}, "--repeat"},
      {{"open", "--output", dir / "missing/out.json"}, "--output"},
      {{"--no-such-flag"}, "--no-such-flag"},
      {{"no-such-command"}, "no-such-command"},
  };
  for (const auto& [args, flag] : cases) {
    SCOPED_TRACE(describe(args));
    const RunResult run = run_fdbench(args);
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_EQ(run.err.rfind("Error: ", 0), 0U) << run.err;
    EXPECT_NE(run.err.find(flag), std::string::npos) << run.err;
    EXPECT_EQ(run.out, "");
  }
  EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{});
}

TEST(Informational, VersionAndHelp) {
  const RunResult version_run = run_fdbench({"--version"});
  EXPECT_EQ(version_run.exit_code, 0);
  EXPECT_EQ(version_run.out.rfind("fdbench " + std::string(version()), 0), 0U) << version_run.out;

  for (const auto& args :
       {std::vector<std::string>{"--help"}, {"open", "--help"}, {"socket", "--help"}}) {
    SCOPED_TRACE(describe(args));
    const RunResult run = run_fdbench(args);
    EXPECT_EQ(run.exit_code, 0);
    EXPECT_NE(run.out.find("Usage"), std::string::npos) << run.out;
    EXPECT_EQ(run.err, "");
  }
}

TEST(PathsFlag, AbsolutePathsForEveryStrategyAndSaidInHelp) {
  TempDir dir;
  const RunResult run =
      run_fdbench({"open", "--files", "50", "--threads", "2", "--repeat", "1", "--warmup", "0",
                   "--paths", "absolute", "--dir", dir.path(), "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  expect_document_contract(doc);
  ASSERT_EQ(doc.at("results").size(), strategy_names_for(WorkloadKind::open).size());
  for (const auto& r : doc.at("results")) {
    SCOPED_TRACE(r.at("strategy").get<std::string>());
    EXPECT_EQ(r.at("parameters").at("paths"), "absolute");
    EXPECT_FALSE(r.at("parameters").contains("paths_note"));
    if (r.contains("error")) continue;  // unavailable here
    EXPECT_EQ(r.at("failures"), 0);
  }
  EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{});

  const RunResult help = run_fdbench({"open", "--help"});
  EXPECT_NE(help.out.find("--paths MODE"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("relative, absolute"), std::string::npos) << help.out;
}

TEST(Informational, StrategiesListsTheRegistry) {
  const RunResult run = run_fdbench({"strategies"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  for (const auto& name : strategy_names()) {
    EXPECT_NE(run.out.find(name), std::string::npos) << name;
  }
}

// Which strategies the seeds' own harness exists for, on the line after each one's.
TEST(Informational, StrategiesSayWhichHaveThePublishedHarness) {
  const RunResult run = run_fdbench({"strategies"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::string out = "\n" + run.out;
  const auto after = [&](const std::string& name) {  // the line after the strategy's own
    const auto at = out.find("\n" + name + " ");
    if (at == std::string::npos) return std::string();
    const auto next = out.find('\n', at + 1);
    const auto end = out.find('\n', next + 1);
    return out.substr(next + 1, end - next - 1);
  };
  EXPECT_NE(
      after("threads").find("--harness published (the seed's own program) for open and socket"),
      std::string::npos)
      << run.out;
  EXPECT_NE(after("pool").find("--harness published (the seed's own program) for open"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(after("pool").find("socket"), std::string::npos) << run.out;
  EXPECT_EQ(after("fast-pool").find("--harness"), std::string::npos) << run.out;
}

TEST(Clean, EmptyDirectoryHasNothingToClean) {
  TempDir dir;
  write_text(dir / "unrelated.txt", "mine\n");
  const RunResult run = run_fdbench({"clean", "--dir", dir.path()});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(read_text(dir / "unrelated.txt"), "mine\n");
}

// Where a filesystem has no O_TMPFILE, an output is written under a temporary name that a run
// killed meanwhile leaves behind; clean removes it once that run is gone, and nothing else.
TEST(Clean, RemovesAnOutputTemporaryThatAKilledRunLeft) {
  TempDir dir;
  const pid_t gone = fork();
  ASSERT_GE(gone, 0);
  if (gone == 0) _exit(0);
  ASSERT_EQ(waitpid(gone, nullptr, 0), gone);
  const std::string temporary = dir / ("r.json.tmp-fdbench-" + std::to_string(gone) + "-abcdef");
  write_text(temporary, "partial");
  write_text(dir / "r.json", "the user's\n");
  const RunResult run = run_fdbench({"clean", "--dir", dir.path()});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("removed " + temporary), std::string::npos) << run.out;
  EXPECT_FALSE(exists(temporary));
  EXPECT_EQ(read_text(dir / "r.json"), "the user's\n");
}

// A killed run's private directory, its marker naming `pid`, with one of its files.
std::string plant_private_set(const TempDir& dir, const std::string& suffix, pid_t pid) {
  const std::string set = dir / (std::string(FileSet::kDirPrefix) + suffix);
  EXPECT_EQ(mkdir(set.c_str(), 0700), 0);
  write_text(set + "/" + FileSet::kMarkerName,
             "fdbench private directory\npid " + std::to_string(pid) + "\n");
  write_text(set + "/1.txt", "");
  return set;
}

// A run killed inside a PID namespace leaves pid 1 in its marker, which always exists there:
// clean goes by the set's lock, which the kernel let go of when the run died, not by the pid.
TEST(Clean, GoesByTheLockNotByThePid) {
  TempDir dir;
  const std::string as_init = plant_private_set(dir, "init01", 1);
  const std::string as_us = plant_private_set(dir, "tests1", getpid());
  const std::string held = plant_private_set(dir, "held01", 1);
  // A live child holds `held` as a running fdbench holds its set, until told to go.
  int ready[2];
  int go[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(go), 0);
  const pid_t holder = fork();
  ASSERT_GE(holder, 0);
  if (holder == 0) {
    const int fd = open(held.c_str(), O_RDONLY | O_DIRECTORY);
    const char locked = fd >= 0 && flock(fd, LOCK_EX) == 0 ? 'y' : 'n';
    if (write(ready[1], &locked, 1) != 1) _exit(1);
    char done = 0;
    (void)!read(go[0], &done, 1);
    _exit(0);
  }
  char locked = 0;
  ASSERT_EQ(read(ready[0], &locked, 1), 1);
  EXPECT_EQ(locked, 'y');

  const RunResult run = run_fdbench({"clean", "--dir", dir.path()});
  ASSERT_EQ(write(go[1], "x", 1), 1);
  EXPECT_EQ(waitpid(holder, nullptr, 0), holder);
  for (const int fd : {ready[0], ready[1], go[0], go[1]}) close(fd);

  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(exists(as_init)) << run.out;
  EXPECT_FALSE(exists(as_us)) << run.out;
  EXPECT_TRUE(exists(held + "/1.txt")) << run.out;
  EXPECT_NE(run.out.find(held), std::string::npos) << run.out;
  // Once its holder is gone, it is a leftover like the others.
  const RunResult again = run_fdbench({"clean", "--dir", dir.path()});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_FALSE(exists(held)) << again.out;
}

TEST(Interrupt, CtrlCKeepsResultsAndCleansUp) {
  TempDir dir;
  const std::vector<std::string> args{"open",       "--files", "50",       "--threads", "1",
                                      "--strategy", "threads", "--repeat", "100000",    "--warmup",
                                      "0",          "--dir",   dir.path(), "--format",  "json"};
  FdbenchProcess child(args);
  ASSERT_TRUE(wait_until([&] { return !private_dirs(dir.path()).empty(); }))
      << "the run never started";
  child.signal(SIGINT);
  const RunResult run = child.wait();
  EXPECT_EQ(run.exit_code, 128 + SIGINT) << run.err;
  EXPECT_NE(run.err.find("interrupted"), std::string::npos) << run.err;
  const auto doc = nlohmann::json::parse(run.out);  // what was measured is still written
  expect_document_contract(doc);
  EXPECT_EQ(doc.value("complete", true), false);
  EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{}) << "Ctrl-C left files behind";
}

// Without --dir, the file set goes where TMPDIR says, and is removed from there.
TEST(DefaultDir, IsTmpdir) {
  TempDir tmpdir;
  RunOptions options;
  options.env = {"TMPDIR=" + tmpdir.path()};
  FdbenchProcess child({"open", "--files", "20", "--threads", "1", "--strategy", "threads",
                        "--repeat", "100000", "--warmup", "0", "--format", "json"},
                       options);
  ASSERT_TRUE(wait_until([&] { return !private_dirs(tmpdir.path()).empty(); }))
      << "no private directory appeared in TMPDIR";
  child.signal(SIGINT);
  const RunResult run = child.wait();
  EXPECT_EQ(run.exit_code, 128 + SIGINT) << run.err;
  EXPECT_EQ(list_names(tmpdir.path()), std::vector<std::string>{}) << "TMPDIR was not cleaned";
}

// --list /dev/stdin: the paths come from a pipeline (find ... | fdbench open --list /dev/stdin).
TEST(ListFlag, ReadsThePathsFromStdin) {
  TempDir dir;
  for (const char* name : {"a", "b", "c"}) write_text(dir / name, "");
  RunOptions options;
  options.stdin_text = dir / "a\n" + dir / "b\n" + dir / "gone\n" + dir / "c\n";
  const RunResult run =
      run_fdbench({"open", "--list", "/dev/stdin", "--threads", "1", "--strategy", "threads",
                   "--repeat", "1", "--warmup", "0", "--format", "json"},
                  options);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  ASSERT_EQ(doc.at("results").size(), 1U);
  const auto& r = doc.at("results")[0];
  EXPECT_EQ(r.at("ops"), 3);
  EXPECT_EQ(r.at("failures"), 0);
  EXPECT_EQ(r.at("input").at("files"), 3);
  EXPECT_EQ(r.at("input").at("missing").value("No such file or directory", 0), 1) << r.dump();
  EXPECT_EQ(list_names(dir.path()), (std::vector<std::string>{"a", "b", "c"}));
}

}  // namespace cli_test
}  // namespace fdbench::testing
