// parse_results_json reads a document as a stream, each result as its element of "results"
// ends (issue 39 item 12): on the documents of real runs it reads what a reader of each result
// alone reads, wherever "results" stands among the document's keys, and a wrong result is said
// only after the document's header, as a reader of the whole tree says it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "fdbench/error.hpp"
#include "model/results_json.hpp"
#include "output/reporter.hpp"
#include "support/parse_error.hpp"

namespace fdbench {
namespace results_stream_test {

std::string read_whole(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A result as the writer writes it: what two reads are compared by.
std::string written(const Environment& env, const Result& result) {
  return to_json_document(env, std::vector<Result>{result}, {});
}

using testing::parse_error_of;

TEST(ResultsStream, ReadsEachResultOfRealRunsAsItAloneReads) {
  int documents = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FDBENCH_RUNS_DIR)) {
    if (entry.path().extension() != ".json") continue;
    ++documents;
    const std::string name = entry.path().filename().string();
    const std::string text = read_whole(entry.path());
    const ResultsDocument doc = parse_results_json(text);
    const nlohmann::json tree = nlohmann::json::parse(text);
    ASSERT_EQ(doc.results.size(), tree["results"].size()) << name;
    for (std::size_t i = 0; i < doc.results.size(); ++i) {
      nlohmann::json alone = tree;
      alone["results"] = nlohmann::json::array({tree["results"][i]});
      const ResultsDocument one = parse_results_json(alone.dump());
      ASSERT_EQ(one.results.size(), 1U);
      EXPECT_EQ(written(doc.environment, doc.results[i]),
                written(doc.environment, one.results[0]))
          << name << " results[" << i << "]";
    }
    // "results" first, then last among the keys; a "results" key nested deeper is not it.
    for (const bool first : {true, false}) {
      nlohmann::ordered_json reordered;
      if (first) reordered["results"] = tree["results"];
      for (const auto& [key, value] : tree.items()) {
        if (key != "results") reordered[key] = value;
      }
      if (!first) reordered["results"] = tree["results"];
      reordered["environment"]["results"] = nlohmann::json::array({1, 2});
      const ResultsDocument again = parse_results_json(reordered.dump(2));
      ASSERT_EQ(again.results.size(), doc.results.size()) << name;
      for (std::size_t i = 0; i < doc.results.size(); ++i) {
        EXPECT_EQ(written(doc.environment, again.results[i]),
                  written(doc.environment, doc.results[i]))
            << name << (first ? " results first" : " results last") << " [" << i << "]";
      }
    }
  }
  EXPECT_GE(documents, 4);
}

TEST(ResultsStream, AWrongResultIsSaidAfterTheHeaderAndNamesItsIndex) {
  std::filesystem::path any;
  for (const auto& entry : std::filesystem::directory_iterator(FDBENCH_RUNS_DIR)) {
    if (entry.path().extension() == ".json") any = entry.path();
  }
  nlohmann::json tree = nlohmann::json::parse(read_whole(any));
  ASSERT_GE(tree["results"].size(), 2U);
  tree["results"][1]["times_ns"] = "soon";
  const std::string wrong = parse_error_of(tree.dump());
  EXPECT_EQ(wrong.rfind("results[1].times_ns", 0), 0U) << wrong;
  tree["schema_version"] = 99;  // written after "results", and still said first
  const std::string newer = parse_error_of(tree.dump());
  EXPECT_EQ(newer.rfind("schema_version 99 is not supported", 0), 0U) << newer;
  tree["schema_version"] = kSchemaVersion;
  tree["results"] = nlohmann::json::array({1});
  const std::string message = parse_error_of(tree.dump());
  EXPECT_NE(message.find("results[0]"), std::string::npos) << message;
  tree["results"] = nlohmann::json::object();
  EXPECT_EQ(parse_error_of(tree.dump()), "results: expected an array");
}

}  // namespace results_stream_test
}  // namespace fdbench
