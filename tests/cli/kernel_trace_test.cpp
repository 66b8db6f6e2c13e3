// --kernel-trace from the command line: the seed's stall attributed to the table's growth by
// the kernel's own call chains, nothing of it once the table is grown first, the one-line
// reason where the kernel will not show it (an ordinary user here), and a Ctrl-C that ends a
// traced run like any other.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "platform/platform.hpp"
#include "support/contract.hpp"
#include "support/fdbench_process.hpp"
#include "support/other_user.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace kernel_trace_cli_test {

using nlohmann::json;

const std::vector<std::string> kSeed = {"socket",    "--kernel-trace", "--strategy", "threads",
                                        "--pregrow", "off,auto",       "--repeat",   "6"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::int64_t cause(const json& kernel, const char* name) {
  return kernel.at("off_cpu_by_cause_ns").at(name).get<std::int64_t>();
}

}  // namespace kernel_trace_cli_test

using namespace kernel_trace_cli_test;

TEST(KernelTraceCli, TheSeedStallIsTheTablesGrowthAndPreGrowingRemovesIt) {
  TempDir dir;
  const std::string exported = dir / "run.json";
  const auto run = run_fdbench(with(kSeed, {"--export-json", exported, "--details"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json doc = json::parse(read_text(exported));
  expect_document_contract(doc);
  ASSERT_EQ(doc.at("results").size(), 2U);
  const json& off = doc.at("results")[0].at("kernel");
  const json& grown = doc.at("results")[1].at("kernel");
  if (!off.at("available").get<bool>()) {
    FDBENCH_SKIP_WITHOUT("kernel_trace") << off.at("reason").get<std::string>();
  }
  EXPECT_EQ(doc.at("results")[0].at("pregrow"), "off");
  // The grace period's kind is named where a growth waited in it: in some repetition of the
  // first, in none of the second. Sizes are this machine's (rcu_expedited): not held here.
  EXPECT_TRUE(off.contains("grace_period")) << off;
  EXPECT_EQ(cause(grown, "fd-table-growth"), 0) << grown;
  EXPECT_EQ(cause(grown, "waiting-on-growth"), 0) << grown;
  EXPECT_FALSE(grown.contains("grace_period")) << grown;
  EXPECT_EQ(off.at("repetitions"), 6);
  EXPECT_TRUE(doc.at("environment").at("kernel_trace") == "available");
  // Waiting to start or done is a part of the off-CPU time, cause by cause; a growth, which a
  // thread is in only in the middle of its work, is never in it.
  for (const json* kernel : {&off, &grown}) {
    EXPECT_LE(kernel->at("at_edges_ns").get<std::int64_t>(),
              kernel->at("off_cpu_ns").get<std::int64_t>())
        << *kernel;
    for (const auto& [name, ns] : kernel->at("at_edges_by_cause_ns").items()) {
      EXPECT_LE(ns.get<std::int64_t>(), cause(*kernel, name.c_str())) << name << " " << *kernel;
    }
    EXPECT_EQ(kernel->at("at_edges_by_cause_ns").at("fd-table-growth"), 0) << *kernel;
  }
  // Every stall's cause is the kernel's: where its own thread was while the call took long.
  const std::vector<std::string> kernel_causes = {"fd-table-growth", "waiting-on-growth",
                                                  "io_uring-wait",   "io-wq",
                                                  "page-fault",      "lock",
                                                  "preempted",       "other",
                                                  "on-cpu"};
  for (const json& result : doc.at("results")) {
    for (const json& stall : result.at("stalls")) {
      EXPECT_TRUE(stall.contains("off_cpu_ns")) << stall;
      EXPECT_NE(std::find(kernel_causes.begin(), kernel_causes.end(),
                          stall.at("cause").get<std::string>()),
                kernel_causes.end())
          << stall;
      EXPECT_LE(stall.at("off_cpu_ns").get<std::int64_t>(), stall.at("ns").get<std::int64_t>())
          << stall;
    }
  }
  // The table's line under each result, and the section saying where it comes from.
  EXPECT_NE(unwrapped(run.out).find("kernel evidence from perf events"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("  kernel: "), std::string::npos) << run.out;
}

TEST(KernelTraceCli, AnOrdinaryUserGetsTheRunAndOneLineSayingWhy) {
  if (const std::string why = cannot_switch_user(); !why.empty()) GTEST_SKIP() << why;
  RunOptions options;
  const auto wrapped = as_user(unused_uid(), with(kSeed, {"--format", "json"}), options);
  const auto run = run_fdbench(wrapped, options);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json doc = json::parse(run.out);
  const std::string env = doc.at("environment").at("kernel_trace").get<std::string>();
  if (env == "available") GTEST_SKIP() << "this kernel shows ordinary users their call chains";
  for (const auto& r : doc.at("results")) {
    ASSERT_TRUE(r.contains("kernel")) << r.dump();
    EXPECT_FALSE(r.at("kernel").at("available").get<bool>());
    const std::string reason = r.at("kernel").at("reason").get<std::string>();
    EXPECT_EQ(reason, env);
    EXPECT_EQ(reason.find('\n'), std::string::npos) << reason;
    EXPECT_NE(reason.find("kernel evidence needs"), std::string::npos) << reason;
    // What to change is what this machine has: a paranoid level above 1 hides both the call
    // chains and /proc/kallsyms' addresses, whichever is found first.
    if (platform::uses_linux_interfaces() &&
        platform::read_int_file("/proc/sys/kernel/perf_event_paranoid").value_or(2) > 1) {
      EXPECT_NE(reason.find("sudo sysctl kernel.perf_event_paranoid=1"), std::string::npos)
          << reason;
    }
  }
  EXPECT_EQ(doc.at("results")[0].at("status"), "measured");
}

TEST(KernelTraceCli, CtrlCEndsATracedRunAndKeepsWhatFinished) {
  TempDir dir;
  const std::string exported = dir / "run.json";
  FdbenchProcess child(with({"socket", "--kernel-trace", "--repeat", "1000", "--pregrow", "off",
                             "--export-json", exported},
                            {}),
                       as_a_job());
  ASSERT_TRUE(child.wait_for_event("repetition-done", 3)) << child.wait().err;
  child.signal(SIGINT);
  const auto run = child.wait();
  EXPECT_EQ(run.exit_code, 128 + SIGINT) << run.err;
  const json doc = json::parse(read_text(exported));
  expect_document_contract(doc);
  ASSERT_EQ(doc.at("results").size(), 1U);
  EXPECT_EQ(doc.at("results")[0].at("status"), "cut-short");
  EXPECT_TRUE(doc.at("results")[0].contains("kernel"));
  const auto left = child.leftovers();
  EXPECT_EQ(left.running, 0) << "a process of the run outlived it";
  EXPECT_EQ(left.orphans, 0);
}

}  // namespace fdbench::testing
