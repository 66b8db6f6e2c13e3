#pragma once
// Threads a test counts through /proc: one started and ended before a count is taken.
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "platform/platform.hpp"
#include "support/wait_until.hpp"

namespace fdbench::testing {

// Starts a thread and returns once the kernel has released it: a sanitizer runtime's helper
// thread, started with the first thread created, exists from here on, and the thread itself
// no longer counts. pthread_join() returns when the kernel clears the thread's id, early in
// its exit; /proc/self/status and /proc/self/task count it until it is reaped, a moment later
// (longer on a loaded machine). False if it was still there after the bound. Where threads
// have no id to read (platform::thread_id() 0), as soon as it is joined.
inline bool a_thread_came_and_went() {
  int tid = 0;
  std::thread([&] { tid = platform::thread_id(); }).join();
  if (tid == 0) return true;
  const std::string task = "/proc/self/task/" + std::to_string(tid);
  return wait_until([&] { return access(task.c_str(), F_OK) != 0; }, std::chrono::seconds(10));
}

}  // namespace fdbench::testing
