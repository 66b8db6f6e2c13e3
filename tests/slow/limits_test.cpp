// The limits, end to end on the built binary: 100,000 files opened by 256 threads, and memory
// that stays bounded while doing it (generated sets keep their names in one PathTable, not a
// heap string per file). This layer has its own label, "slow": it takes a few seconds.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/fdbench_process.hpp"
#include "support/warnings.hpp"

namespace fdbench::testing {
namespace limits_test {

// Peak resident memory allowed for a 100,000-file run. The names take ~1 MB; the rest is
// code, 256 thread stacks as they are touched, and the JSON document.
constexpr long kMaxRssKib = 200 * 1024;

TEST(Limits, HundredThousandFilesWith256Threads) {
  FastTempDir dir;
  const std::vector<std::string> args{
      "open",     "--files", "100000",     "--threads",         "256",   "--repeat", "1",
      "--warmup", "0",       "--strategy", "threads,fast-pool", "--dir", dir.path(), "--format",
      "json"};
  SCOPED_TRACE(describe(args));
  RunOptions options = as_a_job();
  options.timeout = std::chrono::seconds(120);
  FdbenchProcess child(args, options);
  const RunResult run = child.wait();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  ASSERT_EQ(doc.at("results").size(), 2U);
  for (const auto& r : doc.at("results")) {
    SCOPED_TRACE(r.at("strategy").get<std::string>());
    EXPECT_FALSE(r.contains("error")) << r.dump();
    EXPECT_TRUE(testing::warnings_besides_noise(r).empty()) << r.dump();
    EXPECT_EQ(r.at("threads"), 256);
    EXPECT_EQ(r.at("ops"), 100000);
    EXPECT_EQ(r.at("failures"), 0);
    EXPECT_EQ(r.at("times_ns").size(), 1U);
  }
  RecordProperty("peak_rss_kib", std::to_string(run.max_rss_kib));
  EXPECT_GT(run.max_rss_kib, 0);
  EXPECT_LT(run.max_rss_kib, kMaxRssKib) << "peak RSS " << run.max_rss_kib / 1024 << " MiB";
  EXPECT_EQ(list_names(dir.path()), std::vector<std::string>{}) << "the set was left behind";
  const auto left = child.leftovers();
  EXPECT_EQ(left.running + left.orphans, 0);
}

}  // namespace limits_test
}  // namespace fdbench::testing
