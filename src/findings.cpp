#include "fdbench/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <optional>

#include "format.hpp"

namespace fdbench {

namespace {

using Results = std::vector<const Result*>;

// Results of `workload` (and `strategy`) that are valid timings; with `grown` set, only
// those whose pregrow is (true) or is not (false) "off".
Results select(std::span<const Result> results, std::string_view workload,
               std::string_view strategy = {}, std::optional<bool> grown = std::nullopt) {
  Results out;
  for (const auto& r : results) {
    if (r.workload == workload && r.ok() && r.stats.count > 0 &&
        (strategy.empty() || r.strategy == strategy) &&
        (!grown || (r.pregrow != "off") == *grown)) {
      out.push_back(&r);
    }
  }
  return out;
}

const Result* fastest(const Results& rs) {
  const Result* best = nullptr;
  for (const auto* r : rs) {
    if (best == nullptr || r->ops_per_sec > best->ops_per_sec) best = r;
  }
  return best;
}

const Result* with_threads(const Results& rs, int threads) {
  for (const auto* r : rs) {
    if (r->threads == threads) return r;
  }
  return nullptr;
}

std::string threads_text(int n) { return fmt::format("{} thread{}", n, n == 1 ? "" : "s"); }

// "2 threads", or "2 processes" for the strategy whose workers are processes.
std::string workers_text(const Result& r) {
  if (r.strategy == "process") {
    return fmt::format("{} process{}", r.threads, r.threads == 1 ? "" : "es");
  }
  return threads_text(r.threads);
}

void open_findings(std::span<const Result> results, std::vector<std::string>& out) {
  // Compare strategies on one footing: pre-grown tables where there are any (the stall has
  // its own finding), plain runs otherwise.
  const bool grown = !select(results, "open", {}, true).empty();
  const Results all = select(results, "open", {}, grown);
  const Result* best = fastest(all);
  if (best == nullptr) return;
  out.push_back(fmt::format("Opening files: the fastest way here was `{}` with {}: {} files/s "
                            "({} ms for {} file{}).",
                            best->strategy, workers_text(*best),
                            format_rate(best->ops_per_sec), format_ms(best->stats.median),
                            group_digits(best->ops), best->ops == 1 ? "" : "s"));

  const Results plain = select(results, "open", "threads", grown);
  const Result* plain_best = fastest(plain);
  // The knee: the fewest threads within 5% of the best time. Past it, threads only add
  // contention (the seed found two threads often fastest).
  const Result* knee = nullptr;
  const Result* most = nullptr;
  for (const auto* r : plain) {
    if (r->stats.median <= plain_best->stats.median * 1.05 &&
        (knee == nullptr || r->threads < knee->threads)) {
      knee = r;
    }
    if (most == nullptr || r->threads > most->threads) most = r;
  }
  if (knee != nullptr && most != nullptr && most->threads > knee->threads) {
    const double ratio = most->stats.median / knee->stats.median;
    out.push_back(fmt::format("`threads` reached its best with {} ({} ms); more threads did not "
                              "help: with {} it was {}.",
                              threads_text(knee->threads), format_ms(knee->stats.median),
                              most->threads,
                              ratio < 1.05 ? std::string("no faster")
                                           : format_ratio(ratio) + " slower"));
  }
  if (plain_best == nullptr) return;

  // Every other strategy at its own best thread count against `threads` at its best.
  std::vector<std::string> names;
  for (const auto* r : all) {
    if (r->strategy != "threads" &&
        std::find(names.begin(), names.end(), r->strategy) == names.end()) {
      names.push_back(r->strategy);
    }
  }
  std::string league;
  std::string single;  // the seed's observation: dispatch cost shows most with one thread
  const Result* plain_one = with_threads(plain, 1);
  for (const auto& name : names) {
    const Results mine = select(results, "open", name, grown);
    const Result* best_of = fastest(mine);
    league += fmt::format("{}`{}` {} ({})", league.empty() ? "" : ", ", name,
                          format_ratio(best_of->stats.median / plain_best->stats.median),
                          workers_text(*best_of));
    const Result* one = with_threads(mine, 1);
    if (one != nullptr && plain_one != nullptr) {
      single += fmt::format("{}`{}` {}", single.empty() ? "" : ", ", name,
                            format_ratio(one->stats.median / plain_one->stats.median));
    }
  }
  if (!league.empty()) {
    out.push_back(fmt::format("Time of each strategy at its best, as a multiple of `threads` at "
                              "its best ({} ms; below 1× is faster): {}.",
                              format_ms(plain_best->stats.median), league));
  }
  if (!single.empty()) {
    out.push_back(fmt::format("With one thread, as a multiple of plain open+close in a loop "
                              "(the cost of handing out work): {}.",
                              single));
  }
}

int growths(const Result& r) {
  if (!r.fdsize_before || !r.fdsize_after || *r.fdsize_before <= 0) return 0;
  const auto ratio = static_cast<unsigned>(*r.fdsize_after / *r.fdsize_before);
  return ratio <= 1 ? 0 : std::bit_width(ratio) - 1;
}

struct GrowthPair {
  const Result* off;
  const Result* grown;
  [[nodiscard]] double ratio() const { return off->stats.median / grown->stats.median; }
};

std::string pair_line(const GrowthPair& p) {
  const Result& off = *p.off;
  const std::uint64_t per_thread = off.ops / static_cast<std::uint64_t>(off.threads);
  const std::string what =
      off.workload == "open"
          ? fmt::format("`{}` with {}, {} files kept open", off.strategy, workers_text(off),
                        group_digits(off.ops))
          : fmt::format("`{}` with {} × {} {} descriptors", off.strategy, workers_text(off),
                        per_thread, off.kind);
  return fmt::format(
      "{}: {} ms from the kernel's starting table (FDSize {} → {}), {} ms with the table grown "
      "first (pregrow {}): {} slower without pre-growing.",
      what, format_ms(off.stats.median), off.fdsize_before.value_or(-1),
      off.fdsize_after.value_or(-1), format_ms(p.grown->stats.median), p.grown->pregrow,
      format_ratio(p.ratio()));
}

// Pairs every pregrow=off result with a pre-grown one of the same shape and explains the
// difference: the RCU grace period a shared table waits for on each growth.
void growth_findings(std::span<const Result> results, std::string_view workload,
                     std::vector<std::string>& out) {
  const Results all = select(results, workload);
  std::vector<GrowthPair> pairs;
  for (const auto* off : all) {
    if (off->pregrow != "off") continue;
    for (const auto* r : all) {
      if (r->pregrow != "off" && r->threads == off->threads && r->kind == off->kind &&
          r->ops == off->ops && r->strategy == off->strategy) {
        pairs.push_back({off, r});
        break;
      }
    }
  }
  if (pairs.empty()) return;
  const auto stalled = [](const GrowthPair& p) {
    // Growth may happen where FDSize is not read (libuv's helper process), so the ratio
    // decides; the measured growth only explains it.
    return p.ratio() >= 2;
  };
  const GrowthPair* worst = nullptr;
  int stalls = 0;
  for (const auto& p : pairs) {
    if (!stalled(p)) continue;
    ++stalls;
    if (worst == nullptr || p.ratio() > worst->ratio()) worst = &p;
  }
  if (pairs.size() <= 3) {
    for (const auto& p : pairs) out.push_back(pair_line(p));
  } else if (worst != nullptr) {
    out.push_back(fmt::format("{} of {} {} results were at least 2× slower without pre-growing "
                              "the table. The worst: {}",
                              stalls, pairs.size(), workload, pair_line(*worst)));
  } else {
    out.push_back(fmt::format("Pre-growing the table changed none of the {} {} results by 2× "
                              "or more.", pairs.size(), workload));
  }
  if (worst != nullptr) {
    const int grew = growths(*worst->off);
    out.push_back(fmt::format(
        "Why: the descriptor table grew{} while shared by more than one thread, and "
        "each growth "
        "of a shared table waits for an RCU grace period (expand_fdtable → synchronize_rcu in "
        "fs/file.c), stalling every thread that needs a descriptor meanwhile. Growing it once "
        "before the second thread exists (dup2(0, N); close(N)) removes every stall; separate "
        "processes (`process`) and io_uring direct descriptors (`uring-direct`) never share "
        "the table.",
        grew > 0 ? fmt::format(" {} time{}", grew, grew == 1 ? "" : "s")
                 : std::string(" (in the process that held the descriptors)")));
  } else {
    for (const auto& p : pairs) {
      if (growths(*p.off) > 0) {
        out.push_back("Pre-growing made little difference for multi-threaded runs on this "
                      "kernel (an expedited RCU, rcu_expedited=1, or a kernel without the "
                      "stall would explain it).");
        break;
      }
    }
  }
}

void failure_findings(std::span<const Result> results, std::vector<std::string>& out) {
  int failed = 0;
  int unavailable = 0;
  for (const auto& r : results) {
    if (!r.error.empty()) {
      ++unavailable;
    } else if (r.failures != 0) {
      ++failed;
    }
  }
  if (failed != 0) {
    out.push_back(fmt::format("{} result{} had failed calls and must not be read as timings "
                              "(see the rows marked FAILED).",
                              failed, failed == 1 ? "" : "s"));
  }
  if (unavailable != 0) {
    out.push_back(fmt::format("{} combination{} could not run here (marked unavailable).",
                              unavailable, unavailable == 1 ? "" : "s"));
  }
}

}  // namespace

std::vector<std::string> findings(std::span<const Result> results) {
  std::vector<std::string> out;
  open_findings(results, out);
  growth_findings(results, "open", out);
  growth_findings(results, "socket", out);
  failure_findings(results, out);
  return out;
}

}  // namespace fdbench
