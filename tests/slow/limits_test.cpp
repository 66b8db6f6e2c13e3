// The limits, end to end on the built binary: 100,000 files opened by 256 threads, and memory
// that stays bounded while doing it (generated sets keep their names in one PathTable, not a
// heap string per file); a large results document read in memory bounded by its results. This
// layer has its own label, "slow": it takes a few seconds.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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

// compare reads its inputs as a stream (a SAX parser filling the results it keeps), never as
// a tree of the whole document: nlohmann's tree of a 12.6 MB document takes 72 MB (5.7 bytes
// a byte of text), so two take more than 140 MB; the whole compare of two, results, rows and
// table, took 62 MB (2.4 a byte). The document is one real result copied, each copy a thread
// count of its own.
TEST(Limits, ALargeResultsDocumentIsReadInMemoryBoundedByItsResults) {
  FastTempDir dir;
  const std::vector<std::string> one{"open",     "--files", "100",    "--threads", "1",
                                     "--repeat", "200",     "--warmup", "0",       "--dir",
                                     dir.path(), "--format", "json"};
  const RunResult made = FdbenchProcess(one, as_a_job()).wait();
  ASSERT_EQ(made.exit_code, 0) << made.err;
  nlohmann::json doc = nlohmann::json::parse(made.out);
  const nlohmann::json result = doc.at("results").at(0);
  doc["results"] = nlohmann::json::array();
  const std::string file = dir.path() + "/large.json";
  {
    std::ofstream out(file);
    const std::size_t copies = (12U << 20) / result.dump().size() + 1;
    for (std::size_t threads = 1; threads <= copies; ++threads) {
      nlohmann::json copy = result;
      copy["threads"] = threads;
      doc["results"].push_back(std::move(copy));
    }
    out << doc.dump();
  }
  const auto text_kib = static_cast<long>(2 * std::filesystem::file_size(file) / 1024);
  RunOptions options = as_a_job();
  options.timeout = std::chrono::seconds(240);
  const RunResult run =
      FdbenchProcess({"compare", file, file},
                     options)
          .wait();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  RecordProperty("peak_rss_kib", std::to_string(run.max_rss_kib));
  EXPECT_LT(run.max_rss_kib, text_kib * 4)
      << "peak RSS " << run.max_rss_kib / 1024 << " MiB reading " << text_kib / 1024
      << " MiB of JSON";
}

}  // namespace limits_test
}  // namespace fdbench::testing
