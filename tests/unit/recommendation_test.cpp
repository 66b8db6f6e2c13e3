// tune's recommendation on hand-built sweeps: the best adoptable result, the alternatives
// within noise, the knee, pregrow_to, and the JSON a program reads back.
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

using testing::ResultBuilder;

// Nine repetitions around `ns` (±1%): a 95% median interval of about ±1% of it.
ResultBuilder around(ResultBuilder b, std::int64_t ns) {
  std::vector<std::int64_t> times;
  for (int i = -4; i <= 4; ++i) times.push_back(ns + ns / 400 * i);
  return std::move(b.ops(10000).times(times));
}

TEST(Recommendation, BestIsTheFastestAndTheKneeTheFewestThreadsWithinNoise) {
  const std::vector<Result> sweep = {
      around(ResultBuilder::open("threads", 1), 40'000'000),
      around(ResultBuilder::open("threads", 2), 20'000'000),
      around(ResultBuilder::open("threads", 4), 19'900'000),
      around(ResultBuilder::open("fast-pool", 2), 30'000'000),
  };
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->best.strategy, "threads");
  EXPECT_EQ(rec->best.threads, 4);
  EXPECT_DOUBLE_EQ(rec->best.ops_per_sec, sweep[2].ops_per_sec);
  ASSERT_EQ(rec->within_noise.size(), 1U);
  EXPECT_EQ(rec->within_noise[0].threads, 2);
  EXPECT_EQ(rec->knee_threads, 2);
  EXPECT_FALSE(rec->pregrow_to.has_value());  // open+close holds nothing
}

TEST(Recommendation, TheKneeKeepsToTheBestBatch) {
  const std::vector<Result> sweep = {
      around(ResultBuilder::open("uring", 1).batch(16), 20'050'000),
      around(ResultBuilder::open("uring", 2).batch(256), 20'000'000),
      around(ResultBuilder::open("uring", 4).batch(256), 30'000'000),
  };
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->best.batch, 256);
  EXPECT_EQ(rec->knee_threads, 2);  // 1 thread is within noise, but with another batch
  ASSERT_EQ(rec->within_noise.size(), 1U);
  EXPECT_EQ(rec->within_noise[0].batch, 16);
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

TEST(Recommendation, ATieGoesToTheEarlierResultAndTheOtherIsWithinNoise) {
  const std::vector<Result> sweep = {
      around(ResultBuilder::open("fast-pool", 2), 20'000'000),
      around(ResultBuilder::open("threads", 2), 20'000'000),
  };
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->best.strategy, "fast-pool");
  ASSERT_EQ(rec->within_noise.size(), 1U);
  EXPECT_EQ(rec->within_noise[0].strategy, "threads");
}

// Four repetitions give no 95% interval: by the one rule (separation()) nothing is separated
// from the best, so every other setting is listed, however far apart the ranges look.
TEST(Recommendation, TooFewRepetitionsSeparateNoSettingFromTheBest) {
  const std::vector<Result> sweep = {
      ResultBuilder::open("threads", 2)
          .ops(10000)
          .times({20'000'000, 20'100'000, 20'200'000, 20'300'000}),
      ResultBuilder::open("fast-pool", 2)
          .ops(10000)
          .times({80'000'000, 80'100'000, 80'200'000, 80'300'000}),
  };
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->best.strategy, "threads");
  ASSERT_EQ(rec->within_noise.size(), 1U);
  EXPECT_EQ(rec->within_noise[0].strategy, "fast-pool");
}

TEST(Recommendation, HeldDescriptorsNeedThePregrowSize) {
  const std::vector<Result> sweep = {
      around(ResultBuilder::open("threads", 2).holds_descriptors(true).pregrow("auto"), 20'000'000),
  };
  const auto rec = recommend_from(sweep);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->pregrow_to, 10000 + kProgramDescriptors);
}

Recommendation sample() {
  Recommendation rec;
  rec.best = {"uring", 2, 64, 512345.5};
  rec.within_noise = {{"threads", 2, 1, 500000}, {"fast-pool", 4, 1, 499000}};
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
  EXPECT_EQ(json.at("strategy"), "uring");
  EXPECT_EQ(json.at("within_noise").size(), 2U);
  EXPECT_EQ(json.at("pregrow_to"), 2064);
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
