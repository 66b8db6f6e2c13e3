// fdbench compare and fdbench env, end to end: two real runs side by side in every format,
// --references against the seeds' published figures, and every unreadable input (missing,
// malformed, truncated, another schema version) one "Error:" line with exit code 2.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "fdbench/tune.hpp"
#include "support/contract.hpp"
#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"
#include "support/wait_until.hpp"

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
      {bad.path(), "is a directory"},
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

// What a malformed document holds is echoed escaped (issue 21 item 16): a key that carries a
// terminal command (ESC ... BEL) or a newline reaches the terminal as text, on one line.
TEST_F(Compare, WhatADocumentHoldsIsEchoedEscaped) {
  TempDir bad;
  auto doc = nlohmann::json::parse(read_text(path("a.json")));
  doc["results"][0]["failures_by_errno"] = {{"\x1b]0;owned\x07\nE", "x"}};
  write_text(bad / "keys.json", doc.dump());
  for (const std::string command : {"compare", "report"}) {
    const RunResult run = run_fdbench({command, path("a.json"), bad / "keys.json"});
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << run.err;
    EXPECT_EQ(run.err.find('\x1b'), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find('\x07'), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("\\x1b]0;owned\\x07\\x0aE"), std::string::npos) << run.err;
  }
}

// A negative time is no measurement: refused in one line naming the field, exit 2, not shown
// as "-0.00" ms (issue 39 item 14).
TEST_F(Compare, ANegativeTimeIsRefused) {
  TempDir bad;
  auto doc = nlohmann::json::parse(read_text(path("b.json")));
  doc["results"][0]["times_ns"][0] = -5;
  write_text(bad / "negative.json", doc.dump());
  for (const std::string command : {"compare", "report"}) {
    const RunResult run = run_fdbench({command, path("a.json"), bad / "negative.json"});
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << run.err;
    EXPECT_NE(run.err.find("times_ns"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("negative"), std::string::npos) << run.err;
  }
}

// Every string of a document's environment and context, with terminal commands in it.
void plant_escapes(nlohmann::json& j) {
  for (auto& [key, value] : j.items()) {
    if (value.is_string()) {
      value =
          "\x1b]52;c;b3duZWQ=\x07\x1b]0;owned\x07\x1b[2J" + value.get<std::string>() + "\xc2\x9b";
    } else if (value.is_object()) {
      plant_escapes(value);
    }
  }
}

// compare printed a document's strings as they were (issue 39 item 13): OSC 52 writes the
// clipboard, OSC 0 the title, CSI 2J clears the screen. Every string from a file or a path
// (the file's own name too) reaches stdout escaped, in the table and in Markdown.
TEST_F(Compare, NoTerminalCommandFromADocumentReachesTheTerminal) {
  TempDir bad;
  auto doc = nlohmann::json::parse(read_text(path("b.json")));
  plant_escapes(doc["environment"]);
  if (doc.contains("context")) plant_escapes(doc["context"]);
  const std::string crafted = bad / "b\x1b]0;name\x07.json";
  write_text(crafted, doc.dump());
  for (const char* format : {"table", "markdown"}) {
    SCOPED_TRACE(format);
    const RunResult run = run_fdbench({"compare", path("a.json"), crafted, "--format", format});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    for (const char control : {'\x1b', '\x07', '\x9b'}) {
      EXPECT_EQ(run.out.find(control), std::string::npos) << int(control) << "\n" << run.out;
    }
    EXPECT_NE(run.out.find("\\x1b]0;name\\x07"), std::string::npos) << run.out;
  }
}

// How many bytes process `pid` has read so far (/proc/PID/io's rchar), or -1.
long long bytes_read_by(pid_t pid) {
  const std::string io = read_text(fmt::format("/proc/{}/io", pid));
  const auto at = io.find("rchar: ");
  return at == std::string::npos ? -1 : std::stoll(io.substr(at + 7));
}

// A signal while compare or report parses a large input (issue 39 item 9): they stop there,
// exit 130 and write nothing, -o untouched; before, the parse ran to its end and the output
// was written anyway. The signal is sent once the whole file has been read: what is left is
// the parse, seconds of it for a document this size.
TEST_F(Compare, ASignalWhileParsingEndsItAndWritesNothing) {
  if (read_text("/proc/self/io").empty()) GTEST_SKIP() << "no /proc/PID/io to see the reading";
  TempDir dir;
  auto doc = nlohmann::json::parse(read_text(path("b.json")));
  std::vector<std::int64_t> times(3'000'000);
  for (std::size_t i = 0; i < times.size(); ++i) times[i] = 10'000'000 + static_cast<int>(i % 997);
  doc["results"][0]["times_ns"] = times;
  const std::string big = dir / "big.json";
  write_text(big, doc.dump());
  // Both inputs: a.json is read first.
  const auto size = static_cast<long long>(read_text(big).size() + read_text(path("a.json")).size());
  const std::string page = dir / "page.html";
  for (const std::string command : {"compare", "report"}) {
    SCOPED_TRACE(command);
    write_text(page, "before");
    std::vector<std::string> args{command, path("a.json"), big};
    if (command == "report") args.insert(args.end(), {"-o", page});
    FdbenchProcess run(args);
    ASSERT_TRUE(wait_until([&] { return bytes_read_by(run.pid()) >= size; }))
        << "the file was never read whole";
    run.signal(SIGINT);
    const RunResult done = run.wait();
    EXPECT_EQ(done.exit_code, 130) << done.err;
    EXPECT_NE(done.err.find("interrupted by signal 2"), std::string::npos) << done.err;
    EXPECT_EQ(done.out, "");
    EXPECT_EQ(read_text(page), "before");
  }
}

// The table's section titles name --tree's directory: escaped as well.
TEST(TreeName, IsEscapedInTheTable) {
  TempDir parent;
  const std::string tree = parent / "t\x1b]0;owned\x07\x1b[2J";
  ASSERT_EQ(mkdir(tree.c_str(), 0755), 0);
  for (const char* name : {"a.txt", "b.txt"}) write_text(tree + "/" + name, "x");
  const RunResult run = run_fdbench({"open", "--tree", tree, "--threads", "1", "--strategy",
                                     "threads", "--repeat", "1", "--warmup", "0", "--quiet"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.find('\x1b'), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find('\x07'), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\\x1b]0;owned\\x07"), std::string::npos) << run.out;
}

// tune's table names the --tree, and every run says which outputs it wrote: escaped too.
TEST(TreeName, IsEscapedInTunesTableAndTheWroteLines) {
  TempDir parent;
  const std::string tree = parent / "t\x1b]0;owned\x07";
  ASSERT_EQ(mkdir(tree.c_str(), 0755), 0);
  for (const char* name : {"a.txt", "b.txt"}) write_text(tree + "/" + name, "x");
  const RunResult tune = run_fdbench({"tune", "--tree", tree, "--strategy", "threads", "--budget",
                                      "1", "--save", tree + ".json", "--quiet"});
  ASSERT_EQ(tune.exit_code, 0) << tune.err;
  const RunResult open =
      run_fdbench({"open", "--tree", tree, "--threads", "1", "--strategy", "threads", "--repeat",
                   "1", "--warmup", "0", "--quiet", "--export-json", tree + ".run.json"});
  ASSERT_EQ(open.exit_code, 0) << open.err;
  for (const RunResult* run : {&tune, &open}) {
    for (const std::string* text : {&run->out, &run->err}) {
      EXPECT_EQ(text->find('\x1b'), std::string::npos) << *text;
      EXPECT_EQ(text->find('\x07'), std::string::npos) << *text;
    }
  }
  EXPECT_NE(tune.err.find("wrote " + parent.path() + "/t\\x1b]0;owned\\x07.json"),
            std::string::npos)
      << tune.err;
}

// What cannot be a results file is refused before it is read (issue 21 item 11): a device is
// never opened, a file larger than any results file is not read, and a pipe is read only up to
// that size. Each is one line naming the file and what it is, exit 2, for compare and report.
TEST_F(Compare, InputsThatCannotBeResultsAreRefusedBeforeTheyAreRead) {
  TempDir bad;
  const std::string large = bad / "large.json";
  write_text(large, "{");
  ASSERT_EQ(truncate(large.c_str(), 129LL << 20), 0);  // sparse: no disk used
  RunOptions bounded;
  bounded.address_space = 1ULL << 30;  // reading /dev/zero whole fails fast, not the machine
  const std::vector<std::pair<std::string, std::string>> cases{
      {"/dev/zero", "/dev/zero is a character device; "},
      {bad.path(), bad.path() + " is a directory; "},
      {large, large + " holds more than the 128 MiB a results file can be; "},
  };
  for (const auto& [file, cause] : cases) {
    for (const std::string command : {"compare", "report"}) {
      const std::vector<std::string> args{command, path("a.json"), file};
      SCOPED_TRACE(describe(args));
      const RunResult run = run_fdbench(args, bounded);
      EXPECT_EQ(run.exit_code, 2) << run.err;
      EXPECT_EQ(run.out, "");
      EXPECT_EQ(run.err, fmt::format("Error: {}{} reads the JSON results of a run (written with "
                                     "--format json or --export-json)\n",
                                     cause, command));
    }
  }
}

// The write end of `fifo`, once fdbench has opened its read end (bounded: -1 if it never does).
int fifo_writer(const std::string& fifo) {
  int fd = -1;
  wait_until([&] { return (fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC)) >= 0; });
  if (fd >= 0) fcntl(fd, F_SETFL, 0);  // blocking writes from here on
  return fd;
}

// A pipe (a FIFO, a shell's <(...)) is read as a results file is, and refused once it has given
// more than one can be, though its writer has more.
TEST_F(Compare, APipeIsReadUpToTheSizeOfAResultsFile) {
  TempDir dir;
  const std::string fifo = dir / "results.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&fifo] {
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);  // EPIPE once fdbench stops reading
    const int fd = fifo_writer(fifo);
    if (fd < 0) return;
    const std::string block(1 << 20, ' ');
    for (int i = 0; i < 130; ++i) {
      if (write(fd, block.data(), block.size()) < 0) break;
    }
    close(fd);
  });
  RunOptions bounded;
  bounded.address_space = 1ULL << 30;
  const RunResult run = run_fdbench({"compare", path("a.json"), fifo}, bounded);
  writer.join();
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(run.err.rfind("Error: " + fifo + " holds more than the 128 MiB", 0), 0U) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;

  // A pipe that gives a whole results document is read as the file itself.
  const std::string document = read_text(path("a.json"));
  std::thread results_writer([&] {
    const int fd = fifo_writer(fifo);
    if (fd < 0) return;
    for (std::size_t done = 0; done < document.size();) {
      const ssize_t n = write(fd, document.data() + done, document.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    close(fd);
  });
  const RunResult piped = run_fdbench({"compare", path("a.json"), fifo});
  results_writer.join();
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_NE(piped.out.find("[2] " + fifo), std::string::npos) << piped.out;
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
  // For people: units, not raw JSON; the warnings one line each.
  EXPECT_EQ(table.out.find('{'), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("[\""), std::string::npos) << table.out;
  const auto load = table.out.find("context.load.load_average ");
  ASSERT_NE(load, std::string::npos) << table.out;
  const std::string load_line = table.out.substr(load, table.out.find('\n', load) - load);
  EXPECT_TRUE(load_line.ends_with(" (1, 5, 15 min)") || load_line.ends_with("(not known here)"))
      << load_line;
  EXPECT_TRUE(table.out.find(" ns\n") != std::string::npos ||
              table.out.find(" µs\n") != std::string::npos)
      << table.out;
  const RunResult json = run_fdbench({"env", "--format", "json", "--dir", "/"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto env = nlohmann::json::parse(json.out);
  for (const char* field : kEnvironmentFields) EXPECT_TRUE(env.contains(field)) << field;
  EXPECT_TRUE(env.at("logical_cpus").is_number_integer());
  EXPECT_TRUE(env.at("rlimit_nofile").at("soft").is_number_integer());
}

}  // namespace compare_test
}  // namespace fdbench::testing
