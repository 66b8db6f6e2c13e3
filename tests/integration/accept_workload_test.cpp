// The accept workload with real connections: every strategy that can accept takes the whole
// burst, each connection once, with no failed call and nothing left behind (no descriptor in
// this process, no client process); the burst is refused where the backlog cannot hold it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cerrno>
#include <string>

#include "engine/measure.hpp"
#include "engine/strategy.hpp"
#include "platform/platform.hpp"

namespace fdbench {
namespace accept_workload_test {

constexpr std::size_t kConnections = 150;

// No child of this process is left, reaped or not.
bool no_children_left() {
  errno = 0;
  return waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD;
}

class EveryAcceptor : public ::testing::TestWithParam<AcceptKind> {};

TEST_P(EveryAcceptor, TakesTheWholeBurstOnceWithoutLeaks) {
  const AcceptKind kind = GetParam();
  int measured = 0;
  for (const StrategyInfo& info : strategy_registry()) {
    SCOPED_TRACE(std::string(info.name));
    const StrategyConfig config{3, 16};
    if (!unavailable_reason(info, config, ItemSpec::Op::accept_connection).empty()) continue;
    const auto held_before = platform::open_descriptors();
    const WorkloadRecipe recipe =
        accept_workload_recipe(kind, kConnections, info.listener_per_worker ? 3 : 1);
    MeasureExtras extras;
    extras.latency = true;
    const Result r = measure_in_fresh_child(recipe, info, config,
                                            Pregrow{Pregrow::Mode::automatic, 0}, 2, 1, extras);
    EXPECT_EQ(platform::open_descriptors(), held_before) << "the parent leaked a descriptor";
    EXPECT_TRUE(no_children_left()) << "a server or client process was left";
    if (r.status == Status::unavailable) continue;  // reuseport on a Unix socket, no ::1
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.failures, 0U) << r.first_failure;
    EXPECT_EQ(r.times_ns.size(), 2U);
    EXPECT_EQ(r.ops, kConnections);
    EXPECT_EQ(r.workload, "accept");
    EXPECT_EQ(r.workload_kind, WorkloadKind::accept);
    if (info.latency_not_recorded.empty()) {
      ASSERT_TRUE(r.latency.has_value());
    }
    ++measured;
  }
  if (kind != AcceptKind::tcp6) {
    EXPECT_GE(measured, 4);  // threads, fast-pool, process, ...
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, EveryAcceptor,
                         ::testing::Values(AcceptKind::tcp, AcceptKind::tcp6,
                                           AcceptKind::unix_stream),
                         [](const auto& param_info) {
                           return std::string(to_string(param_info.param));
                         });

TEST(AcceptBacklog, ABurstBeyondTheSystemsCapIsRefusedWithTheNumbers) {
  const auto most = platform::somaxconn();
  if (!most) GTEST_SKIP() << "this system does not say its backlog cap";
  EXPECT_EQ(accept_backlog_refusal(static_cast<std::size_t>(*most)), "");
  const std::string why = accept_backlog_refusal(static_cast<std::size_t>(*most) + 1);
  EXPECT_NE(why.find("somaxconn"), std::string::npos) << why;
  EXPECT_NE(why.find(std::to_string(*most)), std::string::npos) << why;
}

}  // namespace accept_workload_test
}  // namespace fdbench
