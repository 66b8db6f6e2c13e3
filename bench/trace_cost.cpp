// What --kernel-trace costs per event: platform::KernelTracer, exactly as fdbench attaches it,
// around three loops that each make one kind of event, against the same loop untraced.
//
//   open-close  openat + close of one file: no switch, no fault. Events attached but silent,
//               so any difference is what tracing costs a call that records nothing.
//   switch      two threads pinned to one CPU hand a futex word back and forth: every handoff
//               is a context switch, each a call-chain sample and two switch records.
//   switch-2cpu the same with each thread on a CPU of its own: each one sleeps (the CPU goes
//               idle) until the other wakes it, as a pool's workers and submitter do.
//   fault       one write to each page of a fresh anonymous mapping (huge pages off): one page
//               fault, one sample, per page.
//
// fdbench_trace_cost WORKLOAD traced|untraced OPS REPEAT WARMUP DIR (its file goes in a private
// directory there) prints a line per timed
// pass: ns per op, context switches per op and page faults per op (getrusage, both sides
// alike), records kept per op and records lost (traced; 0 untraced). The records are read
// between passes, never during one, as fdbench reads them between repetitions; a pass is sized
// so that its records fit the tracer's buffer. bench/performance --only kernel-trace runs it
// in interleaved rounds and divides the difference by the events.
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "platform/platform.hpp"

namespace {

namespace platform = fdbench::platform;

struct Counts {
  long switches = 0;
  long faults = 0;
};

Counts usage_now() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);  // every thread of the process, ended ones included
  return {u.ru_nvcsw + u.ru_nivcsw, u.ru_minflt + u.ru_majflt};
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "Error: %s\n", what.c_str());
  std::exit(1);
}

void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) die("cannot pin a thread");
}

long futex(std::atomic<int>& word, int op, int value) {
  return syscall(SYS_futex, reinterpret_cast<int*>(&word), op | FUTEX_PRIVATE_FLAG, value, nullptr,
                 nullptr, 0);
}

// One pass of `ops` handoffs between the calling thread and a partner on the same CPU or on
// the other one; returns the timed ns (from the first handoff to the last, the partner made
// and ended untimed).
std::int64_t switch_pass(long ops, bool two_cpus) {
  const int cpu = sched_getcpu();
  const int partner_cpu = two_cpus ? (cpu == 0 ? 1 : 0) : cpu;
  pin_to(cpu);
  std::atomic<int> turn{0};  // 0: the caller's, 1: the partner's; -1: the partner ends
  std::thread partner([&] {
    pin_to(partner_cpu);
    for (;;) {
      int t = turn.load();
      while (t == 0) {
        futex(turn, FUTEX_WAIT, 0);
        t = turn.load();
      }
      if (t < 0) return;
      turn.store(0);
      futex(turn, FUTEX_WAKE, 1);
    }
  });
  const std::int64_t start = platform::now_ns();
  for (long i = 0; i < ops; ++i) {
    turn.store(1);
    futex(turn, FUTEX_WAKE, 1);
    while (turn.load() == 1) futex(turn, FUTEX_WAIT, 1);
  }
  const std::int64_t end = platform::now_ns();
  turn.store(-1);
  futex(turn, FUTEX_WAKE, 1);
  partner.join();
  return end - start;
}

std::int64_t fault_pass(long ops) {
  const long page = sysconf(_SC_PAGESIZE);
  const auto length = static_cast<std::size_t>(ops * page);
  void* map = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) die("mmap failed");
  madvise(map, length, MADV_NOHUGEPAGE);  // a fault per 4 KiB page, not one per 2 MiB
  auto* bytes = static_cast<volatile char*>(map);
  const std::int64_t start = platform::now_ns();
  for (long i = 0; i < ops; ++i) bytes[i * page] = 1;
  const std::int64_t end = platform::now_ns();
  munmap(map, length);
  return end - start;
}

std::int64_t open_close_pass(long ops, int dir) {
  const std::int64_t start = platform::now_ns();
  for (long i = 0; i < ops; ++i) {
    const int fd = openat(dir, "trace-cost", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) die("openat failed");
    close(fd);
  }
  return platform::now_ns() - start;
}

long number(const char* text, const char* what) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 0 || value > 10000000) {
    std::fprintf(stderr, "Error: %s must be a whole number, not '%s'\n", what, text);
    std::exit(2);
  }
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(
        stderr,
        "Usage: fdbench_trace_cost open-close|switch|switch-2cpu|fault traced|untraced OPS "
        "REPEAT "
        "WARMUP DIR\n");
    return 2;
  }
  const std::string_view workload = argv[1];
  const std::string_view side = argv[2];
  const long ops = number(argv[3], "OPS");
  const long repeat = number(argv[4], "REPEAT");
  const long warmup = number(argv[5], "WARMUP");
  if (ops == 0 ||
      (workload != "open-close" && workload != "switch" && workload != "switch-2cpu" &&
       workload != "fault") ||
      (side != "traced" && side != "untraced")) {
    std::fprintf(stderr, "Error: unknown workload or side\n");
    return 2;
  }
  // A private directory in DIR holding the one file open-close opens, removed at the end.
  std::string made = std::string(argv[6]) + "/fdperf-trace-cost-XXXXXX";
  if (mkdtemp(made.data()) == nullptr) die(std::string("cannot make a directory in ") + argv[6]);
  const int dir = open(made.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) die("cannot open " + made);
  const int created = openat(dir, "trace-cost", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (created < 0) die("cannot create a file in " + made);
  close(created);

  std::unique_ptr<platform::KernelTracer> tracer;
  if (side == "traced") {
    std::string why;
    tracer = platform::KernelTracer::open(why);
    if (!tracer) die(why);
  }
  const auto pass = [&] {
    if (workload == "switch" || workload == "switch-2cpu") {
      return switch_pass(ops, workload == "switch-2cpu");
    }
    if (workload == "fault") return fault_pass(ops);
    return open_close_pass(ops, dir);
  };
  for (long r = 0; r < warmup + repeat; ++r) {
    if (tracer) tracer->discard();
    const Counts before = usage_now();
    const std::int64_t ns = pass();
    const Counts after = usage_now();
    long kept = 0;
    std::uint64_t lost = 0;
    if (tracer) {
      const platform::KernelRecords records = tracer->drain();
      lost = records.lost;
      for (const auto& e : records.events) {
        kept += e.kind == platform::KernelEvent::Kind::stack ||
                        e.kind == platform::KernelEvent::Kind::page_fault
                    ? 1
                    : 0;
      }
    }
    if (r < warmup) continue;
    const auto per_op = [&](double n) { return n / static_cast<double>(ops); };
    std::printf("%.3f %.4f %.4f %.4f %llu\n", per_op(static_cast<double>(ns)),
                per_op(static_cast<double>(after.switches - before.switches)),
                per_op(static_cast<double>(after.faults - before.faults)),
                per_op(static_cast<double>(kept)), static_cast<unsigned long long>(lost));
  }
  tracer.reset();
  unlinkat(dir, "trace-cost", 0);
  close(dir);
  rmdir(made.c_str());
  return 0;
}
