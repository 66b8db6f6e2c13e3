#pragma once
// Runs the built fdbench binary (FDBENCH_BINARY) the way a shell runs a job: in a process group
// of its own, so a test can signal the whole group (as a terminal's Ctrl-C does) and, after
// fdbench exits, tell whether anything it started outlived it. Output goes to files, as in
// run_binary.hpp. Waits are bounded: a hang fails the test instead of stalling the suite.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cli/run_binary.hpp"
#include "fdbench/file_set.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {

using Clock = std::chrono::steady_clock;

// Polls `done` every few milliseconds until it holds or `bound` passes. Bounds a wait; asserts
// nothing about speed.
inline bool wait_until(const std::function<bool()>& done,
                       std::chrono::milliseconds bound = std::chrono::seconds(30)) {
  const auto deadline = Clock::now() + bound;
  while (!done()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

// Processes whose parent is `pid` (from /proc/<n>/stat; empty where there is no /proc).
inline std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> found;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return found;
  while (const dirent* entry = readdir(proc)) {
    const pid_t candidate = static_cast<pid_t>(std::atoi(entry->d_name));
    if (candidate <= 0) continue;
    const std::string stat = read_text("/proc/" + std::string(entry->d_name) + "/stat");
    // "pid (comm) S ppid ...": comm may hold spaces, so parse after the last ')'
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == pid) {
      found.push_back(candidate);
    }
  }
  closedir(proc);
  return found;
}

// Names in `dir` that look like a FileSet's private directory.
inline std::vector<std::string> private_dirs(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& name : list_names(dir)) {
    if (name.rfind(FileSet::kDirPrefix, 0) == 0) found.push_back(name);
  }
  return found;
}

// A scratch directory on a RAM filesystem where there is one (/dev/shm), else under /tmp:
// creating 100,000 files there takes a fraction of the time it takes on a disk.
class FastTempDir {
 public:
  FastTempDir() {
    struct stat info {};
    const bool shm = stat("/dev/shm", &info) == 0 && S_ISDIR(info.st_mode) &&
                     access("/dev/shm", W_OK | X_OK) == 0;
    std::string tmpl = std::string(shm ? "/dev/shm" : "/tmp") + "/fdtest-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  FastTempDir(const FastTempDir&) = delete;
  FastTempDir& operator=(const FastTempDir&) = delete;
  ~FastTempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);  // never follows symlinks
  }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string operator/(std::string_view name) const {
    return path_ + "/" + std::string(name);
  }

 private:
  std::string path_;
};

struct GroupRun {
  int exit_code = -1;  // the exit status, or 128 + signal like a shell; -1: did not exit in time
  std::string out;
  std::string err;
  double seconds = 0;    // from start, or from the last signal() to the exit
  long max_rss_kib = 0;  // peak resident set size of fdbench (getrusage's ru_maxrss)
};

struct GroupOptions {
  std::optional<rlim_t> nofile;  // RLIMIT_NOFILE (soft and hard) to run with
};

// fdbench in a process group of its own (its pid is the group id).
class GroupChild {
 public:
  explicit GroupChild(const std::vector<std::string>& args, GroupOptions options = {}) {
#if defined(__linux__)
    // Orphans of fdbench's children come to us instead of init, so leftovers() can see them
    // even when they are already dead.
    prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(FDBENCH_BINARY));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const std::string out = capture_ / "stdout";
    const std::string err = capture_ / "stderr";
    start_ = Clock::now();
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      if (options.nofile) {
        const rlimit limit{*options.nofile, *options.nofile};
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0) _exit(125);
      }
      const int in_fd = open("/dev/null", O_RDONLY);
      const int out_fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err_fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (in_fd < 0 || out_fd < 0 || err_fd < 0) _exit(126);
      dup2(in_fd, 0);
      dup2(out_fd, 1);
      dup2(err_fd, 2);
      execv(argv[0], argv.data());
      _exit(127);
    }
    if (pid_ > 0) setpgid(pid_, pid_);  // also here: no race with a signal sent right away
  }
  GroupChild(const GroupChild&) = delete;
  GroupChild& operator=(const GroupChild&) = delete;
  ~GroupChild() {
    if (pid_ <= 0) return;
    kill(-pid_, SIGKILL);  // a test that failed early: leave nothing behind
    if (!exited_) waitpid(pid_, nullptr, 0);
    while (waitpid(-pid_, nullptr, WNOHANG) > 0) {
    }
  }

  [[nodiscard]] pid_t pid() const {
    return pid_;
  }

  // Sends `sig` to fdbench alone, or to its whole group; wait() then times from here.
  void signal(int sig, bool whole_group) {
    start_ = Clock::now();
    kill(whole_group ? -pid_ : pid_, sig);
  }

  // Waits up to `bound` for fdbench to exit (then kills the group: exit_code stays -1).
  GroupRun wait(std::chrono::milliseconds bound = std::chrono::seconds(60)) {
    GroupRun run;
    int status = 0;
    rusage usage{};
    const auto deadline = Clock::now() + bound;
    for (;;) {
      const pid_t done = wait4(pid_, &status, WNOHANG, &usage);
      if (done == pid_) break;
      if (done < 0 && errno != EINTR) return run;
      if (Clock::now() >= deadline) {
        kill(-pid_, SIGKILL);
        wait4(pid_, &status, 0, &usage);
        exited_ = true;
        run.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
        run.err = read_text(capture_ / "stderr");
        return run;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    exited_ = true;
    run.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.max_rss_kib = usage.ru_maxrss;
    run.out = read_text(capture_ / "stdout");
    run.err = read_text(capture_ / "stderr");
    return run;
  }

  struct Leftovers {
    int running = 0;  // processes of fdbench's group still there after the bound
    int orphans = 0;  // processes that outlived their parent and came to us (dead or alive)
  };
  // After wait(): what fdbench's process group still holds. Waits up to `bound` for dying
  // processes to go, reaping the orphans that reach us on the way; then kills what is left.
  Leftovers leftovers(std::chrono::milliseconds bound = std::chrono::seconds(5)) {
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
  TempDir capture_;
  pid_t pid_ = -1;
  bool exited_ = false;
  Clock::time_point start_;
};

}  // namespace fdbench::testing
