#include "perf/performance_run.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "perf/machine.hpp"

namespace perf {

namespace {

std::string count(long n) {
  std::string digits = std::to_string(n);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) digits.insert(at, ",");
  return digits;
}

std::string ms(double ns) {
  return fmt::format("{:.2f} ms", ns / 1e6);
}
std::string us(double ns) {
  return fmt::format("{:.2f} µs", ns / 1e3);
}
std::string times(const Spread& s) {
  return fmt::format("{:.3f}x [{:.3f}-{:.3f}]", s.median, s.min, s.max);
}

// Alternates which side runs first from one round to the next.
void run_in_order(int round, const std::function<void()>& a, const std::function<void()>& b) {
  if (round % 2 == 0) {
    a();
    b();
  } else {
    b();
    a();
  }
}

// Both strategies in one fdbench run, listed in the order of this round.
std::string pair_of(const std::string& best, int round) {
  if (best == "threads") return best;
  return round % 2 == 0 ? "threads," + best : best + ",threads";
}

struct Comparison {
  std::vector<double> a_times;
  std::vector<double> b_times;
  std::vector<double> ratios;  // per round: median of a / median of b
};

Comparison compare(int rounds, const std::function<std::vector<double>()>& a,
                   const std::function<std::vector<double>()>& b) {
  Comparison c;
  for (int r = 0; r < rounds; ++r) {
    std::vector<double> ta;
    std::vector<double> tb;
    run_in_order(
        r, [&] { ta = a(); }, [&] { tb = b(); });
    c.ratios.push_back(median(ta) / median(tb));
    c.a_times.insert(c.a_times.end(), ta.begin(), ta.end());
    c.b_times.insert(c.b_times.end(), tb.begin(), tb.end());
  }
  return c;
}

template <typename Round, typename F>
std::vector<double> each(const std::vector<Round>& rounds, F&& value_of) {
  std::vector<double> values;
  values.reserve(rounds.size());
  for (const auto& r : rounds) values.push_back(value_of(r));
  return values;
}

std::string verdict(bool met, double by_percent) {
  return met ? "met" : fmt::format("NOT met (by {:.1f}%)", by_percent);
}

// One harness-overhead line (fdbench is side a, the loop side b), then the ratio of the least
// disturbed repetitions: on a busy machine, the closest to what each side costs. Returns the
// outcome.
std::string overhead(const std::string& what, const Comparison& c) {
  const Spread ratio = spread(c.ratios);
  const std::string outcome = verdict(ratio.median <= 1.03, (ratio.median - 1.03) / 1.03 * 100);
  fmt::print("  {}: fdbench {}, loop {}: {}  {}\n", what, ms(median(c.a_times)),
             ms(median(c.b_times)), times(ratio), outcome);
  const double a = *std::min_element(c.a_times.begin(), c.a_times.end());
  const double b = *std::min_element(c.b_times.begin(), c.b_times.end());
  fmt::print("    fastest repetitions: fdbench {}, loop {}: {:.3f}x\n", ms(a), ms(b), a / b);
  return outcome;
}

constexpr const char* kRcuExpedited = "/sys/kernel/rcu_expedited";

std::optional<int> read_rcu_expedited() {
  std::ifstream file(kRcuExpedited);
  int value = -1;
  if (file >> value) return value;
  return std::nullopt;
}

// /sys/kernel/rcu_expedited set for a block of rows (root only), and put back as it was when
// the block ends, also when an error or a Ctrl-C (Interrupted) ends it. Only a SIGKILL of the
// driver leaves it changed.
class RcuSetting {
 public:
  explicit RcuSetting(int value) : original_(read_rcu_expedited().value_or(-1)) {
    if (value != original_) write(value);
    changed_ = value != original_;
  }
  RcuSetting(const RcuSetting&) = delete;
  RcuSetting& operator=(const RcuSetting&) = delete;
  ~RcuSetting() {
    if (!changed_) return;
    try {
      write(original_);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "Error: %s: put it back with: echo %d > %s\n", e.what(), original_,
                   kRcuExpedited);
    }
  }

 private:
  static void write(int value) {
    std::ofstream file(kRcuExpedited);
    file << value << '\n';
    file.close();
    if (!file || read_rcu_expedited() != value) {
      throw std::runtime_error(fmt::format("cannot set {} to {}", kRcuExpedited, value));
    }
  }
  int original_;
  bool changed_ = false;
};

// Calls `rows(set_to, label)` under the machine's rcu_expedited, then, as root, under the other
// value: `set_to` is the value the caller sets (an RcuSetting, for those rows only) or nullopt
// for the machine's own; `label` names it ("rcu_expedited 0 (set)"), empty where the machine's
// value cannot be read (the rows then run once). Without root, the second block is one line.
void for_each_rcu_expedited(
    const std::string& what,
    const std::function<void(std::optional<int> set_to, const std::string& label)>& rows) {
  const std::optional<int> machine = read_rcu_expedited();
  if (!machine) {
    rows(std::nullopt, "");
    return;
  }
  rows(std::nullopt, fmt::format("rcu_expedited {} (machine's)", *machine));
  const int other = *machine == 0 ? 1 : 0;
  if (geteuid() != 0 || access(kRcuExpedited, W_OK) != 0) {
    fmt::print("  {} under rcu_expedited {}: not measured (setting it needs root)\n", what, other);
    return;
  }
  rows(other, fmt::format("rcu_expedited {} (set)", other));
}

std::string thread_count(int n) {
  return fmt::format("{} thread{}", n, n == 1 ? "" : "s");
}

void section(const std::string& title) {
  fmt::print("\n{}\n", title);
  std::fflush(stdout);
}

}  // namespace

PerformanceRun::PerformanceRun(Settings settings, const Scratch& scratch)
    : s_(std::move(settings)), scratch_(scratch) {}

Results PerformanceRun::fdbench(std::vector<std::string> args, ProgramRun* run) {
  args.insert(args.begin(), s_.fdbench);
  args.insert(args.end(), {"--format", "json"});
  ProgramRun done = run_program(args, scratch_);
  Results results = parse_results(done.out);
  if (run != nullptr) *run = std::move(done);
  return results;
}

std::vector<double> PerformanceRun::reference(const std::string& loop,
                                              std::vector<std::string> args) {
  args.insert(args.begin(), s_.tools + "/" + loop);
  return parse_lines(run_program(args, scratch_).out, loop);
}

std::vector<std::string> PerformanceRun::open_args(long files, const std::string& strategies,
                                                   const std::string& threads, int repeat) const {
  return {"open",  "--files",  std::to_string(files),  "--strategy", strategies, "--threads",
          threads, "--repeat", std::to_string(repeat), "--warmup",   "1",        "--dir",
          s_.dir};
}

void PerformanceRun::judge(std::string name, std::string value, std::string outcome) {
  targets_.push_back({std::move(name), std::move(value), std::move(outcome)});
}

void PerformanceRun::run() {
  const OtherLoad load;
  const auto start = std::chrono::steady_clock::now();
  heading();
  if (!s_.only.empty()) {
    if (s_.only == "references") references();
    if (s_.only == "kernel-trace") kernel_trace();
    if (s_.only == "stall") harness_stall();
    if (s_.only == "accept") harness_accept();
    if (s_.only == "short") short_repetitions();
    summary(load, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return;
  }
  harness_open();
  harness_socket();
  harness_stall();
  harness_accept();
  short_repetitions();
  survey();
  scaling();
  uring_tuning();
  latency_cost();
  kernel_trace();
  scale();
  startup();
  references();
  summary(load, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

void PerformanceRun::heading() {
  const Machine m = describe_machine();
  std::string version = run_program({s_.fdbench, "--version"}, scratch_).out;
  while (!version.empty() && version.back() == '\n') version.pop_back();
  fmt::print(
      "fdbench performance ({}): {} rounds, {} repetitions (+1 warm-up) per program and "
      "round; file sets in {}\n",
      s_.mode, s_.rounds, s_.repeat, s_.dir);
  fmt::print("machine: {} CPUs, {}, {}; load average {} at the start\n", m.cpus, m.cpu_model,
             m.kernel, m.load_average);
  fmt::print("measured: {} ({})\n", version, s_.fdbench);
  fmt::print(
      "A ratio is the median of the rounds' ratios, [min-max] over the rounds; each round "
      "runs both sides, alternating which goes first.\n");
  std::fflush(stdout);
}

void PerformanceRun::harness_open() {
  section("Harness overhead: fdbench against a minimal loop doing the same work (target <= 1.03x)");
  const std::string files = std::to_string(s_.files);
  const std::string repeat = std::to_string(s_.repeat);
  const Comparison c = compare(
      s_.rounds,
      [&] {
        return find(fdbench(open_args(s_.files, "threads", "1", s_.repeat)), "threads", 1).times_ns;
      },
      [&] {
        return reference("fdbench_open_loop", {s_.dir, files, repeat, "1"});
      });
  const std::string outcome =
      overhead(fmt::format("open+close {} files, threads, 1 thread", count(s_.files)), c);
  judge("harness overhead, open (fdbench / loop)", times(spread(c.ratios)), outcome);
}

void PerformanceRun::harness_socket() {
  const std::string sockets = std::to_string(s_.sockets);
  const std::string repeat = std::to_string(s_.repeat);
  const Comparison c = compare(
      s_.rounds,
      [&] {
        return find(fdbench({"socket", "--strategy", "threads", "--threads", "1", "--pregrow",
                             "auto", "--per-thread", sockets, "--repeat", repeat, "--warmup", "1",
                             "--no-latency"}),
                    "threads", 1)
            .times_ns;
      },
      [&] {
        return reference("fdbench_socket_loop", {"threads", "1", sockets, "1", repeat, "1"});
      });
  const std::string outcome = overhead(
      fmt::format("{} tcp sockets held, 1 thread, --pregrow auto, fresh process each", s_.sockets),
      c);
  judge("harness overhead, socket (fdbench / loop)", times(spread(c.ratios)), outcome);
}

// The second seed's experiment: 2 threads x 256 sockets from a 64-slot table, fdbench's fresh
// child against bench/stall_loop.c (the seed's program in a fresh child, its thread created
// inside the clock). A grace period is milliseconds with rcu_expedited 0 and tens of
// microseconds with 1, so the pair is measured under the machine's value and, as root, under
// the other one too (set for those rows only and put back, as the references section does).
void PerformanceRun::harness_stall() {
  section(
      "The fd-table stall: fdbench against the seed's program done minimally (target 0.9-1.1x "
      "from a 64-slot table, <= 1.1x pre-grown; under each rcu_expedited)");
  for_each_rcu_expedited("the stall", [&](std::optional<int> set_to, const std::string& label) {
    std::optional<RcuSetting> set;
    if (set_to) set.emplace(*set_to);
    stall_pair(label.empty() ? "rcu_expedited unknown" : label);
  });
}

// Under one rcu_expedited value, from a 64-slot table and pre-grown: fdbench's minimal harness
// against bench/socket_loop.c (the same shape: the thread made before the clock, both released
// together) and fdbench's published harness against bench/stall_loop.c (the seed's shape: the
// thread created inside the clock, joined inside it), both judged; and the minimal harness
// against the seed's program, reported, since how many grace periods the seed's shape pays
// depends on its thread's lifetime (docs/performance.md, "The fd-table stall").
void PerformanceRun::stall_pair(const std::string& rcu) {
  const std::string repeat = std::to_string(s_.repeat);
  for (const bool pregrown : {false, true}) {
    const auto fdbench_side = [&](const char* harness) {
      return [this, harness, pregrown, &repeat] {
        return find(fdbench({"socket", "--strategy", "threads", "--threads", "2", "--pregrow",
                             pregrown ? "auto" : "off", "--per-thread", "256", "--repeat", repeat,
                             "--warmup", "1", "--no-latency", "--harness", harness}),
                    "threads", 2)
            .times_ns;
      };
    };
    const auto seed = [&] {
      return reference("fdbench_stall_loop", {"2", "256", pregrown ? "1" : "0", repeat, "1"});
    };
    const auto same_shape = [&] {
      return reference("fdbench_socket_loop",
                       {"threads", "2", "256", pregrown ? "1" : "0", repeat, "1"});
    };
    const std::string table = pregrown ? "pre-grown" : "from a 64-slot table";
    const auto judged = [&](const std::string& pair, const Comparison& c) {
      const Spread ratio = spread(c.ratios);
      const bool met = pregrown ? ratio.median <= 1.1 : ratio.median >= 0.9 && ratio.median <= 1.1;
      const double by = ratio.median > 1.1 ? ratio.median - 1.1 : 0.9 - ratio.median;
      const std::string outcome = verdict(met, by / (ratio.median > 1.1 ? 1.1 : 0.9) * 100);
      fmt::print("  {}, {}: {} {}, {}: {}  {}\n", table, pair, ms(median(c.a_times)),
                 ms(median(c.b_times)), rcu, times(ratio), outcome);
      std::fflush(stdout);
      judge(fmt::format("fd-table stall, {}, {}, {}", table, rcu, pair), times(ratio), outcome);
    };
    judged("fdbench / socket loop (same shape)",
           compare(s_.rounds, fdbench_side("minimal"), same_shape));
    judged("fdbench --harness published / seed program",
           compare(s_.rounds, fdbench_side("published"), seed));
    const Comparison c = compare(s_.rounds, fdbench_side("minimal"), seed);
    fmt::print("  {}, fdbench / seed program (reported): {} {}, {}: {}\n", table,
               ms(median(c.a_times)), ms(median(c.b_times)), rcu, times(spread(c.ratios)));
    std::fflush(stdout);
  }
}

// A fresh server's first burst (issue: `fdbench accept`): 4 threads accepting 1,000 queued
// loopback connections, fdbench's fresh server against bench/accept_loop.c doing the same (a
// fresh process, the burst queued by a client process before the clock, the threads released
// together), from a 64-slot table and pre-grown, under each rcu_expedited as the stall is.
void PerformanceRun::harness_accept() {
  section(
      "A server's first burst: fdbench accept against a minimal server (target 0.9-1.1x from a "
      "64-slot table, <= 1.05x pre-grown; under each rcu_expedited)");
  if (!std::filesystem::exists(s_.tools + "/fdbench_accept_loop")) {
    fmt::print("  skipped: no fdbench_accept_loop here (it is built on Linux only)\n");
    return;
  }
  for_each_rcu_expedited("the accept burst", [&](std::optional<int> set_to,
                                                 const std::string& label) {
    std::optional<RcuSetting> set;
    if (set_to) set.emplace(*set_to);
    accept_pair(label.empty() ? "rcu_expedited unknown" : label);
  });
}

void PerformanceRun::accept_pair(const std::string& rcu) {
  const std::string repeat = std::to_string(s_.repeat);
  for (const bool pregrown : {false, true}) {
    const Comparison c = compare(
        s_.rounds,
        [&] {
          return find(fdbench({"accept", "--strategy", "threads", "--threads", "4",
                               "--connections", "1000", "--pregrow", pregrown ? "auto" : "off",
                               "--repeat", repeat, "--warmup", "1", "--no-latency"}),
                      "threads", 4)
              .times_ns;
        },
        [&] {
          return reference("fdbench_accept_loop", {"4", "1000", pregrown ? "1" : "0", repeat, "1"});
        });
    const Spread ratio = spread(c.ratios);
    const double low = pregrown ? 0 : 0.9;
    const double high = pregrown ? 1.05 : 1.1;
    const bool met = ratio.median >= low && ratio.median <= high;
    const double by = ratio.median > high ? (ratio.median - high) / high : (low - ratio.median) / low;
    const std::string outcome = verdict(met, by * 100);
    const std::string table = pregrown ? "pre-grown" : "from a 64-slot table";
    fmt::print("  {}, fdbench / accept loop: {} {}, {}: {}  {}\n", table, ms(median(c.a_times)),
               ms(median(c.b_times)), rcu, times(ratio), outcome);
    std::fflush(stdout);
    judge(fmt::format("accept burst, {}, {}, fdbench / accept loop", table, rcu), times(ratio),
          outcome);
  }
}

// A short repetition must cost per call what a long one does: whatever fdbench does once per
// repetition (the fresh child's start, the workers' release and report, first touches) belongs
// off the clock. `fdbench socket --pregrow auto` at 256 and at 4096 sockets per thread, 1 and 2
// threads, against bench/socket_loop.c doing the same: the cost per call at 256 over the cost at
// 4096 is the fixed cost per repetition, and the loop's is the machine's own (its release and
// wake-up). The 2-thread scaling at 256 (t1 / t2, each thread with its 256) is set against the
// loop's from the same rounds.
void PerformanceRun::short_repetitions() {
  constexpr long kShort = 256;
  constexpr long kLong = 4096;
  section(fmt::format(
      "Short repetitions: cost per call at {} over {} sockets per thread, --pregrow auto, each "
      "repetition in a fresh process (target: fdbench's <= 1.05x the loop's; 2-thread scaling "
      "at {} >= 0.95x the loop's)",
      kShort, kLong, kShort));
  const std::string repeat = std::to_string(s_.repeat);
  struct Side {
    std::vector<double> fixed[2];     // per round and thread count: per call short / long
    std::vector<double> per_call[2];  // per round and thread count: ns per call, short
    std::vector<double> per_call_long[2];
    std::vector<double> efficiency;  // per round: t1 / (2 t2) at kShort
  } fdbench_side, loop_side;
  for (int r = 0; r < s_.rounds; ++r) {
    double fdbench_short[2] = {0, 0};  // a short repetition's median time, 1 and 2 threads
    double loop_short[2] = {0, 0};
    for (const int t : {1, 2}) {
      const auto per_call = [&](bool fdbench_run, long n) {
        const std::string count = std::to_string(n);
        const std::vector<double> times =
            fdbench_run
                ? find(fdbench({"socket", "--strategy", "threads", "--threads", std::to_string(t),
                                "--pregrow", "auto", "--per-thread", count, "--repeat", repeat,
                                "--warmup", "1", "--no-latency"}),
                       "threads", t)
                      .times_ns
                : reference("fdbench_socket_loop",
                            {"threads", std::to_string(t), count, "1", repeat, "1"});
        return median(times) / static_cast<double>(n * t);
      };
      double f[2] = {0, 0};  // fdbench: short, long
      double l[2] = {0, 0};  // the loop
      run_in_order(
          r,
          [&] {
            f[0] = per_call(true, kShort);
            f[1] = per_call(true, kLong);
          },
          [&] {
            l[0] = per_call(false, kShort);
            l[1] = per_call(false, kLong);
          });
      const int i = t - 1;
      fdbench_side.fixed[i].push_back(f[0] / f[1]);
      loop_side.fixed[i].push_back(l[0] / l[1]);
      fdbench_side.per_call[i].push_back(f[0]);
      loop_side.per_call[i].push_back(l[0]);
      fdbench_side.per_call_long[i].push_back(f[1]);
      loop_side.per_call_long[i].push_back(l[1]);
      fdbench_short[i] = f[0] * static_cast<double>(kShort * t);
      loop_short[i] = l[0] * static_cast<double>(kShort * t);
    }
    // Each thread has the same share, so two threads do twice the work: t1 / t2 is 1 when they
    // take the time one takes for its share (perfect scaling), as t1 / (2 t2) is where the two
    // split one set.
    fdbench_side.efficiency.push_back(fdbench_short[0] / fdbench_short[1]);
    loop_side.efficiency.push_back(loop_short[0] / loop_short[1]);
  }
  for (const int t : {1, 2}) {
    const int i = t - 1;
    const Spread fixed = spread(fdbench_side.fixed[i]);
    const Spread loop_fixed = spread(loop_side.fixed[i]);
    // What fdbench adds: its fixed cost over the loop's, round by round. The loop's own is the
    // machine's (a short repetition's two threads contending from their first call), which no
    // harness can take off the clock.
    std::vector<double> added;
    for (std::size_t r = 0; r < fdbench_side.fixed[i].size(); ++r) {
      added.push_back(fdbench_side.fixed[i][r] / loop_side.fixed[i][r]);
    }
    const Spread over = spread(added);
    const std::string outcome = verdict(over.median <= 1.05, (over.median - 1.05) / 1.05 * 100);
    fmt::print(
        "  {}: fdbench {} / {} per call: {}\n"
        "    the loop {} / {} per call: {} (the machine's own fixed cost)\n"
        "    fdbench's over the loop's: {}  {}\n",
        thread_count(t), us(median(fdbench_side.per_call[i])),
        us(median(fdbench_side.per_call_long[i])), times(fixed), us(median(loop_side.per_call[i])),
        us(median(loop_side.per_call_long[i])), times(loop_fixed), times(over), outcome);
    judge(fmt::format("short repetitions, {}: per call at {} / at {}, fdbench's over the loop's",
                      thread_count(t), kShort, kLong),
          times(over), outcome);
  }
  std::vector<double> scaling;
  for (std::size_t r = 0; r < fdbench_side.efficiency.size(); ++r) {
    scaling.push_back(fdbench_side.efficiency[r] / loop_side.efficiency[r]);
  }
  const Spread ratio = spread(scaling);
  const std::string outcome = verdict(ratio.median >= 0.95, (0.95 - ratio.median) / 0.95 * 100);
  fmt::print("  2-thread scaling at {} per thread, t1/t2: fdbench {:.3f}, loop {:.3f}: {}  {}\n",
             kShort, median(fdbench_side.efficiency), median(loop_side.efficiency), times(ratio),
             outcome);
  std::fflush(stdout);
  judge(fmt::format("short repetitions, 2-thread scaling at {} (fdbench's / the loop's)", kShort),
        times(ratio), outcome);
}

void PerformanceRun::survey() {
  section(
      fmt::format("Survey: open+close {} files, every strategy at 1 and 2 threads (one "
                  "fdbench run, medians of {})",
                  count(s_.files), s_.repeat));
  const Results all = fdbench(open_args(s_.files, "all", "1,2", s_.repeat));
  fmt::print("  {:<13} {:>7} {:>11} {:>11}\n", "strategy", "threads", "median", "files/s");
  double best_ns = 0;
  for (const auto& m : all.results) {
    if (!m.error.empty() || m.failures != 0) {
      fmt::print(
          "  {:<13} {:>7}   {}\n", m.strategy, m.threads,
          m.error.empty() ? fmt::format("{} failed calls", m.failures) : m.status + ": " + m.error);
      continue;
    }
    fmt::print("  {:<13} {:>7} {:>11} {:>11}\n", m.strategy, m.threads, ms(m.median_ns),
               count(static_cast<long>(static_cast<double>(s_.files) / m.median_ns * 1e9)));
    if (best_ns == 0 || m.median_ns < best_ns) {
      best_ns = m.median_ns;
      best_ = m.strategy;
      best_threads_ = m.threads;
    }
  }
  fmt::print("  fastest here: {} with {} thread{} on {}; \"the best strategy\" below\n", best_,
             best_threads_, best_threads_ == 1 ? "" : "s", all.fs_type);
}

void PerformanceRun::scaling() {
  section(
      fmt::format("Scaling, and the best strategy against the seed's loop: open+close {} "
                  "files, threads and {} at 1 and 2 threads, beside a getppid loop",
                  count(s_.files), best_));
  std::vector<ScalingRound> rounds;
  for (int r = 0; r < s_.rounds; ++r) {
    Results res;
    ProgramRun run;
    ScalingRound round;
    const std::string threads = r % 2 == 0 ? "1,2" : "2,1";
    run_in_order(
        r, [&] { res = fdbench(open_args(s_.files, pair_of(best_, r), threads, s_.repeat), &run); },
        [&] {
          const std::string calls = std::to_string(s_.syscalls);
          round.syscall = median(reference("fdbench_syscall_loop", {calls, "3"}));
        });
    round.threads_1 = find(res, "threads", 1).median_ns;
    round.threads_2 = find(res, "threads", 2).median_ns;
    round.best_1 = find(res, best_, 1).median_ns;
    round.best_2 = find(res, best_, 2).median_ns;
    round.fdbench_syscall = res.syscall_ns;
    round.cpus_used = static_cast<double>(run.cpu_ns) / static_cast<double>(run.wall_ns);
    rounds.push_back(round);
  }
  const Spread best =
      spread(each(rounds, [](const ScalingRound& r) { return r.best_1 / (2 * r.best_2); }));
  const Spread threads =
      spread(each(rounds, [](const ScalingRound& r) { return r.threads_1 / (2 * r.threads_2); }));
  const std::string outcome = verdict(best.median >= 0.9, (0.9 - best.median) / 0.9 * 100);
  fmt::print(
      "  efficiency t1 / (2 x t2), 1 = twice the throughput (target >= 0.90 for the best)\n");
  fmt::print("  {:<13} {}  {}\n", best_, times(best), outcome);
  if (best_ != "threads") {
    fmt::print("  {:<13} {}  (the seed's loop, for comparison)\n", "threads", times(threads));
  }
  const Spread cpus = spread(each(rounds, [](const ScalingRound& r) { return r.cpus_used; }));
  fmt::print(
      "  CPUs these fdbench runs had (CPU time / wall time, set-up included): {:.2f} "
      "[{:.2f}-{:.2f}] of {}\n",
      cpus.median, cpus.min, cpus.max, describe_machine().cpus);
  judge(fmt::format("scaling, {}: t1 / (2 x t2)", best_), times(best), outcome);
  lead(rounds);
}

void PerformanceRun::lead(const std::vector<ScalingRound>& rounds) {
  const Spread lead =
      spread(each(rounds, [](const ScalingRound& r) { return r.threads_1 / r.best_1; }));
  const Spread syscall = spread(each(rounds, [](const ScalingRound& r) { return r.syscall; }));
  const auto files = static_cast<double>(s_.files);
  const double threads_file =
      median(each(rounds, [](const ScalingRound& r) { return r.threads_1; })) / files;
  const double best_file =
      median(each(rounds, [](const ScalingRound& r) { return r.best_1; })) / files;
  std::string recorded;
  if (rounds.front().fdbench_syscall) {
    const double ns =
        median(each(rounds, [](const ScalingRound& r) { return r.fdbench_syscall.value_or(0); }));
    recorded = fmt::format(" (fdbench's own environment.syscall_ns: {})", us(ns));
  }
  fmt::print("  {} at 1 thread is {} as fast as threads at 1 thread\n", best_, times(lead));
  fmt::print("  getppid(2), a syscall that does no work: {} [{}-{}] per call{}\n",
             us(syscall.median), us(syscall.min), us(syscall.max), recorded);
  fmt::print(
      "  threads: {} per file, of which entering and leaving the kernel twice (open, close) "
      "is 2 x {} = {} ({:.0f}%)\n",
      us(threads_file), us(syscall.median), us(2 * syscall.median),
      200 * syscall.median / threads_file);
  fmt::print("  {}: {} per file\n", best_, us(best_file));
  judge(fmt::format("{} vs threads at 1 thread (speed-up)", best_), times(lead), "reported");
  judge("trivial syscall (getppid)", us(syscall.median), "reported");
}

// One io_uring feature: fdbench runs that differ only in `without` / `with` (the default).
struct UringFeature {
  std::string strategy;
  std::string what;
  std::vector<std::string> without;
  std::vector<std::string> with;
};

// Each feature's effect, from pairs of runs alternating which goes first: the time without it
// over the time with it, at 1 and at 2 threads (> 1: the feature helps).
void PerformanceRun::uring_tuning() {
  section(
      fmt::format("io_uring tuning: open+close {} files, time without each feature / time with it "
                  "(> 1: it helps), at 1 and 2 threads; everything else as fdbench's defaults",
                  count(s_.files)));
  const std::vector<std::string> all{"--uring-tuning", "all"};
  const std::vector<UringFeature> features{
      {"uring", "tuning none / all", {"--uring-tuning", "none"}, all},
      {"uring-direct", "tuning none / all", {"--uring-tuning", "none"}, all},
      {"uring-direct", "setup flags off / on", {"--uring-tuning", "ring-fd"}, all},
      {"uring-direct", "ring fd off / on", {"--uring-tuning", "flags"}, all},
      {"uring-direct",
       "close batched / linked",
       {"--uring-close", "batched"},
       {"--uring-close", "linked"}},
  };
  std::map<std::string, std::string> used;
  for (const auto& f : features) {
    std::vector<double> one;
    std::vector<double> two;
    for (int r = 0; r < s_.rounds; ++r) {
      Results without;
      Results with;
      const auto run = [&](const std::vector<std::string>& extra, Results& out) {
        auto args = open_args(s_.files, f.strategy, "1,2", s_.repeat);
        args.insert(args.end(), extra.begin(), extra.end());
        out = fdbench(args);
      };
      run_in_order(
          r, [&] { run(f.without, without); }, [&] { run(f.with, with); });
      one.push_back(find(without, f.strategy, 1).median_ns / find(with, f.strategy, 1).median_ns);
      two.push_back(find(without, f.strategy, 2).median_ns / find(with, f.strategy, 2).median_ns);
      used = find(with, f.strategy, 1).parameters;
    }
    const std::string value = fmt::format("{:.3f}x | {:.3f}x", median(one), median(two));
    fmt::print("  {:<13} {:<34} 1 thread {}  2 threads {}\n", f.strategy, f.what,
               times(spread(one)), times(spread(two)));
    judge(fmt::format("{}: {}, 1 | 2 threads", f.strategy, f.what), value, "reported");
  }
  fmt::print("  tuned rings here: setup flags {}, ring fd {}\n", used["ring_setup"],
             used["ring_fd"]);
}

// What --latency costs: the same run traced and untraced, alternating which goes first (the
// time traced over the time untraced; target <= 1.03x where it is on by default).
void PerformanceRun::latency_cost() {
  section(
      "Per-call timing (--latency): time traced / untraced, `threads` (target <= 1.03x where "
      "it is on by default: socket and --keep-open)");
  const std::string repeat = std::to_string(s_.repeat);
  const std::string sockets = std::to_string(s_.sockets);
  const std::string files = std::to_string(s_.files);
  struct Case {
    std::string what;
    std::vector<std::string> args;
    int threads;
    bool on_by_default;
  };
  const std::vector<Case> cases{
      {fmt::format("socket, 2 threads x {} tcp, pregrow auto", s_.sockets),
       {"socket", "--strategy", "threads", "--threads", "2", "--pregrow", "auto", "--per-thread",
        sockets, "--repeat", repeat},
       2,
       true},
      {fmt::format("open --keep-open, {} files, 2 threads, pregrow auto", count(s_.files)),
       {"open", "--strategy", "threads", "--threads", "2", "--keep-open", "--pregrow", "auto",
        "--files", files, "--dir", s_.dir, "--repeat", repeat},
       2,
       true},
      {fmt::format("open+close, {} files, 1 thread", count(s_.files)),
       {"open", "--strategy", "threads", "--threads", "1", "--files", files, "--dir", s_.dir,
        "--repeat", repeat},
       1,
       false},
  };
  for (const auto& c : cases) {
    const auto run = [&](const char* flag) {
      auto args = c.args;
      args.emplace_back(flag);
      return find(fdbench(args), "threads", c.threads).times_ns;
    };
    const Comparison cmp = compare(
        s_.rounds, [&] { return run("--latency"); }, [&] { return run("--no-latency"); });
    const Spread ratio = spread(cmp.ratios);
    const std::string outcome =
        c.on_by_default ? verdict(ratio.median <= 1.03, (ratio.median - 1.03) / 1.03 * 100)
                        : std::string("reported");
    fmt::print("  {}: traced {}, untraced {}: {}  {}\n", c.what, ms(median(cmp.a_times)),
               ms(median(cmp.b_times)), times(ratio), outcome);
    judge("--latency cost, " + c.what, times(ratio), outcome);
  }
}

// What --kernel-trace costs: per event, from platform::KernelTracer around loops that each
// make one kind of event (the truest per-call figure: a workload's overhead is its switches and
// faults times these), then fdbench's own runs traced and untraced, each result's median, with
// the overhead those per-event costs predict from the switches and faults the run recorded.
void PerformanceRun::kernel_trace() {
  section(
      "Kernel evidence (--kernel-trace): time traced / untraced, and the cost per event "
      "(reported)");
  try {
    const EventCost cost = kernel_trace_events();
    kernel_trace_fdbench(cost);
  } catch (const Interrupted&) {
    throw;
  } catch (const std::runtime_error& e) {
    fmt::print("  not measured: {}\n", e.what());
  }
}

PerformanceRun::EventCost PerformanceRun::kernel_trace_events() {
  struct Pass {  // one line of fdbench_trace_cost
    double ns = 0;
    double switches = 0;
    double faults = 0;
    double kept = 0;
    double lost = 0;
  };
  const auto passes = [&](const std::string& workload, const char* side, long ops) {
    const std::string out =
        run_program({s_.tools + "/fdbench_trace_cost", workload, side, std::to_string(ops),
                     std::to_string(s_.repeat), "1", s_.dir},
                    scratch_)
            .out;
    std::vector<Pass> all;
    std::istringstream lines(out);
    Pass p;
    while (lines >> p.ns >> p.switches >> p.faults >> p.kept >> p.lost) all.push_back(p);
    if (all.empty()) throw std::runtime_error("fdbench_trace_cost printed nothing: " + out);
    return all;
  };
  const auto field = [](const std::vector<Pass>& ps, double Pass::*f) {
    std::vector<double> v;
    for (const Pass& p : ps) v.push_back(p.*f);
    return median(v);
  };
  fmt::print(
      "  Per event: platform::KernelTracer around a loop making one kind of event "
      "(bench/trace_cost.cpp),\n  per op: median of {} passes per side and round; cost per "
      "event = (traced - untraced) / events per op, per round\n",
      s_.repeat);
  struct Workload {
    std::string name;
    std::string what;
    long ops;
    double Pass::*event;  // what the difference is divided by; nullptr: nothing
    const char* unit;
    const char* units;
  };
  const std::vector<Workload> workloads{
      {"open-close", "openat+close, no event", s_.files, nullptr, "", ""},
      {"switch", "futex handoff, 2 threads on 1 CPU", s_.trace_switch_ops, &Pass::switches,
       "context switch", "context switches"},
      {"switch-2cpu", "futex handoff, 2 threads on 2 CPUs", s_.trace_switch_ops, &Pass::switches,
       "context switch to idle", "context switches"},
      {"fault", "write to a fresh page", s_.trace_fault_ops, &Pass::faults, "page fault",
       "page faults"},
  };
  EventCost cost;
  for (const Workload& w : workloads) {
    std::vector<double> ratios, traced_ns, untraced_ns, per_event, events, kept;
    double lost = 0;
    for (int r = 0; r < s_.rounds; ++r) {
      std::vector<Pass> traced;
      std::vector<Pass> untraced;
      run_in_order(
          r, [&] { traced = passes(w.name, "traced", w.ops); },
          [&] { untraced = passes(w.name, "untraced", w.ops); });
      const double t = field(traced, &Pass::ns);
      const double u = field(untraced, &Pass::ns);
      ratios.push_back(t / u);
      traced_ns.push_back(t);
      untraced_ns.push_back(u);
      kept.push_back(field(traced, &Pass::kept));
      for (const Pass& p : traced) lost += p.lost;
      if (w.event != nullptr) {
        const double n = field(traced, w.event);
        events.push_back(n);
        per_event.push_back((t - u) / n);
      }
    }
    fmt::print(
        "  {:<36} traced {:.0f} ns, untraced {:.0f} ns per op: {}; records kept {:.2f} per "
        "op{}\n",
        w.what, median(traced_ns), median(untraced_ns), times(spread(ratios)), median(kept),
        lost > 0 ? fmt::format(", {:.0f} LOST", lost) : "");
    std::fflush(stdout);
    if (w.event == nullptr) {
      judge("--kernel-trace cost, " + w.what, times(spread(ratios)), "reported");
      continue;
    }
    const Spread c = spread(per_event);
    fmt::print("    {:.2f} {} per op: {:.2f} µs per {} [{:.2f}-{:.2f}]\n", median(events), w.units,
               c.median / 1e3, w.unit, c.min / 1e3, c.max / 1e3);
    std::fflush(stdout);
    judge(fmt::format("--kernel-trace cost per {}", w.unit),
          fmt::format("{:.2f} µs [{:.2f}-{:.2f}]", c.median / 1e3, c.min / 1e3, c.max / 1e3),
          "reported");
    if (w.name == "switch") cost.switch_ns = c.median;
    if (w.name == "switch-2cpu") cost.idle_switch_ns = c.median;
    if (w.name == "fault") cost.fault_ns = c.median;
  }
  return cost;
}

void PerformanceRun::kernel_trace_fdbench(const EventCost& cost) {
  const std::string files = std::to_string(s_.files);
  const std::string socket_repeat = std::to_string(s_.repeat * 3);
  const std::string open_repeat = std::to_string(s_.repeat * 2);
  struct Case {
    std::string what;
    std::vector<std::string> args;
  };
  const std::vector<Case> cases{
      {"socket --strategy threads --pregrow auto",
       {"socket", "--strategy", "threads", "--pregrow", "auto", "--repeat", socket_repeat}},
      {fmt::format("open --files {}", count(s_.files)),
       {"open", "--files", files, "--threads", "1,2", "--strategy", "threads,pool,uring",
        "--repeat", open_repeat, "--dir", s_.dir}},
  };
  fmt::print(
      "  fdbench with --kernel-trace / without, in interleaved rounds: each result's median, "
      "ratio per round;\n  per repetition (traced): context switches and page faults of the "
      "measuring threads, and the overhead they predict at the costs above\n");
  for (const Case& c : cases) {
    std::map<std::pair<std::string, int>, std::vector<double>> ratios, traced, untraced, switches,
        faults;
    int incomplete = 0;
    for (int r = 0; r < s_.rounds; ++r) {
      Results with;
      Results without;
      run_in_order(
          r,
          [&] {
            auto args = c.args;
            args.emplace_back("--kernel-trace");
            with = fdbench(args);
          },
          [&] { without = fdbench(c.args); });
      for (const Measured& m : without.results) {
        const Measured& t = find(with, m.strategy, m.threads);
        const Measured& u = find(without, m.strategy, m.threads);
        if (!t.kernel_switches) {
          throw std::runtime_error("fdbench --kernel-trace recorded no kernel evidence here");
        }
        const auto key = std::make_pair(m.strategy, m.threads);
        ratios[key].push_back(t.median_ns / u.median_ns);
        traced[key].push_back(t.median_ns);
        untraced[key].push_back(u.median_ns);
        switches[key].push_back(*t.kernel_switches);
        faults[key].push_back(t.kernel_faults.value_or(0));
        incomplete += t.kernel_incomplete;
      }
    }
    fmt::print("  {}{}\n", c.what,
               incomplete > 0 ? fmt::format(" ({} repetitions lost records)", incomplete) : "");
    for (const auto& [key, rs] : ratios) {
      const double sw = median(switches[key]);
      const double pf = median(faults[key]);
      // a switch costs what one between threads on a CPU costs, or one to an idle CPU
      const double lo = sw * std::min(cost.switch_ns, cost.idle_switch_ns) + pf * cost.fault_ns;
      const double hi = sw * std::max(cost.switch_ns, cost.idle_switch_ns) + pf * cost.fault_ns;
      const double u = median(untraced[key]);
      const std::string name =
          fmt::format("{} {} thread{}", key.first, key.second, key.second == 1 ? "" : "s");
      fmt::print(
          "    {:<16} traced {}, untraced {}: {}; {:.0f} switches, {:.0f} faults: predicted "
          "+{:.1f}-{:.1f}%\n",
          name, ms(median(traced[key])), ms(u), times(spread(rs)), sw, pf, 100 * lo / u,
          100 * hi / u);
      std::fflush(stdout);
      judge(fmt::format("--kernel-trace cost, {}, {}", c.what.substr(0, c.what.find(' ')), name),
            times(spread(rs)), "reported");
    }
  }
}

void PerformanceRun::scale() {
  section(
      fmt::format("Scale: cost per file at {} and at {} files, 1 thread (target: within "
                  "1.3x); {} round{}, {} repetitions (+1 warm-up) at {}",
                  count(s_.files), count(s_.big_files), s_.scale_rounds,
                  s_.scale_rounds == 1 ? "" : "s", s_.big_repeat, count(s_.big_files)));
  std::vector<ScaleRound> rounds;
  for (int r = 0; r < s_.scale_rounds; ++r) rounds.push_back(scale_round(r));
  per_file(rounds);
  footprint(rounds);
}

// Both sizes with fdbench (threads and the best strategy in one run each) and with the open
// loop, which shows what the kernel alone does at each size.
PerformanceRun::ScaleRound PerformanceRun::scale_round(int r) {
  Results small;
  Results big;
  ProgramRun big_run;
  std::vector<double> loop_small;
  std::vector<double> loop_big;
  const std::string strategies = pair_of(best_, r);
  const auto loop = [&](long files, int repeat) {
    return reference("fdbench_open_loop",
                     {s_.dir, std::to_string(files), std::to_string(repeat), "1"});
  };
  run_in_order(
      r,
      [&] {
        run_in_order(
            r, [&] { small = fdbench(open_args(s_.files, strategies, "1", s_.repeat)); },
            [&] { loop_small = loop(s_.files, s_.repeat); });
      },
      [&] {
        run_in_order(
            r,
            [&] {
              big = fdbench(open_args(s_.big_files, strategies, "1", s_.big_repeat), &big_run);
            },
            [&] { loop_big = loop(s_.big_files, s_.big_repeat); });
      });
  const auto small_n = static_cast<double>(s_.files);
  const auto big_n = static_cast<double>(s_.big_files);
  ScaleRound round;
  round.threads_small = find(small, "threads", 1).median_ns / small_n;
  round.threads_big = find(big, "threads", 1).median_ns / big_n;
  round.best_small = find(small, best_, 1).median_ns / small_n;
  round.best_big = find(big, best_, 1).median_ns / big_n;
  round.loop_small = median(loop_small) / small_n;
  round.loop_big = median(loop_big) / big_n;
  round.rss_mib = static_cast<double>(big_run.max_rss_kib) / 1024;
  round.setup_ns = big.results.front().setup_ns;
  double timed = 0;  // every repetition, the warm-up counted at its median
  for (const auto& m : big.results) {
    timed += std::accumulate(m.times_ns.begin(), m.times_ns.end(), 0.0) + m.median_ns;
  }
  round.untimed_ns = static_cast<double>(big_run.wall_ns) - timed;
  return round;
}

void PerformanceRun::per_file(const std::vector<ScaleRound>& rounds) {
  const auto line = [&](const std::string& name, double ScaleRound::*small, double ScaleRound::*big,
                        bool judged) {
    const Spread ratio =
        spread(each(rounds, [&](const ScaleRound& r) { return r.*big / r.*small; }));
    const std::string outcome = judged
                                    ? verdict(ratio.median <= 1.3, (ratio.median - 1.3) / 1.3 * 100)
                                    : "(the minimal loop: the kernel's own growth)";
    fmt::print("  {:<13} {} -> {} per file: {}  {}\n", name,
               us(median(each(rounds, [&](const ScaleRound& r) { return r.*small; }))),
               us(median(each(rounds, [&](const ScaleRound& r) { return r.*big; }))), times(ratio),
               outcome);
    judge(fmt::format("scale, {}: per file at {} / at {}", name, count(s_.big_files),
                      count(s_.files)),
          times(ratio), judged ? outcome : "reported");
  };
  line("threads", &ScaleRound::threads_small, &ScaleRound::threads_big, true);
  if (best_ != "threads") line(best_, &ScaleRound::best_small, &ScaleRound::best_big, true);
  line("open loop", &ScaleRound::loop_small, &ScaleRound::loop_big, false);
}

void PerformanceRun::footprint(const std::vector<ScaleRound>& rounds) {
  const Spread rss = spread(each(rounds, [](const ScaleRound& r) { return r.rss_mib; }));
  const std::string outcome = verdict(rss.max < 64, (rss.max - 64) / 64 * 100);
  fmt::print(
      "  peak RSS of fdbench at {} files (wait4 ru_maxrss): {:.1f} MiB (rounds: "
      "{:.1f}-{:.1f})  target < 64 MiB: {}\n",
      count(s_.big_files), rss.max, rss.min, rss.max, outcome);
  judge(fmt::format("peak RSS at {} files", count(s_.big_files)),
        fmt::format("{:.1f} MiB", rss.max), outcome);
  const auto big_n = static_cast<double>(s_.big_files);
  if (rounds.front().setup_ns) {
    const double ns =
        median(each(rounds, [](const ScaleRound& r) { return r.setup_ns.value_or(0); }));
    fmt::print("  file-set creation, {} files (setup_ns): {:.2f} s, {} files/s\n",
               count(s_.big_files), ns / 1e9, count(static_cast<long>(big_n / ns * 1e9)));
    judge(fmt::format("file-set creation, {} files", count(s_.big_files)),
          fmt::format("{:.2f} s", ns / 1e9), "reported");
    return;
  }
  const double ns = median(each(rounds, [](const ScaleRound& r) { return r.untimed_ns; }));
  fmt::print(
      "  file-set creation + removal + start-up, {} files: {:.2f} s (wall time minus the "
      "timed repetitions: this fdbench records no setup_ns)\n",
      count(s_.big_files), ns / 1e9);
  judge(fmt::format("file-set creation + removal, {} files", count(s_.big_files)),
        fmt::format("{:.2f} s", ns / 1e9), "reported");
}

void PerformanceRun::startup() {
  section(
      fmt::format("Start-up: wall time from spawn to exit, and the CPU time in it, {} runs each "
                  "(target < 50 ms wall); the open run is threads, 1 thread, no warm-up",
                  s_.startup_runs));
  const std::vector<std::string> version{s_.fdbench, "--version"};
  const std::vector<std::string> small{s_.fdbench,   "open",     "--files", "100",       "--repeat",
                                       "1",          "--warmup", "0",       "--threads", "1",
                                       "--strategy", "threads",  "--dir",   s_.dir};
  // A program that does nothing says what any start-up costs here (exec, page faults).
  const std::vector<std::string> nothing{access("/bin/true", X_OK) == 0 ? "/bin/true"
                                                                        : "/usr/bin/true"};
  std::vector<ProgramRun> version_runs;
  std::vector<ProgramRun> small_runs;
  std::vector<ProgramRun> nothing_runs;
  for (int i = 0; i < s_.startup_runs; ++i) {
    run_in_order(
        i, [&] { version_runs.push_back(run_program(version, scratch_)); },
        [&] {
          small_runs.push_back(run_program(small, scratch_));
          nothing_runs.push_back(run_program(nothing, scratch_));
        });
  }
  startup_line("fdbench --version", version_runs, true);
  startup_line("fdbench open, 100 files, 1 repetition", small_runs, true);
  startup_line(nothing.front() + ", for scale", nothing_runs, false);
}

void PerformanceRun::startup_line(const std::string& what, const std::vector<ProgramRun>& runs,
                                  bool judged) {
  std::vector<double> walls;
  std::vector<double> cpus;
  for (const auto& run : runs) {
    walls.push_back(static_cast<double>(run.wall_ns));
    cpus.push_back(static_cast<double>(run.cpu_ns));
  }
  const Spread wall = spread(walls);
  const std::string outcome =
      judged ? verdict(wall.median < 50e6, (wall.median - 50e6) / 50e6 * 100) : "reported";
  fmt::print("  {:<40} {} [{:.2f}-{:.2f}], CPU {}  {}\n", what, ms(wall.median), wall.min / 1e6,
             wall.max / 1e6, ms(median(cpus)), judged ? outcome : "");
  judge("start-up, " + what, ms(wall.median), outcome);
}

// One strategy's open rows: fdbench with `options` against `loop` run with args(threads).
struct OpenReference {
  std::string name;  // as printed
  std::string strategy;
  std::vector<std::string> options;
  std::string loop;
  std::function<std::vector<std::string>(int threads)> args;
};

namespace {}  // namespace

// Every row of the default suite (`fdbench`: open+close at its thread counts, socket with
// threads, process and uring-direct at 2 threads, pre-grown and not) against a minimal C
// program doing the same work (bench/*_loop.c), each pair in interleaved rounds. The strategies
// whose work is a dispatch mechanism (pool, pool-batch, fast-pool, libuv) have the dispatch
// micro-benchmark as their reference instead.
void PerformanceRun::references() {
  section(
      "References: every row against a minimal program doing the same work (target <= 1.05x; "
      "1->2 scaling >= 0.95x the reference's)");
  fmt::print(
      "  fdbench / reference, median of the rounds' ratios [min-max], and the ratio of the "
      "fastest repetitions;\n  open+close {} files; "
      "socket rows without --latency\n  (its cost is the per-call timing section's); pool, "
      "pool-batch, fast-pool and libuv: see bench/dispatch_bench.cpp\n  socket rows: 2 threads x "
      "{} tcp sockets held, each repetition in a fresh process\n",
      count(s_.files), s_.sockets);
  const std::string files = std::to_string(s_.files);
  const std::string repeat = std::to_string(s_.repeat);
  const auto open_loop = [=, this](const char* how) {
    return [=, this](int t) {
      return std::vector<std::string>{s_.dir, files, repeat, "1", how, std::to_string(t)};
    };
  };
  const auto uring_loop = [=, this](const char* mode) {
    return [=, this](int t) {
      return std::vector<std::string>{s_.dir, files, repeat, "1", std::to_string(t), mode};
    };
  };
  const bool uring_built = access((s_.tools + "/fdbench_uring_loop").c_str(), X_OK) == 0;
  const std::vector<OpenReference> open{
      {"threads", "threads", {}, "fdbench_open_loop", open_loop("threads")},
      {"process", "process", {}, "fdbench_open_loop", open_loop("process")},
      {"uring", "uring", {}, "fdbench_uring_loop", uring_loop("normal")},
      {"uring-direct linked",
       "uring-direct",
       {"--uring-close", "linked"},
       "fdbench_uring_loop",
       uring_loop("direct-linked")},
      {"uring-direct batched",
       "uring-direct",
       {"--uring-close", "batched"},
       "fdbench_uring_loop",
       uring_loop("direct-batched")},
  };
  // A row set that cannot run here (io_uring unavailable, a program missing) says why and the
  // others still run; Ctrl-C ends the whole run.
  const auto attempt = [](const std::string& what, const std::function<void()>& rows) {
    try {
      rows();
    } catch (const Interrupted&) {
      throw;
    } catch (const std::runtime_error& e) {
      fmt::print("  {}: not measured: {}\n", what, e.what());
    }
  };
  for (const auto& ref : open) {
    if (ref.loop == "fdbench_uring_loop" && !uring_built) {
      fmt::print("  open {}: no reference (fdbench_uring_loop is built only with liburing)\n",
                 ref.name);
      continue;
    }
    attempt("open " + ref.name, [&] { open_references(ref); });
  }

  // The stall rows under the machine's rcu_expedited, then (as root) under the other value.
  for_each_rcu_expedited(
      "socket threads", [&](std::optional<int> set_to, const std::string& label) {
        attempt(label.empty() ? "socket threads" : "socket threads, " + label, [&] {
          std::optional<RcuSetting> set;
          if (set_to) set.emplace(*set_to);
          socket_references("threads", label.empty() ? "" : ", " + label);
        });
      });
  for (const std::string strategy : {"process", "uring-direct"}) {
    attempt("socket " + strategy, [&] { socket_references(strategy, ""); });
  }

  const auto judged = [&](const std::vector<std::pair<std::string, double>>& rows, bool at_most,
                          double limit, const std::string& name) {
    int met = 0;
    std::string worst;
    double worst_value = at_most ? 0 : 1e9;
    for (const auto& [what, value] : rows) {
      met += (at_most ? value <= limit : value >= limit) ? 1 : 0;
      if (at_most ? value > worst_value : value < worst_value) {
        worst_value = value;
        worst = what;
      }
    }
    const auto n = static_cast<int>(rows.size());
    const double by = at_most ? (worst_value - limit) / limit : (limit - worst_value) / limit;
    judge(name, fmt::format("{} of {}", met, n),
          met == n ? "met"
                   : fmt::format("NOT met (worst by {:.1f}%: {}, {:.3f}x)", by * 100, worst,
                                 worst_value));
  };
  judged(reference_rows_, true, 1.05, "references: rows within 1.05x of their reference");
  judged(reference_scaling_, false, 0.95, "references: 1->2 efficiency >= 0.95x the reference's");
}

void PerformanceRun::open_references(const OpenReference& ref) {
  const std::vector<int>& counts = s_.suite_threads;
  std::map<int, std::vector<double>> ratios, fdbench_ns, loop_ns;  // by thread count
  std::vector<double> scaling, fdbench_eff, loop_eff;
  for (int r = 0; r < s_.rounds; ++r) {
    std::map<int, double> f, l;  // this round's medians
    for (const int t : counts) {
      std::vector<double> ft;
      std::vector<double> lt;
      run_in_order(
          r,
          [&] {
            auto args = open_args(s_.files, ref.strategy, std::to_string(t), s_.repeat);
            args.insert(args.end(), ref.options.begin(), ref.options.end());
            ft = find(fdbench(args), ref.strategy, t).times_ns;
          },
          [&] { lt = reference(ref.loop, ref.args(t)); });
      f[t] = median(ft);
      l[t] = median(lt);
      ratios[t].push_back(f[t] / l[t]);
      fdbench_ns[t].insert(fdbench_ns[t].end(), ft.begin(), ft.end());
      loop_ns[t].insert(loop_ns[t].end(), lt.begin(), lt.end());
    }
    if (f.contains(1) && f.contains(2)) {
      fdbench_eff.push_back(f[1] / (2 * f[2]));
      loop_eff.push_back(l[1] / (2 * l[2]));
      scaling.push_back(fdbench_eff.back() / loop_eff.back());
    }
  }
  for (const int t : counts) {
    reference_row(fmt::format("open {}, {}", ref.name, thread_count(t)), ratios[t], fdbench_ns[t],
                  loop_ns[t]);
  }
  if (scaling.empty()) return;
  const Spread ratio = spread(scaling);
  const std::string outcome = verdict(ratio.median >= 0.95, (0.95 - ratio.median) / 0.95 * 100);
  fmt::print("  {:<56} fdbench {:.3f}, reference {:.3f}: {}  {}\n",
             fmt::format("open {}, 1->2 efficiency t1/(2 t2)", ref.name), median(fdbench_eff),
             median(loop_eff), times(ratio), outcome);
  reference_scaling_.emplace_back("open " + ref.name, ratio.median);
}

void PerformanceRun::socket_references(const std::string& strategy, const std::string& rcu) {
  const std::string repeat = std::to_string(s_.repeat);
  const std::string per_thread = std::to_string(s_.sockets);
  for (const bool pregrown : {false, true}) {
    const Comparison c = compare(
        s_.rounds,
        [&] {
          return find(fdbench({"socket", "--strategy", strategy, "--threads", "2", "--pregrow",
                               pregrown ? "auto" : "off", "--per-thread", per_thread, "--repeat",
                               repeat, "--warmup", "1", "--no-latency"}),
                      strategy, 2)
              .times_ns;
        },
        [&] {
          return reference("fdbench_socket_loop",
                           {strategy, "2", per_thread, pregrown ? "1" : "0", repeat, "1"});
        });
    reference_row(
        fmt::format("socket {}, {}{}", strategy, pregrown ? "pre-grown" : "64-slot start", rcu),
        c.ratios, c.a_times, c.b_times);
  }
}

void PerformanceRun::reference_row(const std::string& what, const std::vector<double>& ratios,
                                   const std::vector<double>& fdbench_ns,
                                   const std::vector<double>& loop_ns) {
  const Spread ratio = spread(ratios);
  const std::string outcome = verdict(ratio.median <= 1.05, (ratio.median - 1.05) / 1.05 * 100);
  // The fastest repetitions' ratio: on a busy machine the least disturbed, as in the harness
  // overhead lines.
  const double fastest = *std::min_element(fdbench_ns.begin(), fdbench_ns.end()) /
                         *std::min_element(loop_ns.begin(), loop_ns.end());
  fmt::print("  {:<56} fdbench {}, reference {}: {}  fastest {:.3f}x  {}\n", what,
             ms(median(fdbench_ns)), ms(median(loop_ns)), times(ratio), fastest, outcome);
  std::fflush(stdout);
  reference_rows_.emplace_back(what, ratio.median);
}

void PerformanceRun::summary(const OtherLoad& load, double elapsed_s) {
  int judged = 0;
  int met = 0;
  for (const auto& t : targets_) {
    judged += t.outcome != "reported" ? 1 : 0;
    met += t.outcome == "met" ? 1 : 0;
  }
  section(fmt::format("Targets: {} of {} met", met, judged));
  for (const auto& t : targets_) fmt::print("  {:<58} {:<24} {}\n", t.name, t.value, t.outcome);
  std::string busy;
  if (const auto share = load.share()) {
    busy = fmt::format(
        " Other processes kept the CPUs {:.0f}% busy meanwhile (/proc/stat minus "
        "this run's own CPU time){}.",
        *share * 100,
        *share > 0.1 ? ": the machine was busy, so every figure is noisier than "
                       "on a quiet machine"
                     : "");
  }
  fmt::print("\nThis run took {:.0f} s.{}\n", elapsed_s, busy);
}

}  // namespace perf
