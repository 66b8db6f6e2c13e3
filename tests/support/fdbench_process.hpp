#pragma once
// The one way tests run the built fdbench binary (fdbench_binary()), or another program of the
// tests' own (RunOptions::program): start it with arguments and explicit options (a process
// group of its own, this process as subreaper, an RLIMIT_NOFILE, extra environment, text on
// stdin, a bound on the wait), signal it, collect its exit code, output and peak memory, and
// tell whether anything it started outlived it, and wait for the steps the run reports
// (FDBENCH_TEST_EVENTS: every run started here writes them to a file of its own).
//
// Output goes to files, not pipes, so a chatty run can never block on a full pipe while the
// test waits for it. Every wait is bounded: a hang fails the test instead of stalling the suite.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/capability.h>
#include <sys/prctl.h>
#endif

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "support/temp_dir.hpp"
#include "support/wait_until.hpp"

extern char** environ;

namespace fdbench::testing {

using Clock = std::chrono::steady_clock;

// The fdbench binary under test: $FDBENCH_BINARY when set (ctest sets it for the portable
// build's runs of the same tests), else the one this test program was built beside.
inline const char* fdbench_binary() {
  const char* from_env = std::getenv("FDBENCH_BINARY");
  return from_env != nullptr && *from_env != '\0' ? from_env : FDBENCH_BINARY;
}

struct RunOptions {
  // In a process group of its own (its pid is the group id), as a shell runs a job: a test can
  // signal the whole group, as a terminal's Ctrl-C does, and look for leftovers().
  bool own_group = false;
  // This test process becomes a subreaper (Linux), so that orphans of fdbench's children come
  // to it instead of init and leftovers() can count them, even dead.
  bool subreaper = false;
  std::optional<rlim_t> nofile;  // RLIMIT_NOFILE to run with: hard, and soft unless nofile_soft
  std::optional<rlim_t> nofile_soft;  // a soft limit below that hard one
  // With nofile, when the tests run as root: whether fdbench keeps CAP_SYS_RESOURCE, which lets
  // it raise the hard limit. Dropped by default (Linux), so the limit binds as for a user.
  bool keep_cap_sys_resource = false;
  // RLIMIT_AS to run with: a run that would read without end fails fast instead of taking the
  // machine's memory.
  std::optional<rlim_t> address_space;
  std::vector<std::string> env;           // "NAME=value": set in fdbench's environment (over ours)
  std::optional<std::string> stdin_text;  // what fdbench reads on stdin (default: /dev/null)
  std::chrono::milliseconds timeout = std::chrono::seconds(60);  // for wait()
  std::string program;  // the program to run, by path; empty: fdbench (FDBENCH_BINARY)
};

// How a shell starts a job: own group, orphans visible.
inline RunOptions as_a_job() {
  RunOptions options;
  options.own_group = true;
  options.subreaper = true;
  return options;
}

// The table's text with its wrapped sentences joined again (a wrap puts "\n" and two more
// spaces of indentation where a space was), so a test can find a phrase whole.
inline std::string unwrapped(std::string text) {
  for (auto at = text.find("\n  "); at != std::string::npos; at = text.find("\n  ", at)) {
    const auto words = text.find_first_not_of(' ', at + 1);
    text.replace(at, words - at, " ");
  }
  return text;
}

struct RunResult {
  int exit_code = -1;  // the exit status, or 128 + signal like a shell; -1: no exit in time
  std::string out;
  std::string err;
  double seconds = 0;    // from the start, or from the last signal(), to the exit
  long max_rss_kib = 0;  // peak resident set size of fdbench (getrusage's ru_maxrss)
};

class FdbenchProcess {
 public:
  explicit FdbenchProcess(const std::vector<std::string>& args, RunOptions options = {})
      : options_(std::move(options)) {
#if defined(__linux__)
    if (options_.subreaper) prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
    std::vector<char*> argv;
    argv.push_back(
        const_cast<char*>(options_.program.empty() ? fdbench_binary() : options_.program.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const std::vector<std::string> env = environment();
    std::vector<char*> envp;
    for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    const std::string in = options_.stdin_text ? capture_ / "stdin" : "/dev/null";
    if (options_.stdin_text) write_text(in, *options_.stdin_text);
    const std::string out = capture_ / "stdout";
    const std::string err = capture_ / "stderr";
    start_ = Clock::now();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("cannot fork");
    if (pid_ == 0) {  // only async-signal-safe calls from here on
      if (options_.own_group) setpgid(0, 0);
      if (options_.nofile) {
        const rlimit limit{options_.nofile_soft.value_or(*options_.nofile), *options_.nofile};
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0) _exit(125);
#if defined(__linux__)
        // Out of the bounding set, so exec gives it to no one (fails harmlessly without it).
        if (!options_.keep_cap_sys_resource) prctl(PR_CAPBSET_DROP, CAP_SYS_RESOURCE, 0, 0, 0);
#endif
      }
      if (options_.address_space) {
        const rlimit limit{*options_.address_space, *options_.address_space};
        if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(125);
      }
      const int in_fd = open(in.c_str(), O_RDONLY);
      const int out_fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err_fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (in_fd < 0 || out_fd < 0 || err_fd < 0) _exit(126);
      dup2(in_fd, 0);
      dup2(out_fd, 1);
      dup2(err_fd, 2);
      execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    if (options_.own_group) setpgid(pid_, pid_);  // also here: no race with an early signal
  }
  FdbenchProcess(const FdbenchProcess&) = delete;
  FdbenchProcess& operator=(const FdbenchProcess&) = delete;
  ~FdbenchProcess() {  // a test that failed early: leave nothing behind
    if (pid_ <= 0) return;
    if (options_.own_group || !exited_) kill(target(true), SIGKILL);  // a group outlives its leader
    if (!exited_) waitpid(pid_, nullptr, 0);
    if (options_.own_group) {
      while (waitpid(-pid_, nullptr, WNOHANG) > 0) {
      }
    }
  }

  [[nodiscard]] pid_t pid() const {
    return pid_;
  }

  // Sends `sig` to fdbench alone, or to its whole group (needs own_group); wait() then times
  // from here.
  void signal(int sig, bool whole_group = false) {
    if (whole_group && !options_.own_group) throw std::logic_error("no group of its own");
    start_ = Clock::now();
    kill(target(whole_group), sig);
  }

  // Waits up to options.timeout for fdbench to exit; then kills it (and its group): the
  // exit_code stays -1.
  RunResult wait() {
    RunResult run;
    int status = 0;
    rusage usage{};
    const auto deadline = Clock::now() + options_.timeout;
    for (;;) {
      const pid_t done = wait4(pid_, &status, WNOHANG, &usage);
      if (done == pid_) break;
      if (done < 0 && errno != EINTR) return run;
      if (Clock::now() >= deadline) {
        kill(target(true), SIGKILL);
        wait4(pid_, &status, 0, &usage);
        exited_ = true;
        run.seconds = seconds_since_start();
        run.err = read_text(capture_ / "stderr");
        return run;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    exited_ = true;
    run.seconds = seconds_since_start();
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.max_rss_kib = usage.ru_maxrss;
    run.out = read_text(capture_ / "stdout");
    run.err = read_text(capture_ / "stderr");
    return run;
  }

  // How many of the run's test events (FDBENCH_TEST_EVENTS, apps/fdbench/test_events.hpp)
  // so far are lines starting with `prefix` ("repetition-done").
  [[nodiscard]] std::size_t events(std::string_view prefix) const {
    std::size_t count = 0;
    for (const auto& line : lines_of(read_text(capture_ / "events"))) {
      count += line.rfind(prefix, 0) == 0 ? 1 : 0;
    }
    return count;
  }

  // Waits until the run has reported `count` events starting with `prefix` in all: the way a
  // test waits for a run to reach a point, instead of sleeping. False when fdbench exited, or
  // `bound` passed, first.
  bool wait_for_event(std::string_view prefix, std::size_t count = 1,
                      std::chrono::milliseconds bound = std::chrono::seconds(30)) const {
    wait_until([&] { return events(prefix) >= count || has_exited(); }, bound);
    return events(prefix) >= count;
  }

  // What the run has written on stderr so far.
  [[nodiscard]] std::string err_so_far() const {
    return read_text(capture_ / "stderr");
  }

  struct Leftovers {
    int running = 0;  // processes of fdbench's group still there after the bound
    int orphans = 0;  // processes that outlived their parent and came to us (dead or alive)
  };
  // After wait(), with own_group (and subreaper, for orphans): what fdbench's process group
  // still holds. Waits up to `bound` for dying processes to go, reaping the orphans that reach
  // us on the way; then kills what is left.
  Leftovers leftovers(std::chrono::milliseconds bound = std::chrono::seconds(5)) {
    if (!options_.own_group) throw std::logic_error("no group of its own");
    Leftovers found;
    std::vector<pid_t> orphans;
    const bool gone = wait_until(
        [&] {
          for (pid_t p; (p = waitpid(-pid_, nullptr, WNOHANG)) > 0;) orphans.push_back(p);
          return kill(-pid_, 0) != 0 && errno == ESRCH;
        },
        bound);
    found.orphans = static_cast<int>(orphans.size());
    if (!gone) {
      found.running = 1;
      kill(-pid_, SIGKILL);
    }
    return found;
  }

 private:
  // Whether fdbench has exited; it stays unreaped for wait().
  [[nodiscard]] bool has_exited() const {
    if (exited_) return true;
    siginfo_t info{};
    return waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == pid_;
  }

  // What kill() reaches: the group where there is one and `group` is asked for.
  [[nodiscard]] pid_t target(bool group) const {
    return group && options_.own_group ? -pid_ : pid_;
  }

  [[nodiscard]] double seconds_since_start() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }

  // Our environment with options.env laid over it (a NAME there replaces ours).
  [[nodiscard]] std::vector<std::string> environment() const {
    std::vector<std::string> env;
    const auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry(*e);
      bool replaced = false;
      for (const auto& set : options_.env) replaced = replaced || name_of(set) == name_of(entry);
      replaced = replaced || name_of(entry) == "FDBENCH_TEST_EVENTS";  // each run its own
      if (!replaced) env.push_back(entry);
    }
    env.insert(env.end(), options_.env.begin(), options_.env.end());
    bool events_set = false;
    for (const auto& set : options_.env)
      events_set = events_set || name_of(set) == "FDBENCH_TEST_EVENTS";
    if (!events_set) env.push_back("FDBENCH_TEST_EVENTS=" + (capture_ / "events"));
    return env;
  }

  RunOptions options_;
  TempDir capture_;
  pid_t pid_ = -1;
  bool exited_ = false;
  Clock::time_point start_;
};

// Runs fdbench to its end (bounded by options.timeout).
inline RunResult run_fdbench(const std::vector<std::string>& args, RunOptions options = {}) {
  return FdbenchProcess(args, std::move(options)).wait();
}

inline std::string describe(const std::vector<std::string>& args) {
  std::string text = "fdbench";
  for (const auto& a : args) text += " " + a;
  return text;
}

}  // namespace fdbench::testing
