// An output never replaces what is not its to replace (issue 21, item 1), whichever flag asks
// for it: --output, each --export-*, --trace-out, tune --save and report -o. A symlink is
// followed to the file it names; a FIFO, a device or fdbench's own stdout is written in place;
// an existing file keeps its mode and owner; a file with other hard links, or another user's
// that fdbench could not give back to them, is refused in one line (exit 2); two outputs that
// are one file under two names are refused.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "support/error_line.hpp"
#include "support/fdbench_process.hpp"
#include "support/other_user.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace output_targets_test {

constexpr const char* kPreviousContent = "the previous content\n";

struct stat lstat_of(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(lstat(path.c_str(), &info), 0) << path << ": " << std::strerror(errno);
  return info;
}

std::string link_text(const std::string& path) {
  std::string text(4096, '\0');
  const ssize_t n = readlink(path.c_str(), text.data(), text.size());
  text.resize(n < 0 ? 0 : static_cast<std::size_t>(n));
  return text;
}

// Reads a FIFO on a thread of its own until its writer closes it. finish() returns what it
// read; if no writer ever came, it opens the FIFO for writing itself, so the reader is never
// left blocked (and reads nothing).
class FifoReader {
 public:
  explicit FifoReader(std::string path) : path_(std::move(path)), thread_([this] { read_all(); }) {}
  FifoReader(const FifoReader&) = delete;
  FifoReader& operator=(const FifoReader&) = delete;
  ~FifoReader() {
    if (thread_.joinable()) finish();
  }

  std::string finish() {
    while (!opened_.load()) {  // blocked in open(): give it a writer that writes nothing
      const int fd = open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd >= 0) close(fd);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    thread_.join();
    return text_;
  }

 private:
  void read_all() {
    const int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    opened_.store(true);
    if (fd < 0) return;
    char buffer[65536];
    for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      text_.append(buffer, static_cast<std::size_t>(n));
    }
    close(fd);
  }

  std::string path_;
  std::string text_;
  std::atomic<bool> opened_{false};
  std::thread thread_;
};

// Every output fdbench writes, by the flag that asks for it.
const std::vector<std::string> kOutputs = {"--output",          "--export-json", "--export-csv",
                                           "--export-markdown", "--export-html", "--trace-out",
                                           "tune --save",       "report -o"};

class OutputTargets : public ::testing::TestWithParam<std::string> {
 protected:
  // A results file for `report` to read, made once.
  static void SetUpTestSuite() {
    inputs_ = std::make_unique<TempDir>();
    chmod(inputs_->path().c_str(), 0755);  // readable by another user too
    FastTempDir work;
    const RunResult run = run_fdbench({"open", "--files", "20", "--threads", "1", "--strategy",
                                       "threads", "--repeat", "1", "--warmup", "0", "--dir",
                                       work.path(), "--format", "json", "--output", input()});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    chmod(input().c_str(), 0644);
  }
  static void TearDownTestSuite() { inputs_.reset(); }
  static std::string input() { return *inputs_ / "run.json"; }

  void SetUp() override {
    // Another user's run must be able to make its files and its outputs here.
    chmod(work_.path().c_str(), 0777);
    chmod(out_.path().c_str(), 0777);
  }

  // The command that writes the output under test to `path`.
  [[nodiscard]] std::vector<std::string> args(const std::string& path) const {
    const std::string& kind = GetParam();
    if (kind == "tune --save") {
      return {"tune",    "--budget", "1",          "--files", "200",    "--strategy",
              "threads", "--dir",    work_.path(), "--quiet", "--save", path};
    }
    if (kind == "report -o") return {"report", input(), "-o", path};
    std::vector<std::string> a{"open",       "--files", "20",        "--threads", "1",
                               "--strategy", "threads", "--repeat",  "1",         "--warmup",
                               "0",          "--dir",   work_.path()};
    if (kind == "--output") a.insert(a.end(), {"--format", "json"});
    a.insert(a.end(), {kind, path});
    return a;
  }

  // The flag a message names the output by.
  [[nodiscard]] std::string flag() const {
    const std::string& kind = GetParam();
    if (kind == "report -o") return "--output";
    return kind.substr(kind.find_last_of(' ') + 1);
  }

  // Something every document of this output holds.
  [[nodiscard]] std::string mark() const {
    const std::string& kind = GetParam();
    if (kind == "--output" || kind == "--export-json") return "\"schema_version\"";
    if (kind == "--export-csv") return "strategy,";
    if (kind == "--export-markdown") return "| threads |";
    if (kind == "--export-html" || kind == "report -o") return "<html";
    if (kind == "--trace-out") return "result,strategy,threads,";
    return "\"strategy\"";  // tune --save: the recommendation
  }

  // `text` is one whole document of this output.
  void expect_document(const std::string& text) const {
    ASSERT_FALSE(text.empty());
    EXPECT_NE(text.find(mark()), std::string::npos) << text.substr(0, 2000);
    EXPECT_EQ(text.back(), '\n') << "the document is cut";
    if (GetParam() == "--output" || GetParam() == "--export-json" || GetParam() == "tune --save") {
      EXPECT_TRUE(nlohmann::json::accept(text)) << text.substr(0, 2000);
    }
  }

  static std::unique_ptr<TempDir> inputs_;
  FastTempDir work_;  // --dir
  TempDir out_;       // where the outputs go
};

std::unique_ptr<TempDir> OutputTargets::inputs_;

TEST_P(OutputTargets, AFifoIsWrittenInPlaceForItsReader) {
  const std::string fifo = out_ / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  FifoReader reader(fifo);
  const RunResult run = run_fdbench(args(fifo));
  const std::string received = reader.finish();
  EXPECT_EQ(run.exit_code, 0) << run.err;
  expect_document(received);
  EXPECT_TRUE(S_ISFIFO(lstat_of(fifo).st_mode)) << "the FIFO was replaced";
  EXPECT_EQ(list_names(out_.path()), std::vector<std::string>{"fifo"});
}

// A private device node with /dev/null's numbers (1, 3), never the real /dev/null.
TEST_P(OutputTargets, ADeviceIsWrittenInPlace) {
  if (geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  const std::string device = out_ / "null";
  if (mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    GTEST_SKIP() << "cannot make a device node here: " << std::strerror(errno);
  }
  if (const int fd = open(device.c_str(), O_WRONLY | O_CLOEXEC); fd >= 0) {
    close(fd);
  } else {
    GTEST_SKIP() << "cannot open a device node here (a nodev mount?): " << std::strerror(errno);
  }
  const RunResult run = run_fdbench(args(device));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const struct stat after = lstat_of(device);
  EXPECT_TRUE(S_ISCHR(after.st_mode)) << "the device node was replaced";
  EXPECT_EQ(after.st_rdev, makedev(1, 3));
  EXPECT_EQ(list_names(out_.path()), std::vector<std::string>{"null"});
}

// What fdbench's own stdout writes, named through a symlink of the test's own (as
// /dev/stdout is one): written in place, after what stdout already holds.
TEST_P(OutputTargets, ItsOwnStdoutIsWrittenInPlace) {
  const std::string link = out_ / "stdout";
  ASSERT_EQ(symlink("/proc/self/fd/1", link.c_str()), 0);
  const RunResult run = run_fdbench(args(link));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find(mark()), std::string::npos) << run.out.substr(0, 2000);
  EXPECT_EQ(link_text(link), "/proc/self/fd/1");
  EXPECT_EQ(list_names(out_.path()), std::vector<std::string>{"stdout"});
}

// out/first -> second (relative) -> <elsewhere>/real (absolute): the links stay, the file
// they lead to gets the document; made when it is not there yet.
TEST_P(OutputTargets, ASymlinkIsFollowedToTheFileItNames) {
  TempDir elsewhere;
  chmod(elsewhere.path().c_str(), 0777);
  const std::string real = elsewhere / "real";
  ASSERT_EQ(symlink("second", (out_ / "first").c_str()), 0);
  ASSERT_EQ(symlink(real.c_str(), (out_ / "second").c_str()), 0);
  for (const bool exists : {true, false}) {
    SCOPED_TRACE(exists ? "the file exists" : "the link dangles");
    if (exists) write_text(real, kPreviousContent);
    const RunResult run = run_fdbench(args(out_ / "first"));
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(link_text(out_ / "first"), "second");
    EXPECT_EQ(link_text(out_ / "second"), real);
    EXPECT_EQ(list_names(out_.path()), (std::vector<std::string>{"first", "second"}));
    EXPECT_EQ(list_names(elsewhere.path()), std::vector<std::string>{"real"});
    EXPECT_TRUE(S_ISREG(lstat_of(real).st_mode));
    expect_document(read_text(real));
    ASSERT_EQ(unlink(real.c_str()), 0);
  }
}

TEST_P(OutputTargets, AnExistingFileKeepsItsMode) {
  const std::string file = out_ / "out";
  for (const mode_t mode : {0600, 0640, 0604}) {
    SCOPED_TRACE(mode);
    write_text(file, kPreviousContent);
    ASSERT_EQ(chmod(file.c_str(), mode), 0);
    const RunResult run = run_fdbench(args(file));
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(lstat_of(file).st_mode & 07777, mode);
    expect_document(read_text(file));
    EXPECT_EQ(list_names(out_.path()), std::vector<std::string>{"out"});
  }
}

// Root can give a file back to its owner: it replaces it with one of the same owner and mode.
TEST_P(OutputTargets, AnotherUsersFileKeepsItsOwnerWhenRootWritesIt) {
  if (geteuid() != 0) GTEST_SKIP() << "only root can chown a file to another user";
  const std::string file = out_ / "out";
  write_text(file, kPreviousContent);
  ASSERT_EQ(chown(file.c_str(), 65534, 65534), 0);
  ASSERT_EQ(chmod(file.c_str(), 0640), 0);
  const RunResult run = run_fdbench(args(file));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const struct stat after = lstat_of(file);
  EXPECT_EQ(after.st_uid, 65534U);
  EXPECT_EQ(after.st_gid, 65534U);
  EXPECT_EQ(after.st_mode & 07777, 0640U);
  expect_document(read_text(file));
}

// Any other user would replace it with a file of their own: refused, before anything runs.
TEST_P(OutputTargets, AnotherUsersFileIsRefused) {
  if (const std::string why = cannot_switch_user(); !why.empty()) GTEST_SKIP() << why;
  const std::string file = out_ / "out";
  write_text(file, kPreviousContent);
  ASSERT_EQ(chown(file.c_str(), 65534, 65534), 0);
  ASSERT_EQ(chmod(file.c_str(), 0666), 0);  // writable by all: only its owner stands in the way
  RunOptions options;
  const auto wrapped = as_user(unused_uid(), args(file), options);
  const RunResult run = run_fdbench(wrapped, options);
  EXPECT_EQ(run.exit_code, 2) << run.err;
  expect_one_error_line(run.err, {flag(), file, "another user", "uid 65534"});
  EXPECT_EQ(read_text(file), kPreviousContent);
  EXPECT_EQ(lstat_of(file).st_uid, 65534U);
  EXPECT_EQ(list_names(out_.path()), std::vector<std::string>{"out"});
  EXPECT_EQ(private_dirs(work_.path()), std::vector<std::string>{});
}

TEST_P(OutputTargets, AFileWithOtherHardLinksIsRefused) {
  const std::string file = out_ / "out";
  write_text(file, kPreviousContent);
  ASSERT_EQ(link(file.c_str(), (out_ / "other").c_str()), 0);
  const RunResult run = run_fdbench(args(file));
  EXPECT_EQ(run.exit_code, 2) << run.err;
  expect_one_error_line(run.err, {flag(), file, "2 hard links"});
  EXPECT_EQ(read_text(file), kPreviousContent);
  EXPECT_EQ(lstat_of(file).st_nlink, 2U);
  EXPECT_EQ(list_names(out_.path()), (std::vector<std::string>{"other", "out"}));
}

INSTANTIATE_TEST_SUITE_P(EveryOutput, OutputTargets, ::testing::ValuesIn(kOutputs),
                         [](const ::testing::TestParamInfo<std::string>& output) {
                           std::string name;
                           for (const char c : output.param) {
                             if (std::isalnum(static_cast<unsigned char>(c))) name += c;
                           }
                           return name;
                         });

// Two outputs that name one file, however they spell it, are refused before anything runs.
TEST(DuplicateOutputs, OneFileUnderTwoNamesIsRefused) {
  FastTempDir work;
  TempDir out;
  ASSERT_EQ(mkdir((out / "sub").c_str(), 0755), 0);
  ASSERT_EQ(symlink("x.json", (out / "link").c_str()), 0);
  const std::vector<std::string> run_args{"open", "--files",    "20",       "--threads",
                                          "1",    "--strategy", "threads",  "--repeat",
                                          "1",    "--dir",      work.path()};
  struct Case {
    std::vector<std::string> outputs;
    std::vector<std::string> parts;  // what the one line says
    bool in_out = false;             // run from `out`, so relative names are its
  };
  const std::vector<Case> cases{
      {{"--export-json", out / "x.json", "--export-csv", out / "./x.json"},
       {"--export-csv", out / "./x.json", "--export-json writes that file too"}},
      {{"--output", "./x.json", "--export-json", "x.json"},
       {"--export-json", "x.json", "--output writes that file too"},
       true},
      {{"--output", out / "link", "--export-html", out / "x.json"},
       {"--export-html", "--output writes that file too"}},
      {{"--export-csv", out / "x.csv", "--trace-out", out / "sub/../x.csv"},
       {"--trace-out", "--export-csv writes that file too"}},
      {{"--output", out / "sub/../x.md", "--trace-out", out / "x.md"},
       {"--trace-out", "--output writes that file too"}},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = run_args;
    args.insert(args.end(), c.outputs.begin(), c.outputs.end());
    SCOPED_TRACE(describe(args));
    RunOptions options;
    if (c.in_out) {
      options.program = "/bin/sh";
      args.insert(args.begin(), {"-c", "cd \"$0\" && exec \"$@\"", out.path(), fdbench_binary()});
    }
    const RunResult run = run_fdbench(args, options);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    expect_one_error_line(run.err, c.parts);
    EXPECT_EQ(list_names(out.path()), (std::vector<std::string>{"link", "sub"}));
    EXPECT_EQ(private_dirs(work.path()), std::vector<std::string>{});
  }
}

}  // namespace output_targets_test
}  // namespace fdbench::testing

namespace fdbench::testing {
namespace output_over_input_test {

std::vector<std::string> small_run(const std::string& dir) {
  return {"open",    "--files",  "20", "--threads", "1", "--strategy",
          "threads", "--repeat", "1",  "--dir",     dir, "--quiet"};
}

// An output that is a file the command reads is refused before anything is written, in one
// line naming both (issue 39 item 3): report -o over its input turned it into HTML, and an
// export over the --list replaced the list. Under another name (a symlink) too.
TEST(OutputOverInput, IsRefusedNamingBothAndTheInputIsKept) {
  FastTempDir work;
  TempDir in;
  const std::string results = in / "run.json";
  const RunResult made = run_fdbench([&] {
    auto args = small_run(work.path());
    args.insert(args.end(), {"--export-json", results});
    return args;
  }());
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string document = read_text(results);
  ASSERT_EQ(symlink(results.c_str(), (in / "alias.json").c_str()), 0);
  for (const std::string& output : {results, in / "alias.json"}) {
    SCOPED_TRACE(output);
    const RunResult run = run_fdbench({"report", results, "-o", output});
    EXPECT_EQ(run.exit_code, 2) << run.err;
    expect_one_error_line(run.err, {"--output " + output, "the results file " + results});
    EXPECT_EQ(read_text(results), document);
  }
  const std::string list = in / "mylist.txt";
  write_text(in / "a.txt", "a");
  write_text(list, (in / "a.txt") + "\n");
  for (const char* flag : {"--export-csv", "--output", "--trace-out"}) {
    SCOPED_TRACE(flag);
    const RunResult run = run_fdbench({"open", "--list", list, "--repeat", "1", flag, list});
    EXPECT_EQ(run.exit_code, 2) << run.err;
    expect_one_error_line(run.err, {std::string(flag) + " " + list, "--list " + list});
    EXPECT_EQ(read_text(list), (in / "a.txt") + "\n");
  }
  const RunResult tune = run_fdbench({"tune", "--list", list, "--save", list});
  EXPECT_EQ(tune.exit_code, 2) << tune.err;
  expect_one_error_line(tune.err, {"--save " + list, "--list " + list});
  EXPECT_EQ(read_text(list), (in / "a.txt") + "\n");
}

// A descriptor the caller passed (/dev/fd/7 with 7>>log) is written through, after what the
// file holds: never truncated or replaced.
TEST(OutputOverInput, ADescriptorOpenedForAppendIsAppendedTo) {
  FastTempDir work;
  TempDir out;
  const std::string log = out / "log";
  write_text(log, "kept line\n");
  auto args = small_run(work.path());
  args.insert(args.end(), {"--export-csv", "/dev/fd/7"});
  args.insert(args.begin(), {"-c", "exec \"$@\" 7>>\"$0\"", log, fdbench_binary()});
  RunOptions options;
  options.program = "/bin/sh";
  const RunResult run = run_fdbench(args, options);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string text = read_text(log);
  EXPECT_EQ(text.rfind("kept line\n", 0), 0U) << text;
  EXPECT_GT(text.size(), std::string("kept line\n").size()) << "nothing appended";
  EXPECT_EQ(list_names(out.path()), std::vector<std::string>{"log"});
}

// The null device takes several outputs: nothing written to it is kept, so nothing clashes.
TEST(OutputOverInput, TheNullDeviceTakesSeveralOutputs) {
  FastTempDir work;
  auto args = small_run(work.path());
  args.insert(args.end(),
              {"--export-csv", "/dev/null", "--export-html", "/dev/null", "--output", "/dev/null"});
  const RunResult run = run_fdbench(args);
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

// The history is a file every command that writes a file reads (issue 49 item 1): an output
// over it (history export -o, trend's page, an --export-*, --output or --trace-out of a run
// that saves, report -o, tune --save) is refused in one line before anything is written,
// under its own name, a symlink, a hard link, a /dev/fd name, its write-ahead log's name,
// and where it is the default history (no --history) alike. Every saved run stays.
TEST(OutputOverInput, NoOutputIsWrittenOverTheHistory) {
  TempDir home;
  const std::string db = home / ".local/share/fdbench/history.db";
  const std::vector<std::string> env{"HOME=" + home.path(), "XDG_DATA_HOME="};
  const auto socket_run = [](std::vector<std::string> more) {
    std::vector<std::string> args{"socket", "--threads", "1",   "--per-thread", "16",
                                  "--pregrow", "off",    "--repeat", "1", "--quiet"};
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  RunOptions with_home;
  with_home.env = env;
  const RunResult saved = run_fdbench(socket_run({"--save"}), with_home);
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  const std::string results = home / "run.json";
  const RunResult exported = run_fdbench({"history", "export", "1", "-o", results}, with_home);
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const std::string before = read_text(db);
  ASSERT_FALSE(before.empty());
  const std::string alias = home / "alias.db";
  ASSERT_EQ(symlink(db.c_str(), alias.c_str()), 0);
  const std::string hard = home / "hard.db";
  struct Case {
    std::vector<std::string> args;
    std::string output;  // as the line names it: "--export-json FILE"
    bool through_fd = false;  // run with descriptor 7 open for append on the history
    std::string history{};    // what the line calls the history, where not `db`
  };
  const std::vector<Case> cases{
      {{"history", "export", "1", "-o", db, "--history", db}, "--output " + db},
      {{"history", "export", "1", "-o", db}, "--output " + db},
      {{"history", "export", "1", "-o", alias, "--history", db}, "--output " + alias},
      {{"history", "export", "1", "-o", db, "--history", alias}, "--output " + db, false, alias},
      {{"history", "export", "1", "-o", db + "-wal", "--history", db}, "--output " + db + "-wal"},
      {{"history", "trend", "--format", "html", "-o", db, "--history", db}, "--output " + db},
      {{"history", "trend", "--format", "html", "-o", hard, "--history", db}, "--output " + hard},
      {{"history", "export", "1", "-o", "/dev/fd/7", "--history", db}, "--output /dev/fd/7", true},
      {socket_run({"--save", "--history", db, "--export-json", db}), "--export-json " + db},
      {socket_run({"--save", "--export-json", alias}), "--export-json " + alias},
      {socket_run({"--save", "--history", db, "--output", db}), "--output " + db},
      {socket_run({"--export-csv", db}), "--export-csv " + db},
      {socket_run({"--latency", "--trace-out", db}), "--trace-out " + db},
      {socket_run({"--export-html", "/proc/self/fd/7"}), "--export-html /proc/self/fd/7", true},
      {{"report", results, "-o", db}, "--output " + db},
      {{"report", results, "-o", alias}, "--output " + alias},
      {{"tune", "--files", "10", "--budget", "1", "--save", db}, "--save " + db},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(describe(c.args));
    const bool linked = c.output.find(hard) != std::string::npos;
    if (linked) {
      ASSERT_EQ(link(db.c_str(), hard.c_str()), 0);
    }
    RunOptions options = with_home;
    std::vector<std::string> args = c.args;
    if (c.through_fd) {
      options.program = "/bin/sh";
      args.insert(args.begin(), {"-c", "exec \"$@\" 7>>\"$0\"", db, fdbench_binary()});
    }
    const RunResult run = run_fdbench(args, options);
    if (linked) {
      ASSERT_EQ(unlink(hard.c_str()), 0);
    }
    EXPECT_EQ(run.exit_code, 2) << run.err;
    expect_one_error_line(run.err, {c.output + ": it is the history " +
                                        (c.history.empty() ? db : c.history),
                                    "name another file"});
    EXPECT_EQ(read_text(db), before) << "the history was written over";
  }
  const RunResult list = run_fdbench({"history", "list"}, with_home);
  EXPECT_EQ(list.exit_code, 0) << list.err;
}

// Two outputs that are one file are refused by the same rule, tune's --save and its --output
// among them (issue 49 item 6), however the two are named.
TEST(OutputOverInput, TuneSaveAndOutputThatAreOneFileAreRefused) {
  TempDir out;
  const std::string file = out / "t.json";
  ASSERT_EQ(symlink(file.c_str(), (out / "link").c_str()), 0);
  for (const std::string& output : {file, out / "link", out / "./t.json"}) {
    SCOPED_TRACE(output);
    const RunResult run =
        run_fdbench({"tune", "--files", "10", "--budget", "1", "--save", file, "--output", output});
    EXPECT_EQ(run.exit_code, 2) << run.err;
    expect_one_error_line(run.err, {"--save " + file + ": --output writes that file too"});
    EXPECT_EQ(list_names(out.path()), std::vector<std::string>{"link"});
  }
}

}  // namespace output_over_input_test
}  // namespace fdbench::testing
