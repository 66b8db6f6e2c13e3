#pragma once
// Validated options for each command (the CLI builds them; the library takes them as they are).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/workload.hpp"
#include "model/settings.hpp"
#include "uring/uring_options.hpp"

namespace fdbench {

constexpr int kMaxThreads = 1024;

// --order: how the repetitions of a sweep's results follow each other.
enum class Order {
  interleaved,  // round-robin: result A's repetition 1, B's 1, ..., A's 2, ... (the default)
  sequential,   // every repetition of A, then every repetition of B, ...
};
std::string_view to_string(Order order);
bool parse_order(std::string_view text, Order& order);

// What every measuring command (open, socket, the default suite, tune's files) shares: one
// field each, so a shared option is applied once. Where open and socket differ in a default
// (threads, strategies, pregrow), their own constructors say so.
struct SweepOptions {
  std::vector<int> threads{1, 2, 4, 8, 16};  // --threads
  std::vector<std::string> strategies;       // --strategy; empty: every registered strategy
  int batch = 64;  // --batch: items a task (pool-batch), a submission (io_uring), in flight (libuv)
  Repeat repeat;   // --repeat (auto by default), --precision, --max-time
  int warmup = 1;  // --warmup
  bool latency = false;       // --latency: time every call (Result::latency)
  bool kernel_trace = false;  // --kernel-trace: where the threads were off-CPU (Result::kernel)
  // --rcu-expedited: each value (0, 1) set for a block of the sweep; empty: kept as it is.
  std::vector<int> rcu_expedited;
  Order order = Order::interleaved;  // --order
  // --timeout: seconds a repetition may take before it is abandoned as hung; 0: no limit (the
  // CLI's default for a private set; 60 for --tree and --list).
  double timeout_s = 0;
  // --pregrow: with held descriptors each setting runs in a fresh child.
  std::vector<Pregrow> pregrow{Pregrow{}};
  UringOptions uring;  // --uring-tuning, --uring-close
  // --harness: each harness measured, in this order, for every strategy and thread count.
  std::vector<Harness> harness{Harness::minimal};
};

struct OpenOptions : SweepOptions {
  // --files. Empty only with --reuse-files when --files was not given: the set's marker says.
  std::optional<std::size_t> files = 10000;
  std::string dir;  // empty: $TMPDIR or /tmp
  // --layout dirs:K (0: flat). Empty only with --reuse-files when --layout was not given.
  std::optional<std::size_t> subdirs = 0;
  // --keep-files DIR: the generated set is made at DIR itself and left there afterwards.
  std::string keep_files;
  // --reuse-files DIR: the set a --keep-files run left at DIR is checked and opened, nothing is
  // made. It must hold `files` files laid out as `subdirs` says where these are given; where
  // they are empty, the set's marker says.
  std::string reuse_files;
  std::string tree;              // --tree DIR: open the regular files under DIR instead
  bool cross_mounts = false;     // --cross-mounts: the --tree walk enters other filesystems
  bool allow_pseudo_fs = false;  // --allow-pseudo-fs: ... and proc, sysfs, tracefs, ... too
  std::string list;              // --list FILE: open the paths listed in FILE instead
  bool list0 = false;            // --list0: the list is NUL-separated
  OpenFlags flags = OpenFlags::rdonly;
  PathMode paths = PathMode::relative;  // --paths
  bool keep_open = false;               // hold every descriptor to the end of the repetition
};

struct SocketOptions : SweepOptions {
  // The seed's experiment: two threads, pre-grown or not.
  SocketOptions() {
    strategies = {"threads"};
    threads = {2};
    pregrow = {Pregrow{}, Pregrow{Pregrow::Mode::automatic, 0}};
  }
  std::size_t per_thread = 256;
  SocketKind kind = SocketKind::tcp;
};

struct AcceptOptions : SweepOptions {
  // A fresh server's first burst: four threads, from the starting table and pre-grown.
  AcceptOptions() {
    strategies = {"threads"};
    threads = {4};
    pregrow = {Pregrow{}, Pregrow{Pregrow::Mode::automatic, 0}};
  }
  std::size_t connections = 1000;  // --connections: queued before each repetition's clock
  AcceptKind kind = AcceptKind::tcp;
};

// $TMPDIR if set and non-empty, else /tmp.
std::string default_dir();

}  // namespace fdbench
