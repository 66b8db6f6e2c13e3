// A run killed outright (SIGKILL) while it writes an output leaves no temporary file beside it
// (issue 21, item 5): the file being written has no name until it is whole, where the
// filesystem allows (O_TMPFILE); where it does not, the named temporary it leaves is one that
// `fdbench clean` recognises (clean_output_temporaries()) and removes.
//
// The tests stop fdbench (SIGSTOP) at the moment it holds an output being written, look at
// what it holds through /proc, and kill it there: no sleep stands in for "it is writing now".
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "output/atomic_file.hpp"
#include "support/fd_table.hpp"
#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace output_temporaries_test {

// The state letter of process `pid` ("R", "S", "T" stopped, ...), '?' when it is gone.
char state_of(pid_t pid) {
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() ? '?' : stat[close + 2];
}

// Stops `child` and returns what it holds under `dir` that is not one of `finals` (an output
// being written), leaving it stopped; empty (and the child running again) if it holds none.
std::vector<std::string> stop_while_writing(FdbenchProcess& child, const std::string& dir,
                                            const std::vector<std::string>& finals) {
  child.signal(SIGSTOP);
  wait_until([&] { return std::string("TZX?").find(state_of(child.pid())) != std::string::npos; },
             std::chrono::seconds(10));
  if (state_of(child.pid()) != 'T') return {};  // it has ended
  std::vector<std::string> writing;
  for (const auto& path : open_under(child.pid(), dir)) {
    bool final_name = false;
    for (const auto& name : finals) final_name = final_name || path == dir + "/" + name;
    if (!final_name) writing.push_back(path);
  }
  if (writing.empty()) child.signal(SIGCONT);
  return writing;
}

// After the kill: nothing but `finals` in `dir`; a named temporary (no unnamed files here, or
// the instant between naming a file and renaming it) only if `fdbench clean` takes it.
void expect_no_temporary(const std::string& dir, const std::vector<std::string>& writing,
                         std::vector<std::string> finals) {
  bool unnamed = true;
  for (const auto& path : writing) unnamed = unnamed && path.ends_with(" (deleted)");
  // An unnamed file already linked under its temporary name (the instant before the rename)
  // still reads "(deleted)" in /proc: a temporary name in `dir` says so.
  for (const auto& name : list_names(dir))
    unnamed = unnamed && name.find(".tmp-fdbench-") == std::string::npos;
  ::testing::Test::RecordProperty("killed_while_unnamed", unnamed ? "yes" : "no");
  if (!unnamed) {
    const auto cleaned = clean_output_temporaries(dir);
    EXPECT_EQ(cleaned.kept, std::vector<std::string>{});
  }
  std::sort(finals.begin(), finals.end());
  std::vector<std::string> present;
  for (const auto& name : list_names(dir)) {
    if (std::find(finals.begin(), finals.end(), name) != finals.end()) present.push_back(name);
  }
  EXPECT_EQ(list_names(dir), present)
      << "a SIGKILL while writing " << writing.front() << " left a temporary behind";
}

// --trace-out holds its file for the whole run: killed at any repetition, nothing is left.
TEST(OutputTemporaries, ASigkilledRunLeavesNoTraceTemporary) {
  FastTempDir work;
  TempDir out;
  FdbenchProcess child(
      {"open", "--files", "50", "--threads", "1", "--strategy", "threads", "--repeat", "100000",
       "--warmup", "0", "--dir", work.path(), "--trace-out", out / "trace.csv"},
      as_a_job());
  ASSERT_TRUE(child.wait_for_event("repetition-done", 3)) << "no repetition ran";
  std::vector<std::string> writing;
  wait_until([&] {
    writing = stop_while_writing(child, out.path(), {});
    return !writing.empty() || child.events("run-done") > 0;
  });
  ASSERT_FALSE(writing.empty()) << "fdbench never held its --trace-out file";
  child.signal(SIGKILL, true);
  EXPECT_EQ(child.wait().exit_code, 128 + SIGKILL);
  expect_no_temporary(out.path(), writing, {});
}

// Exports are rewritten after every result: killed in the middle of a large rewrite (an HTML
// page and a JSON document of many results), only the last whole exports are left.
TEST(OutputTemporaries, ASigkillDuringAnExportRewriteLeavesNoTemporary) {
  FastTempDir work;
  TempDir out;
  std::string threads = "1";
  for (int t = 2; t <= 48; ++t) threads += "," + std::to_string(t);
  FdbenchProcess child({"open",
                        "--files",
                        "20",
                        "--threads",
                        threads,
                        "--strategy",
                        "threads,fast-pool",
                        "--repeat",
                        "1",
                        "--warmup",
                        "0",
                        "--order",
                        "sequential",
                        "--dir",
                        work.path(),
                        "--latency",
                        "--export-html",
                        out / "run.html",
                        "--export-json",
                        out / "run.json"},
                       as_a_job());
  ASSERT_TRUE(child.wait_for_event("result-done", 3)) << "no result was exported";
  const std::vector<std::string> finals{"run.html", "run.json"};
  std::vector<std::string> writing;
  // Polls: stop, look, go on, until a rewrite is caught (most of this run is rewriting).
  wait_until(
      [&] {
        writing = stop_while_writing(child, out.path(), finals);
        return !writing.empty() || child.events("run-done") > 0;
      },
      std::chrono::seconds(120));
  ASSERT_FALSE(writing.empty()) << "the run ended before a rewrite was caught";
  child.signal(SIGKILL, true);
  EXPECT_EQ(child.wait().exit_code, 128 + SIGKILL);
  expect_no_temporary(out.path(), writing, finals);
}

}  // namespace output_temporaries_test
}  // namespace fdbench::testing
