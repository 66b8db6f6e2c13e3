// The human- and spreadsheet-readable formats, byte for byte, against files kept in
// tests/golden/: a session of hand-built results (an open sweep with a failed and an
// unavailable row, then a socket section with pregrow off and auto) driven through each
// reporter as Session drives it. Any change to what people read shows up in review as a
// diff of these files. After an intended change, regenerate them with
//   FDBENCH_UPDATE_GOLDEN=1 build/debug/tests/fdbench_unit_tests --gtest_filter='Golden*'
// and read the diff before committing it. fdbench's version is written as @VERSION@.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/findings.hpp"
#include "fdbench/version.hpp"
#include "output/reporter.hpp"
#include "support/results.hpp"

namespace fdbench {
namespace golden_test {

using testing::ResultBuilder;

Section open_section() {
  Section s;
  s.workload = "open";
  s.kind = DescriptorKind::file;
  s.input = InputSummary{};
  s.input->origin = "/tmp";
  s.input->files = 1000;
  s.fs_type = "ext4";
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

std::vector<Result> open_results() {
  // Repetitions within 15% of each other, but `threads` at 1 thread spread 60%: noisy (three
  // repetitions give no 95% interval; the interquartile range is 30% of the median).
  auto timed = [](const char* strategy, int threads, std::int64_t ms, std::int64_t spread = 15) {
    return ResultBuilder::open(strategy, threads)
        .batch(std::string(strategy) == "pool-batch" ? 64 : 1)
        .ops(1000)
        .warmup(1)
        .times({ms * 1'000'000, ms * 950'000, ms * (950'000 + spread * 10'000)})
        .fdsize(256, 256);
  };
  return {timed("threads", 1, 8, 60),
          timed("threads", 2, 5),
          timed("pool", 2, 21),
          timed("pool-batch", 2, 6),
          Result(timed("fast-pool", 2, 5).failed({{EMFILE, 12}, {ENOENT, 3}}, EMFILE)),
          ResultBuilder::open("uring", 2).ops(1000).unavailable("io_uring_disabled is 2", 3)};
}

std::vector<Result> socket_results() {
  auto held = [](const char* pregrow, std::int64_t ns, int before, int after) {
    return ResultBuilder::socket("threads", 2)
        .pregrow(pregrow)
        .ops(512)
        .holds_descriptors(true)
        .times({ns, ns + ns / 10})
        .fdsize(before, after);
  };
  return {held("off", 18'000'000, 64, 1024), held("auto", 1'900'000, 1024, 1024)};
}

std::string session_output(std::string_view format) {
  std::ostringstream out;
  auto reporter = make_reporter(format, out);
  EXPECT_NE(reporter, nullptr);
  std::vector<Result> all;
  reporter->begin(testing::linux_environment());
  reporter->section(open_section());
  for (auto& r : open_results()) {
    reporter->add(r);
    all.push_back(r);
  }
  reporter->section(socket_section());
  for (auto& r : socket_results()) {
    reporter->add(r);
    all.push_back(r);
  }
  reporter->end(all, findings(all, testing::linux_environment()), true);
  std::string text = out.str();
  const std::string version(fdbench::version());
  for (auto at = text.find(version); at != std::string::npos; at = text.find(version, at)) {
    text.replace(at, version.size(), "@VERSION@");
  }
  return text;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class Golden : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(Golden, OutputIsTheKeptFile) {
  const auto [format, file] = GetParam();
  const std::string path = std::string(FDBENCH_GOLDEN_DIR) + "/" + file;
  const std::string actual = session_output(format);
  if (const char* update = std::getenv("FDBENCH_UPDATE_GOLDEN"); update && *update == '1') {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << actual;
    GTEST_SKIP() << "rewrote " << path;
  }
  const std::string expected = read_file(path);
  ASSERT_FALSE(expected.empty()) << "no golden file " << path;
  EXPECT_EQ(actual, expected) << "the " << format << " output changed; if that was meant, "
                              << "regenerate (see the top of tests/unit/golden_test.cpp)";
}

INSTANTIATE_TEST_SUITE_P(Formats, Golden,
                         ::testing::Values(std::pair{"table", "table.txt"},
                                           std::pair{"csv", "results.csv"},
                                           std::pair{"markdown", "results.md"}),
                         [](const auto& param_info) {
                           return std::string(param_info.param.first);
                         });

}  // namespace golden_test
}  // namespace fdbench
