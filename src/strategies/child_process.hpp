#pragma once
// A child process forked by a strategy (the `process` workers, the `libuv` helper). It talks
// to its parent over a socketpair in fixed-size messages, dies with its parent, and leaves
// only through _exit: it never returns into the parent's code and never runs atexit
// handlers. Destroying the object closes the channel (the child's cue to exit) and reaps
// the child, so no zombie and no orphan outlives the owner.
//
// A child reaches the parent's objects through its fork-time copy of the parent's memory:
// a pointer to an object that existed at fork time is valid in the child.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <span>
#include <string_view>
#include <type_traits>

#include "fdbench/unique_fd.hpp"
#include "fdbench/workload.hpp"

namespace fdbench {

class ChildProcess {
 public:
  // Forks a child that runs body(channel) and then _exits(0) (or _exit(70) if body throws).
  // Before the body the child resets the interrupt handlers, arranges to die with its
  // parent, and closes `close_in_child` (the parent's ends of other children's channels,
  // which would otherwise keep those children from seeing EOF). Throws Error on failure.
  ChildProcess(const std::function<void(int channel)>& body, std::span<const int> close_in_child);
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  [[nodiscard]] pid_t pid() const { return pid_; }
  // The parent's end of the channel.
  [[nodiscard]] int channel() const { return channel_.get(); }
  // Exact-size transfers; false when the child is gone (EOF, reset).
  bool send(const void* data, std::size_t size) noexcept;
  bool receive(void* data, std::size_t size) noexcept;
  // A child waiting for a message sees EOF and exits. The destructor does it too; call it
  // first on every child of a group, so they all exit at once instead of one by one.
  void close_channel() noexcept { channel_.reset(); }
  // After send() or receive() failed: reaps the child and throws Error("<what>: pid N was
  // killed by signal 9 (Killed)"), or Interrupted if SIGINT or SIGTERM killed it.
  [[noreturn]] void throw_died(std::string_view what);

 private:
  // Closes the channel and waits for the child; kills it if it has not exited after a
  // generous grace period (e.g. a copy of the channel leaked into another process).
  int reap() noexcept;

  pid_t pid_ = -1;
  UniqueFd channel_;
};

// Parent -> child: do one repetition of `work` (the parent's address, valid in the child's
// fork-time copy). `ops` is what the parent sees, to catch a workload made after the fork.
struct WorkRequest {
  Workload* work = nullptr;
  std::uint64_t ops = 0;

  // Empty if the child's copy is the parent's workload; otherwise why not.
  [[nodiscard]] const char* mismatch() const {
    return work->ops() == ops ? ""
                              : "the workload changed after the strategy forked its children: "
                                "make the workload before the strategy";
  }
};

// Child -> parent: a repetition's time (a duration or a finish time, as the strategy says),
// its failures, or an error.
struct WorkReply {
  std::int64_t ns = 0;
  Tally tally;
  char error[200] = {};

  void set_error(const char* text) { std::snprintf(error, sizeof error, "%s", text); }
  [[nodiscard]] bool failed() const { return error[0] != '\0'; }
};
static_assert(std::is_trivially_copyable_v<WorkReply>, "sent through a socket as it is");

// The same exact-size transfers for the child's end of the channel (a socket); they never
// raise SIGPIPE.
bool send_exact(int socket, const void* data, std::size_t size) noexcept;
bool receive_exact(int socket, void* data, std::size_t size) noexcept;

}  // namespace fdbench
