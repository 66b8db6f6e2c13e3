#pragma once
// A test that cannot run here skips and says why; a machine that is known to have a feature
// makes that skip a failure instead. FDBENCH_TEST_REQUIRE=uring,libuv,... names the features
// that must be there (CI sets it for what its machines have), so that a test which quietly
// stopped running (a lost package, a kernel setting, a broken probe) is seen:
//
//   if (!why.empty()) FDBENCH_SKIP_WITHOUT("uring") << why;
//
// Only skips for a missing feature go through here. Skips that are about the build (the
// portable facade, a debug-only check) or the environment's sizes (a huge RLIMIT_NOFILE) stay
// plain GTEST_SKIP: nothing could require them.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace fdbench::testing {

// Every feature a test may skip for. A name in FDBENCH_TEST_REQUIRE that is not here is an
// error (RequiredFeatures.AreAllKnown), so a typo cannot turn a requirement off.
inline constexpr std::array<std::string_view, 15> kFeatures = {
    "uring",             // io_uring, with direct descriptors and IORING_OP_SOCKET
    "libuv",             // the libuv strategy
    "hang_opens",        // seccomp user notification (the hang tool of the --timeout tests)
    "mount",             // mounting a scratch tmpfs (root outside a restricted container)
    "cap_sys_resource",  // raising the hard RLIMIT_NOFILE
    "proc_children",     // /proc/<pid>/task/<tid>/children
    "proc_status",       // FDSize and Threads in /proc/self/status
    "lease",             // F_SETLEASE write leases on the test directory
    "terminal",          // script(1) or tmux, for a pseudo-terminal
    "browser",           // headless Chromium, for the report test
    "rcu_expedited",     // writing /sys/kernel/rcu_expedited (root on Linux)
    "kernel_trace",      // perf events with kernel call chains (root or CAP_PERFMON on Linux)
    "fuse",              // mounting the tests' FUSE server (/dev/fuse, root, libfuse3 at build)
    "ansible",           // ansible-playbook, for the fleet playbook's test (examples/fleet/)
    "servers",           // memcached, haproxy and nginx, for fdbench server's tests (scripts/setup)
};

// The feature a strategy needs beyond the portable ones: its name's family ("uring-direct" needs
// "uring"), or the name itself.
inline std::string strategy_feature(std::string_view strategy) {
  return std::string(strategy.substr(0, strategy.find('-')));
}

inline std::vector<std::string> required_features() {
  std::vector<std::string> names;
  const char* value = std::getenv("FDBENCH_TEST_REQUIRE");
  std::stringstream list(value != nullptr ? value : "");
  for (std::string name; std::getline(list, name, ',');) {
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

inline bool is_required(std::string_view feature) {
  const auto names = required_features();
  return std::find(names.begin(), names.end(), feature) != names.end();
}

inline std::string skip_preamble(std::string_view feature) {
  std::string text = std::string(feature);
  if (std::find(kFeatures.begin(), kFeatures.end(), feature) == kFeatures.end()) {
    return text + " is not a feature tests know: add it to kFeatures in tests/support/require.hpp";
  }
  if (is_required(feature)) text += ", which FDBENCH_TEST_REQUIRE requires,";
  return text + " is unavailable:";  // gtest puts the reason on the next line
}

inline ::testing::TestPartResult::Type skip_kind(std::string_view feature) {
  const bool known = std::find(kFeatures.begin(), kFeatures.end(), feature) != kFeatures.end();
  return known && !is_required(feature) ? ::testing::TestPartResult::kSkip
                                        : ::testing::TestPartResult::kFatalFailure;
}

}  // namespace fdbench::testing

// Returns from the test like GTEST_SKIP() (or like GTEST_FAIL() when FEATURE is required);
// stream the reason into it.
#define FDBENCH_SKIP_WITHOUT(feature)                                            \
  return GTEST_MESSAGE_AT_(__FILE__, __LINE__,                                           \
                           ::fdbench::testing::skip_preamble(feature).c_str(),           \
                           ::fdbench::testing::skip_kind(feature))
