// `fdbench open --keep-files DIR`, `--reuse-files DIR` and `fdbench clean DIR` end to end: a
// set made once, used again unchanged, removed on request; every refusal one line with its
// exit code (2: the command line, 1: the set), and nothing that is not fdbench's touched.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/errors.hpp"
#include "support/fdbench_process.hpp"
#include "support/hang_opens.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace kept_files_test {

std::size_t lines_in(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class KeptFiles : public ::testing::Test {
 protected:
  // A short open run on the kept set: `how` is --keep-files or --reuse-files, then `extra`.
  RunResult open(const std::string& how, std::vector<std::string> extra = {},
                 const std::string& format = "json") {
    std::vector<std::string> args{"open",     how,        set_,       "--threads", "1",
                                  "--repeat", "2",        "--warmup", "0",         "--strategy",
                                  "threads",  "--format", format};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_fdbench(args);
  }

  FastTempDir dir_;
  const std::string set_ = dir_ / "set";
};

TEST_F(KeptFiles, KeepThenReuseThenClean) {
  RunResult run = open("--keep-files", {"--files", "40", "--layout", "dirs:2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto result = nlohmann::json::parse(run.out).at("results").at(0);
  EXPECT_EQ(result.at("input").at("file_set"), "kept");
  EXPECT_EQ(result.at("input").at("origin"), set_);
  EXPECT_GE(result.at("setup_ns").get<double>(), 0);
  const auto made = tree_of(set_);
  EXPECT_EQ(made.size(), 40U + 2 + 1) << "the kept set is not all there after the run";

  // No --files, no --layout: the set's marker says.
  run = open("--reuse-files");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  result = nlohmann::json::parse(run.out).at("results").at(0);
  EXPECT_EQ(result.at("input").at("file_set"), "reused");
  EXPECT_EQ(result.at("input").at("files"), 40);
  EXPECT_EQ(result.at("input").at("layout"), "dirs:2");
  EXPECT_EQ(result.at("ops"), 40);
  EXPECT_EQ(result.at("failures"), 0);
  EXPECT_GE(result.at("setup_ns").get<double>(), 0);
  EXPECT_EQ(tree_of(set_), made) << "--reuse-files changed the set";

  // The table says what the set-up took, and that it was not timed.
  run = open("--reuse-files", {"--files", "40", "--keep-open"}, "table");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("40 empty files reused from " + set_), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("40 files checked (none created) beforehand in "), std::string::npos)
      << run.out;

  run = run_fdbench({"clean", set_});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "removed " + set_ + "\n");
  EXPECT_EQ(list_names(dir_.path()), std::vector<std::string>{});
}

TEST_F(KeptFiles, TheTableSaysHowLongTheFilesTookToMake) {
  const RunResult run = open("--keep-files", {"--files", "30"}, "table");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string text = unwrapped(run.out);
  EXPECT_NE(text.find("30 empty files kept in " + set_), std::string::npos) << run.out;
  EXPECT_NE(text.find("30 files created beforehand in "), std::string::npos) << run.out;
}

TEST_F(KeptFiles, ReuseRefusesATamperedSetWithOneLine) {
  ASSERT_EQ(open("--keep-files", {"--files", "20"}).exit_code, 0);
  const auto refused = [&](const std::vector<std::string>& extra, const std::string& why) {
    const RunResult run = open("--reuse-files", extra);
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_EQ(run.err.rfind("Error: ", 0), 0U) << run.err;
    EXPECT_EQ(lines_in(run.err), 1U) << run.err;
    EXPECT_NE(run.err.find(why), std::string::npos) << run.err;
    EXPECT_EQ(run.out.find("\"times_ns\": ["), std::string::npos) << "it measured anyway";
  };
  refused({"--files", "21"}, "holds 20 files, --files asks for 21");
  refused({"--layout", "dirs:2"}, "laid out flat, --layout asks for dirs:2");

  ASSERT_EQ(unlink((set_ + "/13.txt").c_str()), 0);
  const auto tampered = tree_of(set_);
  refused({}, "1 of 20 files are missing or not regular files (13.txt is the first)");
  EXPECT_EQ(tree_of(set_), tampered) << "a refused reuse changed the set";

  write_text(set_ + "/.fdbench-private", "not fdbench's\n");
  refused({}, "not the marker of a kept set");
  ASSERT_EQ(unlink((set_ + "/.fdbench-private").c_str()), 0);
  refused({}, "no .fdbench-private marker");
  EXPECT_EQ(list_names(set_).size(), 19U) << "the files were touched";
}

TEST_F(KeptFiles, KeepRefusesADirectoryThatExistsAndTouchesNothingInIt) {
  ASSERT_EQ(mkdir(set_.c_str(), 0700), 0);
  write_text(set_ + "/1.txt", "the user's 1.txt\n");
  write_text(set_ + "/notes", "the user's notes\n");
  RunResult run = open("--keep-files", {"--files", "5"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("exists and is not a set fdbench kept"), std::string::npos) << run.err;
  EXPECT_EQ(list_names(set_), (std::vector<std::string>{"1.txt", "notes"}));
  EXPECT_EQ(read_text(set_ + "/1.txt"), "the user's 1.txt\n");

  // And clean will not remove it either.
  run = run_fdbench({"clean", set_});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("not a set fdbench made"), std::string::npos) << run.err;
  EXPECT_EQ(read_text(set_ + "/notes"), "the user's notes\n");
}

TEST_F(KeptFiles, KeepOverAKeptSetSaysToReuseIt) {
  ASSERT_EQ(open("--keep-files", {"--files", "5"}).exit_code, 0);
  const RunResult run = open("--keep-files", {"--files", "5"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("use it with --reuse-files " + set_), std::string::npos) << run.err;
  EXPECT_EQ(list_names(set_).size(), 6U);
}

TEST_F(KeptFiles, CleanLeavesWhatFdbenchDidNotCreate) {
  ASSERT_EQ(open("--keep-files", {"--files", "10", "--layout", "dirs:2"}).exit_code, 0);
  write_text(set_ + "/d0/photo.jpg", "the user's\n");
  const RunResult run = run_fdbench({"clean", set_});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("photo.jpg"), std::string::npos) << run.err;
  EXPECT_EQ(read_text(set_ + "/d0/photo.jpg"), "the user's\n");
  // The marker stays, so that clean knows the set again once the photo is moved away.
  EXPECT_EQ(tree_of(set_), (std::vector<std::string>{".fdbench-private", "d0", "d0/photo.jpg"}))
      << "fdbench's own files should be gone, and only those";
  ASSERT_EQ(unlink((set_ + "/d0/photo.jpg").c_str()), 0);
  EXPECT_EQ(run_fdbench({"clean", set_}).exit_code, 0);
  EXPECT_FALSE(exists(set_));
}

// The root is no set: said so, not "/: No such file or directory" (issue 39 item 14).
TEST(CleanRoot, SaysItIsNotASetFdbenchMade) {
  for (const char* root : {"/", "//"}) {
    const RunResult run = run_fdbench({"clean", root});
    EXPECT_NE(run.exit_code, 0) << run.err;
    EXPECT_NE(run.err.find("not a set fdbench made"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("No such file"), std::string::npos) << run.err;
  }
}

TEST_F(KeptFiles, UsageErrorsExitTwo) {
  const std::vector<std::vector<std::string>> cases = {
      {"open", "--keep-files", set_, "--reuse-files", set_},
      {"open", "--keep-files", set_, "--tree", dir_.path()},
      {"open", "--reuse-files", set_, "--dir", dir_.path()},
      {"open", "--reuse-files", dir_ / "missing"},
      {"open", "--keep-files", dir_ / "missing/set"},
      {"clean", dir_ / "missing"},
  };
  for (const auto& args : cases) {
    const RunResult run = run_fdbench(args);
    EXPECT_EQ(run.exit_code, 2) << describe(args) << "\n" << run.err;
    EXPECT_EQ(lines_in(run.err), 1U) << run.err;
  }
  EXPECT_EQ(list_names(dir_.path()), std::vector<std::string>{});
}

TEST_F(KeptFiles, CtrlCWhileMakingTheSetRemovesItButNotOnceMade) {
  {  // 200,000 files take seconds to make, even on tmpfs.
    FdbenchProcess child({"open", "--keep-files", set_, "--files", "200000", "--threads", "1",
                          "--strategy", "threads", "--repeat", "1", "--warmup", "0"},
                         as_a_job());
    ASSERT_TRUE(wait_until([&] { return list_names(set_).size() > 1; }));
    child.signal(SIGINT, false);
    EXPECT_EQ(child.wait().exit_code, 128 + SIGINT);
    EXPECT_FALSE(exists(set_)) << "an interrupted --keep-files left its half-made set";
  }
  {  // Once the set is made, Ctrl-C stops the run and the set stays.
    FdbenchProcess child({"open", "--keep-files", set_, "--files", "50", "--threads", "1",
                          "--strategy", "threads", "--repeat", "100000", "--warmup", "0"},
                         as_a_job());
    ASSERT_TRUE(wait_until([&] {
      return read_text(set_ + "/.fdbench-private").find("complete\n") != std::string::npos;
    }));
    ASSERT_TRUE(child.wait_for_event("repetition-done"));  // the set made, and in use
    child.signal(SIGINT, false);
    EXPECT_EQ(child.wait().exit_code, 128 + SIGINT);
    EXPECT_EQ(list_names(set_).size(), 51U) << "Ctrl-C after the set was made removed it";
  }
  EXPECT_EQ(open("--reuse-files").exit_code, 0);
}

#ifdef FDBENCH_HANG_OPENS
// Two runs make the same --keep-files set at once (issue 21 item 16): the second is told the
// truth, that a live run is making it (it was told to clean a set that was being made). The
// first is held making file 7.txt by fdbench_hang_opens, so it is certainly still at it.
TEST_F(KeptFiles, ASecondRunMakingTheSameSetIsToldAnotherIsMakingIt) {
  RunOptions held = as_a_job();
  held.program = FDBENCH_HANG_OPENS;
  FdbenchProcess first({"7.txt", "--", fdbench_binary(), "open", "--keep-files", set_, "--files",
                        "20", "--threads", "1", "--strategy", "threads", "--quiet"},
                       held);
  if (!first.wait_for_event("open-held ")) {
    const RunResult early = first.wait();
    if (early.exit_code == kHangOpensUnavailable) FDBENCH_SKIP_WITHOUT("hang_opens") << early.err;
    FAIL() << "the first run never held its open: " << early.err;
  }
  const RunResult second = open("--keep-files", {"--files", "20"});
  EXPECT_EQ(second.exit_code, 1) << second.err;
  EXPECT_EQ(lines_in(second.err), 1U) << second.err;
  EXPECT_NE(second.err.find("another fdbench run, still alive, is making a set there now"),
            std::string::npos)
      << second.err;
  EXPECT_EQ(second.err.find("fdbench clean"), std::string::npos) << second.err;

  // Once that run is gone (SIGKILL: its set is left unfinished), the truth is the other one.
  first.signal(SIGKILL, true);
  first.wait();
  const RunResult after = open("--keep-files", {"--files", "20"});
  EXPECT_EQ(after.exit_code, 1) << after.err;
  EXPECT_NE(after.err.find("creation did not finish: remove it with fdbench clean " + set_),
            std::string::npos)
      << after.err;
}
#endif  // FDBENCH_HANG_OPENS

}  // namespace kept_files_test
}  // namespace fdbench::testing
