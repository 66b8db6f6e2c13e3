// --save, `fdbench history` and the CI gate `compare --baseline --fail-if-slower`, through the
// binary and a real SQLite file; and the history's reliability: runs saving at once, a run
// killed while saving, a read-only history, one on a full filesystem, one from a newer fdbench,
// a damaged one. Nothing
// here asserts a duration: the slower document is the same run with its times scaled.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/fdbench_process.hpp"
#include "support/other_user.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"
#include "support/tmpfs.hpp"

namespace fdbench::testing {
namespace history_cli_test {

// A short socket run: 2 threads × 64 descriptors, 6 repetitions (a 95% interval), no progress.
std::vector<std::string> short_run(const std::string& history, std::vector<std::string> more = {}) {
  std::vector<std::string> args = {"socket",    "--threads", "2", "--per-thread", "64", "--pregrow",
                                   "off",       "--repeat",  "6", "--warmup",     "0",  "--quiet",
                                   "--history", history};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::size_t count_lines(const std::string& text) {
  return lines_of(text).size();
}

std::string last_line(const std::string& text) {
  const auto lines = lines_of(text);
  return lines.empty() ? std::string() : lines.back();
}

// `path`'s results with every repetition time multiplied by `factor`, and its date changed so
// that it is another document.
void write_scaled(const std::string& from, const std::string& to, std::int64_t factor,
                  const std::string& date) {
  auto doc = nlohmann::json::parse(read_text(from));
  for (auto& result : doc.at("results")) {
    for (auto& t : result.at("times_ns")) t = t.get<std::int64_t>() * factor;
  }
  doc.at("context").at("date") = date;
  write_text(to, doc.dump(2));
}

TEST(HistoryCli, SavesTwiceAndListsShowsExportsAndRemoves) {
  TempDir dir;
  const std::string db = dir / "history.db";
  for (int run = 1; run <= 2; ++run) {
    const auto saved = run_fdbench(short_run(db, {"--save"}));
    ASSERT_EQ(saved.exit_code, 0) << saved.err;
    EXPECT_NE(saved.err.find("saved as run " + std::to_string(run)), std::string::npos)
        << saved.err;
  }
  const auto list = run_fdbench({"history", "list", "--history", db});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(count_lines(list.out), 3U) << list.out;  // a heading and two runs
  EXPECT_NE(list.out.find("socket"), std::string::npos) << list.out;
  const auto shown = run_fdbench({"history", "show", "1", "--history", db});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("threads"), std::string::npos) << shown.out;
  const std::string exported = dir / "run1.json";
  const auto exp = run_fdbench({"history", "export", "1", "-o", exported, "--history", db});
  ASSERT_EQ(exp.exit_code, 0) << exp.err;
  const auto json = run_fdbench({"history", "show", "1", "--format", "json", "--history", db});
  EXPECT_EQ(read_text(exported), json.out);
  const auto again = run_fdbench({"history", "import", exported, "--history", db});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("already in the history as run 1"), std::string::npos) << again.out;
  const auto trend = run_fdbench({"history", "trend", "--history", db});
  ASSERT_EQ(trend.exit_code, 0) << trend.err;
  EXPECT_NE(trend.out.find("threads, 2 threads"), std::string::npos) << trend.out;
  // The same as a page of charts: a line per configuration, a point per run, the runs on the
  // x axis by id and date, the kernel the run recorded in each point's tooltip.
  const auto page = run_fdbench(
      {"history", "trend", "--format", "html", "-o", dir / "trend.html", "--history", db});
  ASSERT_EQ(page.exit_code, 0) << page.err;
  const std::string html = read_text(dir / "trend.html");
  const auto doc = nlohmann::json::parse(json.out);
  const std::string kernel = doc.at("environment").at("kernel").get<std::string>();
  EXPECT_NE(html.find("<svg class=\"chart\" data-chart=\"trend-0\""), std::string::npos) << html;
  std::string when = doc.at("context").at("date").get<std::string>().substr(5, 11);
  when[5] = ' ';  // "12-07T14:55" as "12-07 14:55"
  EXPECT_NE(html.find(">run 1 · " + when + "<"), std::string::npos) << html;  // one kernel
  EXPECT_NE(html.find(", " + kernel + "): "), std::string::npos) << html;     // in the tooltip
  EXPECT_NE(html.find("run 2 · "), std::string::npos) << html;
  std::size_t series = 0;  // the table's titles: its lines that are not indented
  for (const auto& line : lines_of(trend.out)) series += !line.empty() && line[0] != ' ';
  std::size_t lines = 0;
  for (auto at = html.find("class=\"series-line\""); at != std::string::npos;
       at = html.find("class=\"series-line\"", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, series) << html;
  EXPECT_EQ(run_fdbench({"history", "rm", "1", "--history", db}).exit_code, 0);
  const auto missing = run_fdbench({"history", "show", "1", "--history", db});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(count_lines(missing.err), 1U) << missing.err;
}

TEST(HistoryCli, TheGatePassesAnUnchangedPairAndFailsASlowerOne) {
  TempDir dir;
  const std::string db = dir / "history.db";
  const std::string first = dir / "first.json";
  const auto run = run_fdbench(short_run(db, {"--save", "--export-json", first}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // The same times again, as a second run that changed nothing would have them.
  const std::string same = dir / "same.json";
  write_scaled(first, same, 1, "2030-01-01T00:00:00Z");
  ASSERT_EQ(run_fdbench({"history", "import", same, "--history", db}).exit_code, 0);
  const auto unchanged =
      run_fdbench({"compare", "--baseline", "last", "--fail-if-slower", "10", "--history", db});
  EXPECT_EQ(unchanged.exit_code, 0) << unchanged.out << unchanged.err;
  EXPECT_EQ(last_line(unchanged.out), "gate: 0 of 1 result slower by more than 10%: pass")
      << unchanged.out;
  // 100 times slower: every repetition slower than every one of the baseline's.
  const std::string slower = dir / "slower.json";
  write_scaled(first, slower, 100, "2030-01-02T00:00:00Z");
  ASSERT_EQ(run_fdbench({"history", "import", slower, "--history", db}).exit_code, 0);
  const auto gated =
      run_fdbench({"compare", "--baseline", "last", "--fail-if-slower", "10", "--history", db});
  EXPECT_EQ(gated.exit_code, 3) << gated.out << gated.err;
  // The report ends on the rows that fail the gate, then its verdict.
  const auto rows = gated.out.rfind("slower than the baseline by more than 10%");
  ASSERT_NE(rows, std::string::npos) << gated.out;
  EXPECT_EQ(gated.out.find("Environment", rows), std::string::npos) << gated.out;
  EXPECT_EQ(last_line(gated.out), "gate: 1 of 1 result slower by more than 10%: fail") << gated.out;
  // A file against a run of the history, and against another file: the same verdicts.
  const auto file = run_fdbench(
      {"compare", "--baseline", "1", "--fail-if-slower", "10", "--history", db, slower});
  EXPECT_EQ(file.exit_code, 3) << file.err;
  EXPECT_EQ(run_fdbench({"compare", "--baseline", first, "--fail-if-slower", "10", same}).exit_code,
            0);
}

// A fresh history is a CI job's first: nothing to compare with is said in one line and passes,
// unless --require-baseline asks for a baseline; an empty history lists as "no runs saved yet".
TEST(HistoryCli, TheFirstJobOfAGatePassesAndSaysSo) {
  TempDir dir;
  const std::string db = dir / "history.db";
  const auto empty = run_fdbench({"history", "list", "--history", db});
  EXPECT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_EQ(empty.out.rfind("no runs saved yet in " + db, 0), 0U) << empty.out;
  EXPECT_EQ(count_lines(empty.out), 1U) << empty.out;
  EXPECT_FALSE(exists(db)) << "listing must not create the history";
  // A file compared while the history does not exist yet.
  const std::string file = dir / "run.json";
  ASSERT_EQ(run_fdbench(short_run(db, {"--export-json", file})).exit_code, 0);
  const auto unsaved = run_fdbench(
      {"compare", "--baseline", "last", "--fail-if-slower", "10", "--history", db, file});
  EXPECT_EQ(unsaved.exit_code, 0) << unsaved.err;
  EXPECT_EQ(count_lines(unsaved.out), 1U) << unsaved.out;
  EXPECT_NE(unsaved.out.find("save a run with --save"), std::string::npos) << unsaved.out;
  // The first run saved: the baseline of the next.
  ASSERT_EQ(run_fdbench(short_run(db, {"--save"})).exit_code, 0);
  const auto first =
      run_fdbench({"compare", "--baseline", "last", "--fail-if-slower", "10", "--history", db});
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, "gate: no baseline in " + db +
                           " yet, nothing to compare with: run 1 is the baseline "
                           "the next run is compared with: pass\n");
  const auto required =
      run_fdbench({"compare", "--baseline", "last", "--require-baseline", "--history", db});
  EXPECT_EQ(required.exit_code, 1) << required.err;
  EXPECT_EQ(count_lines(required.err), 1U) << required.err;
  EXPECT_NE(required.err.find("--require-baseline"), std::string::npos) << required.err;
  EXPECT_EQ(run_fdbench({"compare", "--require-baseline", file}).exit_code, 2);
}

// examples/ci/fdbench-gate.sh as a CI runs it, twice on one history: the first job passes with
// no baseline, the second compares with the first and ends on a verdict. The threshold is far
// above any slowdown a busy machine makes, so the verdict is always "pass".
TEST(HistoryCli, TheCiGateScriptPassesItsFirstJobAndTheNext) {
  TempDir dir;
  const std::string env = "FDBENCH=" + std::string(fdbench_binary()) +
                          " HISTORY=" + (dir / "ci.db") + " ARTIFACTS=" + (dir / "artifacts") +
                          " THRESHOLD=100000 ";
  const std::string command = "cd " + dir.path() + " && " + env + FDBENCH_CI_GATE;
  for (const char* expected : {"gate: no baseline in", "gate: 0 of "}) {
    const int status = std::system((command + " >" + (dir / "log") + " 2>&1").c_str());
    const std::string log = read_text(dir / "log");
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << log;
    EXPECT_EQ(last_line(log).rfind(expected, 0), 0U) << log;
    EXPECT_TRUE(last_line(log).ends_with(": pass")) << log;
  }
  EXPECT_TRUE(exists(dir / "artifacts/socket.html"));
}

TEST(HistoryCli, TwoRunsSavingAtOnceBothLand) {
  TempDir dir;
  const std::string db = dir / "history.db";
  FdbenchProcess a(short_run(db, {"--save"}));
  FdbenchProcess b(short_run(db, {"--save"}));
  const auto ra = a.wait();
  const auto rb = b.wait();
  ASSERT_EQ(ra.exit_code, 0) << ra.err;
  ASSERT_EQ(rb.exit_code, 0) << rb.err;
  const auto list = run_fdbench({"history", "list", "--history", db});
  EXPECT_EQ(count_lines(list.out), 3U) << list.out;
}

TEST(HistoryCli, ARunKilledWhileSavingLeavesNoPartOfIt) {
  TempDir dir;
  const std::string db = dir / "history.db";
  ASSERT_EQ(run_fdbench(short_run(db, {"--save"})).exit_code, 0);
  RunOptions hold;
  hold.env = {"FDBENCH_TEST_HOLD_SAVE=1"};
  FdbenchProcess killed(short_run(db, {"--save"}), hold);
  ASSERT_TRUE(killed.wait_for_event("history-saving", 1, std::chrono::seconds(120)));
  killed.signal(SIGKILL);
  EXPECT_EQ(killed.wait().exit_code, 128 + SIGKILL);
  const auto list = run_fdbench({"history", "list", "--history", db});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(count_lines(list.out), 2U) << list.out;  // the heading and the first run alone
  const auto next = run_fdbench(short_run(db, {"--save"}));
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_NE(next.err.find("saved as run 2"), std::string::npos) << next.err;
}

TEST(HistoryCli, NothingIsWrittenWhenTheRunFailsBeforeMeasuring) {
  TempDir dir;
  const std::string db = dir / "history.db";
  const auto no_dir = run_fdbench(
      {"open", "--files", "10", "--dir", dir / "missing", "--save", "--history", db, "--quiet"});
  EXPECT_EQ(no_dir.exit_code, 2) << no_dir.err;
  RunOptions few;
  few.nofile = 32;  // 2 threads × 64 sockets cannot be held
  const auto no_fds = run_fdbench(short_run(db, {"--save"}), few);
  EXPECT_NE(no_fds.exit_code, 0) << no_fds.err;
  EXPECT_FALSE(exists(db)) << no_fds.err;
}

// The history's directories are made below an existing home only (issue 49 item 10: with HOME
// naming nothing, FDBENCH_HISTORY=1 made the whole chain, as root from /). A missing home is one
// line and exit 1, nothing made; a home without .local gets .local/share/fdbench; --history FILE
// gets at most its directory and the one above it.
TEST(HistoryCli, ItsDirectoriesAreMadeOnlyBelowAnExistingHome) {
  TempDir dir;
  RunOptions missing_home;
  missing_home.env = {"HOME=" + (dir / "gone/home"), "XDG_DATA_HOME=", "FDBENCH_HISTORY=1"};
  const auto refused = run_fdbench(
      {"socket", "--threads", "1", "--per-thread", "16", "--repeat", "1", "--quiet"}, missing_home);
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_EQ(count_lines(refused.err), 1U) << refused.err;
  EXPECT_NE(refused.err.find(dir / "gone/home"), std::string::npos) << refused.err;
  EXPECT_FALSE(exists(dir / "gone")) << "a directory above the home was made";

  ASSERT_EQ(mkdir((dir / "home").c_str(), 0700), 0);
  RunOptions fresh_home;
  fresh_home.env = {"HOME=" + (dir / "home"), "XDG_DATA_HOME=", "FDBENCH_HISTORY=1"};
  const auto saved = run_fdbench(
      {"socket", "--threads", "1", "--per-thread", "16", "--repeat", "1", "--quiet"}, fresh_home);
  EXPECT_EQ(saved.exit_code, 0) << saved.err;
  EXPECT_TRUE(exists(dir / "home/.local/share/fdbench/history.db")) << saved.err;

  const auto too_deep = run_fdbench(short_run(dir / "a/b/c/h.db", {"--save"}));
  EXPECT_EQ(too_deep.exit_code, 1) << too_deep.err;
  EXPECT_FALSE(exists(dir / "a")) << too_deep.err;
  ASSERT_EQ(mkdir((dir / "a").c_str(), 0700), 0);
  const auto two_levels = run_fdbench(short_run(dir / "a/b/c/h.db", {"--save"}));
  EXPECT_EQ(two_levels.exit_code, 0) << two_levels.err;
  EXPECT_TRUE(exists(dir / "a/b/c/h.db")) << two_levels.err;
}

// A run that cannot save says so in one line and exits 1; the file is as it was. What is seen
// from its header (a foreign file) is refused before measuring, the rest once the run is done.
enum class RefusedWhen { before_measuring, after_measuring };
void expect_refused(const RunResult& run, const std::string& path, const std::string& before,
                    const std::string& words, RefusedWhen when = RefusedWhen::after_measuring) {
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_EQ(count_lines(run.err), 1U) << run.err;
  EXPECT_NE(run.err.find(words), std::string::npos) << run.err;
  if (when == RefusedWhen::after_measuring) {
    EXPECT_NE(run.out.find("threads"), std::string::npos) << "the results are still printed";
  } else {
    EXPECT_EQ(run.out, "") << "nothing is measured for a history that cannot take it";
  }
  EXPECT_EQ(read_text(path), before);
}

TEST(HistoryCli, AHistoryFromANewerFdbenchIsRefused) {
  TempDir dir;
  const std::string db = dir / "history.db";
  ASSERT_EQ(run_fdbench(short_run(db, {"--save"})).exit_code, 0);
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(handle, "PRAGMA user_version=999", nullptr, nullptr, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(handle, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(handle);
  const std::string before = read_text(db);
  expect_refused(run_fdbench(short_run(db, {"--save"})), db, before, "newer fdbench");
}

TEST(HistoryCli, ADamagedHistoryIsRefusedUntouched) {
  TempDir dir;
  const std::string db = dir / "history.db";
  for (int i = 0; i < 3; ++i) ASSERT_EQ(run_fdbench(short_run(db, {"--save"})).exit_code, 0);
  std::string bytes = read_text(db);
  ASSERT_GT(bytes.size(), 8192U);
  for (std::size_t i = 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>(0x5A);
  write_text(db, bytes);
  expect_refused(run_fdbench(short_run(db, {"--save"})), db, bytes, "damaged");
  const auto list = run_fdbench({"history", "list", "--history", db});
  EXPECT_EQ(list.exit_code, 1);
  EXPECT_EQ(count_lines(list.err), 1U) << list.err;
}

TEST(HistoryCli, AForeignFileIsRefusedUntouched) {
  TempDir dir;
  const std::string db = dir / "notes.txt";
  write_text(db, std::string(200, 'n'));
  expect_refused(run_fdbench(short_run(db, {"--save"})), db, std::string(200, 'n'),
                 "not an fdbench history", RefusedWhen::before_measuring);
}

TEST(HistoryCli, AReadOnlyHistoryIsReportedAndKept) {
  if (const std::string why = cannot_switch_user(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  const std::string db = dir / "history.db";
  ASSERT_EQ(run_fdbench(short_run(db, {"--save"})).exit_code, 0);
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);  // the other user may read it, not write
  const std::string before = read_text(db);
  RunOptions options;
  const auto args = as_user(unused_uid(), short_run(db, {"--save"}), options);
  const auto run = FdbenchProcess(args, options).wait();
  expect_refused(run, db, before, "is not writable", RefusedWhen::before_measuring);
  const auto list = run_fdbench({"history", "list", "--history", db});
  EXPECT_EQ(count_lines(list.out), 2U) << list.out;
}

// SQLite says only "disk I/O error" where its files cannot grow: the line names the full
// filesystem, and the runs saved before are all there once there is room again.
TEST(HistoryCli, AFullFilesystemIsNamedAndTheHistoryStaysWhole) {
  const Tmpfs small("size=256k");
  if (!small.mounted()) FDBENCH_SKIP_WITHOUT("mount") << "cannot mount a tmpfs (not root?)";
  const std::string db = small.path() + "/history.db";
  ASSERT_EQ(run_fdbench(short_run(db, {"--save"})).exit_code, 0);
  const std::string filler = small.path() + "/filler";
  {
    const int fd = open(filler.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    const std::string block(4096, 'x');
    while (write(fd, block.data(), block.size()) > 0) {
    }
    close(fd);
  }
  // 300 repetitions: a document larger than the pages the history has free.
  auto larger = short_run(db, {"--save"});
  *(std::find(larger.begin(), larger.end(), "--repeat") + 1) = "300";
  const auto run = run_fdbench(larger);
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("the run was not saved"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("its filesystem is full"), std::string::npos) << run.err;
  EXPECT_EQ(count_lines(run.err), 1U) << run.err;
  ASSERT_EQ(unlink(filler.c_str()), 0);
  const auto list = run_fdbench({"history", "list", "--history", db});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(count_lines(list.out), 2U) << list.out;  // a heading and the first run
  ASSERT_EQ(run_fdbench(short_run(db, {"--save"})).exit_code, 0);
}

}  // namespace history_cli_test
}  // namespace fdbench::testing
