// fdbench server's one repetition: start the user's server fresh, wait until it answers, give
// it its first burst of loopback clients, and stop it again. Everything it started is in one
// session and process group (its pid), so TERM, then KILL, reaches its workers too.
#include "engine/server_burst.hpp"

#if defined(__linux__)
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "fdbench/error.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"

namespace fdbench {

namespace {

constexpr std::int64_t kMs = 1'000'000;
// How long a stopped server's listen queue is given to take every connection of the burst.
constexpr std::int64_t kQueueBoundNs = 2000 * kMs;
// How long TERM has before KILL.
constexpr std::int64_t kTermBoundNs = 3000 * kMs;
constexpr std::size_t kKeptOutput = 4096;

void pause_briefly() {
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

// The lines "Name:\tvalue" of /proc/PID/status as numbers, for the names asked.
std::map<std::string, int> status_numbers(int pid) {
  std::map<std::string, int> numbers;
  std::ifstream in(fmt::format("/proc/{}/status", pid));
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string name = line.substr(0, colon);
    if (name != "FDSize" && name != "Threads") continue;
    numbers[name] = std::atoi(line.c_str() + colon + 1);
  }
  return numbers;
}

// The processes of session `sid` (the server and every process it started that stayed in it).
std::vector<int> session_processes(int sid) {
  std::vector<int> pids;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return pids;
  while (const dirent* entry = readdir(dir)) {
    const int pid = std::atoi(entry->d_name);
    if (pid <= 0) continue;
    std::ifstream in(fmt::format("/proc/{}/stat", pid));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto paren = text.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream fields(text.substr(paren + 2));
    char state = 0;
    int ppid = 0;
    int pgrp = 0;
    int session = 0;
    fields >> state >> ppid >> pgrp >> session;
    if (session == sid && state != 'Z') pids.push_back(pid);
  }
  closedir(dir);
  return pids;
}

char process_state(int pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto paren = text.rfind(')');
  return paren == std::string::npos || paren + 2 >= text.size() ? '?' : text[paren + 2];
}

int descriptors_of(int pid) {
  int count = 0;
  DIR* dir = opendir(fmt::format("/proc/{}/fd", pid).c_str());
  if (dir == nullptr) return 0;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++count;
  }
  closedir(dir);
  return count;
}

std::string probe_text(const ServerBurstPlan& plan) {
  switch (plan.probe) {
    case ServerProbe::memcached:
      return "version\r\n";
    case ServerProbe::redis:
      return "PING\r\n";
    case ServerProbe::http:
      return "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";  // kept alive: held
    case ServerProbe::line:
      return plan.line + "\n";
    case ServerProbe::connect:
      return "";
  }
  return "";
}

int loopback_socket(int port, bool nonblocking) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno != EINPROGRESS) {
    close(fd);
    return -1;
  }
  return fd;
}

// The user's server: started in a session of its own, its output kept (the last lines say why
// it ended), stopped and reaped when this goes, whatever happened.
class ServerProcess {
 public:
  explicit ServerProcess(const ServerBurstPlan& plan) { start(plan); }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;
  ~ServerProcess() { stop(); }

  [[nodiscard]] int pid() const { return pid_; }
  [[nodiscard]] const std::string& start_error() const { return start_error_; }
  // Whether it has ended; its status then in `why`.
  bool ended(std::string& why) {
    siginfo_t info{};
    if (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
        info.si_pid == 0) {
      return false;
    }
    why = info.si_code == CLD_EXITED ? fmt::format("exited with status {}", info.si_status)
                                     : fmt::format("was killed by signal {}", info.si_status);
    return true;
  }
  // Its last lines of output, joined by " | ".
  std::string last_lines() {
    collect_output();
    std::string text = output_;
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::string joined;
    const std::size_t first = lines.size() > 3 ? lines.size() - 3 : 0;
    for (std::size_t i = first; i < lines.size(); ++i) {
      joined += (joined.empty() ? "" : " | ") + lines[i];
    }
    return joined.empty() ? "no output" : "its last output: " + joined;
  }
  void collect_output() {
    char buffer[1024];
    ssize_t n = 0;
    while (output_fd_ >= 0 && (n = read(output_fd_, buffer, sizeof buffer)) > 0) {
      output_.append(buffer, static_cast<std::size_t>(n));
      if (output_.size() > kKeptOutput) output_.erase(0, output_.size() - kKeptOutput);
    }
  }
  void signal_group(int sig) const {
    if (pid_ > 0) kill(-pid_, sig);
  }

 private:
  void start(const ServerBurstPlan& plan);
  [[noreturn]] static void become_server(const ServerBurstPlan& plan, int output, int report);
  void stop();

  int pid_ = -1;
  int output_fd_ = -1;
  std::string output_;
  std::string start_error_;
};

void ServerProcess::become_server(const ServerBurstPlan& plan, int output, int report) {
  setsid();
  reset_interrupt_handlers_in_child();
  platform::die_with_parent();
  const int null = open("/dev/null", O_RDONLY);
  dup2(null, 0);
  dup2(output, 1);
  dup2(output, 2);
  platform::close_descriptors_from(3, report);
  // The launcher's remedy, as `fdbench pregrow` applies it: grown here, kept across exec.
  if (plan.pregrow_slots > 0) platform::grow_fd_table(plan.pregrow_slots - 1);
  const int error = platform::exec_program(plan.argv);
  const ssize_t written = write(report, &error, sizeof error);
  _exit(written == sizeof error ? 127 : 126);
}

void ServerProcess::start(const ServerBurstPlan& plan) {
  int output[2];
  int report[2];
  if (pipe2(output, O_CLOEXEC) != 0) throw Error("cannot make a pipe: " + errno_text(errno));
  if (pipe2(report, O_CLOEXEC) != 0) {
    close(output[0]);
    close(output[1]);
    throw Error("cannot make a pipe: " + errno_text(errno));
  }
  pid_ = fork();
  if (pid_ == 0) become_server(plan, output[1], report[1]);
  const int fork_error = errno;
  close(output[1]);
  close(report[1]);
  output_fd_ = output[0];
  fcntl(output_fd_, F_SETFL, O_NONBLOCK);
  if (pid_ < 0) {
    close(report[0]);
    throw Error("cannot start the server: " + errno_text(fork_error));
  }
  int exec_error = 0;
  ssize_t n = 0;
  do {
    n = read(report[0], &exec_error, sizeof exec_error);
  } while (n < 0 && errno == EINTR);
  close(report[0]);
  if (n == sizeof exec_error) {
    start_error_ = fmt::format(
        "{}: {}", plan.argv.front(),
        exec_error == ENOENT ? std::string("command not found") : errno_text(exec_error));
  }
}

void ServerProcess::stop() {
  if (pid_ <= 0) return;
  signal_group(SIGCONT);
  signal_group(SIGTERM);
  const std::int64_t deadline = platform::now_ns() + kTermBoundNs;
  std::string why;
  while (!ended(why) && platform::now_ns() < deadline) pause_briefly();
  // The leader is a zombie until reaped, so its group id cannot be reused before this KILL.
  signal_group(SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  if (output_fd_ >= 0) close(output_fd_);
  pid_ = -1;
}

// Whether the server answers one client on `plan.port` (the probe, or the connection alone).
bool answers(const ServerBurstPlan& plan, std::int64_t deadline) {
  const int fd = loopback_socket(plan.port, false);
  if (fd < 0) return false;
  const std::string probe = probe_text(plan);
  bool ok = probe.empty() || send(fd, probe.data(), probe.size(), MSG_NOSIGNAL) > 0;
  if (ok && !probe.empty()) {
    timeval wait{};
    const std::int64_t left = std::max<std::int64_t>(deadline - platform::now_ns(), kMs);
    wait.tv_sec = static_cast<time_t>(left / 1'000'000'000);
    wait.tv_usec = static_cast<suseconds_t>((left % 1'000'000'000) / 1000);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    char byte = 0;
    ok = recv(fd, &byte, 1, 0) == 1;
  }
  close(fd);
  return ok;
}

// Waits until the server answers; "" then, else why not.
std::string wait_until_ready(ServerProcess& server, const ServerBurstPlan& plan) {
  if (!server.start_error().empty()) return server.start_error();
  const std::int64_t deadline =
      platform::now_ns() + static_cast<std::int64_t>(plan.timeout_s * 1e9);
  std::string why;
  while (platform::now_ns() < deadline) {
    throw_if_interrupted();
    if (server.ended(why))
      return fmt::format("the server {} before it answered; {}", why, server.last_lines());
    if (answers(plan, deadline)) return "";
    server.collect_output();
    pause_briefly();
  }
  return fmt::format(
      "the server did not answer on 127.0.0.1:{} within {:g} s (does it listen on that port? "
      "{} names it in its arguments); {}",
      plan.port, plan.timeout_s, "{port}", server.last_lines());
}

// The server's tables, threads and processes, read from /proc.
struct ServerShape {
  std::map<int, int> fdsize;  // per process
  int threads = 0;
  int descriptors = 0;
};

ServerShape shape_of(const std::vector<int>& pids, bool count_descriptors) {
  ServerShape shape;
  for (const int pid : pids) {
    const auto numbers = status_numbers(pid);
    if (numbers.count("FDSize") == 0) continue;
    shape.fdsize[pid] = numbers.at("FDSize");
    shape.threads = std::max(shape.threads, numbers.count("Threads") ? numbers.at("Threads") : 0);
    if (count_descriptors) shape.descriptors = std::max(shape.descriptors, descriptors_of(pid));
  }
  return shape;
}

int largest(const std::map<int, int>& sizes) {
  int most = 0;
  for (const auto& [pid, size] : sizes) most = std::max(most, size);
  return most;
}

// The burst's clients: one socket each, their replies timed.
class Clients {
 public:
  explicit Clients(const ServerBurstPlan& plan) : plan_(plan), probe_(probe_text(plan)) {
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_ < 0) throw Error("cannot make an epoll instance: " + errno_text(errno));
    // The clients' own table: grown once here, so no client connect waits on its growth.
    platform::grow_fd_table(plan.connections + 64);
    fds_.reserve(static_cast<std::size_t>(plan.connections));
  }
  Clients(const Clients&) = delete;
  Clients& operator=(const Clients&) = delete;
  ~Clients() {
    for (const int fd : fds_) close(fd);
    close(epoll_);
  }

  // Connects one more client (writable first, readable once its probe is sent).
  void connect_one() {
    const int fd = loopback_socket(plan_.port, true);
    if (fd < 0) throw Error("a client could not connect: " + errno_text(errno));
    epoll_event event{};
    event.events = EPOLLOUT | EPOLLIN | EPOLLRDHUP;
    event.data.u64 = fds_.size();
    epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &event);
    fds_.push_back(fd);
    started_.push_back(platform::now_ns());
    sent_.push_back(false);
    done_.push_back(false);
  }
  // Handles what is ready within `wait_ms`; with `send` false, a writable client only counts
  // as queued (its probe goes when send_all() is called).
  void handle(int wait_ms, bool send_now);
  // Sends every queued client's probe.
  void send_all() {
    for (std::size_t i = 0; i < fds_.size(); ++i) send_probe(i);
  }
  void restart_clocks(std::int64_t at) { std::fill(started_.begin(), started_.end(), at); }
  [[nodiscard]] std::size_t connected() const { return connected_; }
  [[nodiscard]] std::size_t finished() const { return replies_.size() + unanswered_; }
  [[nodiscard]] std::uint64_t unanswered(std::size_t all) const { return all - replies_.size(); }
  [[nodiscard]] const std::vector<std::int64_t>& replies() const { return replies_; }
  [[nodiscard]] std::int64_t last_reply() const { return last_reply_; }

 private:
  void send_probe(std::size_t i) {
    if (sent_[i]) return;
    sent_[i] = true;
    if (!probe_.empty()) send(fds_[i], probe_.data(), probe_.size(), MSG_NOSIGNAL);
    epoll_event event{};
    event.events = EPOLLIN | EPOLLRDHUP;
    event.data.u64 = i;
    epoll_ctl(epoll_, EPOLL_CTL_MOD, fds_[i], &event);
  }
  void finish(std::size_t i, bool answered, std::int64_t at) {
    done_[i] = true;
    epoll_ctl(epoll_, EPOLL_CTL_DEL, fds_[i], nullptr);
    if (!answered) {
      ++unanswered_;
      return;
    }
    replies_.push_back(at - started_[i]);
    last_reply_ = std::max(last_reply_, at);
  }

  const ServerBurstPlan& plan_;
  std::string probe_;
  int epoll_ = -1;
  std::vector<int> fds_;
  std::vector<std::int64_t> started_;
  std::vector<bool> sent_;
  std::vector<bool> done_;
  std::vector<bool> writable_;
  std::size_t connected_ = 0;
  std::vector<std::int64_t> replies_;
  std::uint64_t unanswered_ = 0;
  std::int64_t last_reply_ = 0;
};

void Clients::handle(int wait_ms, bool send_now) {
  epoll_event events[256];
  const int n = epoll_wait(epoll_, events, 256, wait_ms);
  const std::int64_t at = platform::now_ns();
  writable_.resize(fds_.size(), false);
  for (int k = 0; k < n; ++k) {
    const std::size_t i = events[k].data.u64;
    if (done_[i]) continue;
    if ((events[k].events & EPOLLOUT) != 0 && !writable_[i]) {
      writable_[i] = true;
      ++connected_;
      if (send_now) send_probe(i);
    }
    if (!sent_[i] || (events[k].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) == 0) {
      continue;
    }
    char buffer[512];
    const ssize_t got = recv(fds_[i], buffer, sizeof buffer, MSG_DONTWAIT);
    if (got > 0) {
      finish(i, true, at);
    } else if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
      // Closed: the accept alone is the answer for the connect probe.
      finish(i, plan_.probe == ServerProbe::connect, at);
    }
  }
}

// The tables' doublings seen since `before`, added to `growths`; `before` then holds now.
void count_growths(const std::vector<int>& pids, std::map<int, int>& before, int& growths) {
  for (const auto& [pid, size] : shape_of(pids, false).fdsize) {
    const int was = before[pid];
    if (was > 0 && size > was) {
      growths += static_cast<int>(std::lround(std::log2(static_cast<double>(size) / was)));
    }
    before[pid] = size;
  }
}

// Every client connected while the server is stopped; "" or why they could not all queue.
std::string queue_burst(Clients& clients, const ServerBurstPlan& plan) {
  for (int i = 0; i < plan.connections; ++i) {
    if ((i & 63) == 0) throw_if_interrupted();
    clients.connect_one();
    if ((i & 31) == 31) clients.handle(0, false);
  }
  const std::int64_t deadline = platform::now_ns() + kQueueBoundNs;
  while (clients.connected() < static_cast<std::size_t>(plan.connections) &&
         platform::now_ns() < deadline) {
    throw_if_interrupted();
    clients.handle(10, false);
  }
  if (clients.connected() < static_cast<std::size_t>(plan.connections)) {
    return fmt::format(
        "only {} of {} connections could queue while the server was stopped: its listen "
        "backlog (or net.core.somaxconn) is smaller than the burst; raise it (memcached -b, "
        "nginx listen ... backlog=) or lower the connections",
        clients.connected(), plan.connections);
  }
  clients.send_all();
  return "";
}

// Waits for every reply (or the bound), counting the tables' growths as they are seen.
void drain(Clients& clients, const ServerBurstPlan& plan, const std::vector<int>& pids,
           ServerBurst& burst, std::map<int, int>& sizes) {
  const std::int64_t deadline =
      platform::now_ns() + static_cast<std::int64_t>(plan.timeout_s * 1e9);
  while (clients.finished() < static_cast<std::size_t>(plan.connections) &&
         platform::now_ns() < deadline) {
    throw_if_interrupted();
    clients.handle(1, true);
    count_growths(pids, sizes, burst.growths);
  }
}

void wait_until_stopped(const std::vector<int>& pids) {
  const std::int64_t deadline = platform::now_ns() + 1000 * kMs;
  for (const int pid : pids) {
    while (process_state(pid) != 'T' && platform::now_ns() < deadline) pause_briefly();
  }
}

void measure_burst(ServerProcess& server, const ServerBurstPlan& plan, ServerBurst& burst) {
  const std::vector<int> pids = session_processes(server.pid());
  const ServerShape before = shape_of(pids, true);
  burst.processes = static_cast<int>(pids.size());
  burst.fdsize_before = largest(before.fdsize);
  burst.starting_fds = before.descriptors;
  std::map<int, int> sizes = before.fdsize;
  Clients clients(plan);
  std::int64_t start = 0;
  if (plan.arrival == ServerArrival::queued) {
    server.signal_group(SIGSTOP);
    wait_until_stopped(pids);
    burst.error = queue_burst(clients, plan);
    if (plan.on_queued != nullptr && burst.error.empty()) plan.on_queued();
    start = platform::now_ns();
    clients.restart_clocks(start);
    server.signal_group(SIGCONT);
    if (!burst.error.empty()) return;
  } else {
    start = platform::now_ns();
    for (int i = 0; i < plan.connections; ++i) {
      clients.connect_one();
      if ((i & 31) == 31) clients.handle(0, true);
    }
  }
  drain(clients, plan, pids, burst, sizes);
  count_growths(pids, sizes, burst.growths);  // one the last replies came after
  const ServerShape after = shape_of(pids, false);
  burst.fdsize_after = largest(after.fdsize);
  burst.threads = std::max(before.threads, after.threads);
  burst.reply_ns = clients.replies();
  burst.unanswered = clients.unanswered(static_cast<std::size_t>(plan.connections));
  burst.start_ns = start;
  burst.drain_ns = clients.last_reply() > 0 ? clients.last_reply() - start : 0;
}

}  // namespace

ServerBurst run_server_burst(const ServerBurstPlan& plan) {
  ServerBurst burst;
  ServerProcess server(plan);
  burst.error = wait_until_ready(server, plan);
  if (!burst.error.empty()) return burst;
  measure_burst(server, plan, burst);
  std::string why;
  if (burst.error.empty() && server.ended(why)) {
    burst.error = fmt::format("the server {} during its burst; {}", why, server.last_lines());
  }
  return burst;
}

int server_starting_descriptors(const ServerBurstPlan& plan, std::string& why) {
  ServerProcess server(plan);
  why = wait_until_ready(server, plan);
  if (!why.empty()) return 0;
  return shape_of(session_processes(server.pid()), true).descriptors;
}

int free_loopback_port() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof addr;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

}  // namespace fdbench

#else  // not Linux: the server's table, threads and processes cannot be read from /proc

#include <string>

namespace fdbench {

namespace {
const char* const kLinuxOnly = "fdbench server reads the server's table from /proc: Linux only";
}  // namespace

ServerBurst run_server_burst(const ServerBurstPlan&) {
  ServerBurst burst;
  burst.error = kLinuxOnly;
  return burst;
}

int free_loopback_port() {
  return 0;
}

int server_starting_descriptors(const ServerBurstPlan&, std::string& why) {
  why = kLinuxOnly;
  return 0;
}

}  // namespace fdbench

#endif
