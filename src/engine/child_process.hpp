#pragma once
#include <chrono>
// The one way fdbench runs work in a child process: the `process` workers, the `libuv` helper
// and the fresh child of each repetition that must start from the kernel's smallest table.
//
// Every child is forked while the process is single-threaded (checked in debug builds: fork
// copies only the calling thread, so a lock another thread held would stay locked in the
// child), dies with its parent, talks to it over a socketpair in fixed-size messages, and
// leaves only through _exit: it never returns into the parent's code and never runs atexit
// handlers. The parent reaps it and learns its exit status or the signal that killed it. A
// SIGINT or SIGTERM that reaches the parent alone (kill, not a terminal) while it waits on the
// child is passed on to the child. What differs between the uses is in ChildOptions.
//
// A child reaches the parent's objects through its fork-time copy of the parent's memory:
// a pointer to an object that existed at fork time is valid in the child.
#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "fdbench/error.hpp"
#include "fdbench/unique_fd.hpp"

namespace fdbench {

// A thread that only waits, holding no lock, while another thread of this process measures
// (a TimedRunner's caller) cannot leave a lock held in a child that thread forks. It counts
// itself here for as long as it waits, and the debug check that every fork happens
// single-threaded allows for it.
class WaitingThread {
 public:
  WaitingThread() noexcept;
  ~WaitingThread();
  WaitingThread(const WaitingThread&) = delete;
  WaitingThread& operator=(const WaitingThread&) = delete;
  [[nodiscard]] static int count() noexcept;
};

// What a channel carries: sent as its bytes, so only trivially copyable types.
template <class T>
concept Message = std::is_trivially_copyable_v<T>;

// One end of the socketpair between a parent and its child. Transfers are exact-size; a
// false return means the other side is gone (EOF, reset). Sending never raises SIGPIPE.
class Channel {
 public:
  Channel() = default;
  // `child`: on the parent's end, the child to pass an interrupt on to; -1 on the child's end.
  Channel(UniqueFd fd, pid_t child) noexcept : fd_(std::move(fd)), child_(child) {}

  template <Message T>
  bool send(const T& message) noexcept {
    return send_bytes(&message, sizeof message);
  }
  template <Message T>
  bool receive(T& message) noexcept {
    return receive_bytes(&message, sizeof message);
  }
  // A run of messages of a size both sides know from an earlier message.
  template <Message T>
  bool send_all(std::span<const T> messages) noexcept {
    return send_bytes(messages.data(), messages.size_bytes());
  }
  template <Message T>
  bool receive_all(std::span<T> messages) noexcept {
    return receive_bytes(messages.data(), messages.size_bytes());
  }
  [[nodiscard]] int fd() const noexcept { return fd_.get(); }
  void close() noexcept { fd_.reset(); }

 private:
  bool send_bytes(const void* data, std::size_t size) noexcept;
  bool receive_bytes(void* data, std::size_t size) noexcept;
  // On the parent's end, before each try: once SIGINT or SIGTERM has come (to fdbench alone,
  // or the child would have it too), pass it on to the child, once, so the child stops early.
  void pass_interrupt_on() noexcept;

  UniqueFd fd_;
  pid_t child_ = -1;
  bool forwarded_ = false;
};

// How the child differs from its parent. The defaults suit a worker: it dies of SIGINT and
// SIGTERM at once and starts with the table fork gives it.
struct ChildOptions {
  // A child with children of its own keeps fdbench's handlers, which only record the signal:
  // dying at once would orphan them. It stops early instead and reaps them on the way out.
  bool keeps_interrupt_handlers = false;
  // fork sizes the child's table for the parent's highest open descriptor, not for the
  // parent's table: a table the run pre-grew (--pregrow) would be lost, and a child that
  // starts threads would stall on every growth again. This grows it back to the parent's size.
  bool keeps_table_size = false;
  // Start from the kernel's smallest table: keep only fds 0-2 and the channel (moved to fd 3),
  // and fork once more if the inherited table is bigger, since a table never shrinks. The
  // parent sees that second child's exit as this child's.
  bool smallest_table = false;
  // Parent descriptors the child closes first (e.g. the parent's ends of other children's
  // channels, which would otherwise keep those children from seeing EOF).
  std::span<const int> close_in_child{};
};

// How a child ended.
struct ChildExit {
  int code = -1;   // its exit status, if it exited
  int signal = 0;  // the signal that killed it, or 0
};

// Reads or writes exactly `size` bytes of a pipe shared with children, retrying short
// transfers and EINTR; false at EOF or on an error.
bool read_exact(int fd, void* data, std::size_t size) noexcept;
bool write_exact(int fd, const void* data, std::size_t size) noexcept;

// In a child that never prints: points stdout at /dev/null (the descriptor stays taken, so the
// table is as it was). A child left behind, stuck where no signal reaches it, then does not
// hold fdbench's output open: `fdbench ... | tee` ends when fdbench does. stdin stays (a
// --list /dev/stdin is read in a child), and so does stderr: a debug build's assertion and a
// sanitizer's report are written there.
void quiet_standard_streams() noexcept;

// How long the processes SIGKILLed at a limit (--timeout, a signal) get, all together, to die
// and be reaped before fdbench says which could not be ended and goes on: one waiting where no
// signal reaches it (state D, a FUSE server that never answers) never dies, and a limit is kept
// to within half a second (issue 49 item 8: two waits of 2 s and 1 s made every dead-mount
// check end 3 s late).
inline constexpr std::chrono::milliseconds kKilledGrace{200};
using KillDeadline = std::chrono::steady_clock::time_point;
inline KillDeadline kill_deadline() { return std::chrono::steady_clock::now() + kKilledGrace; }

// After a hung step's processes were SIGKILLed (`killed`, from platform::kill_descendants()):
// for those still there at `deadline` (kill_deadline()), held where no signal reaches them (an open a FUSE server
// never answers), "; pid 812 (state D: waiting in the kernel, where no signal reaches it) could
// not be ended by SIGKILL and is left behind until its call returns"; "" when every one ended.
// fdbench then exits without them, but never silently.
std::string not_ended_text(const std::vector<int>& killed, KillDeadline deadline);

// What ChildProcess's constructor throws when the system will not make the process (fork
// failed: EAGAIN at a limit on processes, ENOMEM); err() is fork's errno.
class ForkFailed : public Error {
 public:
  ForkFailed(const std::string& what, int err) : Error(what), err_(err) {}
  [[nodiscard]] int err() const noexcept { return err_; }

 private:
  int err_;
};

class ChildProcess {
 public:
  using Body = std::function<void(Channel& channel)>;

  // Forks a child that runs body(its end of the channel) and then _exits(0), or _exit(70) if
  // body throws. Throws ForkFailed if fork() fails, Error if anything else does.
  ChildProcess(const Body& body, const ChildOptions& options);
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  // Waits for the child (see wait()), so no zombie and no orphan outlives the owner.
  ~ChildProcess();

  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  // The parent's end of the channel.
  [[nodiscard]] Channel& channel() noexcept { return channel_; }
  template <Message T>
  bool send(const T& message) noexcept {
    return channel_.send(message);
  }
  template <Message T>
  bool receive(T& message) noexcept {
    return channel_.receive(message);
  }
  // A child waiting for a message sees EOF and exits. wait() does it too; call this first on
  // every child of a group, so they all exit at once instead of one by one.
  void close_channel() noexcept { channel_.close(); }
  // Closes the channel and waits for the child to exit; kills it if it has not after a
  // generous grace period (e.g. a copy of the channel leaked into another process). Later
  // calls return the same.
  ChildExit wait() noexcept;
  // After a transfer failed: waits for the child and throws Error("<what>: pid N was killed
  // by signal 9 (Killed)"), or Interrupted if SIGINT or SIGTERM killed it.
  [[noreturn]] void throw_died(std::string_view what);

  // SIGKILLs every child this process made through ChildProcess and has not reaped, and reaps
  // those that die by `deadline` (kill_deadline()): the way out of a repetition that hung
  // (--timeout), whose owners are abandoned and will never wait(). Returns how many were
  // signalled.
  static int kill_all(KillDeadline deadline) noexcept;

 private:
  pid_t pid_ = -1;
  Channel channel_;
  bool reaped_ = false;
  ChildExit exit_;
};

}  // namespace fdbench
