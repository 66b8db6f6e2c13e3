// fdbench compare and fdbench env, end to end: two real runs side by side in every format,
// --references against the seeds' published figures, and every unreadable input (missing,
// malformed, truncated, another schema version) one "Error:" line with exit code 2.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fdbench/tune.hpp"
#include "support/contract.hpp"
#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace compare_test {

// Two small real runs of the same configurations, written with --export-json.
class Compare : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    FastTempDir work;
    for (const char* name : {"a.json", "b.json"}) {
      const RunResult run = run_fdbench({"open", "--files", "100", "--threads", "1,2", "--strategy",
                                         "threads", "--repeat", "5", "--warmup", "0", "--dir",
                                         work.path(), "--export-json", *dir_ / name});
      ASSERT_EQ(run.exit_code, 0) << run.err;
    }
    const RunResult sockets =
        run_fdbench({"socket", "--per-thread", "256", "--repeat", "5", "--warmup", "0",
                     "--export-json", *dir_ / "socket.json"});
    ASSERT_EQ(sockets.exit_code, 0) << sockets.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string path(const char* name) { return *dir_ / name; }
  static TempDir* dir_;
};
TempDir* Compare::dir_ = nullptr;

TEST_F(Compare, TwoRunsSideBySide) {
  const RunResult run = run_fdbench({"compare", path("a.json"), path("b.json")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  for (const std::string& part :
       {"[1] " + path("a.json"), "[2] " + path("b.json"), std::string("threads, 1 thread"),
        std::string("threads, 2 threads"), std::string("Mann-Whitney"), std::string("kernel")}) {
    EXPECT_NE(run.out.find(part), std::string::npos) << part << "\n" << run.out;
  }
}

TEST_F(Compare, JsonAndMarkdown) {
  const RunResult json = run_fdbench(
      {"compare", path("a.json"), path("b.json"), path("socket.json"), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  const auto& c = doc.at("comparison");
  EXPECT_EQ(c.at("files").size(), 3U);
  EXPECT_TRUE(c.at("shared").empty());    // the socket file shares nothing with the others
  EXPECT_EQ(c.at("partial").size(), 4U);  // 2 open results, 2 socket results: all listed
  const auto& first = c.at("partial")[0].at("files");
  EXPECT_EQ(first[0].at("verdict"), "baseline");
  EXPECT_EQ(first[1].at("verdict").get<std::string>().empty(), false);
  EXPECT_TRUE(first[1].at("p_value").is_number());
  EXPECT_EQ(first[2].at("verdict"), "absent");

  const RunResult markdown =
      run_fdbench({"compare", path("a.json"), path("b.json"), "--format", "markdown"});
  ASSERT_EQ(markdown.exit_code, 0) << markdown.err;
  EXPECT_EQ(markdown.out.rfind("# fdbench compare", 0), 0U) << markdown.out;
  EXPECT_NE(markdown.out.find("| threads, 1 thread |"), std::string::npos) << markdown.out;
}

TEST_F(Compare, ReferencesAreMarkedAsFiguresFromElsewhere) {
  const RunResult run = run_fdbench({"compare", "--references", path("socket.json")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* part : {"published elsewhere", "not a controlled comparison", "OpenBSD machine",
                           "Apple M2", "lemire.me", "17.77–26.31 ms"}) {
    EXPECT_NE(run.out.find(part), std::string::npos) << part << "\n" << run.out;
  }
  // The socket file matches the Linux/OpenBSD figures, not the open ones.
  EXPECT_NE(run.out.find("(threads, 2 threads)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("no matching result (needs open"), std::string::npos) << run.out;
}

TEST_F(Compare, UnreadableInputsAreOneLineAndExitTwo) {
  TempDir bad;
  const std::string full = read_text(path("a.json"));
  write_text(bad / "truncated.json", full.substr(0, full.size() / 2));
  write_text(bad / "garbage.json", "these are not results\n");
  write_text(bad / "empty.json", "");
  auto newer = nlohmann::json::parse(full);
  newer["schema_version"] = kSchemaVersion + 1;
  write_text(bad / "newer.json", newer.dump());
  auto broken = nlohmann::json::parse(full);
  broken["results"][0]["times_ns"] = "fast";
  write_text(bad / "field.json", broken.dump());
  const std::vector<std::pair<std::string, std::string>> cases{
      {bad / "truncated.json", "not valid JSON"},
      {bad / "garbage.json", "not valid JSON"},
      {bad / "empty.json", "not valid JSON"},
      {bad / "newer.json", fmt::format("schema_version {} is not supported", kSchemaVersion + 1)},
      {bad / "field.json", "results[0].times_ns"},
      {bad / "missing.json", "No such file"},
      {bad.path(), ""},
  };
  for (const auto& [file, cause] : cases) {
    for (const auto& args : {std::vector<std::string>{"compare", path("a.json"), file},
                             std::vector<std::string>{"compare", "--references", file}}) {
      SCOPED_TRACE(describe(args));
      FdbenchProcess child(args);
      const RunResult run = child.wait();
      EXPECT_EQ(run.exit_code, 2) << run.err;
      EXPECT_EQ(run.out, "");
      EXPECT_EQ(run.err.rfind("Error: " + file, 0), 0U) << run.err;
      EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
      EXPECT_NE(run.err.find(cause), std::string::npos) << run.err;
    }
  }
}

// What fdbench writes besides results, and JSON that is not fdbench's, each said for what it
// is: one line naming the file and what compare and report read.
TEST_F(Compare, FilesThatAreNotResultsSayWhatTheyAre) {
  TempDir other;
  FastTempDir work;
  const RunResult csv = run_fdbench({"open", "--files", "20", "--threads", "1", "--strategy",
                                     "threads", "--repeat", "1", "--warmup", "0", "--dir",
                                     work.path(), "--format", "csv", "--output", other / "a.csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  Recommendation saved;
  saved.best = {"threads", 2, 1, 1e5};
  write_text(other / "tune.json", recommendation_json(saved) + "\n");
  write_text(other / "other.json", R"({"name": "not fdbench"})");
  const std::vector<std::pair<std::string, std::string>> cases{
      {other / "a.csv", "fdbench's CSV export"},
      {other / "tune.json", "a recommendation written by fdbench tune --save"},
      {other / "other.json",
       "JSON, but not an fdbench results document (it has no schema_version)"},
  };
  for (const auto& [file, what] : cases) {
    for (const std::string command : {"compare", "report"}) {
      const std::vector<std::string> args{command, path("a.json"), file};
      SCOPED_TRACE(describe(args));
      const RunResult run = run_fdbench(args);
      EXPECT_EQ(run.exit_code, 2) << run.err;
      EXPECT_EQ(run.out, "");
      EXPECT_EQ(run.err, fmt::format("Error: {} is {}; {} reads the JSON results of a run "
                                     "(written with --format json or --export-json)\n",
                                     file, what, command));
    }
  }
}

TEST(Env, TableAndJson) {
  const RunResult table = run_fdbench({"env"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  for (const char* field : kEnvironmentFields) {
    EXPECT_NE(table.out.find(field), std::string::npos) << field << "\n" << table.out;
  }
  // The context a run would record now: when, where, who, and how loaded.
  for (const char* field : {"context.date ", "context.host ", "context.user ",
                            "context.load.load_average ", "context.load.cpu_pressure "}) {
    EXPECT_NE(table.out.find(field), std::string::npos) << field << "\n" << table.out;
  }
  EXPECT_EQ(table.out.find("command_line"), std::string::npos) << table.out;
  const RunResult json = run_fdbench({"env", "--format", "json", "--dir", "/"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto env = nlohmann::json::parse(json.out);
  for (const char* field : kEnvironmentFields) EXPECT_TRUE(env.contains(field)) << field;
  EXPECT_TRUE(env.at("logical_cpus").is_number_integer());
  EXPECT_TRUE(env.at("rlimit_nofile").at("soft").is_number_integer());
}

}  // namespace compare_test
}  // namespace fdbench::testing
