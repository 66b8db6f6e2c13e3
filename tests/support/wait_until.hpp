#pragma once
// Waiting for something a test cannot be told about directly (a process gone, a thread at a
// step): polled, and bounded, so that a hang fails the test instead of stalling the suite.
#include <chrono>
#include <functional>
#include <thread>

namespace fdbench::testing {

// Polls `done` every few milliseconds until it holds or `bound` passes. Bounds a wait; asserts
// nothing about speed.
inline bool wait_until(const std::function<bool()>& done,
                       std::chrono::milliseconds bound = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

}  // namespace fdbench::testing
