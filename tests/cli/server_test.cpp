// fdbench server against real servers started on loopback ports by the tests themselves:
// memcached with 4 threads grows its shared table during its first burst from its starting
// table and not pre-grown; nginx's single-threaded workers are the negative control; a server
// that exits early or never answers ends its row with one line; Ctrl-C mid-burst leaves no
// server behind. The mechanism is asserted (FDSize, growths, threads), never a time.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/server_burst.hpp"
#include "platform/platform.hpp"
#include "support/fdbench_process.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace server_test {

bool installed(const std::string& program) {
  for (const char* dir : {"/usr/bin/", "/usr/sbin/", "/usr/local/bin/", "/usr/local/sbin/"}) {
    if (access((dir + program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::vector<std::string> memcached_args(int port) {
  return {"memcached", "-u", "nobody", "-l",   "127.0.0.1", "-p",  std::to_string(port),
          "-t",        "4",  "-c",     "4096", "-b",        "2048"};
}

// fdbench server's arguments, then -- and the server's.
std::vector<std::string> server_line(std::vector<std::string> options,
                                     const std::vector<std::string>& program) {
  options.insert(options.begin(), "server");
  options.emplace_back("--");
  options.insert(options.end(), program.begin(), program.end());
  return options;
}

// Whether any process's command line holds `word` (the port a server was given).
bool process_holding(const std::string& word) {
  DIR* dir = opendir("/proc");
  bool found = false;
  while (const dirent* entry = dir != nullptr ? readdir(dir) : nullptr) {
    if (std::atoi(entry->d_name) <= 0 || std::atoi(entry->d_name) == getpid()) continue;
    std::ifstream in(std::string("/proc/") + entry->d_name + "/cmdline");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (char& c : text) c = c == '\0' ? ' ' : c;
    if (text.find(word) != std::string::npos && text.find("server") == std::string::npos) {
      found = true;
    }
  }
  if (dir != nullptr) closedir(dir);
  return found;
}

const nlohmann::json& row(const nlohmann::json& doc, const std::string& pregrow) {
  for (const auto& r : doc.at("results")) {
    if (r.at("pregrow") == pregrow) return r;
  }
  throw std::runtime_error("no row for pregrow " + pregrow);
}

bool has_finding(const nlohmann::json& doc, const std::string& kind) {
  for (const auto& f : doc.at("findings")) {
    if (f.at("kind") == kind) return true;
  }
  return false;
}

#define SKIP_WITHOUT_SERVER(name)                                                  \
  if (!platform::uses_linux_interfaces()) GTEST_SKIP() << "no /proc to read here"; \
  if (!installed(name))                                                            \
  FDBENCH_SKIP_WITHOUT("servers") << name                                          \
                                  << " is not installed "                          \
                                     "(scripts/setup installs it)"

// From its starting table memcached's shared table grows under the burst; pre-grown it does not.
TEST(ServerCommand, MemcachedGrowsItsSharedTableOnlyFromItsStartingTable) {
  SKIP_WITHOUT_SERVER("memcached");
  const int port = free_loopback_port();
  RunOptions options = as_a_job();
  options.timeout = std::chrono::seconds(120);
  // 900 clients and their sockets fit a soft ulimit -n of 1024.
  std::vector<std::string> args = {"--repeat",      "1",   "--pregrow", "off,auto",
                                   "--connections", "900", "--port",    std::to_string(port),
                                   "--format",      "json"};
  const bool traced = platform::kernel_trace_unavailable().empty();
  if (traced) args.emplace_back("--kernel-trace");
  FdbenchProcess child(server_line(args, memcached_args(port)), options);
  const RunResult run = child.wait();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  const auto& off = row(doc, "off");
  const auto& grown = row(doc, "auto");
  EXPECT_GE(off.at("threads").get<int>(), 4) << off.dump();
  EXPECT_GT(off.at("fdsize_after").get<int>(), off.at("fdsize_before").get<int>()) << off.dump();
  EXPECT_NE(off.at("parameters").at("table_growths"), "0") << off.dump();
  EXPECT_EQ(grown.at("parameters").at("table_growths"), "0") << grown.dump();
  EXPECT_EQ(grown.at("fdsize_after"), grown.at("fdsize_before")) << grown.dump();
  EXPECT_EQ(off.at("latency_ns").at("reply").at("count"), 900) << off.dump();
  EXPECT_TRUE(has_finding(doc, "server-stall")) << doc.at("findings").dump();
  EXPECT_FALSE(process_holding("-p " + std::to_string(port))) << "memcached outlived the run";
  const auto left = child.leftovers();
  EXPECT_EQ(left.running + left.orphans, 0);
  if (!traced) return;
  // The kernel saw the server's threads wait in the table's growth only from its starting table.
  const auto growth = [](const nlohmann::json& r) {
    return r.at("kernel").at("off_cpu_by_cause_ns").at("fd-table-growth").get<std::int64_t>();
  };
  EXPECT_GT(growth(off), 0) << off.at("kernel").dump();
  EXPECT_EQ(growth(grown), 0) << grown.at("kernel").dump();
}

// HAProxy with 4 threads answering a static `http-request return`: one shared table, which
// grows under the burst from its starting table and not pre-grown.
TEST(ServerCommand, HaproxyThreadsShareATableThatGrowsOnlyFromItsStart) {
  SKIP_WITHOUT_SERVER("haproxy");
  TempDir dir;
  const int port = free_loopback_port();
  const std::string conf = dir.path() + "/haproxy.cfg";
  std::ofstream(conf) << "global\n  nbthread 4\n  maxconn 8192\n"
                      << "defaults\n  mode http\n  timeout client 30s\n  timeout connect 5s\n"
                      << "  timeout server 30s\n  maxconn 8192\n"
                      << "frontend f\n  bind 127.0.0.1:" << port << " backlog 4096\n"
                      << "  http-request return status 200 content-type text/plain string ok\n";
  RunOptions options = as_a_job();
  options.timeout = std::chrono::seconds(120);
  FdbenchProcess child(
      server_line({"--repeat", "1", "--pregrow", "off,auto", "--connections", "900", "--probe",
                   "http", "--port", std::to_string(port), "--format", "json"},
                  {"haproxy", "-db", "-f", conf}),
      options);
  const RunResult run = child.wait();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  const auto& off = row(doc, "off");
  const auto& grown = row(doc, "auto");
  EXPECT_GE(off.at("threads").get<int>(), 4) << off.dump();
  EXPECT_NE(off.at("parameters").at("table_growths"), "0") << off.dump();
  EXPECT_EQ(grown.at("parameters").at("table_growths"), "0") << grown.dump();
  EXPECT_FALSE(process_holding(conf)) << "haproxy outlived the run";
  const auto left = child.leftovers();
  EXPECT_EQ(left.running + left.orphans, 0);
}

// nginx's workers are processes of one thread: no table is shared, and the finding says so.
TEST(ServerCommand, NginxWorkersAreTheNegativeControl) {
  SKIP_WITHOUT_SERVER("nginx");
  TempDir dir;
  const int port = free_loopback_port();
  const std::string conf = dir.path() + "/nginx.conf";
  std::ofstream(conf) << "daemon off; master_process on; worker_processes 2;\n"
                      << "pid " << dir.path() << "/nginx.pid; error_log stderr;\n"
                      << "events { worker_connections 4096; }\n"
                      << "http { access_log off; client_body_temp_path " << dir.path() << "/b;\n"
                      << "proxy_temp_path " << dir.path() << "/p; fastcgi_temp_path " << dir.path()
                      << "/f;\nuwsgi_temp_path " << dir.path() << "/u; "
                      << "scgi_temp_path " << dir.path() << "/s;\n"
                      << "server { listen 127.0.0.1:" << port << " backlog=4096;\n"
                      << "location / { return 200 \"ok\\n\"; } } }\n";
  RunOptions options = as_a_job();
  options.timeout = std::chrono::seconds(120);
  FdbenchProcess child(server_line({"--repeat", "1", "--pregrow", "off", "--probe", "http",
                                    "--port", std::to_string(port), "--format", "json"},
                                   {"nginx", "-e", "stderr", "-p", dir.path(), "-c", conf}),
                       options);
  const RunResult run = child.wait();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  const auto& off = row(doc, "off");
  EXPECT_EQ(off.at("threads"), 1) << off.dump();
  EXPECT_GE(std::stoi(off.at("parameters").at("processes").get<std::string>()), 2);
  EXPECT_TRUE(has_finding(doc, "server-no-shared-table")) << doc.at("findings").dump();
  EXPECT_FALSE(has_finding(doc, "server-stall")) << doc.at("findings").dump();
  EXPECT_FALSE(process_holding(conf)) << "nginx outlived the run";
  const auto left = child.leftovers();
  EXPECT_EQ(left.running + left.orphans, 0);
}

// A server that exits before it answers ends its row with one line holding its last output.
TEST(ServerCommand, AServerThatExitsEarlySaysWhyWithItsLastOutput) {
  if (!platform::uses_linux_interfaces()) GTEST_SKIP() << "no /proc to read here";
  const RunResult run = run_fdbench(server_line({"--repeat", "1", "--pregrow", "off"},
                                                {"sh", "-c", "echo cannot bind here >&2; exit 3"}));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("exited with status 3"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("cannot bind here"), std::string::npos) << run.err;
}

// One that never listens is given --timeout, then stopped: nothing of it is left.
TEST(ServerCommand, AServerThatNeverAnswersIsStoppedAtTheTimeout) {
  if (!platform::uses_linux_interfaces()) GTEST_SKIP() << "no /proc to read here";
  RunOptions options = as_a_job();
  FdbenchProcess child(
      server_line({"--repeat", "1", "--pregrow", "off", "--timeout", "0.5"}, {"sleep", "4242"}),
      options);
  const RunResult run = child.wait();
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("did not answer"), std::string::npos) << run.err;
  EXPECT_FALSE(process_holding("sleep 4242")) << "the server outlived the run";
  const auto left = child.leftovers();
  EXPECT_EQ(left.running + left.orphans, 0);
}

// A burst that cannot fit is refused before any server starts.
TEST(ServerCommand, RefusesABurstThatCannotFitUpFront) {
  const auto cap = platform::somaxconn();
  if (cap) {
    const RunResult run =
        run_fdbench(server_line({"--connections", std::to_string(*cap + 1)}, {"sleep", "4243"}));
    EXPECT_EQ(run.exit_code, 2) << run.err;
    const bool named = run.err.find("somaxconn") != std::string::npos ||
                       run.err.find("ulimit -n") != std::string::npos;
    EXPECT_TRUE(named) << run.err;
  }
  const RunResult small = run_fdbench(
      server_line({"--connections", "500"}, {"memcached", "-c", "100", "-p", "{port}"}));
  EXPECT_EQ(small.exit_code, 2) << small.err;
  EXPECT_NE(small.err.find("-c 100"), std::string::npos) << small.err;
  const RunResult probe = run_fdbench(server_line({"--probe", "smtp"}, {"true"}));
  EXPECT_EQ(probe.exit_code, 2) << probe.err;
}

// Ctrl-C while the burst is under way: fdbench stops and reaps the server, exit 130.
TEST(ServerCommand, CtrlCMidBurstLeavesNoServerBehind) {
  SKIP_WITHOUT_SERVER("memcached");
  const int port = free_loopback_port();
  RunOptions options = as_a_job();
  options.timeout = std::chrono::seconds(120);
  FdbenchProcess child(
      server_line({"--repeat", "100", "--connections", "900", "--port", std::to_string(port)},
                  memcached_args(port)),
      options);
  ASSERT_TRUE(child.wait_for_event("server-burst-queued")) << child.err_so_far();
  child.signal(SIGINT, true);
  const RunResult run = child.wait();
  EXPECT_EQ(run.exit_code, 130) << run.err;
  EXPECT_FALSE(process_holding("-p " + std::to_string(port))) << "memcached outlived the run";
  const auto left = child.leftovers();
  EXPECT_EQ(left.running + left.orphans, 0);
}

}  // namespace server_test
}  // namespace fdbench::testing
