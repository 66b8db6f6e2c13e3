#include "perf/child_run.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

extern char** environ;

namespace perf {

namespace {

volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_child = 0;  // the pid running now, 0 if none

void on_signal(int signal) {
  g_signal = signal;
  if (g_child > 0) kill(static_cast<pid_t>(g_child), signal);
}

std::int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::int64_t ns(const timeval& tv) {
  return static_cast<std::int64_t>(tv.tv_sec) * 1'000'000'000 + tv.tv_usec * 1000;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string last_line(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  const auto newline = text.find_last_of('\n');
  text = newline == std::string::npos ? text : text.substr(newline + 1);
  return text.empty() ? "(nothing on stderr)" : text;
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string text;
  for (const auto& arg : argv) text += (text.empty() ? "" : " ") + arg;
  return text;
}

pid_t spawn(const std::vector<std::string>& argv, const Scratch& scratch) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  const std::string out = scratch.file("out");
  const std::string err = scratch.file("err");
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t reset;  // the driver ignores SIGPIPE; the programs it measures must not
  sigemptyset(&reset);
  sigaddset(&reset, SIGPIPE);
  posix_spawnattr_setsigdefault(&attributes, &reset);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int failed = posix_spawn(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (failed != 0) {
    throw std::runtime_error(fmt::format("cannot start {}: {}", argv[0], std::strerror(failed)));
  }
  return pid;
}

}  // namespace

Interrupted::Interrupted(int signal)
    : std::runtime_error(fmt::format("interrupted ({})", strsignal(signal))), signal_(signal) {}

void install_signal_forwarding() {
  struct sigaction action {};
  action.sa_handler = on_signal;  // no SA_RESTART: wait4 returns, the driver stops
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // Output piped into `head` that has gone: a write error (caught, scratch removed), not death.
  std::signal(SIGPIPE, SIG_IGN);
}

Scratch::Scratch() {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/fdperf-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    throw std::runtime_error(
        fmt::format("cannot create a scratch directory {}: {} (set TMPDIR "
                    "to a writable directory)",
                    tmpl, std::strerror(errno)));
  }
  path_ = tmpl;
}

Scratch::~Scratch() {
  unlink(file("out").c_str());
  unlink(file("err").c_str());
  rmdir(path_.c_str());
}

ProgramRun run_program(const std::vector<std::string>& argv, const Scratch& scratch) {
  if (g_signal != 0) throw Interrupted(g_signal);
  const std::int64_t start = now_ns();
  const pid_t pid = spawn(argv, scratch);
  g_child = pid;
  int status = 0;
  rusage usage{};
  while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  ProgramRun run;
  run.wall_ns = now_ns() - start;
  g_child = 0;
  run.cpu_ns = ns(usage.ru_utime) + ns(usage.ru_stime);
  run.max_rss_kib = usage.ru_maxrss;
  if (g_signal != 0) throw Interrupted(g_signal);
  if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM)) {
    throw Interrupted(WTERMSIG(status));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string how = WIFEXITED(status)
                                ? fmt::format("exited with status {}", WEXITSTATUS(status))
                                : fmt::format("was killed by signal {} ({})", WTERMSIG(status),
                                              strsignal(WTERMSIG(status)));
    throw std::runtime_error(fmt::format("`{}` {}: {}", command_line(argv), how,
                                         last_line(read_file(scratch.file("err")))));
  }
  run.out = read_file(scratch.file("out"));
  return run;
}

}  // namespace perf
