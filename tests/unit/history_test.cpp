// The history on real SQLite files in a scratch directory: runs added whole, duplicates known
// by content, listing, removal, trends read back typed, and every file it must refuse left
// byte for byte as it was.
#include "history/history.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/results_json.hpp"
#include "output/reporter.hpp"
#include "support/results.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace history_test {

using history::History;

// A results document of one socket run taking `ns` per repetition.
std::string document(std::int64_t ns, const std::string& date = "2026-12-07T10:00:00Z") {
  Environment env;
  env.kernel = "6.18.0";
  env.cpu_model = "Test CPU";
  env.rcu_expedited = 0;
  RunContext context;
  context.date = date;
  context.host = "testhost";
  context.command_line = {"fdbench", "socket", "--threads", "2"};
  const std::vector<Result> results = {
      ResultBuilder::socket("threads", 2).pregrow("off").ops(512).each_took(ns, 8),
      ResultBuilder::socket("threads", 2).pregrow("auto").ops(512).each_took(ns / 10, 8)};
  return to_json_document(env, results, {}, &context);
}

history::Added add(History& history, const std::string& text, std::string_view origin = "saved") {
  return history.add(text, parse_results_json(text), origin);
}

TEST(History, KeepsEachRunWithItsContextAndResults) {
  TempDir dir;
  const std::string path = dir / "sub/history.db";  // the directory is made too
  auto history = History::open_for_writing(path);
  EXPECT_EQ(add(history, document(10'000'000)).id, 1);
  EXPECT_EQ(add(history, document(12'000'000, "2026-12-07T11:00:00Z")).id, 2);
  const auto runs = history.runs();
  ASSERT_EQ(runs.size(), 2U);
  EXPECT_EQ(runs[0].host, "testhost");
  EXPECT_EQ(runs[0].kernel, "6.18.0");
  EXPECT_EQ(runs[0].command, "socket");
  EXPECT_EQ(runs[0].results, 2);
  EXPECT_EQ(runs[1].date, "2026-12-07T11:00:00Z");
  EXPECT_EQ(*history.document(1), document(10'000'000));
  EXPECT_FALSE(history.document(3).has_value());
}

TEST(History, RecognisesTheSameDocumentWhateverItsSpacing) {
  TempDir dir;
  auto history = History::open_for_writing(dir / "history.db");
  const std::string text = document(10'000'000);
  const auto first = add(history, text);
  const std::string respaced = nlohmann::json::parse(text).dump(7);
  const auto again = add(history, respaced, "imported a.json");
  EXPECT_TRUE(again.duplicate);
  EXPECT_EQ(again.id, first.id);
  EXPECT_EQ(history.runs().size(), 1U);
}

TEST(History, LatestSkipsTheDocumentCompared) {
  TempDir dir;
  auto history = History::open_for_writing(dir / "history.db");
  EXPECT_FALSE(history.latest().has_value());
  add(history, document(10'000'000));
  add(history, document(20'000'000));
  EXPECT_EQ(history.latest(), 2);
  EXPECT_EQ(history.latest(document(20'000'000)), 1);
}

TEST(History, RemovesARunAndItsResults) {
  TempDir dir;
  auto history = History::open_for_writing(dir / "history.db");
  add(history, document(10'000'000));
  add(history, document(20'000'000));
  EXPECT_TRUE(history.remove(1));
  EXPECT_FALSE(history.remove(1));
  ASSERT_EQ(history.runs().size(), 1U);
  for (const auto& series : history.trend()) EXPECT_EQ(series.points.size(), 1U);
}

TEST(History, TrendFollowsEachConfigurationTyped) {
  TempDir dir;
  auto history = History::open_for_writing(dir / "history.db");
  add(history, document(10'000'000));
  add(history, document(20'000'000));
  const auto series = history.trend();
  ASSERT_EQ(series.size(), 2U);
  EXPECT_EQ(series[0].workload, "socket");
  EXPECT_EQ(series[0].config.kind, DescriptorKind::tcp);
  EXPECT_FALSE(series[0].config.pregrow.grows());
  EXPECT_TRUE(series[1].config.pregrow.grows());
  ASSERT_EQ(series[0].points.size(), 2U);
  EXPECT_EQ(series[0].points[0].median_ns, 10'000'000);
  EXPECT_EQ(series[0].points[1].median_ns, 20'000'000);
  EXPECT_EQ(series[0].points[1].repetitions, 8);
  EXPECT_TRUE(series[0].points[1].interval_reached);
}

// The file's bytes, to show a refused file was not touched.
std::string bytes_of(const std::string& path) {
  return read_text(path);
}

TEST(History, RefusesAFileThatIsNotSQLiteWithoutTouchingIt) {
  TempDir dir;
  const std::string path = dir / "notes.db";
  write_text(path, std::string(4096, 'x'));
  EXPECT_THROW(History::open_for_writing(path), history::Refused);
  EXPECT_THROW(History::open_for_reading(path), history::Refused);
  EXPECT_EQ(bytes_of(path), std::string(4096, 'x'));
}

TEST(History, RefusesAnotherProgramsSQLiteDatabase) {
  TempDir dir;
  const std::string path = dir / "other.db";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "CREATE TABLE t (x); INSERT INTO t VALUES (1);", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  const std::string before = bytes_of(path);
  try {
    History::open_for_writing(path);
    FAIL() << "a foreign database was opened";
  } catch (const history::Refused& e) {
    EXPECT_NE(std::string(e.what()).find("not an fdbench history"), std::string::npos) << e.what();
  }
  EXPECT_EQ(bytes_of(path), before);
}

TEST(History, RefusesAHistoryFromANewerFdbench) {
  TempDir dir;
  const std::string path = dir / "history.db";
  { auto history = History::open_for_writing(path); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const std::string newer = "PRAGMA user_version=" + std::to_string(history::kHistoryVersion + 1);
  ASSERT_EQ(sqlite3_exec(db, newer.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  try {
    History::open_for_writing(path);
    FAIL() << "a newer history was opened";
  } catch (const history::Refused& e) {
    EXPECT_NE(std::string(e.what()).find("newer fdbench"), std::string::npos) << e.what();
  }
}

TEST(History, RefusesADamagedHistoryWithoutTouchingIt) {
  TempDir dir;
  const std::string path = dir / "history.db";
  {
    auto history = History::open_for_writing(path);
    for (int i = 1; i <= 20; ++i) add(history, document(i * 1'000'000));
  }
  std::string damaged = bytes_of(path);
  ASSERT_GT(damaged.size(), 8192U);
  for (std::size_t i = 4096; i < damaged.size(); ++i) damaged[i] = static_cast<char>(0xA5);
  write_text(path, damaged);
  EXPECT_THROW(History::open_for_writing(path), history::Refused);
  EXPECT_EQ(bytes_of(path), damaged);
}

TEST(History, AnEmptyFileBecomesAHistory) {
  TempDir dir;
  const std::string path = dir / "history.db";
  write_text(path, "");  // what a concurrent run creating the file leaves for a moment
  auto history = History::open_for_writing(path);
  EXPECT_EQ(add(history, document(10'000'000)).id, 1);
}

}  // namespace history_test
}  // namespace fdbench::testing
