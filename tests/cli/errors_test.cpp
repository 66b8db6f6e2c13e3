// Every failure the world or the user causes is one line on stderr, "Error: <cause>; <fix>",
// with exit code 2 for a bad command line and 1 for a runtime failure; nothing is left in
// --dir, and no input crashes fdbench or makes it hang (every run here has a bounded wait).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "support/error_line.hpp"
#include "support/fdbench_process.hpp"
#include "support/hang_opens.hpp"
#include "support/require.hpp"
#include "support/sanitizers.hpp"
#include "support/temp_dir.hpp"
#include "support/tmpfs.hpp"

namespace fdbench::testing {
namespace errors_test {

RunResult run_bounded(const std::vector<std::string>& args, RunOptions options = as_a_job()) {
  options.timeout = std::chrono::seconds(30);
  FdbenchProcess child(args, options);
  RunResult run = child.wait();
  EXPECT_NE(run.exit_code, -1) << "fdbench hung: " << describe(args);
  EXPECT_LT(run.exit_code, 128) << "fdbench crashed: " << describe(args) << "\n" << run.err;
  const auto left = child.leftovers();
  EXPECT_EQ(left.running + left.orphans, 0) << "processes outlived fdbench";
  return run;
}

struct Expected {
  std::vector<std::string> args;
  int exit_code;
  std::vector<std::string> parts;  // the flag, the cause, the fix
};

TEST(Errors, BadCommandLinesAndInputsAreOneLineWithTheCauseAndTheFix) {
  TempDir dir;
  write_text(dir / "file", "a regular file\n");
  const std::string missing = dir / "missing";
  const std::vector<Expected> cases{
      {{"open", "--dir", missing},
       2,
       {"--dir", missing, "No such file", "create it or name another directory"}},
      {{"open", "--dir", dir / "file"}, 2, {"--dir", "not a directory", "name a directory"}},
      {{"open", "--files", "0"}, 2, {"--files", "out of range", "1 to 10000000"}},
      {{"open", "--files", "-5"}, 2, {"--files", "out of range", "1 to 10000000"}},
      {{"open", "--files", "many"}, 2, {"--files", "'many'", "whole number"}},
      {{"open", "--files", "99999999999999999999999"}, 2, {"--files", "1 to 10000000"}},
      {{"open", "--files", "10000001"}, 2, {"--files", "1 to 10000000"}},
      {{"open", "--threads", "0"}, 2, {"--threads", "1 to 1024"}},
      {{"open", "--threads", "1025"}, 2, {"--threads", "1 to 1024"}},
      {{"socket", "--threads", "2,0"}, 2, {"--threads", "1 to 1024"}},
      {{"open", "--strategy", "threads,bogus"}, 2, {"--strategy", "'bogus'", "choose from"}},
      {{"socket", "--kind", "sctp"}, 2, {"--kind", "'sctp'", "choose from"}},
      {{"open", "--format", "yaml"}, 2, {"--format", "'yaml'", "choose from"}},
      {{"open", "--output", missing + "/out.json"},
       2,
       {"--output", "No such file", "name another directory"}},
      {{"open", "--tree", missing},
       2,
       {"--tree", missing, "No such file", "name another directory"}},
      {{"open", "--tree", dir / "file"}, 2, {"--tree", "not a directory", "name a directory"}},
      {{"open", "--list", missing}, 2, {"--list", missing, "No such file"}},
      {{"open", "--no-such-flag"},
       2,
       {"fdbench open: unknown option '--no-such-flag'", "; see 'fdbench open --help'"}},
      {{"open", "--fils", "1000"},
       2,
       {"fdbench open: unknown option '--fils' (did you mean --files?); see 'fdbench open "
        "--help'"}},
      {{"frobnicate"}, 2, {"fdbench: unknown command 'frobnicate'", "; see 'fdbench --help'"}},
      {{"tune", "--files"},
       2,
       {"fdbench tune: --files needs a value (N); see 'fdbench tune --help'"}},
      {{"open", "extra"},
       2,
       {"fdbench open: unexpected argument 'extra'", "'fdbench open --help'"}},
      {{"open", "--threads", "x"}, 2, {"fdbench open: --threads", "'fdbench open --help'"}},
      {{"open", "--tree", dir.path(), "--files", "10"},
       2,
       {"fdbench open: --tree and --files", "drop --files"}},
      {{"open", "--tree", dir.path(), "--layout", "dirs:5"},
       2,
       {"fdbench open: --tree and --layout", "drop --layout"}},
      {{"open", "--list", dir / "file", "--files", "10"},
       2,
       {"fdbench open: --list and --files", "drop --files"}},
      {{"tune", "--tree", dir.path(), "--files", "10"},
       2,
       {"fdbench tune: --tree and --files", "drop --files"}},
  };
  for (const auto& [args, code, parts] : cases) {
    SCOPED_TRACE(describe(args));
    const RunResult run = run_bounded(args);
    EXPECT_EQ(run.exit_code, code) << run.err;
    expect_one_error_line(run.err, parts);
    EXPECT_EQ(run.out, "");
  }
  EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{"file"});
}

TEST(Errors, ReadOnlyDir) {
  const Tmpfs ro("ro,size=1m");
  if (!ro.mounted()) FDBENCH_SKIP_WITHOUT("mount") << "cannot mount a tmpfs (not root?)";
  const RunResult run = run_bounded({"open", "--files", "10", "--dir", ro.path()});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  expect_one_error_line(run.err, {"--dir", ro.path(), "not writable", "Read-only file system",
                                  "choose a writable directory"});
}

TEST(Errors, TooFewInodesIsSaidBeforeCreatingAnything) {
  const Tmpfs tiny("size=64k,nr_inodes=200");
  if (!tiny.mounted()) FDBENCH_SKIP_WITHOUT("mount") << "cannot mount a tmpfs (not root?)";
  const RunResult run = run_bounded({"open", "--files", "1000", "--threads", "1", "--strategy",
                                     "threads", "--repeat", "1", "--dir", tiny.path()});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  expect_one_error_line(run.err, {"--dir", tiny.path(), "inodes", "1000", "lower --files"});
  EXPECT_EQ(list_names(tiny.path()), std::vector<std::string>{}) << "setup left files behind";
}

// A directory the user never named with --dir is called what they did set: TMPDIR (issue 21
// item 16), before the run (missing, read-only) and when the set is made (too few inodes).
TEST(Errors, ProblemsWithTmpdirNameTmpdir) {
  const TempDir parent;
  const std::string missing = parent / "no-such-dir";
  const Tmpfs ro("ro,size=1m");
  const Tmpfs tiny("size=64k,nr_inodes=200");
  struct Case {
    std::string tmpdir;
    std::vector<std::string> args;
    int exit_code;
    std::vector<std::string> parts;
  };
  std::vector<Case> cases{
      {missing,
       {"open", "--files", "10"},
       2,
       {"TMPDIR " + missing, "No such file", "name another directory with --dir"}},
      {missing, {"env"}, 2, {"TMPDIR " + missing, "No such file"}},
      {missing, {"clean"}, 2, {"TMPDIR " + missing, "No such file"}},
  };
  if (ro.mounted()) {
    cases.push_back({ro.path(),
                     {"open", "--files", "10"},
                     2,
                     {"TMPDIR " + ro.path(), "not writable", "with --dir"}});
  }
  if (tiny.mounted()) {
    cases.push_back(
        {tiny.path(),
         {"open", "--files", "1000", "--threads", "1", "--strategy", "threads", "--repeat", "1"},
         1,
         {"TMPDIR " + tiny.path(), "inodes", "choose another TMPDIR"}});
  }
  for (const auto& c : cases) {
    SCOPED_TRACE("TMPDIR=" + c.tmpdir + " " + describe(c.args));
    RunOptions options = as_a_job();
    options.env = {"TMPDIR=" + c.tmpdir};
    const RunResult run = run_bounded(c.args, options);
    EXPECT_EQ(run.exit_code, c.exit_code) << run.err;
    expect_one_error_line(run.err, c.parts);
    EXPECT_EQ(run.err.find("--dir " + c.tmpdir), std::string::npos) << run.err;
  }
  if (!ro.mounted() || !tiny.mounted()) {
    FDBENCH_SKIP_WITHOUT("mount") << "cannot mount a tmpfs (not root?): the missing TMPDIR only";
  }
}

// ENOSPC in the middle of creating the set: the up-front check passed, then something else
// took the inodes. fdbench must stop, remove what it made, and name the problem.
TEST(Errors, FilesystemFillingUpDuringSetup) {
  const Tmpfs fs("size=32m,nr_inodes=200000");
  if (!fs.mounted()) FDBENCH_SKIP_WITHOUT("mount") << "cannot mount a tmpfs (not root?)";
  const std::string filler = fs.path() + "/filler";
  ASSERT_EQ(mkdir(filler.c_str(), 0755), 0);
  RunOptions options = as_a_job();
  options.timeout = std::chrono::seconds(30);
  FdbenchProcess child({"open", "--files", "190000", "--threads", "1", "--strategy", "threads",
                        "--repeat", "1", "--warmup", "0", "--dir", fs.path()},
                       options);
  // As soon as fdbench has its directory, take every free inode.
  ASSERT_TRUE(wait_until([&] { return !private_dirs(fs.path()).empty(); }))
      << "fdbench never started its file set";
  std::size_t taken = 0;
  for (;; ++taken) {
    const int fd = open((filler + "/" + std::to_string(taken)).c_str(),
                        O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) break;
    close(fd);
  }
  const RunResult run = child.wait();
  EXPECT_EQ(run.exit_code, 1) << run.err;
  // Normally fdbench meets ENOSPC while creating; should the filler have been first, the
  // up-front check says it instead. Both name the --dir and the fix.
  const bool midway = run.err.find("no space left") != std::string::npos;
  RecordProperty("met_enospc_while_creating", midway ? "yes" : "no");
  expect_one_error_line(run.err, {"--dir", fs.path(), "lower --files"});
  EXPECT_TRUE(midway || run.err.find("free inodes") != std::string::npos) << run.err;
  EXPECT_EQ(private_dirs(fs.path()), std::vector<std::string>{}) << "setup left files behind";
  const auto left = child.leftovers();
  EXPECT_EQ(left.running + left.orphans, 0);
}

TEST(Errors, KeepOpenBeyondTheHardDescriptorLimit) {
  FastTempDir dir;
  RunOptions limited = as_a_job();
  limited.nofile = 256;
  const RunResult run = run_bounded({"open", "--keep-open", "--files", "1000", "--threads", "2",
                                     "--strategy", "threads", "--repeat", "1", "--dir", dir.path()},
                                    limited);
  EXPECT_EQ(run.exit_code, 1) << run.err;
  expect_one_error_line(run.err, {"hard limit is 256", "ulimit -Hn", "--files"});
  EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{});
}

TEST(Errors, ListWithEntriesThatCannotBeOpenedCountsThem) {
  TempDir dir;
  write_text(dir / "good.txt", "");
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0644), 0);
  ASSERT_EQ(mkdir((dir / "subdir").c_str(), 0755), 0);
  ASSERT_EQ(symlink((dir / "good.txt").c_str(), (dir / "link").c_str()), 0);
  write_text(dir / "list", dir / "good.txt\n" + dir / "fifo\n" + dir / "subdir\n" + dir / "link\n" +
                               dir / "gone-1\n" + dir / "gone-2\n\n");
  const RunResult run =
      run_bounded({"open", "--list", dir / "list", "--threads", "1", "--strategy", "threads",
                   "--repeat", "2", "--warmup", "0", "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.find("Error:"), std::string::npos) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  ASSERT_EQ(doc.at("results").size(), 1U);
  const auto& r = doc.at("results")[0];
  EXPECT_EQ(r.at("ops"), 1);
  EXPECT_EQ(r.at("failures"), 0);
  const auto& input = r.at("input");
  EXPECT_EQ(input.at("files"), 1);
  EXPECT_EQ(input.at("skipped").value("fifo", 0), 1) << input.dump();
  EXPECT_EQ(input.at("skipped").value("directory", 0), 1) << input.dump();
  EXPECT_EQ(input.at("skipped").value("symlink", 0), 1) << input.dump();
  EXPECT_EQ(input.at("missing").value("No such file or directory", 0), 2) << input.dump();

  // The table says so too.
  const RunResult table = run_bounded(
      {"open", "--list", dir / "list", "--threads", "1", "--strategy", "threads", "--repeat", "1"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("3 entries skipped"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("2 listed paths not found"), std::string::npos) << table.out;
}

// A symlink loop named by --list, or listed in it, is one line and the right exit code, never
// an abort (issue 49 item 4: with an output beside it, the comparison of the two followed the
// loop and threw past every handler, exit 134).
TEST(Errors, ASymlinkLoopInOrAsAListIsOneLine) {
  TempDir dir;
  ASSERT_EQ(symlink("loop", (dir / "loop").c_str()), 0);
  ASSERT_EQ(symlink("b", (dir / "a").c_str()), 0);
  ASSERT_EQ(symlink("a", (dir / "b").c_str()), 0);
  for (const std::string& list : {dir / "loop", dir / "a"}) {
    for (const bool output : {false, true}) {
      std::vector<std::string> args{"open", "--list", list, "--repeat", "1"};
      if (output) args.insert(args.end(), {"--export-json", dir / "out.json"});
      SCOPED_TRACE(describe(args));
      const RunResult run = run_bounded(args);
      EXPECT_EQ(run.exit_code, 2) << run.err;
      expect_one_error_line(run.err, {"--list " + list, "Too many levels of symbolic links"});
    }
  }
  write_text(dir / "good.txt", "");
  write_text(dir / "list", dir / "loop\n" + dir / "loop/x\n" + dir / "a/x\n" + dir / "good.txt\n");
  const RunResult run = run_bounded({"open", "--list", dir / "list", "--threads", "1", "--strategy",
                                     "threads", "--repeat", "1", "--warmup", "0", "--format",
                                     "json", "--export-csv", dir / "out.csv"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto input = nlohmann::json::parse(run.out).at("results").at(0).at("input");
  EXPECT_EQ(input.at("files"), 1) << input.dump();
  EXPECT_EQ(input.at("skipped").value("symlink", 0), 1) << input.dump();
  EXPECT_EQ(input.at("skipped").value("symlink on its path", 0), 2) << input.dump();
}

// A list naming one file many times (issue 39 item 14): each copy is opened, and the title
// says how many distinct files there are; a list of distinct paths says nothing more.
TEST(Errors, AListNamingAFileAgainSaysHowManyAreDistinct) {
  TempDir dir;
  write_text(dir / "a.txt", "");
  write_text(dir / "b.txt", "");
  write_text(dir / "again", dir / "a.txt\n" + dir / "a.txt\n" + dir / "a.txt\n" + dir / "b.txt\n");
  write_text(dir / "once", dir / "a.txt\n" + dir / "b.txt\n");
  const auto title = [&dir](const std::string& list) {
    const RunResult run = run_bounded({"open", "--list", dir / list, "--threads", "1",
                                       "--strategy", "threads", "--repeat", "1", "--warmup", "0"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return run.out;
  };
  EXPECT_NE(title("again").find("4 regular files (2 distinct) from --list"), std::string::npos)
      << title("again");
  EXPECT_NE(title("once").find("2 regular files from --list"), std::string::npos);
}

TEST(Errors, ListWithNothingToOpenIsAnError) {
  TempDir dir;
  write_text(dir / "empty", "");
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0644), 0);
  write_text(dir / "useless", dir / "fifo\n" + dir / "gone\n" + dir.path() + "\n");
  for (const char* list : {"empty", "useless"}) {
    SCOPED_TRACE(list);
    const RunResult run = run_bounded(
        {"open", "--list", dir / list, "--threads", "1", "--strategy", "threads", "--repeat", "1"});
    EXPECT_EQ(run.exit_code, 1) << run.err;
    expect_one_error_line(run.err, {"no regular files", "--list", dir / list});
  }
  // What was left out, and why, explains the refusal (issue 39 item 14).
  const RunResult run = run_bounded({"open", "--list", dir / "useless", "--threads", "1",
                                     "--strategy", "threads", "--repeat", "1"});
  expect_one_error_line(run.err, {"2 entries skipped (1 directory, 1 fifo)",
                                  "1 listed path could not be examined (1 No such file"});
}

// A list separated otherwise than --list0 says is refused, not read as one "file" or none:
// up front for a regular file, and as the run reads it for a pipe.
TEST(Errors, ListSeparatedOtherwiseThanSaid) {
  TempDir dir;
  write_text(dir / "a", "");
  write_text(dir / "b", "");
  write_text(dir / "nul", dir / "a" + std::string(1, '\0') + dir / "b" + std::string(1, '\0'));
  write_text(dir / "lines", dir / "a\n" + dir / "b\n");
  const std::vector<std::string> quick{"--threads", "1", "--strategy", "threads", "--repeat", "1"};
  const std::vector<Expected> cases{
      {{"open", "--list", dir / "nul"}, 2, {"--list", dir / "nul", "NUL-separated", "add --list0"}},
      {{"open", "--list", dir / "lines", "--list0"},
       2,
       {"--list0", dir / "lines", "one path per line", "drop --list0"}},
      {{"tune", "--list", dir / "nul"}, 2, {"NUL-separated", "add --list0"}},
  };
  for (auto [args, code, parts] : cases) {
    args.insert(args.end(), quick.begin(), quick.end() - (args[0] == "tune" ? 6 : 0));
    SCOPED_TRACE(describe(args));
    const RunResult run = run_bounded(args);
    EXPECT_EQ(run.exit_code, code) << run.err;
    expect_one_error_line(run.err, parts);
    EXPECT_EQ(run.out, "");
  }
  for (const char* list : {"nul", "lines"}) {  // and as they are meant, they run
    std::vector<std::string> args{"open", "--list", dir / list, "--format", "json"};
    if (std::string(list) == "nul") args.push_back("--list0");
    args.insert(args.end(), quick.begin(), quick.end());
    const RunResult run = run_bounded(args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(nlohmann::json::parse(run.out).at("results")[0].at("input").at("files"), 2);
  }
}

TEST(Errors, NulSeparatedListThroughAPipe) {
  TempDir dir;
  write_text(dir / "a", "");
  const std::string fifo = dir / "list";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  RunOptions options = as_a_job();
  options.timeout = std::chrono::seconds(30);
  FdbenchProcess child({"open", "--list", fifo, "--threads", "1", "--strategy", "threads",
                        "--repeat", "1", "--format", "json"},
                       options);
  int fd = -1;  // the write end opens once fdbench has the read end open
  ASSERT_TRUE(wait_until([&] {
    fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    return fd >= 0;
  })) << "fdbench never opened the list";
  const std::string list = dir / "a" + std::string(1, '\0');
  EXPECT_EQ(write(fd, list.data(), list.size()), static_cast<ssize_t>(list.size()));
  close(fd);
  const RunResult run = child.wait();
  EXPECT_EQ(run.exit_code, 2) << run.err;
  expect_one_error_line(run.err, {"--list", fifo, "NUL-separated", "add --list0"});
}

// A --list that is a device is refused before it is opened, in one line naming what it is
// (issue 21 item 11: --list /dev/zero --list0 ran for ever, and without --list0 read one line
// until memory ran out).
TEST(Errors, ADeviceAsListIsRefusedUnopened) {
  RunOptions bounded = as_a_job();
  bounded.address_space = 1ULL << 30;
  for (const auto& args : {std::vector<std::string>{"open", "--list", "/dev/zero", "--list0"},
                           std::vector<std::string>{"open", "--list", "/dev/zero"},
                           std::vector<std::string>{"tune", "--list", "/dev/zero", "--list0"}}) {
    SCOPED_TRACE(describe(args));
    const RunResult run = run_bounded(args, bounded);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    expect_one_error_line(run.err, {"--list /dev/zero is a character device",
                                    "--list reads a file of paths, or a pipe"});
  }
}

// The write end of the FIFO `fifo` once fdbench has opened its read end (-1 if it never does).
int list_writer(const std::string& fifo) {
  int fd = -1;
  wait_until([&] { return (fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC)) >= 0; });
  return fd;
}

// A pipe as --list is allowed (find ... | fdbench open --list /dev/stdin, or <(find ...)) and
// read as it comes, but never without end: an entry longer than any path ends the run with one
// line, though the writer has more.
TEST(Errors, AListPipeThatNeverEndsAPathEndsTheRun) {
  TempDir dir;
  const std::string fifo = dir / "list";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  RunOptions options = as_a_job();
  options.address_space = 1ULL << 30;
  FdbenchProcess child({"open", "--list", fifo, "--threads", "1", "--strategy", "threads",
                        "--repeat", "1", "--quiet"},
                       options);
  std::thread writer([&fifo] {
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);  // EPIPE once fdbench stops reading
    const int fd = list_writer(fifo);
    if (fd < 0) return;
    fcntl(fd, F_SETFL, 0);
    const std::string block(1 << 16, 'y');  // no separator, ever: until fdbench stops reading
    while (write(fd, block.data(), block.size()) > 0) {
    }
    close(fd);
  });
  const RunResult run = child.wait();
  writer.join();
  EXPECT_EQ(run.exit_code, 1) << run.err;
  expect_one_error_line(run.err, {"--list", fifo, "longer than a path can be"});
}

// A pipe that gives part of a list and then nothing: Ctrl-C ends the wait (exit 130), as it
// ends any other.
TEST(Errors, CtrlCEndsAWaitForAListPipe) {
  TempDir dir;
  const std::string fifo = dir / "list";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  FdbenchProcess child({"open", "--list", fifo, "--threads", "1", "--strategy", "threads",
                        "--repeat", "1", "--quiet"},
                       as_a_job());
  const int fd = list_writer(fifo);
  ASSERT_GE(fd, 0) << "fdbench never opened the list";
  EXPECT_EQ(write(fd, "/no/such", 8), 8);  // a path begun, never ended
  // Asleep in its read of the pipe (the state in /proc/PID/stat after "(fdbench) ").
  EXPECT_TRUE(wait_until([&] {
    const std::string stat = read_text("/proc/" + std::to_string(child.pid()) + "/stat");
    const auto close = stat.rfind(')');
    return close != std::string::npos && stat.compare(close, 4, ") S ") == 0;
  }));
  child.signal(SIGINT);
  const RunResult run = child.wait();
  close(fd);
  EXPECT_EQ(run.exit_code, 128 + SIGINT) << run.err;
  EXPECT_NE(run.err.find("interrupted by signal"), std::string::npos) << run.err;
  EXPECT_EQ(child.leftovers().running, 0);
}

#ifdef FDBENCH_HANG_OPENS
// A run whose every result failed (here every open fails with EACCES, made so by
// fdbench_hang_opens) measured nothing: it exits 1 with one line saying so after the results,
// which each say why (issue 21 item 16: it exited 0). One result that worked makes it exit 0.
TEST(Errors, ARunThatMeasuredNothingExitsOne) {
  TempDir failing;
  for (const char* name : {"a.txt", "b.txt", "c.txt"}) write_text(failing / name, "x");
  TempDir mixed;
  for (const char* name : {"a.txt", "fine.dat"}) write_text(mixed / name, "x");
  RunOptions options = as_a_job();
  options.program = FDBENCH_HANG_OPENS;
  options.env = {"FDBENCH_HANG_OPENS_ERRNO=13"};
  const auto run_on = [&](const TempDir& tree) {  // every open of a *.txt fails with EACCES
    return run_bounded({".txt", "--", fdbench_binary(), "open", "--tree", tree.path(), "--strategy",
                        "threads,pool", "--threads", "1", "--repeat", "2", "--format", "json"},
                       options);
  };
  const RunResult run = run_on(failing);
  if (run.exit_code == kHangOpensUnavailable) FDBENCH_SKIP_WITHOUT("hang_opens") << run.err;
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  ASSERT_EQ(doc.at("results").size(), 2U);
  for (const auto& result : doc.at("results")) {
    EXPECT_GT(result.at("failures").get<int>(), 0) << result.dump();
  }
  EXPECT_EQ(run.err,
            "Error: nothing was measured: every result failed (2 results); each result "
            "says why\n");

  const RunResult some = run_on(mixed);  // fine.dat still opens
  EXPECT_EQ(some.exit_code, 0) << some.err;
  EXPECT_EQ(some.err.find("nothing was measured"), std::string::npos) << some.err;
}
#endif  // FDBENCH_HANG_OPENS

// Memory that runs out under `ulimit -v` (issue 39 item 11: std::bad_alloc in the pool's
// repetition aborted the run, exit 134, its file set left): the result it hit fails with one
// line and the run goes on, or ends with one line; never a crash, and nothing is left.
TEST(Errors, MemoryThatRunsOutIsALineNotACrash) {
  if (kSanitized) GTEST_SKIP() << "a sanitizer's runtime needs more address space than this";
  for (const rlim_t kib : {30'000, 40'000}) {
    SCOPED_TRACE(kib);
    TempDir dir;
    RunOptions limited = as_a_job();
    limited.address_space = kib * 1024;
    const RunResult run =
        run_bounded({"open", "--files", "500", "--threads", "1,8,16", "--strategy", "pool",
                     "--repeat", "2", "--dir", dir.path()},
                    limited);
    EXPECT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.err;
    EXPECT_EQ(run.err.find("terminate"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("bad_alloc"), std::string::npos) << run.err;
    if (run.exit_code == 1) {
      EXPECT_NE(run.err.find("Error: "), std::string::npos) << run.err;
    }
    EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{});
  }
}

// "cannot write to standard output" says why (issue 39 item 14): a full device, a closed
// descriptor, one open for reading only. The shell sets up stdout as a user's would.
TEST(Errors, AStandardOutputThatCannotBeWrittenIsNamedWithItsCause) {
  struct Case {
    const char* redirect;
    const char* cause;
  };
  for (const Case& c : {Case{">/dev/full", "No space left on device"},
                        Case{">&-", "it is closed (Bad file descriptor)"},
                        Case{"1</dev/null", "it is open for reading only"}}) {
    SCOPED_TRACE(c.redirect);
    RunOptions shell;
    shell.program = "/bin/sh";
    const RunResult run = run_fdbench(
        {"-c", std::string("exec \"$0\" env ") + c.redirect, fdbench_binary()}, shell);
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_EQ(run.err, std::string("Error: cannot write to standard output: ") + c.cause + "\n");
  }
}

}  // namespace errors_test
}  // namespace fdbench::testing
