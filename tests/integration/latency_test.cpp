// --latency on real calls: 2 threads × 256 sockets from the kernel's smallest table grow it
// at fds 64, 128, 256 and 512 in every repetition, and not at all when it was grown first;
// a strategy that issues its calls outside the timed loop says so instead of a figure; the
// JSON round trip keeps every field. Behaviour, never speed.
#include <fcntl.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fdbench/measure.hpp"
#include "fdbench/platform.hpp"
#include "fdbench/reporter.hpp"
#include "fdbench/results_json.hpp"
#include "fdbench/strategy.hpp"

namespace fdbench {
namespace {

constexpr int kRepeat = 3;

Result traced_sockets(const char* strategy, const Pregrow& pregrow) {
  const StrategyInfo* info = find_strategy(strategy);
  EXPECT_NE(info, nullptr);
  MeasureExtras extras;
  extras.latency = true;
  return measure_in_fresh_child(socket_workload_recipe(SocketKind::tcp, 512), *info, {2, 1},
                                pregrow, kRepeat, 1, extras);
}

TEST(Latency, SocketsFromTheSmallestTableGrowItAtEachPowerOfTwo) {
  if (!platform::uses_linux_interfaces()) GTEST_SKIP() << "the table size is Linux's to show";
  const Result r = traced_sockets("threads", Pregrow{});
  ASSERT_TRUE(r.ok()) << r.error << r.first_failure;
  ASSERT_TRUE(r.latency.has_value());
  const Latency& l = *r.latency;
  ASSERT_EQ(l.ns.count("create"), 1U);
  EXPECT_EQ(l.ns.at("create").count, 512U * kRepeat);
  EXPECT_EQ(l.ns.count("close"), 0U);  // sockets are held
  ASSERT_EQ(l.growth_events.size(), 4U * kRepeat);
  for (int rep = 0; rep < kRepeat; ++rep) {
    std::vector<int> fds;
    for (const auto& g : l.growth_events) {
      if (g.repetition == rep) {
        fds.push_back(g.fd);
        EXPECT_TRUE(g.shared);  // two workers alive
        EXPECT_GE(g.ns, 0);
      }
    }
    EXPECT_EQ(fds, (std::vector<int>{64, 128, 256, 512})) << "repetition " << rep;
  }
  EXPECT_EQ(l.growth_totals.count, 4U * kRepeat);
  for (const auto& s : l.stalls) {
    EXPECT_EQ(s.op, "create");
    EXPECT_TRUE(s.cause == "fd-table-growth" || s.cause == "waiting-on-growth" ||
                s.cause == "unexplained")
        << s.cause;
  }
}

TEST(Latency, NoGrowthWhenTheTableWasGrownFirst) {
  if (!platform::uses_linux_interfaces()) GTEST_SKIP() << "the table size is Linux's to show";
  const Result r = traced_sockets("threads", Pregrow{Pregrow::Mode::automatic, 0});
  ASSERT_TRUE(r.ok()) << r.error << r.first_failure;
  ASSERT_TRUE(r.latency.has_value());
  EXPECT_TRUE(r.latency->growth_events.empty());
  EXPECT_EQ(r.latency->growth_totals.count, 0U);
  for (const auto& s : r.latency->stalls) EXPECT_NE(s.cause, "fd-table-growth");
}

TEST(Latency, AStrategyOutsideTheTimedLoopSaysSo) {
  const Result r = traced_sockets("process", Pregrow{});
  ASSERT_TRUE(r.ok()) << r.error << r.first_failure;
  EXPECT_FALSE(r.latency.has_value());
  ASSERT_EQ(r.parameters.count("latency"), 1U);
  EXPECT_TRUE(r.parameters.at("latency").starts_with("not recorded")) << r.parameters.at("latency");
}

TEST(Latency, OpenInThisProcessTimesOpensAndClosesApart) {
  PathTable paths;
  for (int i = 0; i < 200; ++i) paths.add("/dev/null");
  const auto work = make_open_workload(AT_FDCWD, "/", paths);
  MeasureExtras extras;
  extras.latency = true;
  const Result r = measure(*work, *find_strategy("fast-pool"), {2, 1}, 2, 0, extras);
  ASSERT_TRUE(r.ok()) << r.error << r.first_failure;
  ASSERT_TRUE(r.latency.has_value());
  EXPECT_EQ(r.latency->ns.at("open").count, 400U);
  EXPECT_EQ(r.latency->ns.at("close").count, 400U);
  EXPECT_TRUE(r.latency->growth_events.empty());  // each closed at once: low fds reused
}

TEST(Latency, JsonKeepsEveryField) {
  const Result r = traced_sockets("threads", Pregrow{});
  ASSERT_TRUE(r.latency.has_value());
  const std::vector<Result> results{r};
  const auto doc = parse_results_json(to_json_document(Environment{}, results));
  ASSERT_EQ(doc.results.size(), 1U);
  ASSERT_TRUE(doc.results[0].latency.has_value());
  EXPECT_EQ(*doc.results[0].latency, *r.latency);
}

}  // namespace
}  // namespace fdbench
