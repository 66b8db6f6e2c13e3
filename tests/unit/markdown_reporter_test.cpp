// The markdown reporter on hand-built results: golden text for the header, sections, tables,
// unavailable rows and the notes under a table; the findings are the library's, one per item.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "fdbench/findings.hpp"
#include "fdbench/reporter.hpp"
#include "fdbench/version.hpp"

namespace fdbench {
namespace {

Environment test_environment() {
  Environment env;
  env.os = "Linux";
  env.kernel = "6.1.0-test";
  env.cpu_model = "Test CPU | 1.00GHz";  // a pipe, escaped in the header
  env.logical_cpus = 8;
  env.fs_type = "tmpfs";
  env.rlimit_nofile = {1024, 524288};
  env.fdsize_at_start = 64;
  env.rcu_expedited = 1;
  return env;
}

Result result(const std::string& workload, const std::string& strategy, int threads,
              std::vector<std::int64_t> times) {
  Result r;
  r.workload = workload;
  r.strategy = strategy;
  r.threads = threads;
  r.kind = workload == "open" ? "file" : "tcp";
  r.ops = workload == "open" ? 1000 : 512;
  r.repeat = static_cast<int>(times.size());
  r.times_ns = std::move(times);
  finalize(r);
  return r;
}

std::vector<Result> results() {
  std::vector<Result> all;
  all.push_back(result("open", "threads", 1, {3'000'000, 1'000'000, 2'000'000}));
  Result failed = result("open", "pool", 2, {4'000'000, 4'000'000});
  failed.failures = 3;
  failed.failures_by_errno = {{"EMFILE", {3, "Too many open files"}}};
  failed.warnings = {"descriptor leak: held {0,1,2} before the run, {0,1,2,3} after"};
  all.push_back(failed);
  Result missing = result("open", "uring", 1, {});
  missing.error = "io_uring | disabled";
  all.push_back(missing);
  Result off = result("socket", "threads", 2, {20'000'000, 30'000'000});
  off.pregrow = "off";
  off.fdsize_before = 64;
  off.fdsize_after = 1024;
  all.push_back(off);
  Result grown = result("socket", "threads", 2, {2'000'000, 2'000'000});
  grown.pregrow = "auto";
  grown.fdsize_before = 1024;
  grown.fdsize_after = 1024;
  all.push_back(grown);
  return all;
}

std::string report(const std::vector<Result>& all, bool complete) {
  std::ostringstream out;
  auto reporter = make_reporter("markdown", out);
  EXPECT_NE(reporter, nullptr);
  if (!reporter) return {};
  reporter->begin(test_environment());
  reporter->section({"open: 1,000 files", "thread creation is not timed"});
  for (std::size_t i = 0; i < 3; ++i) reporter->add(all[i]);
  reporter->section({"socket: 256 tcp descriptors per thread", ""});
  for (std::size_t i = 3; i < all.size(); ++i) reporter->add(all[i]);
  reporter->end(all, complete);
  return out.str();
}

TEST(MarkdownReporter, GoldenText) {
  const std::string expected = "# fdbench " + std::string(version()) + R"(

Linux 6.1.0-test · Test CPU \| 1.00GHz · 8 logical CPUs · tmpfs · RLIMIT_NOFILE 1024/524288 · FDSize 64 at start · rcu_expedited=1

## open: 1,000 files

_thread creation is not timed_

| strategy | threads | median ms | min–max ms | files/s |
|:--|--:|--:|--:|--:|
| threads | 1 | 2.00 | 1.00–3.00 | 500,000 |
| pool | 2 | 4.00 | 4.00–4.00 | 250,000 |
| uring | 1 | unavailable: io_uring \| disabled | | |

- **pool, 2 threads**: 3 failed calls (`EMFILE` Too many open files: 3); times are not valid
- **pool, 2 threads**: descriptor leak: held {0,1,2} before the run, {0,1,2,3} after

## socket: 256 tcp descriptors per thread

| strategy | threads | pregrow | median ms | min–max ms | fds/s | FDSize |
|:--|--:|:--|--:|--:|--:|:--|
| threads | 2 | off | 25.00 | 20.00–30.00 | 20,480 | 64 → 1024 |
| threads | 2 | auto | 2.00 | 2.00–2.00 | 256,000 | 1024 → 1024 |
)";
  const std::string text = report(results(), true);
  const auto findings_at = text.find("\n## Findings");
  EXPECT_EQ(text.substr(0, findings_at), expected);
}

TEST(MarkdownReporter, FindingsAreAListAtTheEnd) {
  const auto all = results();
  const auto lines = findings(all);
  ASSERT_FALSE(lines.empty()) << "the hand-built results should yield findings";
  std::string expected = "\n## Findings\n\n";
  for (const auto& line : lines) expected += "- " + line + "\n";
  const std::string text = report(all, true);
  ASSERT_GE(text.size(), expected.size());
  EXPECT_EQ(text.substr(text.size() - expected.size()), expected);
}

TEST(MarkdownReporter, AnInterruptedRunSaysSo) {
  const std::string text = report(results(), false);
  EXPECT_NE(text.find("## Findings (from the results finished before the stop)"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace fdbench
