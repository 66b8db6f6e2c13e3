// --order and --trace-out: each result gets exactly --repeat timed repetitions in either
// order, and the calls' own timestamps (--trace-out) show the order the repetitions ran in:
// interleaved, every result's k-th repetition before any result's (k+1)-th; sequential, every
// repetition of one result before the next result's first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace order_test {

struct Span {
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  int rows = 0;
};

// --trace-out's rows, by (result, repetition): when its calls began, first and last.
std::map<std::pair<int, int>, Span> spans_of(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line,
            "result,strategy,threads,pregrow,repetition,worker,index,op,start_ns,"
            "duration_ns,fd");
  std::map<std::pair<int, int>, Span> spans;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    if (line.back() == ',') cells.emplace_back();
    EXPECT_EQ(cells.size(), 11U) << line;
    if (cells.size() != 11) continue;
    Span& s = spans[{std::stoi(cells[0]), std::stoi(cells[4])}];
    const std::int64_t start = std::stoll(cells[8]);
    s.first = std::min(s.first, start);
    s.last = std::max(s.last, start);
    ++s.rows;
    EXPECT_GE(std::stoll(cells[9]), 0) << line;
    // Workers are numbered 0 ... T-1 within a result, whatever ran between its repetitions.
    const int worker = std::stoi(cells[5]);
    EXPECT_GE(worker, 0) << line;
    EXPECT_LT(worker, std::stoi(cells[2])) << line;
  }
  return spans;
}

class Order : public ::testing::Test {
 protected:
  // Runs fdbench with `args` and --trace-out; every result has `repeat` timed repetitions
  // and says `order`; returns the trace's spans.
  std::map<std::pair<int, int>, Span> run(std::vector<std::string> args, const std::string& order,
                                          std::size_t results, int repeat) {
    const std::string trace = out_ / "calls.csv";
    args.insert(args.end(), {"--repeat", std::to_string(repeat), "--warmup", "1", "--order", order,
                             "--trace-out", trace, "--format", "json"});
    const RunResult r = run_fdbench(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("fdbench: wrote " + trace), std::string::npos) << r.err;
    const auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc.at("results").size(), results);
    for (const auto& result : doc.at("results")) {
      EXPECT_EQ(result.at("times_ns").size(), static_cast<std::size_t>(repeat)) << result.dump();
      EXPECT_EQ(result.at("parameters").at("order"), order);
    }
    return spans_of(read_text(trace));
  }

  FastTempDir dir_;
  TempDir out_;
};

std::vector<std::string> open_args(const std::string& dir) {
  return {"open", "--files", "20", "--threads", "1,2", "--strategy", "threads,pool", "--dir", dir};
}

TEST_F(Order, InterleavedRunsEveryResultsKthRepetitionBeforeAnyKPlusFirst) {
  const auto spans = run(open_args(dir_.path()), "interleaved", 4, 3);
  ASSERT_EQ(spans.size(), 12U);
  for (int rep = 0; rep + 1 < 3; ++rep) {
    for (int a = 0; a < 4; ++a) {
      for (int b = 0; b < 4; ++b) {
        EXPECT_LT(spans.at({a, rep}).last, spans.at({b, rep + 1}).first)
            << "result " << a << " repetition " << rep << " ran after result " << b
            << " repetition " << rep + 1;
      }
    }
  }
  for (const auto& [key, span] : spans) EXPECT_EQ(span.rows, 40) << "20 opens and 20 closes";
}

TEST_F(Order, SequentialRunsEachResultsRepetitionsBackToBack) {
  const auto spans = run(open_args(dir_.path()), "sequential", 4, 3);
  ASSERT_EQ(spans.size(), 12U);
  for (int a = 0; a + 1 < 4; ++a) {
    EXPECT_LT(spans.at({a, 2}).last, spans.at({a + 1, 0}).first);
  }
}

TEST_F(Order, FreshChildrenInterleaveToo) {
  const auto spans = run({"socket", "--threads", "1,2", "--per-thread", "16"}, "interleaved", 4, 2);
  ASSERT_EQ(spans.size(), 8U);
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) EXPECT_LT(spans.at({a, 0}).last, spans.at({b, 1}).first);
  }
}

TEST(TraceOutErrors, RefusedInOneLine) {
  TempDir out;
  const std::string file = out / "calls.csv";
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"socket", "--no-latency", "--trace-out", file}, "drop --no-latency"},
      {{"socket", "--trace-out", file, "--output", file}, "--output writes that file too"},
      {{"socket", "--trace-out", out / "missing/calls.csv"}, "--trace-out"},
      {{"socket", "--order", "random"}, "--order: unknown value 'random'"},
  };
  for (const auto& c : cases) {
    const RunResult r = run_fdbench(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
  EXPECT_FALSE(exists(file));
}

}  // namespace order_test
}  // namespace fdbench::testing
