// The findings held against the data they rest on, over a few thousand generated result sets:
// ties and clear separations, failures, stalls and growth measured with --latency, results cut
// short, too few repetitions. Every claim a finding makes must be what the rows and the one
// rule (separation()) say; no two findings may claim contradicting things; failed rows are
// never ranked and never take the other findings away. A failing set is printed whole.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/findings.hpp"
#include "model/results_json.hpp"
#include "support/results.hpp"

namespace fdbench {
namespace findings_property_test {

using testing::ResultBuilder;

// What one generated row is, kept as a plan so that the same set can be built again without
// its failed rows.
struct RowPlan {
  std::string workload;
  std::string strategy;
  int threads = 1;
  std::string pregrow = "off";
  int batch = 1;
  bool still_grew = false;           // a pregrow number too small: the table grew all the same
  std::string source = "generated";  // "tree": failed opens are part of the work
  bool keep_open = false;            // open --keep-open: the table grows, as for sockets
  std::vector<std::int64_t> times;
  int planned = 0;  // repetitions asked for; more than times.size(): cut short
  std::uint64_t failures = 0;
  std::optional<Status> ended;   // failed, unavailable, timed out: no repetitions
  std::optional<double> growth;  // --latency: the growth's share of a repetition
  std::uint64_t stalls = 0;
  // --kernel-trace: the off-CPU time growing the table (or waiting on it), and preempted.
  std::optional<std::pair<std::int64_t, std::int64_t>> kernel;
  double preempted_at_edges = 0;  // the share of the preempted time waiting to start or done
  // --harness published: the seeds' own harness, beside (or instead of) the minimal row.
  Harness harness = Harness::minimal;

  [[nodiscard]] bool holds() const { return workload == "socket" || keep_open; }
  // Marked FAILED, broke off, or never ran: not a timing.
  [[nodiscard]] bool failed() const {
    return ended.has_value() || (failures != 0 && source == "generated");
  }
};

// A deterministic generator: the same seed, the same set, on every machine.
class Generator {
 public:
  explicit Generator(std::uint64_t seed) : random_(seed) {}

  std::vector<RowPlan> set() {
    std::vector<RowPlan> rows;
    const auto shape = below(3);
    if (shape != 1) open_rows(rows);
    if (shape != 0) socket_rows(rows);
    return rows;
  }

 private:
  std::uint64_t below(std::uint64_t n) { return random_() % n; }
  bool chance(int percent) { return below(100) < static_cast<std::uint64_t>(percent); }
  template <class T>
  const T& pick(const std::vector<T>& from) {
    return from[below(from.size())];
  }

  // Repetitions around one of a few medians, so that ties and separations both happen.
  std::vector<std::int64_t> times(int n) {
    static const std::vector<double> levels_ms = {10.0, 10.2, 12.0, 25.0, 60.0};
    static const std::vector<double> spreads = {0.0, 0.01, 0.05, 0.3};
    const double level = pick(levels_ms) * 1e6;
    const double spread = pick(spreads);
    std::vector<std::int64_t> ns;
    for (int i = 0; i < n; ++i) {
      const double u = static_cast<double>(below(1001)) / 1000.0 - 0.5;
      ns.push_back(static_cast<std::int64_t>(level * (1 + spread * u)));
    }
    if (n > 2 && chance(10)) ns[below(ns.size())] *= 3;  // one slow repetition
    return ns;
  }

  // Times, how many were asked for, and whether Ctrl-C came first, failures and outcomes.
  void fill(RowPlan& row) {
    static const std::vector<int> counts = {2, 3, 5, 6, 6, 8, 10, 10};
    row.planned = pick(counts);
    row.times = times(row.planned);
    if (chance(8)) row.times.resize(1 + below(row.times.size()));  // cut short
    if (chance(10)) row.failures = 1 + below(50);
    if (chance(4)) row.ended = Status::failed;
    if (chance(2)) row.ended = Status::unavailable;
    if (chance(2)) row.ended = Status::timed_out;
    if (row.holds() && chance(50)) {
      static const std::vector<double> shares = {0.0, 0.05, 0.19, 0.2, 0.6};
      static const std::vector<std::uint64_t> stall_counts = {0, 0, 1, 5};
      row.growth = pick(shares);
      row.stalls = pick(stall_counts);
    }
    if (chance(30)) {
      static const std::vector<std::int64_t> growth_ns = {0, 0, 1'000, 5'000'000};
      static const std::vector<std::int64_t> preempted_ns = {0, 100'000, 900'000'000};
      static const std::vector<double> at_edges = {0, 0, 0.5, 1};
      row.kernel = {row.holds() ? pick(growth_ns) : 0, pick(preempted_ns)};
      row.preempted_at_edges = pick(at_edges);
    }
  }

  void open_rows(std::vector<RowPlan>& rows) {
    static const std::vector<std::string> strategies = {
        "threads", "pool", "pool-batch", "fast-pool", "process", "uring", "uring-direct"};
    const std::string source = chance(20) ? "tree" : "generated";
    const bool pairs = chance(30);  // --keep-open --pregrow off,auto
    const auto n = 2 + below(5);
    std::set<std::tuple<std::string, int, int>> seen;
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::string& strategy = pick(strategies);
      const bool batched = strategy == "pool-batch" || strategy.starts_with("uring");
      const std::tuple<std::string, int, int> combo = {strategy, 1 << below(3),
                                                       batched ? pick(kBatches) : 1};
      if (!seen.insert(combo).second) continue;
      for (const char* pregrow : {"off", "auto"}) {
        if (!pairs && std::string(pregrow) == "auto") continue;
        RowPlan row;
        row.workload = "open";
        row.strategy = std::get<0>(combo);
        row.threads = std::get<1>(combo);
        row.batch = std::get<2>(combo);
        row.pregrow = pregrow;
        row.source = source;
        row.keep_open = pairs;
        fill(row);
        rows.push_back(row);
        published_twin(rows, row);
      }
    }
  }

  // --harness minimal,published: sometimes the same setting measured again with the seeds'
  // harness (threads and pool on open, threads on socket; never with --keep-open), slower by
  // a little, by much, or not at all, so that every verdict of the harness finding happens.
  void published_twin(std::vector<RowPlan>& rows, const RowPlan& minimal) {
    const bool has_one =
        minimal.strategy == "threads" || (minimal.strategy == "pool" && minimal.workload == "open");
    if (!has_one || minimal.keep_open || !chance(40)) return;
    RowPlan twin = minimal;
    twin.harness = Harness::published;
    fill(twin);
    static const std::vector<double> costs = {1.0, 1.02, 1.3, 0.9};
    const double cost = pick(costs);
    if (chance(70)) {  // often the minimal row's own times, scaled: a clear verdict
      twin.times = minimal.times;
      for (auto& t : twin.times) t = static_cast<std::int64_t>(static_cast<double>(t) * cost);
    }
    rows.push_back(std::move(twin));
  }

  void socket_rows(std::vector<RowPlan>& rows) {
    static const std::vector<std::string> strategies = {
        "threads", "pool", "pool-batch", "fast-pool", "process", "uring", "uring-direct"};
    const auto n = 1 + below(7);
    std::set<std::string> seen;
    // --pregrow off,auto, and sometimes a number too, which may be too small.
    std::vector<std::string> pregrows = {"off", "auto"};
    if (chance(25)) pregrows.emplace_back("4095");
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::string& strategy = pick(strategies);
      if (!seen.insert(strategy).second) continue;
      for (const auto& pregrow : pregrows) {
        RowPlan row;
        row.workload = "socket";
        row.strategy = strategy;
        row.threads = 2;
        row.pregrow = pregrow;
        row.still_grew = pregrow == "4095" && chance(50);
        fill(row);
        rows.push_back(row);
        published_twin(rows, row);
      }
    }
  }

  static inline const std::vector<int> kBatches = {64, 256};
  std::mt19937_64 random_;
};

// What --latency would have recorded: growth taking `growth` of each repetition, `stalls`.
Latency latency_of(const RowPlan& row) {
  Latency l;
  const bool submissions = row.strategy.starts_with("uring");
  l.ns[submissions ? kSubmitOp : (row.workload == "open" ? "open" : "create")] = {1000, 1, 1,
                                                                                  1,    1, 1};
  std::int64_t total = 0;
  for (const auto t : row.times) total += t;
  const int reps = static_cast<int>(row.times.size());
  if (row.pregrow == "off" && *row.growth > 0) {
    for (const int fd : {64, 128, 256}) {
      l.growth_events.push_back({0, 0, static_cast<std::uint64_t>(fd), fd, 1000, fd, fd * 2, true});
    }
    l.growth_totals = {static_cast<std::uint64_t>(3 * reps),
                       static_cast<std::int64_t>(*row.growth * static_cast<double>(total)),
                       *row.growth};
  }
  // Every third stall as --kernel-trace names it (preempted, or on its CPU), the others as
  // the timing does.
  for (std::uint64_t i = 0; i < row.stalls; ++i) {
    const bool kernel = i % 3 == 2;
    l.stalls.push_back(
        {0, 0, i, submissions ? kSubmitOp : "create", 64, 500'000,
         kernel ? (i % 2 == 0 ? "preempted" : kOnCpuCause)
                : (i % 2 == 0 ? "fd-table-growth" : "unexplained"),
         kernel ? std::optional<std::int64_t>(i % 2 == 0 ? 400'000 : 10'000) : std::nullopt});
  }
  l.stall_totals = {row.stalls, static_cast<std::int64_t>(row.stalls) * 500'000, 0.01};
  for (const auto& stall : l.stalls) {  // every stall listed: the causes count them all
    StallCause& c = l.stall_causes[stall.cause];
    ++c.count;
    c.total_ns += stall.ns;
    if (stall.off_cpu_ns) ++c.from_kernel;
  }
  return l;
}

// The row as a Result; `clean`: its failed opens of the user's files left out, as if every
// file had been readable.
Result build(const RowPlan& row, bool clean) {
  ResultBuilder b = row.workload == "open" ? ResultBuilder::open(row.strategy, row.threads)
                                           : ResultBuilder::socket(row.strategy, row.threads);
  b.harness(row.harness).pregrow(row.pregrow).batch(row.batch);
  b.ops(row.workload == "open" ? 2000U : 256U * 2U);
  if (row.holds()) {
    b.holds_descriptors(true).fdsize(row.pregrow == "off" ? 64 : 4096,
                                     row.still_grew ? 8192 : 4096);
  }
  if (row.workload == "open") {
    InputSummary input;
    EXPECT_TRUE(parse_input_source(row.source, "", input.source)) << row.source;
    input.files = 2000;
    input.keep_open = row.keep_open;
    b.input(input);
  }
  b.times(row.times);
  if (static_cast<int>(row.times.size()) < row.planned) b.cut_short(row.planned);
  const bool work = row.source != "generated";
  if (row.failures != 0 && !(clean && work)) b.failed(row.failures, work ? EACCES : EMFILE);
  if (row.growth) b.latency(latency_of(row));
  if (row.kernel) {
    KernelEvidence k;
    k.available = true;
    k.repetitions = static_cast<int>(row.times.size());
    k.threads = row.threads;
    k.window_ns = row.times.empty() ? 0 : row.times.front();
    k.off_cpu[static_cast<std::size_t>(OffCpuCause::fd_table_growth)] = row.kernel->first;
    k.off_cpu[static_cast<std::size_t>(OffCpuCause::preempted)] = row.kernel->second;
    k.off_cpu_ns = row.kernel->first + row.kernel->second;
    const auto edges =
        static_cast<std::int64_t>(static_cast<double>(row.kernel->second) * row.preempted_at_edges);
    k.at_edges[static_cast<std::size_t>(OffCpuCause::preempted)] = edges;
    k.at_edges_ns = edges;
    k.io_uring_punts = 0;
    b.kernel(k);
  }
  if (row.ended == Status::unavailable) b.unavailable("no io_uring", row.planned);
  if (row.ended && row.ended != Status::unavailable) b.ended(*row.ended, "broke", row.planned);
  return b.build();
}

std::vector<Result> build_all(const std::vector<RowPlan>& rows, bool without_failed) {
  std::vector<Result> out;
  for (const auto& row : rows) {
    if (!without_failed || !row.failed()) out.push_back(build(row, without_failed));
  }
  return out;
}

std::string describe(const RowPlan& row) {
  std::string text = fmt::format("{} {} {} batch {} pregrow {}{} harness {}", row.workload,
                                 row.strategy, row.threads, row.batch, row.pregrow,
                                 row.still_grew ? " (still grew)" : "", to_string(row.harness));
  if (row.workload == "open") text += " input " + row.source + (row.keep_open ? " kept open" : "");
  text += fmt::format(" times_ns [{}]", fmt::join(row.times, ", "));
  if (static_cast<int>(row.times.size()) < row.planned) {
    text += fmt::format(" cut short of {}", row.planned);
  }
  if (row.failures != 0) text += fmt::format(" failures {}", row.failures);
  if (row.ended) text += fmt::format(" ended {}", to_string(*row.ended));
  if (row.growth) text += fmt::format(" growth share {} stalls {}", *row.growth, row.stalls);
  if (row.kernel) {
    text += fmt::format(" kernel growth {} preempted {} ({} of it at the edges)", row.kernel->first,
                        row.kernel->second, row.preempted_at_edges);
  }
  return text;
}

// The row a subject names: the test's sets have one per key.
const Result* row_named(const FindingSubject& s, const std::vector<Result>& results) {
  for (const auto& r : results) {
    if (r.workload == s.workload && r.config.kind == s.config.kind &&
        r.config.strategy == s.config.strategy && r.config.threads == s.config.threads &&
        r.config.batch == s.config.batch && r.config.pregrow == s.config.pregrow &&
        r.config.harness == s.config.harness) {
      return &r;
    }
  }
  return nullptr;
}

bool is_failure_kind(const std::string& kind) {
  return kind == "failures" || kind == "input_failures" || kind == "failed" || kind == "hung" ||
         kind == "unavailable" || kind == "setting_changed";
}

// The rows ranked with `a` (the same workload, a list of files, minimal harness, the same side
// of pre-growing), as the findings rank them.
std::vector<const Result*> ranked(const Result& a, const std::vector<Result>& results) {
  std::vector<const Result*> out;
  for (const auto& r : results) {
    if (r.workload == a.workload && comparable(r) && !r.times_ns.empty() && r.input &&
        r.config.pregrow.grows() == a.config.pregrow.grows() &&
        r.config.harness == Harness::minimal) {
      out.push_back(&r);
    }
  }
  return out;
}

// A knee is the same as its strategy's best, and every fewer thread count is slower than the
// best beyond noise and slower than the knee: never a count whose median is above a smaller
// count's.
std::string knee_problem(const Result& knee, const Result& best,
                         const std::vector<Result>& results) {
  if (&knee != &best && separation(knee.median_ci, best.median_ci) != Separation::same) {
    return "claims a knee not shown the same as the best";
  }
  for (const auto* r : ranked(knee, results)) {
    if (r->config.strategy != knee.config.strategy) continue;
    if (r->stats.median < best.stats.median) return "claims a best that is not the fastest";
    if (r->config.threads < knee.config.threads && r->stats.median <= knee.stats.median) {
      return "claims a knee whose median is above a smaller count's";
    }
    if (r->config.threads < knee.config.threads &&
        separation(r->median_ci, best.median_ci) != Separation::separated) {
      return "claims a knee where a smaller count is not shown slower";
    }
  }
  return "";
}

// The rows not separated from the fastest that a tie's subjects leave out.
std::vector<const Result*> unnamed_contenders(const std::vector<const Result*>& named,
                                              const std::vector<Result>& results) {
  std::vector<const Result*> out;
  const Result* best = named.front();
  for (const auto* r : ranked(*best, results)) {
    if (r == best || std::find(named.begin(), named.end(), r) != named.end()) continue;
    if (overlap(separation(r->median_ci, best->median_ci))) out.push_back(r);
  }
  return out;
}

// Whether `claim` is what the data says of rows `a` and `b`, the ranked ones `results`.
std::string check_claim(const FindingClaim& claim, const Result& a, const Result& b,
                        const std::vector<Result>& results) {
  const Separation apart = separation(a.median_ci, b.median_ci);
  const double share = a.latency ? a.latency->growth_totals.share_of_repetition : 0;
  const bool slower = apart == Separation::separated && a.stats.median >= 2 * b.stats.median;
  switch (claim.kind) {
    case ClaimKind::separated:
      return apart == Separation::separated ? "" : "claims separated, the rule does not";
    case ClaimKind::same:
      return apart == Separation::same ? "" : "claims the same, the rule does not";
    case ClaimKind::cannot_tell:
      return apart == Separation::cannot_tell ? "" : "claims cannot tell, the rule does not";
    case ClaimKind::knee:
      return knee_problem(a, b, results);
    case ClaimKind::grew:
      return a.fdsize_after > a.fdsize_before ? "" : "claims the table grew, it did not";
    case ClaimKind::no_growth:
      return a.fdsize_after && a.fdsize_after <= a.fdsize_before ? "" : "claims no growth, it grew";
    case ClaimKind::too_few:
      return apart == Separation::too_few ? "" : "claims too few repetitions, there are enough";
    case ClaimKind::fastest:
      for (const auto& r : results) {
        // A published harness's row is ranked with no other: it has its own finding.
        if (&r == &a || r.workload != a.workload || !comparable(r) || r.times_ns.empty() ||
            r.config.pregrow.grows() != a.config.pregrow.grows() ||
            r.config.harness != a.config.harness) {
          continue;
        }
        if (separation(a.median_ci, r.median_ci) != Separation::separated ||
            r.stats.median <= a.stats.median) {
          return "claims fastest, not separated from and faster than " + r.config.strategy;
        }
      }
      return "";
    case ClaimKind::stalls:
      return a.latency && a.latency->stall_totals.count > 0 ? "" : "claims stalls, none measured";
    case ClaimKind::no_stalls:
      return a.latency && a.latency->stall_totals.count == 0 ? ""
                                                             : "claims no stalls, some measured";
    case ClaimKind::growth_cost:
      return share >= kLargeGrowthShare ? "" : "claims a large growth cost, it was small";
    case ClaimKind::pregrow_slower:
      return slower ? "" : "claims 2× slower without pre-growing, the rule does not";
    case ClaimKind::pregrow_little:
      if (apart == Separation::too_few) return "claims little difference with too few repetitions";
      if (slower) return "claims little difference, it was 2× slower and separated";
      if (!(a.median_ci.hi < 2 * b.median_ci.lo && b.median_ci.hi < 2 * a.median_ci.lo)) {
        return "claims little difference, the intervals allow 2×";
      }
      return share < kLargeGrowthShare ? "" : "claims little difference beside a large growth cost";
    case ClaimKind::kernel_growth:
      return a.kernel && a.kernel->available &&
                     a.kernel->off_cpu[static_cast<std::size_t>(OffCpuCause::fd_table_growth)] > 0
                 ? ""
                 : "claims the kernel saw the table grow, it did not";
    case ClaimKind::kernel_no_growth:
      return a.kernel && a.kernel->available &&
                     a.kernel->off_cpu[static_cast<std::size_t>(OffCpuCause::fd_table_growth)] == 0
                 ? ""
                 : "claims the kernel saw no growth, it did";
    case ClaimKind::kernel_off_cpu: {
      if (!a.kernel || !a.kernel->available) return "claims kernel evidence, there is none";
      const KernelEvidence& k = *a.kernel;
      const double thread_time = static_cast<double>(k.window_ns) * std::max(1, k.threads);
      return static_cast<double>(k.off_cpu_ns - k.at_edges_ns) >= kLargeOffCpuShare * thread_time
                 ? ""
                 : "claims a large off-CPU share in the work, waiting to start or done made it";
    }
  }
  return "unknown claim";
}

// Every problem with the findings of `results`, in words; none when they hold.
std::vector<std::string> problems(const std::vector<Result>& results,
                                  const std::vector<ClaimedFinding>& claimed) {
  std::vector<std::string> out;
  // What all the findings together say of each pair of rows, and of each row.
  std::map<std::pair<const Result*, const Result*>, std::set<ClaimKind>> pairs;
  std::map<const Result*, std::set<ClaimKind>> rows;
  for (const ClaimedFinding& each : claimed) {
    // Named, not structured bindings: clang 14 (the sanitizer builds) does not let a lambda
    // capture those.
    const Finding& f = each.finding;
    const std::vector<FindingClaim>& claims = each.claims;
    std::vector<const Result*> named;
    for (const auto& s : f.subjects) {
      const Result* r = row_named(s, results);
      if (r == nullptr) out.push_back("names a row that is not there: " + f.text);
      named.push_back(r);
      if (r != nullptr && !is_failure_kind(f.kind) && !comparable(*r)) {
        out.push_back("names a FAILED row (" + s.config.strategy + ", role " + s.role +
                      "): " + f.text);
      }
    }
    if (std::find(named.begin(), named.end(), nullptr) != named.end()) continue;
    std::set<ClaimKind> kinds;
    for (const auto& claim : claims) {
      kinds.insert(claim.kind);
      if (claim.a >= named.size() || claim.b >= named.size()) {
        out.push_back("a claim about a subject it does not have: " + f.text);
        continue;
      }
      const Result* a = named[claim.a];
      const Result* b = named[claim.b];
      if (const auto why = check_claim(claim, *a, *b, results); !why.empty()) {
        out.push_back(
            fmt::format("{} ({}, {}): {}", why, a->config.strategy, b->config.strategy, f.text));
      }
      if (claim.a == claim.b) {
        rows[a].insert(claim.kind);
      } else if (claim.kind == ClaimKind::separated || claim.kind == ClaimKind::same ||
                 claim.kind == ClaimKind::cannot_tell || claim.kind == ClaimKind::too_few) {
        pairs[std::minmax(a, b)].insert(claim.kind);
      } else {
        rows[a].insert(claim.kind);
      }
    }
    // The sentence says what the claims say.
    const auto says = [&](const char* words) { return f.text.find(words) != std::string::npos; };
    if (says("within noise"))
      out.push_back("says within noise, an overlap, not sameness: " + f.text);
    if (says("the same within") && !kinds.contains(ClaimKind::same)) {
      out.push_back("says the same, claims no such thing: " + f.text);
    }
    if ((says("cannot tell apart") || says("cannot tell closer") || says("cannot tell how")) &&
        !kinds.contains(ClaimKind::cannot_tell) && !f.kind.starts_with("answer") &&
        f.kind != "knee_unclear") {
      out.push_back("says it cannot tell, claims no such thing: " + f.text);
    }
    if (says("bought nothing") || says("made no difference")) {
      out.push_back("says sameness in words the rule does not use: " + f.text);
    }
    if (says("every stall")) {
      for (std::size_t i = 0; i < named.size(); ++i) {
        if (f.subjects[i].role == "pregrown" &&
            (!named[i]->latency || named[i]->latency->stall_totals.count != 0)) {
          out.push_back(
              "says every stall where a pre-grown row stalled or was not timed per "
              "call: " +
              f.text);
        }
      }
    }
    if (f.kind == "tied" || f.kind == "no_clear_winner") {
      for (const auto* missing : unnamed_contenders(named, results)) {
        out.push_back("leaves out a result not separated from the fastest (" +
                      missing->config.strategy + " " + std::to_string(missing->config.threads) +
                      "): " + f.text);
      }
    }
    if (says("at least 2× slower") && !kinds.contains(ClaimKind::pregrow_slower)) {
      out.push_back("says at least 2× slower without a separated 2× difference: " + f.text);
    }
    if (says("little difference") && !kinds.contains(ClaimKind::pregrow_little)) {
      out.push_back("says little difference, claims no such thing: " + f.text);
    }
    if (f.kind == "kernel_off_cpu" && !kinds.contains(ClaimKind::kernel_off_cpu)) {
      out.push_back("names an off-CPU cause without the claim: " + f.text);
    }
    if (says("the fastest way here") && !kinds.contains(ClaimKind::fastest)) {
      out.push_back("names a fastest without the claim: " + f.text);
    }
    if (says("% of the published figure is harness") &&
        (!kinds.contains(ClaimKind::separated) || named.size() != 2 ||
         named[0]->stats.median <= named[1]->stats.median)) {
      out.push_back("says a share is harness without a separated, slower published row: " + f.text);
    }
    if (f.kind.starts_with("harness") &&
        (named.size() != 2 || named[0]->config.harness != Harness::published ||
         named[1]->config.harness != Harness::minimal)) {
      out.push_back("a harness finding not about a published row and its minimal twin: " + f.text);
    }
    for (const auto* r : named) {
      if (r->config.harness == Harness::published && !f.kind.starts_with("harness") &&
          !is_failure_kind(f.kind)) {
        out.push_back("ranks a published harness's row among the minimal ones: " + f.text);
      }
    }
    if (says("marked FAILED") && std::none_of(results.begin(), results.end(), [](const Result& r) {
          return r.ran() && r.failures != 0 && !r.failures_are_work();
        })) {
      out.push_back("points at rows marked FAILED, and none is: " + f.text);
    }
    if (says(" stalled")) {
      // Of every row it names, and of that row's pre-grown or plain twin (a sentence after a
      // pair's line is read as one about both), the measured stalls are said as measured.
      for (const auto& r : results) {
        const bool twin = std::any_of(named.begin(), named.end(), [&](const Result* n) {
          return n == &r ||
                 (n->workload == r.workload && n->config.strategy == r.config.strategy &&
                  n->config.threads == r.config.threads && n->config.batch == r.config.batch &&
                  n->config.kind == r.config.kind && n->config.harness == r.config.harness);
        });
        if (!twin || !r.latency || !comparable(r)) continue;
        const bool covered = std::any_of(claims.begin(), claims.end(), [&](const FindingClaim& c) {
          return named[c.a] == &r &&
                 (c.kind == ClaimKind::stalls || c.kind == ClaimKind::no_stalls);
        });
        if (!covered) {
          out.push_back("speaks of stalls without saying those of a row it covers: " +
                        r.config.strategy + " pregrow " + r.config.pregrow.label() + ": " + f.text);
        }
      }
    }
  }
  for (const auto& [pair, kinds] : pairs) {
    if (kinds.size() > 1) {
      out.push_back(fmt::format("contradicting claims about a pair: {} and {}",
                                pair.first->config.strategy, pair.second->config.strategy));
    }
  }
  for (const auto& [row, kinds] : rows) {
    if (kinds.contains(ClaimKind::stalls) && kinds.contains(ClaimKind::no_stalls)) {
      out.push_back("claims both stalls and none: " + row->config.strategy);
    }
    if (kinds.contains(ClaimKind::pregrow_little) &&
        (kinds.contains(ClaimKind::pregrow_slower) || kinds.contains(ClaimKind::growth_cost))) {
      out.push_back("claims little difference and a large one: " + row->config.strategy);
    }
  }
  return out;
}

// Every --pregrow and --batch value a ranked row was measured with appears in some finding's
// subjects: a setting the user asked for is never left unmentioned.
std::vector<std::string> settings_left_out(const std::vector<Result>& results,
                                           const std::vector<ClaimedFinding>& claimed) {
  std::set<std::tuple<std::string, std::string, std::string>> said;  // workload, setting, value
  for (const auto& f : claimed) {
    for (const auto& s : f.finding.subjects) {
      said.insert({s.workload, "pregrow", s.config.pregrow.label()});
      said.insert({s.workload, "batch", std::to_string(s.config.batch)});
    }
  }
  // A row takes part in a comparison where it is ranked (open: the pre-grown side where there
  // is one) or has a twin on the other side of pre-growing; the others are named by their
  // section's title.
  const auto timing = [](const Result& r) {
    return comparable(r) && !r.times_ns.empty() && r.config.harness == Harness::minimal;
  };
  const auto compared = [&](const Result& r) {
    const bool grown_side = std::any_of(results.begin(), results.end(), [&](const Result& o) {
      return timing(o) && o.workload == r.workload && o.input && o.config.pregrow.grows();
    });
    if (r.input && r.config.pregrow.grows() == grown_side && ranked(r, results).size() >= 2)
      return true;
    return std::any_of(results.begin(), results.end(), [&](const Result& o) {
      return &o != &r && timing(o) && o.workload == r.workload &&
             o.config.strategy == r.config.strategy && o.config.threads == r.config.threads &&
             o.config.batch == r.config.batch && o.config.kind == r.config.kind &&
             o.config.pregrow.grows() != r.config.pregrow.grows();
    });
  };
  std::vector<std::string> out;
  for (const auto& r : results) {
    if (!timing(r) || !compared(r)) continue;
    if (!said.contains({r.workload, "pregrow", r.config.pregrow.label()})) {
      out.push_back("no finding names pregrow " + r.config.pregrow.label() + " of " + r.workload);
    }
    if (!said.contains({r.workload, "batch", std::to_string(r.config.batch)})) {
      out.push_back("no finding names batch " + std::to_string(r.config.batch) + " of " +
                    r.workload);
    }
  }
  return out;
}

// The texts of the findings that are not about failures.
std::vector<std::string> other_findings(const std::vector<Result>& results,
                                        const Environment& env) {
  std::vector<std::string> texts;
  for (const auto& f : findings(results, env)) {
    if (!is_failure_kind(f.kind)) texts.push_back(f.text);
  }
  return texts;
}

TEST(FindingsProperty, EveryFindingHoldsAgainstItsRowsAndNoneContradicts) {
  constexpr int kSets = 3000;
  int failing = 0;
  int with_findings = 0;
  int with_harness = 0;                // harness findings made: the published twins are compared
  std::map<std::string, int> classes;  // how many sets showed each kind of problem
  for (int seed = 0; seed < kSets; ++seed) {
    Generator generator(static_cast<std::uint64_t>(seed));
    const std::vector<RowPlan> plan = generator.set();
    Environment env;
    if (seed % 3 == 0) env.syscall_ns = 1000;
    const std::vector<Result> results = build_all(plan, false);
    const auto claimed = claimed_findings(results, env);
    if (!claimed.empty()) ++with_findings;
    for (const auto& f : claimed) {
      if (f.finding.kind.starts_with("harness")) ++with_harness;
    }
    std::vector<std::string> found = problems(results, claimed);
    for (const auto& missing : settings_left_out(results, claimed)) found.push_back(missing);
    // Failures never take the other findings away: those of the set without its failed rows
    // (and with every given file readable) are all still there.
    if (other_findings(build_all(plan, true), env) != other_findings(results, env)) {
      found.push_back("the failed rows changed the other findings");
    }
    if (found.empty()) continue;
    std::set<std::string> seen;
    for (const auto& p : found) seen.insert(p.substr(0, p.find_first_of(":(")));
    for (const auto& c : seen) ++classes[c];
    if (++failing > 5) continue;  // the first few in full, then only the count
    std::string text = fmt::format("set {} (seed {}):", failing, seed);
    for (const auto& row : plan) text += "\n  row: " + describe(row);
    for (const auto& f : claimed) {
      std::string claims;
      for (const auto& c : f.claims) {
        claims += fmt::format(" {}({},{})", to_string(c.kind), c.a, c.b);
      }
      text += "\n  finding [" + f.finding.kind + claims + "]: " + f.finding.text;
    }
    for (const auto& p : found) text += "\n  PROBLEM: " + p;
    ADD_FAILURE() << text;
  }
  std::string tally;
  for (const auto& [problem, sets] : classes)
    tally += fmt::format("\n  {} sets: {}", sets, problem);
  EXPECT_EQ(failing, 0) << "of " << kSets << " generated sets:" << tally;
  EXPECT_GT(with_findings, kSets / 2);  // the generator makes sets worth concluding from
  EXPECT_GT(with_harness, kSets / 10);
}

}  // namespace findings_property_test
}  // namespace fdbench

namespace fdbench {
namespace findings_metamorphic_test {

using findings_property_test::build_all;
using findings_property_test::Generator;
using findings_property_test::RowPlan;
using testing::ResultBuilder;

// What a set concludes about its ranking: which results are fastest, tied or close to it, and
// the knee, as (kind, its subjects in a stable order), whatever the wording.
std::set<std::string> conclusions(const std::vector<Result>& results, bool answers = true) {
  static const std::set<std::string> all = {"fastest",      "tied",    "no_clear_winner", "knee",
                                            "knee_unclear", "too_few", "answer_fastest"};
  static const std::set<std::string> rankings = {"fastest", "tied", "no_clear_winner", "knee",
                                                 "knee_unclear"};
  const std::set<std::string>& kinds = answers ? all : rankings;
  std::set<std::string> out;
  for (const auto& f : findings(results, Environment{})) {
    if (!kinds.contains(f.kind)) continue;
    std::vector<std::string> subjects;
    for (const auto& s : f.subjects) {
      subjects.push_back(fmt::format("{}:{} {} {} b{} p{} {}", s.role, s.workload,
                                     s.config.strategy, s.config.threads, s.config.batch,
                                     s.config.pregrow.label(), to_string(s.config.harness)));
    }
    std::sort(subjects.begin(), subjects.end());
    out.insert(f.kind + " [" + fmt::format("{}", fmt::join(subjects, ", ")) + "]");
  }
  return out;
}

std::vector<Result> scaled(std::vector<Result> results, std::int64_t by) {
  for (auto& r : results) {
    for (auto& t : r.times_ns) t *= by;
    if (r.latency) {
      r.latency->growth_totals.total_ns *= by;
      r.latency->stall_totals.total_ns *= by;
    }
    finalize(r);
  }
  return results;
}

// A result of a strategy not otherwise measured, ten times slower than every other.
Result slowest_of(const std::vector<Result>& results) {
  std::int64_t most = 1;
  for (const auto& r : results) {
    for (const auto t : r.times_ns) most = std::max(most, t);
  }
  std::vector<std::int64_t> times;
  for (int i = 0; i < 10; ++i) times.push_back(most * 10 + most / 1000 * i);
  ResultBuilder b = ResultBuilder::open("libuv", 1);
  b.ops(2000U).times(times);
  InputSummary input;
  input.files = 2000;
  b.input(input);
  return b.build();
}

std::string the_fastest_named(const std::vector<Result>& results) {
  for (const auto& f : findings(results, Environment{})) {
    if (f.kind != "fastest" && f.kind != "tied" && f.kind != "no_clear_winner") continue;
    return fmt::format("{} {}", f.subjects.front().config.strategy,
                       f.subjects.front().config.threads);
  }
  return "";
}

// The lowest median among the open rows the findings rank.
std::string lowest_median(const std::vector<Result>& results) {
  const Result* best = nullptr;
  const bool grown = std::any_of(results.begin(), results.end(), [](const Result& r) {
    return r.workload == "open" && comparable(r) && !r.times_ns.empty() &&
           r.config.pregrow.grows() && r.config.harness == Harness::minimal;
  });
  for (const auto& r : results) {
    if (r.workload != "open" || !comparable(r) || r.times_ns.empty() ||
        r.config.harness != Harness::minimal || r.config.pregrow.grows() != grown) {
      continue;
    }
    if (best == nullptr || r.ops_per_sec > best->ops_per_sec) best = &r;
  }
  return best == nullptr ? "" : fmt::format("{} {}", best->config.strategy, best->config.threads);
}

TEST(FindingsMetamorphic, RankingConclusionsSurviveWhatMustNotChangeThem) {
  constexpr int kSets = 800;
  int failing = 0;
  int checked_removal = 0;
  for (int seed = 0; seed < kSets; ++seed) {
    Generator generator(static_cast<std::uint64_t>(seed) + 100'000);
    const std::vector<Result> results = build_all(generator.set(), false);
    const std::set<std::string> base = conclusions(results);
    std::vector<std::string> broken;
    std::vector<Result> reversed(results.rbegin(), results.rend());
    if (conclusions(reversed) != base) broken.emplace_back("reordering the results");
    std::vector<Result> shuffled = results;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(seed));
    if (conclusions(shuffled) != base) broken.emplace_back("shuffling the results");
    if (conclusions(scaled(results, 3)) != base) broken.emplace_back("scaling every time by 3");
    std::vector<Result> twice = results;
    twice.insert(twice.end(), results.begin(), results.end());
    if (findings(twice, Environment{}) != findings(results, Environment{})) {
      broken.emplace_back("the same results twice");
    }
    // Where two or more open results were ranked (one is fastest of nothing).
    const bool open = std::count_if(results.begin(), results.end(), [](const Result& r) {
                        return r.workload == "open" && comparable(r) && !r.times_ns.empty() &&
                               r.config.harness == Harness::minimal;
                      }) >= 2;
    if (open) {
      std::vector<Result> more = results;
      more.push_back(slowest_of(results));
      // (The answer may appear where one result had nothing to be compared with.)
      if (conclusions(more, false) != conclusions(results, false)) {
        broken.emplace_back("adding a result slower than all");
      }
    }
    // Without the result called fastest, the next lowest median leads.
    const auto it = std::find_if(results.begin(), results.end(), [&](const Result& r) {
      return fmt::format("{} {}", r.config.strategy, r.config.threads) ==
                 the_fastest_named(results) &&
             base.contains("fastest [fastest:open " + r.config.strategy + " " +
                           std::to_string(r.config.threads) + " b" +
                           std::to_string(r.config.batch) + " p" + r.config.pregrow.label() + " " +
                           std::string(to_string(r.config.harness)) + "]");
    });
    if (it != results.end()) {
      std::vector<Result> rest = results;
      rest.erase(rest.begin() + (it - results.begin()));
      const std::string next = the_fastest_named(rest);
      ++checked_removal;
      if (!next.empty() && next != lowest_median(rest)) {
        broken.push_back("removing the fastest: " + next + " leads, not " + lowest_median(rest));
      }
    }
    if (broken.empty()) continue;
    if (++failing > 5) continue;
    std::string text = fmt::format("seed {}: {}", seed, fmt::join(broken, "; "));
    for (const auto& c : base) text += "\n  " + c;
    ADD_FAILURE() << text;
  }
  EXPECT_EQ(failing, 0) << "of " << kSets << " generated sets";
  EXPECT_GT(checked_removal, kSets / 20);  // sets with a clear fastest occur
}

}  // namespace findings_metamorphic_test
}  // namespace fdbench

namespace fdbench {
namespace findings_real_runs_test {

using findings_metamorphic_test::conclusions;
using findings_metamorphic_test::scaled;
using findings_metamorphic_test::slowest_of;
using findings_property_test::problems;
using findings_property_test::settings_left_out;

// Documents of real runs on this project's machines (tests/fixtures/runs: the default suite on
// a busy VM, and the issue's cases), whatever their noise: every claim holds against their
// rows, and what must not change the ranking does not.
TEST(FindingsOnRealRuns, HoldAgainstTheirRowsAndSurviveWhatMustNotChangeThem) {
  int documents = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FDBENCH_RUNS_DIR)) {
    if (entry.path().extension() != ".json") continue;
    ++documents;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const ResultsDocument doc = parse_results_json(text.str());
    const std::vector<Result>& results = doc.results;
    const auto claimed = claimed_findings(results, doc.environment);
    const std::string name = entry.path().filename().string();
    EXPECT_FALSE(claimed.empty()) << name;
    for (const auto& p : problems(results, claimed)) ADD_FAILURE() << name << ": " << p;
    for (const auto& p : settings_left_out(results, claimed)) ADD_FAILURE() << name << ": " << p;
    const auto base = conclusions(results);
    const std::vector<Result> reversed(results.rbegin(), results.rend());
    EXPECT_EQ(conclusions(reversed), base) << name << ": reordered";
    EXPECT_EQ(conclusions(scaled(results, 3)), base) << name << ": scaled by 3";
    std::vector<Result> twice = results;
    twice.insert(twice.end(), results.begin(), results.end());
    EXPECT_EQ(findings(twice, doc.environment), findings(results, doc.environment))
        << name << ": twice";
    if (std::any_of(results.begin(), results.end(),
                    [](const Result& r) { return r.workload == "open" && comparable(r); })) {
      std::vector<Result> more = results;
      more.push_back(slowest_of(results));
      EXPECT_EQ(conclusions(more, false), conclusions(results, false)) << name << ": a slower one";
    }
  }
  EXPECT_GE(documents, 4);
}

// "A of the B ms", "A of B ms": whatever a sentence states as a part of a whole is no larger
// than it. Growing calls of several threads overlap, so their sum may exceed a repetition
// (73.59 "of the" 68.21 ms was printed on a busy machine): that is said as a sum, not a part.
std::vector<std::string> parts_larger_than_wholes(const std::string& text) {
  static const std::regex part_of(
      R"(([0-9][0-9,]*\.?[0-9]*)( ms)? of (the )?([0-9][0-9,]*\.?[0-9]*) ms)");
  const auto number = [](std::string t) {
    t.erase(std::remove(t.begin(), t.end(), ','), t.end());
    return std::stod(t);
  };
  std::vector<std::string> found;
  for (std::sregex_iterator it(text.begin(), text.end(), part_of), end; it != end; ++it) {
    if (number((*it)[1]) > number((*it)[4])) found.push_back(it->str());
  }
  return found;
}

TEST(FindingsOnRealRuns, NoPartLargerThanItsWholeAndNoIntervalPastAHundredPercent) {
  for (const auto& entry : std::filesystem::directory_iterator(FDBENCH_RUNS_DIR)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const ResultsDocument doc = parse_results_json(text.str());
    for (const auto& f : findings(doc.results, doc.environment)) {
      for (const auto& part : parts_larger_than_wholes(f.text)) {
        ADD_FAILURE() << entry.path().filename() << ": \"" << part << "\" in " << f.text;
      }
      // An interval past ±100% is said in words ("±1059%" says nothing a reader can use).
      EXPECT_FALSE(std::regex_search(f.text, std::regex("±[0-9]{3,}")))
          << entry.path().filename() << ": " << f.text;
    }
  }
}

// On a kernel booted with rcu_expedited=1 the socket and accept Answers say what that hides and
// the command that measures both; on one that waits for full grace periods they do not.
TEST(FindingsOnRealRuns, TheAnswersSayWhatAnExpeditedKernelHides) {
  std::ifstream in(std::filesystem::path(FDBENCH_RUNS_DIR) / "default-suite-busy-amd-epyc.json");
  std::stringstream text;
  text << in.rdbuf();
  ResultsDocument doc = parse_results_json(text.str());
  for (const int setting : {1, 0}) {
    doc.environment.rcu_expedited = setting;
    int told = 0;
    for (const auto& f : findings(doc.results, doc.environment)) {
      if (f.kind != "answer_stall" && f.kind != "answer_accept") continue;
      const std::string workload = f.kind == "answer_stall" ? "socket" : "accept";
      const bool says =
          f.text.find("This kernel expedites RCU grace periods") != std::string::npos &&
          f.text.find("fdbench " + workload + " --rcu-expedited 0,1") != std::string::npos;
      EXPECT_EQ(says, setting == 1) << f.text;
      ++told;
    }
    EXPECT_GE(told, 1) << "rcu_expedited=" << setting;
  }
}

}  // namespace findings_real_runs_test
}  // namespace fdbench
