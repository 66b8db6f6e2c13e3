// fdbench trace's reading of hand-made kernel records: calls paired from entry to return,
// failures by errno, growths of the traced process's table with the threads sharing it, the
// off-CPU time inside the calls by cause, records drained out of order, and the findings.
#include "engine/descriptor_trace.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>

#include <string>
#include <vector>

#include "analysis/trace_findings.hpp"
#include "output/trace_text.hpp"

namespace fdbench {
namespace descriptor_trace_test {

using Kind = platform::KernelEvent::Kind;
constexpr int kPid = 500;
constexpr std::int64_t kUs = 1'000;
constexpr std::int64_t kStart = 1'000'000'000;

const std::vector<std::string> kFunctions = {"__schedule",   "schedule", "synchronize_rcu_normal",
                                             "expand_files", "alloc_fd", "do_sys_openat2"};

std::string_view symbol(std::uint64_t address) {
  return address >= 1 && address <= kFunctions.size() ? std::string_view(kFunctions[address - 1])
                                                      : std::string_view();
}

class Records {
 public:
  Records& call(int tid, std::int64_t from_us, std::int64_t to_us, long nr, std::int64_t result,
                std::int64_t argument = 0) {
    platform::KernelEvent in{Kind::call_entered, false, kPid, tid, kStart + from_us * kUs};
    in.call = static_cast<std::int32_t>(nr);
    in.value = argument;
    platform::KernelEvent back{Kind::call_returned, false, kPid, tid, kStart + to_us * kUs};
    back.call = static_cast<std::int32_t>(nr);
    back.value = result;
    r_.events.push_back(in);
    r_.events.push_back(back);
    return *this;
  }
  // `tid` is off its CPU over [from, to) waiting in expand_files: for a grace period or not.
  Records& off(int tid, std::int64_t from_us, std::int64_t to_us, bool grace) {
    platform::KernelEvent stack{Kind::stack, false, kPid, tid, kStart + from_us * kUs};
    stack.frames_begin = static_cast<std::uint32_t>(r_.frames.size());
    for (const std::uint64_t f : grace ? std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6}
                                       : std::vector<std::uint64_t>{1, 2, 4, 5, 6}) {
      r_.frames.push_back(f);
    }
    stack.frames_size = grace ? 6 : 5;
    r_.events.push_back(stack);
    r_.events.push_back({Kind::switched_out, false, kPid, tid, kStart + from_us * kUs});
    r_.events.push_back({Kind::switched_in, false, kPid, tid, kStart + to_us * kUs});
    return *this;
  }
  Records& thread_started(int tid, std::int64_t at_us) {
    r_.events.push_back({Kind::forked, false, kPid, tid, kStart + at_us * kUs});
    return *this;
  }
  // In time order, as a drain gives them (the hand-made events interleave).
  platform::KernelRecords done() {
    std::stable_sort(r_.events.begin(), r_.events.end(),
                     [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; });
    return r_;
  }

 private:
  platform::KernelRecords r_;
};

// The portable facade knows no system call by its number: there the records mean nothing.
class TraceRecords : public ::testing::Test {
 protected:
  void SetUp() override {
    if (platform::descriptor_call(SYS_openat, 0).name.empty()) {
      GTEST_SKIP() << "this build's platform layer does not trace system calls (Linux only)";
    }
  }
};

TraceReport trace(const platform::KernelRecords& records, int table_slots = 64) {
  DescriptorTrace t(TraceStart{kPid, kStart, table_slots, 1, true}, symbol);
  t.add(records, kStart + 1'000'000 * kUs);
  return t.finish(kStart + 1'000'000 * kUs);
}

TEST_F(TraceRecords, CountsCallsAndFailuresByErrno) {
  Records r;
  for (int i = 0; i < 10; ++i) r.call(kPid, i * 10, i * 10 + 2, SYS_openat, 3 + i);
  r.call(kPid, 200, 201, SYS_openat, -ENOENT);
  r.call(kPid, 300, 301, SYS_close, 0);
  r.call(kPid, 400, 401, SYS_fcntl, 0, F_GETFL);  // not a descriptor-creating fcntl
  r.call(kPid, 500, 503, SYS_fcntl, 20, F_DUPFD_CLOEXEC);
  const TraceReport report = trace(r.done());
  ASSERT_EQ(report.creating.size(), 2U);
  EXPECT_EQ(report.creating[0].call, "openat");
  EXPECT_EQ(report.creating[0].count, 11U);
  EXPECT_EQ(report.creating[0].failures_by_errno.at("ENOENT"), 1U);
  EXPECT_EQ(report.creating[0].total_ns, 21 * kUs);
  EXPECT_EQ(report.creating[0].max_ns, 2 * kUs);
  EXPECT_EQ(report.creating[1].call, "fcntl");
  EXPECT_EQ(report.all_creating.count, 12U);
  EXPECT_EQ(report.closes.count, 1U);
  ASSERT_EQ(report.threads.size(), 1U);
  EXPECT_EQ(report.threads[0].created, 12U);
  EXPECT_TRUE(report.growths.empty());
}

TEST_F(TraceRecords, AGrowthIsACallWhoseDescriptorIsPastTheTable) {
  Records r;
  r.call(kPid, 10, 12, SYS_openat, 63);
  r.call(kPid, 20, 25, SYS_openat, 64);  // 64 -> 128
  r.call(kPid, 30, 32, SYS_openat, 65);
  r.call(kPid, 40, 48, SYS_dup2, 300);  // 128 -> 512
  r.call(kPid, 50, 51, SYS_pipe2, 0);   // its descriptors are not seen
  const TraceReport report = trace(r.done());
  ASSERT_EQ(report.growths.size(), 2U);
  EXPECT_EQ(report.growths[0].from_slots, 64);
  EXPECT_EQ(report.growths[0].to_slots, 128);
  EXPECT_EQ(report.growths[0].fd, 64);
  EXPECT_EQ(report.growths[0].call_ns, 5 * kUs);
  EXPECT_EQ(report.growths[0].at_ns, 20 * kUs);
  EXPECT_EQ(report.growths[0].threads_sharing, 1);
  EXPECT_EQ(report.growths[1].call, "dup2");
  EXPECT_EQ(report.growths[1].to_slots, 512);
  const auto findings = trace_findings(report, "prog");
  ASSERT_GE(findings.size(), 2U);
  EXPECT_EQ(findings[1].kind, "trace-growth-alone");
}

TEST_F(TraceRecords, SharedGrowthsWaitForGracePeriodsAndTheirSiblings) {
  const int sibling = kPid + 1;
  Records r;
  r.thread_started(sibling, 1);
  r.call(kPid, 10, 9000, SYS_openat, 64).off(kPid, 11, 8999, true);
  r.call(sibling, 20, 9001, SYS_socket, 65).off(sibling, 21, 9000, false);
  const TraceReport report = trace(r.done());
  ASSERT_EQ(report.growths.size(), 1U);
  EXPECT_EQ(report.growths[0].threads_sharing, 2);
  const auto cause = [&](OffCpuCause c) {
    return report.all_creating.off_cpu[static_cast<std::size_t>(c)];
  };
  EXPECT_EQ(cause(OffCpuCause::fd_table_growth), (8999 - 11) * kUs);
  EXPECT_EQ(cause(OffCpuCause::waiting_on_growth), (9000 - 21) * kUs);
  EXPECT_EQ(report.growths[0].off_cpu[static_cast<std::size_t>(OffCpuCause::fd_table_growth)],
            (8999 - 11) * kUs);
  EXPECT_EQ(report.grace_period, "normal");
  const auto findings = trace_findings(report, "prog");
  ASSERT_GE(findings.size(), 2U);
  EXPECT_EQ(findings[1].kind, "trace-growth-shared");
  EXPECT_NE(findings[1].text.find("fdbench pregrow 128 -- prog"), std::string::npos)
      << findings[1].text;
}

TEST_F(TraceRecords, RecordsDrainedLateAreReadInTimeOrder) {
  // The call's return comes in a later drain than its entry; a record older than the first
  // drain's settled time waits for nothing, later ones wait for the next drain.
  Records first;
  first.call(kPid, 10, 15, SYS_openat, 64);
  platform::KernelRecords one = first.done();
  platform::KernelRecords two;
  two.events.push_back(one.events.back());
  one.events.pop_back();
  DescriptorTrace t(TraceStart{kPid, kStart, 64, 1, true}, symbol);
  t.add(one, kStart + 12 * kUs);
  t.add(two, kStart + 100 * kUs);
  const TraceReport report = t.finish(kStart + 100 * kUs);
  EXPECT_EQ(report.all_creating.count, 1U);
  EXPECT_EQ(report.growths.size(), 1U);
  EXPECT_EQ(report.unfinished, 0U);
}

TEST_F(TraceRecords, NoFollowLeavesOtherProcessesOut) {
  Records r;
  r.call(kPid, 10, 12, SYS_openat, 3);
  platform::KernelRecords records = r.done();
  platform::KernelEvent child_in{Kind::call_entered, false, kPid + 7, kPid + 7, kStart + 20 * kUs};
  child_in.call = SYS_openat;
  platform::KernelEvent child_back{Kind::call_returned, false, kPid + 7, kPid + 7,
                                   kStart + 21 * kUs};
  child_back.call = SYS_openat;
  child_back.value = 3;
  records.events.push_back(child_in);
  records.events.push_back(child_back);
  DescriptorTrace followed(TraceStart{kPid, kStart, 64, 1, true}, symbol);
  followed.add(records, kStart + 100 * kUs);
  EXPECT_EQ(followed.finish(kStart + 100 * kUs).processes, 2U);
  DescriptorTrace alone(TraceStart{kPid, kStart, 64, 1, false}, symbol);
  alone.add(records, kStart + 100 * kUs);
  const TraceReport report = alone.finish(kStart + 100 * kUs);
  EXPECT_EQ(report.processes, 1U);
  EXPECT_EQ(report.all_creating.count, 1U);
}

TEST_F(TraceRecords, NothingSeenIsSaid) {
  const TraceReport report = trace(platform::KernelRecords{});
  const auto findings = trace_findings(report, "CMD");
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].kind, "trace-nothing");
  const std::string table = trace_table(report, findings);
  EXPECT_NE(table.find("Nothing was seen"), std::string::npos) << table;
}

}  // namespace descriptor_trace_test
}  // namespace fdbench
