// The markdown reporter on hand-built results: golden text for the header, sections, tables,
// unavailable rows and the notes under a table; the findings are the library's, one per item.
#include <gtest/gtest.h>

#include <cerrno>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/findings.hpp"
#include "fdbench/version.hpp"
#include "output/reporter.hpp"
#include "support/results.hpp"

namespace fdbench {
namespace markdown_reporter_test {

using testing::ResultBuilder;

Environment test_environment() {
  Environment env = testing::linux_environment();
  env.cpu_model = "Test CPU | 1.00GHz";  // a pipe, escaped
  env.syscall_ns = 1234.5;
  env.virtualization = "kvm";
  env.warnings = {"this fdbench is a Debug build, not Release"};
  return env;
}

std::vector<Result> results() {
  return {
      ResultBuilder::open("threads", 1).ops(1000).times({2'100'000, 1'900'000, 2'000'000}),
      ResultBuilder::open("pool", 2)
          .ops(1000)
          .each_took(4'000'000, 2)
          .failed(3, EMFILE)
          .warnings({{WarningKind::leak,
                      "descriptor leak: held {0,1,2} before the run, {0,1,2,3} after"}}),
      ResultBuilder::open("uring", 1).ops(1000).unavailable("io_uring | disabled", 2),
      ResultBuilder::socket("threads", 2)
          .ops(512)
          .pregrow("off")
          .times({20'000'000, 30'000'000})
          .fdsize(64, 1024),
      ResultBuilder::socket("threads", 2)
          .ops(512)
          .pregrow("auto")
          .each_took(2'000'000, 2)
          .fdsize(1024, 1024),
  };
}

Section open_section() {
  Section s;
  s.workload = "open";
  s.kind = DescriptorKind::file;
  s.input =
      InputSummary{InputSource::private_set, "/tmp", "flat", "rdonly", false, 1000, {}, {}, {}, {}};
  s.fs_type = "tmpfs";
  s.repeat = Repeat::fixed(3);
  s.warmup = 1;
  return s;
}

Section socket_section() {
  Section s;
  s.workload = "socket";
  s.kind = DescriptorKind::tcp;
  s.per_thread = 256;
  s.repeat = Repeat::fixed(2);
  s.held = true;
  s.fresh_child = true;
  return s;
}

std::string report(const std::vector<Result>& all, bool complete) {
  std::ostringstream out;
  auto reporter = make_reporter("markdown", out);
  EXPECT_NE(reporter, nullptr);
  if (!reporter) return {};
  reporter->begin(test_environment());
  reporter->section(open_section());
  for (std::size_t i = 0; i < 3; ++i) reporter->add(all[i]);
  reporter->section(socket_section());
  for (std::size_t i = 3; i < all.size(); ++i) reporter->add(all[i]);
  reporter->end(all, findings(all, test_environment()), complete);
  return out.str();
}

TEST(MarkdownReporter, GoldenText) {
  const std::string expected = "# fdbench " + std::string(version()) + R"(

Linux 6.1.0-test · Test CPU \| 1.00GHz · 8 logical CPUs · RLIMIT_NOFILE 1024/524288 · FDSize 64 at start · rcu_expedited=1 · syscall 1.23 µs · VM kvm

> ! this fdbench is a Debug build, not Release

## open: 1,000 empty files in /tmp (tmpfs), rdonly, 3 repetitions (+1 warm-up)

_each file opened and closed again; thread and pool creation are not timed_

| strategy | threads | median ms | ±95% | reps | min–max ms | files/s |
|:--|--:|--:|--:|--:|--:|--:|
| threads | 1 | 2.00 | - | 3 | 1.90–2.10 | 500,000 |
| pool | 2 (+1) | 4.00 | - | 2 | 4.00–4.00 | 250,000 |
| uring | 1 | unavailable: io_uring \| disabled | | | | |

- **pool, 2 threads**: 3 failed calls (`EMFILE` Too many open files: 3); times are not valid
- **pool, 2 threads**: descriptor leak: held {0,1,2} before the run, {0,1,2,3} after

## socket: 256 tcp descriptors per thread, held to the end; 2 repetitions, no warm-up, each in a fresh process

_)";
  const std::string text = report(results(), true);
  ASSERT_EQ(text.substr(0, expected.size()), expected);
  const std::string socket_table = R"(
| strategy | threads | pregrow | median ms | ±95% | reps | min–max ms | fds/s | FDSize |
|:--|--:|:--|--:|--:|--:|--:|--:|:--|
| threads | 2 | off | 25.00 | - | 2 | 20.00–30.00 | 20,480 | 64 → 1024 |
| threads | 2 | auto | 2.00 | - | 2 | 2.00–2.00 | 256,000 | 1024 → 1024 |
)";
  EXPECT_NE(text.find("_\n" + socket_table), std::string::npos) << text;
}

TEST(MarkdownReporter, FindingsAreAListAtTheEnd) {
  const auto all = results();
  const auto lines = findings(all, test_environment());
  ASSERT_FALSE(lines.empty()) << "the hand-built results should yield findings";
  std::string expected = "\n## Findings\n\n";
  for (const auto& line : lines) expected += "- " + line.text + "\n";
  const std::string text = report(all, true);
  ASSERT_GE(text.size(), expected.size());
  EXPECT_EQ(text.substr(text.size() - expected.size()), expected);
}

TEST(MarkdownReporter, AnInterruptedRunSaysSo) {
  const std::string text = report(results(), false);
  EXPECT_NE(text.find("## Findings (from the results finished before the stop)"), std::string::npos)
      << text;
}

// A traced result's kernel line is a note, and what its figures are is said once below them.
TEST(MarkdownReporter, KernelLinesHaveTheirLegend) {
  const KernelEvidence k = testing::traced_kernel(2, 2'000'000, {{OffCpuCause::lock, 100'000}},
                                                  {{OffCpuCause::lock, 100'000}});
  std::vector<Result> all;
  for (const int threads : {1, 2, 4}) {
    all.push_back(testing::ResultBuilder::open("threads", threads).ops(100).times({10, 11}));
  }
  all.push_back(testing::ResultBuilder::socket("threads", 2).ops(512).times({5, 6}).kernel(k));
  const std::string text = report(all, true);
  EXPECT_NE(text.find("kernel: off-CPU 100 µs of 2 threads × 2.00 ms per repetition: lock 100 µs; "
                      "all of it waiting to start or done"),
            std::string::npos)
      << text;
  const std::string legend = "\"Waiting to start or done\" is the part";
  ASSERT_NE(text.find(legend), std::string::npos) << text;
  EXPECT_EQ(text.find(legend), text.rfind(legend)) << "once: " << text;
}

}  // namespace markdown_reporter_test
}  // namespace fdbench
