// implausible(): a fresh child's report is checked before any of it becomes a sample.
#include "engine/child_report.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstring>
#include <string>

namespace fdbench {
namespace child_report_test {

// A plausible report of 512 items: 2 ms, one EMFILE, the table grown 64 → 1024.
ChildReport sound() {
  ChildReport r;
  r.ns = 2'000'000;
  r.fdsize_before = 64;
  r.fdsize_after = 1024;
  r.tally.fail(24);
  r.traced = 512;
  r.shared = 1;
  return r;
}

constexpr std::uint64_t kOps = 512;
constexpr std::int64_t kLived = 50'000'000;

TEST(ChildReport, APlausibleReportPasses) {
  ChildReport r = sound();
  EXPECT_EQ(implausible(r, kOps, kLived), "");
  r.fdsize_before = r.fdsize_after = -1;  // where the OS does not tell
  r.traced = 0;
  r.tally = Tally{};
  EXPECT_EQ(implausible(r, kOps, kLived), "");
}

TEST(ChildReport, EachImplausibleFieldIsNamed) {
  const auto said = [](void (*spoil)(ChildReport&)) {
    ChildReport r = sound();
    spoil(r);
    return implausible(r, kOps, kLived);
  };
  EXPECT_EQ(said([](ChildReport& r) { r.ns = 0; }),
            "a repetition of 0 ns in a child that lived 50000000 ns");
  EXPECT_EQ(said([](ChildReport& r) { r.ns = 60'000'000; }),
            "a repetition of 60000000 ns in a child that lived 50000000 ns");
  EXPECT_EQ(said([](ChildReport& r) { r.tally.failures = 513; }), "513 failed calls of 512");
  EXPECT_EQ(said([](ChildReport& r) { r.tally.by_errno[24] = 7; }),
            "1 failed calls, 7 counted by errno");
  EXPECT_EQ(said([](ChildReport& r) { r.fdsize_after = 32; }), "descriptor table 64 → 32");
  EXPECT_EQ(said([](ChildReport& r) { r.shared = 7; }), "shared 7");
  EXPECT_EQ(said([](ChildReport& r) { r.signal = SIGKILL; }), "signal 9");
  EXPECT_EQ(said([](ChildReport& r) { r.traced = 100'000; }), "100000 call records for 512 items");
}

TEST(ChildReport, AnErrorTextIsAlwaysTerminated) {
  ChildReport r = sound();
  std::memset(r.error, 'x', sizeof r.error);    // no NUL anywhere
  EXPECT_EQ(implausible(r, kOps, kLived), "");  // an error report carries no sample to check
  EXPECT_EQ(std::strlen(r.error), sizeof r.error - 1);
}

}  // namespace child_report_test
}  // namespace fdbench
