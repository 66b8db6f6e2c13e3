#pragma once
// What tests/support/hang_opens.cpp (the program in which chosen opens hang) and the tests
// that run it agree on.

namespace fdbench::testing {

// Its exit code when it cannot work here (no seccomp user notification, or a filter of that
// kind already above it): the test skips.
inline constexpr int kHangOpensUnavailable = 77;

}  // namespace fdbench::testing
