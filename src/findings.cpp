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

Results select(std::span<const Result> results, std::string_view workload,
               std::string_view strategy = {}) {
  Results out;
  for (const auto& r : results) {
    if (r.workload == workload && r.ok() && r.stats.count > 0 &&
        (strategy.empty() || r.strategy == strategy)) {
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

void open_findings(std::span<const Result> results, std::vector<std::string>& out) {
  const Results all = select(results, "open");
  const Result* best = fastest(all);
  if (best == nullptr) return;
  out.push_back(fmt::format("Opening files: the fastest way here was `{}` with {}: {} files/s "
                            "({} ms for {} files).",
                            best->strategy, threads_text(best->threads),
                            format_rate(best->ops_per_sec), format_ms(best->stats.median),
                            group_digits(best->ops)));

  const Results plain = select(results, "open", "threads");
  const Result* plain_best = fastest(plain);
  const Result* most = nullptr;
  for (const auto* r : plain) {
    if (most == nullptr || r->threads > most->threads) most = r;
  }
  if (plain_best != nullptr && most != nullptr && most != plain_best) {
    out.push_back(fmt::format("More threads did not help past {}: `threads` with {} was {} "
                              "slower than with {}.",
                              plain_best->threads, most->threads,
                              format_ratio(most->stats.median / plain_best->stats.median),
                              plain_best->threads));
  }
  if (plain_best == nullptr) return;
  for (const std::string_view pool : {"pool", "pool-batch"}) {
    const Results pooled = select(results, "open", pool);
    const Result* pool_best = fastest(pooled);
    if (pool_best == nullptr) continue;
    std::string line = fmt::format("`{}`{} at its best ({}) was {} of `threads`' best time",
                                   pool,
                                   pool == "pool" ? " (one task per file)"
                                                  : fmt::format(" ({} files a task)",
                                                                pool_best->batch),
                                   threads_text(pool_best->threads),
                                   format_ratio(pool_best->stats.median /
                                                plain_best->stats.median));
    const Result* pool_one = with_threads(pooled, 1);
    const Result* plain_one = with_threads(plain, 1);
    if (pool_one != nullptr && plain_one != nullptr) {
      line += fmt::format("; with 1 thread it was {} of plain opens",
                          format_ratio(pool_one->stats.median / plain_one->stats.median));
    }
    out.push_back(line + ".");
  }
}

int growths(const Result& r) {
  if (!r.fdsize_before || !r.fdsize_after || *r.fdsize_before <= 0) return 0;
  const auto ratio = static_cast<unsigned>(*r.fdsize_after / *r.fdsize_before);
  return ratio <= 1 ? 0 : std::bit_width(ratio) - 1;
}

void socket_findings(std::span<const Result> results, std::vector<std::string>& out) {
  const Results all = select(results, "socket");
  // Pair each pregrow=off result with a pre-grown one of the same shape.
  for (const auto* off : all) {
    if (off->pregrow != "off") continue;
    const Result* grown = nullptr;
    for (const auto* r : all) {
      if (r->pregrow != "off" && r->threads == off->threads && r->kind == off->kind &&
          r->ops == off->ops && r->strategy == off->strategy) {
        grown = r;
        break;
      }
    }
    const std::uint64_t per_thread = off->ops / static_cast<std::uint64_t>(off->threads);
    const std::string what = fmt::format("{} × {} {} descriptors", threads_text(off->threads),
                                         per_thread, off->kind);
    if (grown == nullptr) {
      out.push_back(fmt::format("{}: {} ms (FDSize {} → {}).", what, format_ms(off->stats.median),
                                off->fdsize_before.value_or(-1), off->fdsize_after.value_or(-1)));
      continue;
    }
    const double ratio = off->stats.median / grown->stats.median;
    const int grew = growths(*off);
    std::string line = fmt::format(
        "{}: {} ms from the kernel's starting table (FDSize {} → {}), {} ms with the table grown "
        "first (pregrow {}): {} slower without pre-growing.",
        what, format_ms(off->stats.median), off->fdsize_before.value_or(-1),
        off->fdsize_after.value_or(-1), format_ms(grown->stats.median), grown->pregrow,
        format_ratio(ratio));
    if (off->threads > 1 && grew > 0 && ratio >= 2) {
      line += fmt::format(
          " The table grew {} time{} while shared by {} threads, and each growth waits for an "
          "RCU grace period (expand_fdtable → synchronize_rcu in fs/file.c). Growing it once "
          "before the second thread exists (dup2(0, N); close(N)) removes every stall.",
          grew, grew == 1 ? "" : "s", off->threads);
    } else if (off->threads > 1 && grew > 0) {
      line += " Pre-growing made little difference on this kernel (an expedited RCU, "
              "rcu_expedited=1, or a kernel without the stall would explain it).";
    }
    out.push_back(line);
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
  socket_findings(results, out);
  failure_findings(results, out);
  return out;
}

}  // namespace fdbench
