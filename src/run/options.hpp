#pragma once
// Validated options for each measuring command (the command line builds them; the planner
// takes them as they are).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/workload.hpp"
#include "inputs/input_options.hpp"
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

// `open`: the sweep's options and the files' (inputs/input_options.hpp).
struct OpenOptions : SweepOptions, InputOptions {};

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

}  // namespace fdbench
