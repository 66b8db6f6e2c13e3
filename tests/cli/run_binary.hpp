#pragma once
// Runs the built fdbench binary (FDBENCH_BINARY) with arguments and captures its exit code,
// stdout and stderr. Output goes to files, not pipes, so a chatty run can never block on a
// full pipe while the test waits for it to exit.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace fdbench::testing {

struct RunResult {
  int exit_code = -1;  // the exit status, or 128 + signal like a shell
  std::string out;
  std::string err;
};

// A started fdbench process; wait() collects it.
class Child {
 public:
  explicit Child(const std::vector<std::string>& args) {
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(FDBENCH_BINARY));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const std::string out = capture_ / "stdout";
    const std::string err = capture_ / "stderr";
    pid_ = fork();
    if (pid_ == 0) {
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
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid_ > 0) {  // a test that failed before wait(): do not leave the process behind
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  [[nodiscard]] pid_t pid() const { return pid_; }

  RunResult wait() {
    RunResult result;
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0) {
      if (errno != EINTR) return result;
    }
    pid_ = -1;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = read_text(capture_ / "stdout");
    result.err = read_text(capture_ / "stderr");
    return result;
  }

 private:
  TempDir capture_;
  pid_t pid_ = -1;
};

inline RunResult run_fdbench(const std::vector<std::string>& args) {
  return Child(args).wait();
}

inline std::string describe(const std::vector<std::string>& args) {
  std::string text = "fdbench";
  for (const auto& a : args) text += " " + a;
  return text;
}

}  // namespace fdbench::testing
