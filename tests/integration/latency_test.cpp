// --latency on real calls: 2 threads × 256 sockets from the kernel's smallest table grow it
// at fds 64, 128, 256 and 512 in every repetition, and not at all when it was grown first;
// a strategy that issues its calls outside the timed loop says so instead of a figure; the
// io_uring strategies time each submission (a batch), which grows the table for uring and
// never for uring-direct; the JSON round trip keeps every field. Behaviour, never speed.
#include <fcntl.h>
#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <vector>

#include "engine/measure.hpp"
#include "engine/strategy.hpp"
#include "model/results_json.hpp"
#include "output/reporter.hpp"
#include "platform/platform.hpp"
#include "support/require.hpp"

namespace fdbench {
namespace latency_test {

constexpr int kRepeat = 3;

Result traced_sockets(const char* strategy, const Pregrow& pregrow, int batch = 1) {
  const StrategyInfo* info = find_strategy(strategy);
  EXPECT_NE(info, nullptr);
  MeasureExtras extras;
  extras.latency = true;
  return measure_in_fresh_child(socket_workload_recipe(SocketKind::tcp, 512), *info, {2, batch},
                                pregrow, kRepeat, 1, extras);
}

// Skips a test of an io_uring strategy where it cannot run, or cannot create sockets.
#define SKIP_WITHOUT(strategy)                                                                   \
  do {                                                                                           \
    if (const auto reason = find_strategy(strategy)->unavailable_reason(); !reason.empty())      \
      FDBENCH_SKIP_WITHOUT(testing::strategy_feature(strategy)) << (strategy) << ": " << reason; \
  } while (0)
#define SKIP_IF_NO_URING_SOCKETS(r)                              \
  do {                                                           \
    if ((r).error.find("IORING_OP_SOCKET") != std::string::npos) \
      FDBENCH_SKIP_WITHOUT("uring") << (r).error;                \
  } while (0)

// Submission records per worker: ceil(share / batch).
std::uint64_t submissions(std::uint64_t share, std::uint64_t batch) {
  return (share + batch - 1) / batch;
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

TEST(Latency, UringTimesEachSubmissionOfABatchAndItsCloses) {
  SKIP_WITHOUT("uring");
  PathTable paths;
  for (int i = 0; i < 201; ++i) paths.add("/dev/null");
  const auto work = make_open_workload(AT_FDCWD, "/", paths);
  MeasureExtras extras;
  extras.latency = true;
  const Result r = measure(*work, *find_strategy("uring"), {2, 16}, 2, 1, extras);
  ASSERT_TRUE(r.ok()) << r.error << r.first_failure;
  ASSERT_TRUE(r.latency.has_value());
  const Latency& l = *r.latency;
  // Shares of 100 and 101 items: 7 batches each, per repetition.
  const std::uint64_t expected = 2 * (submissions(100, 16) + submissions(101, 16));
  ASSERT_EQ(l.ns.count(kSubmitOp), 1U);
  EXPECT_EQ(l.ns.at(kSubmitOp).count, expected);
  ASSERT_EQ(l.ns.count(kSubmitCloseOp), 1U);  // each batch's closes: a submission of their own
  EXPECT_EQ(l.ns.at(kSubmitCloseOp).count, expected);
  EXPECT_EQ(l.ns.count("open"), 0U);
  EXPECT_EQ(l.ns.count("close"), 0U);
  ASSERT_EQ(r.parameters.count("latency"), 1U);
  EXPECT_TRUE(r.parameters.at("latency").starts_with("per submission"))
      << r.parameters.at("latency");
  EXPECT_NE(r.parameters.at("latency").find("up to 16 items"), std::string::npos);
}

TEST(Latency, UringSocketsGrowTheTableBySubmission) {
  if (!platform::uses_linux_interfaces()) GTEST_SKIP() << "the table size is Linux's to show";
  SKIP_WITHOUT("uring");
  const Result r = traced_sockets("uring", Pregrow{}, 64);
  SKIP_IF_NO_URING_SOCKETS(r);
  ASSERT_TRUE(r.ok()) << r.error << r.first_failure;
  ASSERT_TRUE(r.latency.has_value());
  const Latency& l = *r.latency;
  EXPECT_EQ(l.ns.at(kSubmitOp).count, kRepeat * 2 * submissions(256, 64));
  EXPECT_EQ(l.ns.count("create"), 0U);
  // From the child's 64 slots to the 1024 its 512 sockets need, in submissions: each event
  // a batch whose highest descriptor did not fit the table as it was, one after the other.
  for (int rep = 0; rep < kRepeat; ++rep) {
    int size = 64;
    for (const auto& g : l.growth_events) {
      if (g.repetition != rep) continue;
      EXPECT_EQ(g.fdsize_before, size) << "repetition " << rep;
      EXPECT_GE(g.fd, g.fdsize_before);
      EXPECT_EQ(g.fdsize_after, static_cast<int>(std::bit_ceil(static_cast<unsigned>(g.fd) + 1)));
      EXPECT_TRUE(g.shared);  // two ring workers alive
      size = g.fdsize_after;
    }
    EXPECT_EQ(size, 1024) << "repetition " << rep;
  }
  for (const auto& s : l.stalls) EXPECT_EQ(s.op, kSubmitOp);
}

TEST(Latency, UringDirectSubmissionsNeverGrowTheTable) {
  SKIP_WITHOUT("uring-direct");
  const Result r = traced_sockets("uring-direct", Pregrow{}, 64);
  SKIP_IF_NO_URING_SOCKETS(r);
  ASSERT_TRUE(r.ok()) << r.error << r.first_failure;
  ASSERT_TRUE(r.latency.has_value());
  const Latency& l = *r.latency;
  EXPECT_EQ(l.ns.at(kSubmitOp).count, kRepeat * 2 * submissions(256, 64));
  EXPECT_TRUE(l.growth_events.empty());
  EXPECT_EQ(l.growth_totals.count, 0U);
  for (const auto& s : l.stalls) {
    EXPECT_EQ(s.fd, -1);  // ring slots are no descriptors of the table
    EXPECT_NE(s.cause, "fd-table-growth");
  }
  EXPECT_TRUE(r.parameters.at("latency").starts_with("per submission"));
}

TEST(Latency, UringDirectLinkedClosesAreInTheOneSubmission) {
  SKIP_WITHOUT("uring-direct");
  PathTable paths;
  for (int i = 0; i < 100; ++i) paths.add("/dev/null");
  const auto work = make_open_workload(AT_FDCWD, "/", paths);
  MeasureExtras extras;
  extras.latency = true;
  const Result r = measure(*work, *find_strategy("uring-direct"), {1, 32}, 2, 0, extras);
  ASSERT_TRUE(r.ok()) << r.error << r.first_failure;
  ASSERT_TRUE(r.latency.has_value());
  EXPECT_EQ(r.latency->ns.at(kSubmitOp).count, 2 * submissions(100, 32));
  EXPECT_EQ(r.latency->ns.count(kSubmitCloseOp), 0U);  // the default: closes linked to opens
  EXPECT_TRUE(r.latency->growth_events.empty());
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

// A unity build compiles the next file in the same translation unit.
#undef SKIP_WITHOUT
#undef SKIP_IF_NO_URING_SOCKETS

}  // namespace latency_test
}  // namespace fdbench
