// The live table as a user sees it: fdbench run in a real terminal (a detached tmux pane,
// 120 × 50), its rows filling in while the run goes on, and at the end the same table rows as
// the same command prints when stdout is no terminal.
#include <gtest/gtest.h>
#include <signal.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "model/format.hpp"
#include "support/fdbench_process.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"
#include "support/wait_until.hpp"

namespace fdbench::testing {
namespace live_table_test {

// What a shell command printed on stdout.
std::string output_of(const std::string& command) {
  std::string text;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return text;
  std::array<char, 4096> buffer{};
  while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) {
    text.append(buffer.data(), n);
  }
  pclose(pipe);
  return text;
}

std::string sh_quoted(const std::string& word) {
  return "'" + word + "'";
}

// A tmux server of the test's own (its own socket), killed with everything in it on every
// path out of the test; fdbench is continued first if the test stopped it.
class TmuxServer {
 public:
  explicit TmuxServer(std::string socket) : socket_(std::move(socket)) {}
  TmuxServer(const TmuxServer&) = delete;
  TmuxServer& operator=(const TmuxServer&) = delete;
  ~TmuxServer() {
    if (stopped_ > 0) kill(stopped_, SIGCONT);
    [[maybe_unused]] const int ignored = std::system((tmux() + " kill-server 2>/dev/null").c_str());
  }
  [[nodiscard]] std::string tmux() const { return "tmux -f /dev/null -L " + sh_quoted(socket_); }
  // The pane as it shows now; with `history`, everything that scrolled off it too.
  [[nodiscard]] std::string screen(bool history = false) const {
    return output_of(tmux() + " capture-pane -p" + (history ? " -S - -E -" : "") + " 2>/dev/null");
  }
  void stop(pid_t pid) {
    if (kill(pid, SIGSTOP) == 0) stopped_ = pid;
  }
  void resume() {
    if (stopped_ > 0) kill(stopped_, SIGCONT);
    stopped_ = 0;
  }

 private:
  std::string socket_;
  pid_t stopped_ = 0;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The table's header and each row's label (strategy and threads), in order: what must be the
// same on a terminal and off one (the numbers are another run's).
std::vector<std::string> table_labels(const std::string& output) {
  std::vector<std::string> labels;
  for (const auto& line : lines_of(output)) {
    std::istringstream words(line);
    std::string strategy;
    std::string threads;
    words >> strategy >> threads;
    if (!line.starts_with("  ")) continue;
    if (strategy == "strategy") labels.push_back(line.substr(0, line.find_last_not_of(' ') + 1));
    const bool row = (strategy == "threads" || strategy == "pool") && !threads.empty() &&
                     std::isdigit(static_cast<unsigned char>(threads[0])) != 0;
    if (row) labels.push_back(strategy + " " + threads);
  }
  return labels;
}

bool shows_a_running_row(const std::string& screen) {
  for (const auto& line : lines_of(screen)) {
    const auto end = line.find_last_not_of(' ');
    if (end != std::string::npos && line.substr(0, end + 1).ends_with("  running")) return true;
  }
  return false;
}

TEST(LiveTable, FillsInPlaceOnATerminalAndEndsAsTheTablePrintedElsewhere) {
  if (std::system("command -v tmux >/dev/null 2>&1") != 0) {
    FDBENCH_SKIP_WITHOUT("terminal") << "tmux is not installed";
  }
  TempDir dir;
  const std::vector<std::string> args = {"open",     "--files",  "300",          "--threads",
                                         "1,2",      "--strategy", "threads,pool", "--repeat",
                                         "20",       "--warmup", "0",            "--dir",
                                         dir.path()};
  const std::string events = dir / "events";
  const std::string pid_file = dir / "pid";
  std::string command = "echo $$ > " + sh_quoted(pid_file) + "; exec env FDBENCH_TEST_EVENTS=" +
                        sh_quoted(events) + " " + sh_quoted(fdbench_binary());
  for (const auto& a : args) command += " " + sh_quoted(a);
  // fdbench in a shell of its own (its pid is the shell's); the pane stays after it, with its
  // exit status, until the server is killed.
  write_text(dir / "fdbench.sh", command + "\n");
  write_text(dir / "pane.sh", "sh " + sh_quoted(dir / "fdbench.sh") +
                                  "\necho fdbench-exit-$?\nexec cat\n");
  TmuxServer tmux("fdbench-live-" + std::to_string(getpid()));
  ASSERT_EQ(std::system((tmux.tmux() + " new-session -d -x 120 -y 50 " +
                         sh_quoted("sh " + sh_quoted(dir / "pane.sh")))
                            .c_str()),
            0);
  const auto count = [&](std::string_view prefix) {
    std::size_t n = 0;
    for (const auto& line : lines_of(read_text(events))) n += line.starts_with(prefix) ? 1 : 0;
    return n;
  };
  // Stopped after some repetitions and before any row is printed, fdbench holds its block
  // still while the test reads it: rows with numbers, "running", under way.
  ASSERT_TRUE(wait_until([&] { return count("repetition-done") >= 3; })) << tmux.screen();
  tmux.stop(std::stoi(read_text(pid_file)));
  ASSERT_EQ(count("result-done"), 0U) << "the run finished its rows before it was stopped";
  EXPECT_TRUE(wait_until([&] { return shows_a_running_row(tmux.screen()); }, std::chrono::seconds(10)))
      << tmux.screen();
  EXPECT_EQ(count("run-done"), 0U);
  tmux.resume();
  ASSERT_TRUE(wait_until([&] { return tmux.screen().find("fdbench-exit-") != std::string::npos; }))
      << tmux.screen();
  const std::string seen = tmux.screen(true);
  EXPECT_NE(seen.find("fdbench-exit-0"), std::string::npos) << seen;
  EXPECT_FALSE(shows_a_running_row(seen)) << seen;
  const RunResult off = run_fdbench(args);
  ASSERT_EQ(off.exit_code, 0) << off.err;
  const std::vector<std::string> expected = table_labels(off.out);
  ASSERT_EQ(expected.size(), 5U) << off.out;
  EXPECT_EQ(table_labels(seen), expected) << seen;
}

// fdbench `args` in a tmux pane of its own `columns` × `lines`, with its test events: the
// pane's script, its pid file and events file in `dir`.
void start_in_pane(const TmuxServer& tmux, const TempDir& dir, const std::vector<std::string>& args,
                   int columns, int lines) {
  std::string command = "echo $$ > " + sh_quoted(dir / "pid") +
                        "; exec env FDBENCH_TEST_EVENTS=" + sh_quoted(dir / "events") + " " +
                        sh_quoted(fdbench_binary());
  for (const auto& a : args) command += " " + sh_quoted(a);
  write_text(dir / "fdbench.sh", command + "\n");
  write_text(dir / "pane.sh",
             "sh " + sh_quoted(dir / "fdbench.sh") + "\necho fdbench-exit-$?\nexec cat\n");
  ASSERT_EQ(
      std::system((tmux.tmux() + " new-session -d -x " + std::to_string(columns) + " -y " +
                   std::to_string(lines) + " " + sh_quoted("sh " + sh_quoted(dir / "pane.sh")))
                      .c_str()),
      0);
}

std::size_t count_lines_starting(const std::string& text, std::string_view prefix) {
  std::size_t n = 0;
  for (const auto& line : lines_of(text)) n += line.starts_with(prefix) ? 1 : 0;
  return n;
}

std::vector<std::string> narrow_args(const std::string& dir) {
  // 3,000 files: file creation takes long enough to be shown, and rows end with FDSize-less
  // columns that do not fit 80.
  return {"open",     "--files", "3000",     "--threads", "1,2",   "--strategy", "threads,pool",
          "--repeat", "12",      "--warmup", "0",         "--dir", dir};
}

// At 80 × 24 nothing is wrapped by the terminal (rows are cut, sentences wrapped to the
// width), the header is drawn once, and no transient line (a running row, "creating files")
// is left in the scrollback.
TEST(LiveTable, AtEightyColumnsNothingWrapsAndNothingTransientStays) {
  if (std::system("command -v tmux >/dev/null 2>&1") != 0) {
    FDBENCH_SKIP_WITHOUT("terminal") << "tmux is not installed";
  }
  TempDir dir;
  TmuxServer tmux("fdbench-live80-" + std::to_string(getpid()));
  start_in_pane(tmux, dir, narrow_args(dir.path()), 80, 24);
  ASSERT_TRUE(wait_until([&] { return tmux.screen().find("fdbench-exit-") != std::string::npos; },
                         std::chrono::seconds(300)))
      << tmux.screen();
  // -J joins what the terminal wrapped: each line as fdbench wrote it.
  const std::string joined = output_of(tmux.tmux() + " capture-pane -p -J -S - -E - 2>/dev/null");
  EXPECT_NE(joined.find("fdbench-exit-0"), std::string::npos) << joined;
  for (const auto& line : lines_of(joined)) {
    const std::string shown = line.substr(0, line.find_last_not_of(' ') + 1);
    EXPECT_LE(fdbench::display_width(shown), 79U) << shown;
  }
  EXPECT_EQ(count_lines_starting(joined, "  strategy "), 1U) << joined;
  EXPECT_EQ(joined.find("creating files"), std::string::npos) << joined;
  EXPECT_FALSE(shows_a_running_row(joined)) << joined;
  EXPECT_NE(read_text(dir / "events").find("creating-files 0 3000"), std::string::npos);
}

// The window made narrower while the block is drawn: it is drawn again at the new width, over
// the old one as the terminal reflowed it, so the scrollback holds one header and no copies.
TEST(LiveTable, AResizeMidRunLeavesNoCopiesOfTheBlock) {
  if (std::system("command -v tmux >/dev/null 2>&1") != 0) {
    FDBENCH_SKIP_WITHOUT("terminal") << "tmux is not installed";
  }
  TempDir dir;
  TmuxServer tmux("fdbench-resize-" + std::to_string(getpid()));
  start_in_pane(tmux, dir, narrow_args(dir.path()), 100, 30);
  const auto done = [&] {
    return count_lines_starting(read_text(dir / "events"), "repetition-done");
  };
  ASSERT_TRUE(wait_until([&] { return done() >= 2; }, std::chrono::seconds(300))) << tmux.screen();
  // Stopped, the run cannot draw while the window changes; SIGWINCH waits for it.
  tmux.stop(std::stoi(read_text(dir / "pid")));
  if (count_lines_starting(read_text(dir / "events"), "result-done") == 0) {
    EXPECT_TRUE(wait_until([&] { return shows_a_running_row(tmux.screen()); }));
  }
  ASSERT_EQ(std::system((tmux.tmux() + " resize-window -x 64 -y 30").c_str()), 0);
  tmux.resume();
  ASSERT_TRUE(wait_until([&] { return tmux.screen().find("fdbench-exit-") != std::string::npos; },
                         std::chrono::seconds(300)))
      << tmux.screen();
  const std::string joined = output_of(tmux.tmux() + " capture-pane -p -J -S - -E - 2>/dev/null");
  EXPECT_NE(joined.find("fdbench-exit-0"), std::string::npos) << joined;
  EXPECT_EQ(count_lines_starting(joined, "  strategy "), 1U) << joined;
  EXPECT_FALSE(shows_a_running_row(joined)) << joined;
  EXPECT_EQ(count_lines_starting(joined, "  threads            1 "), 1U) << joined;
}

}  // namespace live_table_test
}  // namespace fdbench::testing
