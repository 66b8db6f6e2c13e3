#pragma once
// fdbench server: someone else's server program, started fresh in a session of its own, and
// its first burst of loopback clients. One repetition is one start: the server is started
// (through the launcher's grow-then-exec when pre-grown), waited for until it answers, given
// its burst, and stopped (TERM, then KILL) and reaped whatever happens. Linux only: the
// server's table size, threads and processes are read from /proc.
#include <cstdint>
#include <string>
#include <vector>

namespace fdbench {

// What each client sends and what counts as the answer.
enum class ServerProbe { memcached, redis, http, line, connect };

// How the burst arrives: queued while the server is stopped (SIGSTOP; every client connects and
// sends, then SIGCONT: the clock holds only the server's work), or as fast as the client can
// connect while the server runs.
enum class ServerArrival { queued, open };

struct ServerBurstPlan {
  std::vector<std::string> argv;  // the program and its arguments, {port} already replaced
  int port = 0;                   // where it listens, on 127.0.0.1
  int pregrow_slots = 0;          // 0: its starting table; else grown to hold this many
  int connections = 1000;
  ServerArrival arrival = ServerArrival::queued;
  ServerProbe probe = ServerProbe::memcached;
  std::string line;       // ServerProbe::line: the text sent (a newline is added)
  double timeout_s = 10;  // for the server to answer at start, and for the burst to drain
  // Called once the burst is queued, just before the server resumes (tests wait for it).
  void (*on_queued)() = nullptr;
};

// One repetition's outcome; `error` non-empty: it ended without a measurement, and why.
struct ServerBurst {
  std::string error;
  std::int64_t start_ns = 0;  // the clock's start (platform::now_ns())
  std::int64_t drain_ns = 0;           // resume (or first connect) to the last reply
  std::vector<std::int64_t> reply_ns;  // each answered connection's time
  std::uint64_t unanswered = 0;        // closed without an answer, or none within the bound
  int fdsize_before = 0;               // the largest table among the server's processes
  int fdsize_after = 0;
  int growths = 0;       // doublings seen in its tables during the burst
  int threads = 0;       // the most threads one of its processes had
  int processes = 0;     // processes in its session
  int starting_fds = 0;  // descriptors its busiest process held before it
};

ServerBurst run_server_burst(const ServerBurstPlan& plan);

// A loopback port nobody listens on now, as the kernel picks one (bind to port 0); 0 if none.
int free_loopback_port();

// The descriptors a server started as `plan` holds once it answers (its busiest process), to
// size --pregrow auto; an error text instead in `why` when it would not start.
int server_starting_descriptors(const ServerBurstPlan& plan, std::string& why);

}  // namespace fdbench
