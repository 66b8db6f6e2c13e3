#pragma once
// WHAT is created. A workload is a list of `ops()` items; strategies decide which thread
// does which item, the workload decides what an item is (open+close a file, create and
// hold a socket).
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/call_trace.hpp"
#include "model/configuration.hpp"
#include "model/path_table.hpp"

namespace fdbench {

// Per-worker failure counts, by errno; merged after the timed region. Trivially copyable,
// so a worker process can send it through a pipe as it is.
struct Tally {
  static constexpr int kErrnoSlots = 160;  // errno values above this share the last slot

  std::uint64_t failures = 0;
  int first_errno = 0;
  std::array<std::uint32_t, kErrnoSlots> by_errno{};
  // Opens of the user's files that found no regular file where the scan found one (a FIFO, a
  // socket or a device put there since): each closed at once, unused. Not failures: the call
  // was made and returned.
  std::uint64_t not_regular = 0;

  void fail(int err) noexcept {
    if (failures++ == 0) first_errno = err;
    ++by_errno[static_cast<std::size_t>(err > 0 && err < kErrnoSlots ? err : kErrnoSlots - 1)];
  }
  void merge(const Tally& other) noexcept {
    not_regular += other.not_regular;
    if (other.failures == 0) return;
    if (failures == 0) first_errno = other.first_errno;
    failures += other.failures;
    for (std::size_t i = 0; i < by_errno.size(); ++i) by_errno[i] += other.by_errno[i];
  }
};

// What one item is, described once: every built-in workload's run_range() is one loop over
// this description, and strategies that issue the calls themselves (io_uring, libuv) read the
// same one from spec(), so the two paths cannot drift apart.
struct ItemSpec {
  enum class Op {
    open_file,       // openat(dir_fd, path(i), open_flags)
    create_socket,   // socket(domain, type, protocol)
    create_eventfd,  // an eventfd (close-on-exec)
    create_pipe,     // a pipe (close-on-exec): two descriptors per item
    accept_connection,  // accept a connection queued on listen_fd (close-on-exec)
    other,           // only the workload's own run_range() knows how
  } op = Op::other;
  // open_file: item i is path(i), relative to dir_fd (or absolute).
  int dir_fd = -1;
  std::string dir_path;  // the same directory as a path, for APIs without *at() calls
  const PathTable* paths = nullptr;
  bool absolute = false;  // --paths absolute: every path is absolute, dir_fd is AT_FDCWD
  int open_flags = 0;  // as given to openat(), O_CLOEXEC included
  // The user's files (--tree, --list): item i is path(i), a last name, relative to
  // dir_fds[dir_of[i]], a directory opened and checked before the repetition (untimed), or
  // with `absolute` a full path opened with openat2() and these RESOLVE_* flags (no link
  // followed on it). What an open returns is checked to be a regular file before anything
  // else is done with it: anything else is closed unused and counted in Tally::not_regular.
  const int* dir_fds = nullptr;
  const std::uint32_t* dir_of = nullptr;
  std::uint64_t resolve = 0;
  bool check_regular = false;
  // create_socket: SOCK_CLOEXEC included in `type` where the system has it.
  int domain = 0;
  int type = 0;
  int protocol = 0;
  // accept_connection: the listening socket, borrowed from the workload; where a strategy
  // asked for a listener per worker (SO_REUSEPORT), listen_fds[0 .. listeners) are all of them.
  int listen_fd = -1;
  const int* listen_fds = nullptr;
  int listeners = 1;
  // What becomes of a descriptor: handed to keep() and held until after_repetition(), or
  // closed at once.
  bool keep_open = false;

  [[nodiscard]] int descriptors() const noexcept { return op == Op::create_pipe ? 2 : 1; }
  [[nodiscard]] const char* path(std::size_t i) const noexcept { return (*paths)[i]; }
  // The directory item i is opened relative to (AT_FDCWD with `absolute`).
  [[nodiscard]] int dir_fd_of(std::size_t i) const noexcept {
    return dir_fds != nullptr && !absolute ? dir_fds[dir_of[i]] : dir_fd;
  }
};
// What items of `op` are, in words for a reason: "files", "sockets", "eventfd descriptors",
// "pipes", "accepted connections".
std::string_view item_words(ItemSpec::Op op);

// --harness published: how the seed's program this workload comes from spreads it over the
// threads it creates inside the clock.
enum class SeedThreads {
  created,             // the first seed's: T new threads, the caller only starts and joins them
  caller_and_created,  // the second seed's: the caller is one of the T, T-1 new threads beside it
};

class Workload {
 public:
  virtual ~Workload() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;  // "open", "socket"
  [[nodiscard]] virtual DescriptorKind kind() const = 0;    // what one item creates
  [[nodiscard]] virtual std::size_t ops() const = 0;        // items per repetition
  // Descriptors one item creates (a pipe makes two).
  [[nodiscard]] virtual int descriptors_per_item() const { return 1; }
  // Descriptors it holds beside its items for as long as it lives (accept: its listening
  // socket and its client process's channel), so --pregrow auto grows past them too.
  [[nodiscard]] virtual int fixed_descriptors() const { return 0; }
  // What ops() counts, in rates: "files" (files/s) or "fds" (fds/s).
  [[nodiscard]] virtual std::string_view unit() const { return "fds"; }
  // Whether descriptors are held to the end of a repetition, so the table grows while timed.
  [[nodiscard]] virtual bool holds_descriptors() const { return false; }
  // --harness published: how the seed's threads share it (published_strategies.cpp).
  [[nodiscard]] virtual SeedThreads seed_threads() const { return SeedThreads::caller_and_created; }
  // Untimed, before each repetition.
  virtual void before_repetition() {}
  // Untimed, in a worker process about to run run_range(begin, end): writes the memory that
  // range will write, so its copy-on-write faults (the workload is the fork-time copy) come
  // before the clock starts.
  virtual void prepare_range(std::size_t /*begin*/, std::size_t /*end*/) noexcept {}
  // Timed: performs items [begin, end). Called concurrently on disjoint ranges.
  virtual void run_range(std::size_t begin, std::size_t end, Tally& tally) noexcept = 0;
  // Untimed, after each repetition: releases whatever the repetition holds.
  virtual void after_repetition() {}

  // --latency: time every call into `trace` (one record per item; nullptr: stop). Untimed.
  // A workload that cannot ignores it and says so with traces_calls().
  virtual void set_trace(CallTrace* /*trace*/) noexcept {}
  [[nodiscard]] virtual bool traces_calls() const { return false; }
  // The trace set_trace() gave it (nullptr: none). A strategy that issues the calls itself
  // (io_uring) writes its own records there: one per submission (CallKind::submission).
  [[nodiscard]] virtual CallTrace* trace() const noexcept { return nullptr; }

  [[nodiscard]] virtual ItemSpec spec() const = 0;
  // A strategy that created item i's descriptor itself hands it over here when
  // spec().keep_open says so; it is closed in after_repetition().
  virtual void keep(std::size_t i, int fd) noexcept = 0;
};

enum class OpenFlags { rdonly, path, rdwr };
std::string_view to_string(OpenFlags flags);
bool parse_open_flags(std::string_view text, OpenFlags& flags);
std::vector<std::string> open_flags_names();

struct OpenSpec {
  std::string dir_path;   // paths are relative to this directory (or absolute)
  int dir_fd = -1;        // the same directory, borrowed; -1: the workload opens dir_path
  const PathTable* paths = nullptr;
  // absolute: every path is absolute and opened from AT_FDCWD; dir_fd is not used.
  PathMode path_mode = PathMode::relative;
  OpenFlags flags = OpenFlags::rdonly;
  bool keep_open = false;  // hold every descriptor until after_repetition()
  bool foreign = false;    // the user's files: never opened for writing (asserted)
  // The user's files by directory (foreign): `paths` are then the last names of
  // directories->names (relative), or full paths without a link on them (absolute).
  const DirectoryTable* directories = nullptr;
};

// open each path (then close it, or hold it with keep_open).
std::unique_ptr<Workload> make_open_workload(const OpenSpec& spec);
// The common case: open+close each path of `paths`, relative to `dir_fd` (= `dir_path`),
// read-only.
std::unique_ptr<Workload> make_open_workload(int dir_fd, std::string dir_path,
                                             const PathTable& paths);

// --harness published, the first seed's open (its open.cpp): the files 1.txt .. N.txt of the
// flat set `dir_path` (`names` must be exactly those, in that order), each opened by the
// relative name "<set>/N.txt" from the set's parent directory, which is the current directory
// during each repetition (before_repetition() goes there, after_repetition() back), through a
// std::ifstream named by a std::string built for it, counted in one atomic shared by the
// threads, and closed at once; nothing is read. Throws Error when the names are not the seed's.
std::unique_ptr<Workload> make_published_open_workload(const std::string& dir_path,
                                                       const PathTable& names);

// The socket workload's kinds: every DescriptorKind but `file` (to_string() is the model's).
using SocketKind = DescriptorKind;
// Parses "tcp", "tcp6", "udp", "unix", "eventfd", "pipe"; false if unknown (or "file").
bool parse_socket_kind(std::string_view text, SocketKind& kind);
// All names accepted by parse_socket_kind, for help and errors.
std::vector<std::string> socket_kind_names();
// What one item of `kind` asks of the kernel (create_socket, create_eventfd, create_pipe).
ItemSpec::Op item_op(SocketKind kind);
// Why no workload of `kind` can be made on this system ("this system has no eventfd ..."),
// empty where it can: the same for every strategy, so known before any is chosen.
std::string socket_kind_unavailable_reason(SocketKind kind);

// Makes `count` creation calls of `kind` (a pipe call makes two descriptors) and holds the
// descriptors until after_repetition().
std::unique_ptr<Workload> make_socket_workload(SocketKind kind, std::size_t count);

// The accept workload's kinds: tcp (127.0.0.1), tcp6 (::1), unix (a Unix-domain socket in a
// private directory).
using AcceptKind = DescriptorKind;
// Parses "tcp", "tcp6", "unix"; false for any other name.
bool parse_accept_kind(std::string_view text, AcceptKind& kind);
std::vector<std::string> accept_kind_names();
// Descriptors an accept workload holds beside the connections it accepts: its listeners, its
// client process's channel, and for a Unix socket its directory (held locked).
constexpr int accept_fixed_descriptors(int listeners, AcceptKind kind) {
  return listeners + 1 + (kind == AcceptKind::unix_stream ? 1 : 0);
}

// accept --kind unix binds its listener at TMPDIR/fdbench-accept-XXXXXX/listener, a directory
// marked as fdbench's own (kAcceptMarkerName, starting kAcceptMarkerHead and the pid that made
// it) and locked (flock) while a run uses it, so that `fdbench clean` finds and removes what a
// SIGKILLed run left, as it does a file set, and nothing else.
inline constexpr const char* kAcceptDirPrefix = "fdbench-accept-";
inline constexpr const char* kAcceptMarkerName = ".fdbench-private";  // FileSet::kMarkerName
inline constexpr std::string_view kAcceptMarkerHead = "fdbench accept socket directory\n";
inline constexpr const char* kAcceptSocketName = "listener";

// accept (accept_workload.cpp): a listening socket of `kind` on the loopback with a backlog of
// `connections` (or `listeners` of them sharing one port, SO_REUSEPORT: Linux, TCP), and a client process that, before each repetition (untimed), connects that
// many times and holds its ends, so every connection is queued before the clock starts. Each
// item accepts one and holds it until after_repetition(), which also has the client close its
// ends. Throws Error when the backlog cannot hold the burst (net.core.somaxconn), Unavailable
// where the kind cannot be made here (no IPv6 loopback).
std::unique_ptr<Workload> make_accept_workload(AcceptKind kind, std::size_t connections,
                                               int listeners = 1);
// Why `connections` cannot be queued on one listener here ("" when they can): the system's
// cap on a listen backlog.
std::string accept_backlog_refusal(std::size_t connections);

}  // namespace fdbench
