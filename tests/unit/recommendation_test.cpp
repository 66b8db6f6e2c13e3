// tune's recommendation on hand-built sweeps: the fastest adoptable result, the simplest of
// those within noise of it, the alternatives, the knee, pregrow_to, and the JSON a program
// reads back.
#include <gtest/gtest.h>

#include <cerrno>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fdbench/error.hpp"
#include "run/tune_sweep.hpp"
#include "support/results.hpp"
#include "support/temp_dir.hpp"

namespace fdbench {
namespace recommendation_test {

using testing::around;
using testing::ResultBuilder;

TEST(Recommendation, TheSimplestSettingTiedWithTheFastestIsRecommended) {
  const std::vector<Result> sweep = {
      around(ResultBuilder::open("threads", 1), 40'000'000),
      around(ResultBuilder::open("threads", 2), 20'000'000),
      around(ResultBuilder::open("threads", 4), 19'900'000),
      around(ResultBuilder::open("fast-pool", 2), 30'000'000),
  };
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  // 4 threads are the fastest, 2 within noise of them: fewer threads do as much here.
  EXPECT_EQ(rec->fastest.strategy, "threads");
  EXPECT_EQ(rec->fastest.threads, 4);
  EXPECT_DOUBLE_EQ(rec->fastest.ops_per_sec, sweep[2].ops_per_sec);
  EXPECT_EQ(rec->best.strategy, "threads");
  EXPECT_EQ(rec->best.threads, 2);
  ASSERT_EQ(rec->within_noise.size(), 1U);
  EXPECT_EQ(rec->within_noise[0].threads, 4);
  EXPECT_EQ(rec->compared, 4);
  EXPECT_FALSE(rec->inconclusive());
  EXPECT_EQ(rec->knee_threads, 2);
  EXPECT_FALSE(rec->pregrow_to.has_value());  // open+close holds nothing
}

// The knee needs sameness, not overlap: a count whose interval reaches the fastest only because
// it is wide is a candidate, never the knee (one rule with the findings).
TEST(Recommendation, TheKneeNeedsSamenessNotOverlap) {
  const std::vector<Result> sweep = {
      ResultBuilder::open("threads", 1)
          .ops(10000)
          .times(
              {10'000'000, 15'000'000, 18'000'000, 20'500'000, 22'000'000, 25'000'000, 30'000'000}),
      around(ResultBuilder::open("threads", 4), 20'000'000),
  };
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->fastest.threads, 4);
  EXPECT_EQ(rec->knee_threads, 4);
  ASSERT_EQ(rec->within_noise.size() + 1, 2U);  // still a candidate: not separated
}

TEST(Recommendation, AheadOfEveryOtherSettingTheFastestIsRecommended) {
  const std::vector<Result> sweep = {
      around(ResultBuilder::open("threads", 1), 40'000'000),
      around(ResultBuilder::open("uring", 2).batch(64), 10'000'000),
  };
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->best, rec->fastest);
  EXPECT_EQ(rec->best.strategy, "uring");
  EXPECT_TRUE(rec->within_noise.empty());
  EXPECT_FALSE(rec->inconclusive());
}

TEST(Recommendation, TheKneeKeepsToTheFastestsBatch) {
  const std::vector<Result> sweep = {
      around(ResultBuilder::open("uring", 1).batch(16), 20'050'000),
      around(ResultBuilder::open("uring", 2).batch(256), 20'000'000),
      around(ResultBuilder::open("uring", 4).batch(256), 30'000'000),
  };
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->fastest.batch, 256);
  EXPECT_EQ(rec->knee_threads, 2);  // 1 thread is within noise, but with another batch
  // ... and simpler: fewer threads, a smaller batch.
  EXPECT_EQ(rec->best.threads, 1);
  EXPECT_EQ(rec->best.batch, 16);
  ASSERT_EQ(rec->within_noise.size(), 1U);
  EXPECT_EQ(rec->within_noise[0].batch, 256);
}

// Simpler is no io_uring first, then fewer threads, then the plain loop before a pool, then
// the process's own descriptors before a ring's direct ones, then a smaller batch.
TEST(Recommendation, SimplerMeansNoIoUringThenFewerThreadsThenThePlainLoop) {
  const std::vector<Result> sweep = {
      around(ResultBuilder::open("uring", 1).batch(64), 20'000'000),
      around(ResultBuilder::open("fast-pool", 2), 20'010'000),
      around(ResultBuilder::open("threads", 2), 20'020'000),
      around(ResultBuilder::open("threads", 4), 20'030'000),
  };
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->fastest.strategy, "uring");
  EXPECT_EQ(rec->best.strategy, "threads");
  EXPECT_EQ(rec->best.threads, 2);
  // Nothing was separated from the fastest: the sweep cannot name a winner.
  EXPECT_EQ(rec->compared, 4);
  ASSERT_EQ(rec->within_noise.size(), 3U);
  EXPECT_EQ(rec->within_noise[0].strategy, "uring");  // the fastest first
  EXPECT_TRUE(rec->inconclusive());
}

TEST(Recommendation, ThePoolIsMeasuredButNeverRecommended) {
  const std::vector<Result> sweep = {
      around(ResultBuilder::open("pool", 2), 10'000'000),
      around(ResultBuilder::open("threads", 2), 20'000'000),
  };
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->best.strategy, "threads");
  EXPECT_TRUE(rec->within_noise.empty());
  EXPECT_FALSE(recommend_from(std::span(sweep).first(1)).has_value());
}

TEST(Recommendation, FailedAndUnavailableResultsAreSkipped) {
  const std::vector<Result> sweep = {
      around(ResultBuilder::open("uring", 2), 5'000'000).failed(3, EMFILE),
      ResultBuilder::open("uring-direct", 2).unavailable("io_uring_disabled is 2", 9),
      around(ResultBuilder::open("pool", 2), 1'000'000),  // recorded as not recommendable
      around(ResultBuilder::open("threads", 1), 40'000'000),
  };
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->best.strategy, "threads");
  EXPECT_TRUE(rec->within_noise.empty());
  EXPECT_FALSE(recommend_from(std::span(sweep).first(3)).has_value());
  EXPECT_FALSE(recommend_from({}).has_value());
}

// A setting measured while another program changed rcu_expedited is not recommended.
TEST(Recommendation, AResultMeasuredWhileTheSettingChangedIsSkipped) {
  const std::vector<Result> sweep = {
      around(ResultBuilder::open("uring", 2), 5'000'000)
          .warnings({{WarningKind::setting_changed, "rcu_expedited changed"}}),
      around(ResultBuilder::open("threads", 1), 40'000'000),
  };
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->best.strategy, "threads");
}

TEST(Recommendation, ATieForFastestGoesToTheEarlierResult) {
  const std::vector<Result> sweep = {
      around(ResultBuilder::open("fast-pool", 2), 20'000'000),
      around(ResultBuilder::open("threads", 2), 20'000'000),
  };
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->fastest.strategy, "fast-pool");
  EXPECT_EQ(rec->best.strategy, "threads");  // the simpler of the two
  ASSERT_EQ(rec->within_noise.size(), 1U);
  EXPECT_EQ(rec->within_noise[0].strategy, "fast-pool");
}

// Four repetitions give no 95% interval: by the one rule (separation()) nothing is separated
// from the fastest, so every other setting is listed, however far apart the ranges look, and
// the sweep is inconclusive.
TEST(Recommendation, TooFewRepetitionsSeparateNoSettingFromTheFastest) {
  const std::vector<Result> sweep = {
      ResultBuilder::open("fast-pool", 2)
          .ops(10000)
          .times({20'000'000, 20'100'000, 20'200'000, 20'300'000}),
      ResultBuilder::open("threads", 2)
          .ops(10000)
          .times({80'000'000, 80'100'000, 80'200'000, 80'300'000}),
  };
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->fastest.strategy, "fast-pool");
  EXPECT_EQ(rec->best.strategy, "threads");
  ASSERT_EQ(rec->within_noise.size(), 1U);
  EXPECT_EQ(rec->within_noise[0].strategy, "fast-pool");
  EXPECT_TRUE(rec->inconclusive());
}

TEST(Recommendation, HeldDescriptorsNeedThePregrowSize) {
  const std::vector<Result> sweep = {
      around(ResultBuilder::open("threads", 2).holds_descriptors(true).pregrow("auto"), 20'000'000),
  };
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->pregrow_to, 10000 + kProgramDescriptors);
}

// Held, io_uring's direct descriptors are no descriptors a program can use: measured, never
// recommended unless asked; asked, no table advice goes with them (they never grow it).
TEST(Recommendation, HeldDirectDescriptorsAreRecommendedOnlyWhenAllowed) {
  const std::vector<Result> sweep = {
      around(ResultBuilder::open("uring-direct", 2).holds_descriptors(true).pregrow("auto"),
             5'000'000),
      around(ResultBuilder::open("threads", 2).holds_descriptors(true).pregrow("auto"), 20'000'000),
  };
  ASSERT_EQ(sweep[0].fd_table, FdTable::none);
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->best.strategy, "threads");
  EXPECT_EQ(rec->fastest.strategy, "threads");
  EXPECT_EQ(rec->compared, 1);
  EXPECT_EQ(rec->pregrow_to, 10000 + kProgramDescriptors);

  const auto allowed = recommend_from(sweep, {.direct = true});
  ASSERT_TRUE(allowed.has_value());
  EXPECT_EQ(allowed->best.strategy, "uring-direct");
  EXPECT_FALSE(allowed->pregrow_to.has_value());
}

// The recommendation is for the program that calls fdbench: only descriptors made in its own
// table are of use to it (issue 34 item 8: `tune` recommended "process, 2 threads"). Worker
// processes' descriptors and io_uring's direct ones are measured, never recommended unless
// allowed, closed as they go or held alike; and the rule reads the result's table, not a name.
TEST(Recommendation, OnlyDescriptorsTheCallerCanUseAreRecommendedUnlessAllowed) {
  const std::vector<Result> sweep = {
      around(ResultBuilder::open("process", 2), 5'000'000),
      around(ResultBuilder::open("uring-direct", 2).batch(64), 6'000'000),
      around(ResultBuilder::open("libuv", 2).batch(64), 30'000'000),
      around(ResultBuilder::open("threads", 2), 20'000'000),
  };
  ASSERT_EQ(sweep[0].fd_table, FdTable::per_worker);
  ASSERT_EQ(sweep[0].workers, WorkerKind::processes);
  ASSERT_EQ(sweep[1].fd_table, FdTable::none);
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->best.strategy, "threads");
  EXPECT_EQ(rec->fastest.strategy, "threads");
  EXPECT_EQ(rec->compared, 2);  // threads and libuv
  EXPECT_TRUE(rec->within_noise.empty());

  const auto processes = recommend_from(sweep, {.processes = true});
  ASSERT_TRUE(processes.has_value());
  EXPECT_EQ(processes->best.strategy, "process");
  EXPECT_EQ(processes->compared, 3);
  const auto direct = recommend_from(sweep, {.direct = true});
  ASSERT_TRUE(direct.has_value());
  EXPECT_EQ(direct->best.strategy, "uring-direct");
  EXPECT_EQ(recommend_from(sweep, {true, true})->compared, 4);

  // The same process result under another name is still a worker process's table.
  std::vector<Result> renamed = sweep;
  renamed[0].config.strategy = "forked";
  EXPECT_EQ(recommend_from(renamed)->best.strategy, "threads");

  // What was kept out, by kind of table, with why and the flag that lets it in.
  const auto out = ineligible(sweep, {});
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0].strategies, std::vector<std::string>{"process"});
  EXPECT_NE(out[0].why.find("--allow-process"), std::string::npos) << out[0].why;
  EXPECT_EQ(out[1].strategies, std::vector<std::string>{"uring-direct"});
  EXPECT_NE(out[1].why.find("--allow-direct"), std::string::npos) << out[1].why;
  EXPECT_TRUE(ineligible(sweep, {true, true}).empty());
}

Recommendation sample() {
  Recommendation rec;
  rec.best = {"threads", 2, 1, 500000};
  rec.fastest = {"uring", 2, 64, 512345.5};
  rec.within_noise = {{"uring", 2, 64, 512345.5}, {"fast-pool", 4, 1, 499000}};
  rec.compared = 12;
  rec.knee_threads = 2;
  rec.pregrow_to = 2064;
  return rec;
}

TEST(RecommendationJson, RoundTripsThroughASavedFile) {
  const testing::TempDir dir;
  const std::string path = dir.path() + "/rec.json";
  for (Recommendation rec : {sample(), Recommendation{}}) {
    std::ofstream(path) << recommendation_json(rec);
    if (rec.best.strategy.empty()) {  // the default has no strategy: not a recommendation
      EXPECT_THROW(load_recommendation(path), Error);
      continue;
    }
    EXPECT_EQ(load_recommendation(path), rec);
  }
  const auto json = nlohmann::json::parse(recommendation_json(sample()));
  EXPECT_EQ(json.at("strategy"), "threads");
  EXPECT_EQ(json.at("fastest").at("strategy"), "uring");
  EXPECT_EQ(json.at("within_noise").size(), 2U);
  EXPECT_EQ(json.at("compared"), 12);
  EXPECT_EQ(json.at("inconclusive"), false);
  EXPECT_EQ(json.at("pregrow_to"), 2064);
}

// A file saved before the recommendation named the simplest of equals: its best was the
// fastest, and it compared the settings it names.
TEST(RecommendationJson, AnOlderFileReadsWithItsBestAsTheFastest) {
  auto json = nlohmann::json::parse(recommendation_json(sample()));
  json.erase("fastest");
  json.erase("compared");
  json.erase("inconclusive");
  const Recommendation rec = parse_recommendation(json.dump());
  EXPECT_EQ(rec.fastest, rec.best);
  EXPECT_EQ(rec.compared, 3);
}

TEST(RecommendationJson, AWholeTuneDocumentIsReadToo) {
  const std::string document = R"({"schema_version": 1, "results": [], "recommendation": )" +
                               recommendation_json(sample()) + "}";
  EXPECT_EQ(parse_recommendation(document), sample());
  EXPECT_THROW(parse_recommendation(R"({"results": [], "recommendation": null})"), Error);
}

std::string error_of(std::string_view text) {
  try {
    parse_recommendation(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(RecommendationJson, MalformedInputNamesWhatIsWrong) {
  EXPECT_NE(error_of("{").find("not JSON"), std::string::npos);
  EXPECT_NE(error_of("[]").find("recommendation: expected an object"), std::string::npos);
  auto json = nlohmann::json::parse(recommendation_json(sample()));
  json["threads"] = 0;
  EXPECT_NE(error_of(json.dump()).find("recommendation.threads: expected a whole number"),
            std::string::npos);
  json = nlohmann::json::parse(recommendation_json(sample()));
  json.erase("knee_threads");
  EXPECT_NE(error_of(json.dump()).find("recommendation.knee_threads: missing"), std::string::npos);
  json = nlohmann::json::parse(recommendation_json(sample()));
  json["within_noise"][1]["strategy"] = 3;
  EXPECT_NE(error_of(json.dump()).find("recommendation.within_noise[1].strategy"),
            std::string::npos);
  json = nlohmann::json::parse(recommendation_json(sample()));
  json["ops_per_sec"] = "fast";
  EXPECT_NE(error_of(json.dump()).find("ops_per_sec"), std::string::npos);
}

TEST(RecommendationJson, AMissingFileIsNamed) {
  try {
    load_recommendation("/nonexistent/rec.json");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/rec.json"), std::string::npos);
  }
}

}  // namespace recommendation_test
}  // namespace fdbench
