// examples/fleet/fleet.yml, run by ansible-playbook against this machine: two inventory
// aliases with Ansible's local connection, each its own --dir, stand for two hosts. The
// playbook copies fdbench, runs one short command on each, fetches the documents, imports
// them into one history and writes one report with the hosts side by side. Skips where
// ansible-playbook is not installed (scripts/setup installs it; CI requires it).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "support/fdbench_process.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace fleet_test {

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// Runs `command` through the shell, its output in `log`; its exit code.
int shell(const std::string& command, const std::string& log) {
  const int status = std::system((command + " </dev/null >" + log + " 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(Fleet, ThePlaybookMeasuresTwoHostsAndReportsThemSideBySide) {
  const TempDir scratch;
  if (shell("command -v ansible-playbook", scratch / "which") != 0) {
    FDBENCH_SKIP_WITHOUT("ansible") << "ansible-playbook is not installed (Debian's ansible-core)";
  }
  write_text(scratch / "inventory.ini",
             "[fleet]\n"
             "alpha ansible_connection=local ansible_python_interpreter=/usr/bin/python3 "
             "fdbench_dir=" +
                 (scratch / "alpha") +
                 "\n"
                 "beta ansible_connection=local ansible_python_interpreter=/usr/bin/python3 "
                 "fdbench_dir=" +
                 (scratch / "beta") +
                 "\n"
                 // Nothing listens on port 1: a host Ansible cannot reach, at once.
                 "gamma ansible_host=127.0.0.1 ansible_port=1 ansible_connection=ssh "
                 "ansible_ssh_common_args='-o BatchMode=yes -o ConnectTimeout=5 "
                 "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null'\n");
  // The smallest command that gives a 95% interval: 200 files, 6 repetitions, 1 and 2 threads.
  write_text(scratch / "vars.yml",
             "fdbench_binary: " + std::string(fdbench_binary()) + "\n"
             "fleet_dir: " + (scratch / "results") + "\n"
             "fdbench_args: [open, --files, '200', --threads, '1,2', --strategy, threads,\n"
             "               --repeat, '6', --warmup, '0', --dir, '{{ fdbench_dir }}']\n");
  // Ansible's own files in the scratch directory, not in $HOME; and the UTF-8 locale it
  // refuses to start without (C.UTF-8 is in every Debian), whatever the test was given.
  const std::string env = "LC_ALL=C.UTF-8 ANSIBLE_LOCAL_TEMP=" + (scratch / "ansible-local") +
                          " ANSIBLE_REMOTE_TEMP=" + (scratch / "ansible-remote") +
                          " ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ";
  const int code = shell(env + "ansible-playbook -i " + (scratch / "inventory.ini") + " -e @" +
                             (scratch / "vars.yml") + " " + FDBENCH_FLEET_PLAYBOOK,
                         scratch / "ansible.log");
  // Ansible's status for an unreachable host, as docs/history.md says; the others reported.
  ASSERT_EQ(code, 4) << read_text(scratch / "ansible.log");
  EXPECT_FALSE(exists(scratch / "results/gamma.json"));

  // Each host's document, fetched back under its inventory name.
  for (const char* host : {"alpha", "beta"}) {
    const std::string doc = read_text(scratch / ("results/" + std::string(host) + ".json"));
    EXPECT_NE(doc.find("\"schema_version\""), std::string::npos) << host;
    EXPECT_TRUE(exists(scratch / (std::string(host) + "/fdbench"))) << "fdbench not copied to " << host;
  }
  // One history with both runs.
  const auto list = run_fdbench({"history", "list", "--history", scratch / "results/history.db"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(lines_of(list.out).size(), 3U) << list.out;  // a heading and two runs
  // One report, the hosts as its columns: each configuration's median with its interval.
  const std::string page = read_text(scratch / "results/report.html");
  const auto across = page.find("<table class=\"across\">");
  ASSERT_NE(across, std::string::npos) << page;
  const std::string table = page.substr(across, page.find("</table>", across) - across);
  EXPECT_NE(table.find("A · alpha.json"), std::string::npos) << table;
  EXPECT_NE(table.find("B · beta.json"), std::string::npos) << table;
  EXPECT_EQ(count_of(table, "<span class=\"interval\">"), 4U) << table;  // 2 results × 2 hosts
  // One machine twice: its environments are alike, and the page says so.
  EXPECT_NE(page.find("environment-alike"), std::string::npos) << page;
}

// The command in docs/history.md, run as written from the project's root with this build's
// fdbench for the release build it names, a scratch directory for $PWD/fleet, and (-e, which
// wins) a scratch fdbench_dir where a run at the same time may use the default.
TEST(Fleet, TheDocumentedCommandRunsAsWritten) {
  const TempDir scratch;
  if (shell("command -v ansible-playbook", scratch / "which") != 0) {
    FDBENCH_SKIP_WITHOUT("ansible") << "ansible-playbook is not installed (Debian's ansible-core)";
  }
  std::string command;
  bool in_block = false;
  for (const auto& line : lines_of(read_text(FDBENCH_SOURCE_ROOT "/docs/history.md"))) {
    if (line.find("ansible-playbook -i") != std::string::npos) in_block = true;
    if (!in_block) continue;
    command += line.ends_with("\\") ? line.substr(0, line.size() - 1) : line;
    if (!line.ends_with("\\")) break;
  }
  ASSERT_FALSE(command.empty()) << "no ansible-playbook command in docs/history.md";
  const auto replace = [&command](const std::string& from, const std::string& to) {
    const auto at = command.find(from);
    ASSERT_NE(at, std::string::npos) << from << " not in: " << command;
    command.replace(at, from.size(), to);
  };
  replace("$PWD/build/release/apps/fdbench/fdbench", fdbench_binary());
  replace("$PWD/fleet", scratch / "fleet");
  const std::string env = "ANSIBLE_LOCAL_TEMP=" + (scratch / "ansible-local") +
                          " ANSIBLE_REMOTE_TEMP=" + (scratch / "ansible-remote") +
                          " ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ";
  const int code = shell("cd " FDBENCH_SOURCE_ROOT " && " + env + command +
                             " -e fdbench_dir=" + (scratch / "host") +
                             " -e '{\"fdbench_args\": [open, --files, \"200\", "
                             "--threads, \"1\", --strategy, threads, --repeat, \"6\", --warmup, "
                             "\"0\", --dir, \"" +
                             (scratch / "host") + "\"]}'",
                         scratch / "ansible.log");
  ASSERT_EQ(code, 0) << command << "\n" << read_text(scratch / "ansible.log");
  EXPECT_TRUE(exists(scratch / "fleet/localhost.json"));
  EXPECT_TRUE(exists(scratch / "fleet/report.html"));
  const auto list = run_fdbench({"history", "list", "--history", scratch / "fleet/history.db"});
  EXPECT_EQ(lines_of(list.out).size(), 2U) << list.out;  // a heading and this machine's run
}

}  // namespace fleet_test
}  // namespace fdbench::testing
