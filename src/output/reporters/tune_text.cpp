// The "Recommendation" block of `fdbench tune`, as the table, Markdown and HTML reporters show it.
#include "output/tune_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <vector>

#include "model/format.hpp"
#include "model/statistics.hpp"

namespace fdbench {

namespace {

constexpr std::size_t kAlternativesShown = 8;

// "2 threads", or "2 processes" for a strategy whose workers are processes (as its results in
// the sweep record it: a setting names its strategy only).
std::string workers_text(std::span<const Result> sweep, std::string_view strategy, int count) {
  const auto it = std::find_if(sweep.begin(), sweep.end(),
                               [&](const Result& r) { return r.config.strategy == strategy; });
  return worker_count_text(it != sweep.end() ? it->workers : WorkerKind::threads, count);
}

// "12.3k files/s", or connections for accept's sweep.
std::string rate_text(const TuneSummary& report, double ops_per_sec) {
  return fmt::format("{} {}/s", format_rate(ops_per_sec),
                     report.workload == WorkloadKind::accept ? "connections" : "files");
}

std::string setting_text(std::span<const Result> sweep, const TunedSetting& s) {
  return fmt::format("{}, {}{}", s.strategy, workers_text(sweep, s.strategy, s.threads),
                     s.batch > 1 ? fmt::format(", batch {}", s.batch) : "");
}

}  // namespace

std::string_view sizing_option(WorkloadKind workload) {
  return workload == WorkloadKind::accept ? "--connections" : "--files";
}

std::string budget_overrun_text(const TuneSummary& report) {
  // Each combination's last repetition may end past its share: what that adds is no overrun.
  if (report.seconds <= report.budget_seconds * kBudgetSlack) return "";
  return fmt::format("the sweep took {:.1f} s, more than its --budget of {:g} s", report.seconds,
                     report.budget_seconds);
}

namespace {

// ", 6 to 31 repetitions each: 12 within ±3%, the others stopped by their share of --budget"
std::string repetitions_line(const TuneSummary& report) {
  int least = 0;
  int most = 0;
  int ran = 0;
  int precise = 0;
  for (const auto& r : report.sweep) {
    if (!r.ran()) continue;
    least = ran == 0 ? r.repeat : std::min(least, r.repeat);
    most = std::max(most, r.repeat);
    ++ran;
    const auto reached = r.precision();
    if (reached && *reached <= report.precision) ++precise;
  }
  if (ran == 0) return "";
  const std::string reps = least == most ? fmt::format("{} repetitions each", least)
                                         : fmt::format("{} to {} repetitions each", least, most);
  const std::string target = format_percent(report.precision);
  if (precise == ran) return fmt::format(", {}: all within ±{}", reps, target);
  if (precise == 0) {
    return fmt::format(", {}: none within ±{}, each stopped by its share of --budget", reps,
                       target);
  }
  return fmt::format(", {}: {} within ±{}, the others stopped by their share of --budget", reps,
                     precise, target);
}

std::string sweep_line(const TuneSummary& report) {
  std::string line = fmt::format("Measured: {} combinations in turns{}\n", report.combinations,
                                 repetitions_line(report));
  if (report.skipped > 0) {
    line += fmt::format(
        "  ({} more combination{} skipped: {} more descriptors than the hard limit allows; "
        "each row says what to raise it to)\n",
        report.skipped, report.skipped == 1 ? "" : "s",
        report.skipped == 1 ? "it needs" : "they need");
  }
  if (const std::string over = budget_overrun_text(report); !over.empty()) {
    line += fmt::format(
        "  ({}: every combination runs {} repetitions at least, the fewest a 95% interval needs, "
        "after its files are made; raise --budget, or lower {} for shorter repetitions)\n",
        over, min_samples_for(), sizing_option(report.workload));
  }
  if (report.recommendation && !report.best_interval_reached) {
    line += fmt::format(
        "  (too few repetitions to separate these: a 95% interval of the median needs {}. Until "
        "then every setting counts as within noise)\n",
        min_samples_for());
  }
  return line;
}

// Whether the recommended setting stalled without pre-growing (`off`), by the rule of
// statistics.hpp: a claim either way needs both medians' 95% intervals.
std::string stall_text(const TuneSummary& report, const Result& off) {
  const std::string rate = rate_text(report, off.ops_per_sec);
  if (!off.median_ci.reached || !report.best_interval_reached) {
    return fmt::format(
        "                 without it {}: too few repetitions to tell whether it "
        "stalled\n",
        rate);
  }
  if (report.stall_seen) {
    return fmt::format(
        "                 stall seen here: without it {}, significantly slower\n", rate);
  }
  return fmt::format(
      "                 no stall seen here: without it {}, within noise (rcu_expedited "
      "or a small table)\n",
      rate);
}

std::string table_advice(const TuneSummary& report) {
  const Recommendation& rec = *report.recommendation;
  if (!rec.pregrow_to) {
    if (report.holds) {
      return fmt::format(
          "  fd table:      no advice needed: {}'s descriptors live in the io_uring's own table, "
          "which never grows the process's\n",
          rec.best.strategy);
    }
    return "  fd table:      no advice needed: open+close holds one descriptor per thread\n";
  }
  std::string text = fmt::format(
      "  fd table:      call pregrow_fd_table({}) before starting threads (holds every "
      "descriptor at once)\n",
      *rec.pregrow_to);
  if (report.pregrow_off) {
    text += stall_text(report, *report.pregrow_off);
  }
  return text;
}

std::string nofile_advice(const NofileAdvice& nofile) {
  if (nofile.soft >= nofile.needed) {
    return fmt::format(
        "  RLIMIT_NOFILE: soft {} covers the {} descriptors needed: nothing to "
        "raise\n",
        group_digits(nofile.soft), group_digits(nofile.needed));
  }
  return fmt::format(
      "  RLIMIT_NOFILE: needs {}, soft limit is {} (hard {}): call raise_nofile_limit({}) at "
      "start-up, or ulimit -n {}\n",
      group_digits(nofile.needed), group_digits(nofile.soft), group_digits(nofile.hard),
      nofile.needed, nofile.needed);
}

// The strategies measured but kept out of the recommendation because the calling program
// could not use their descriptors (recommendation.hpp's Eligibility), each kind with why and
// the flag that lets it in.
std::string ineligible_note(const TuneSummary& report) {
  std::string text;
  for (const auto& group : ineligible(report.sweep, report.eligibility)) {
    text += fmt::format("  {:<15}{} (measured above): {}\n", text.empty() ? "not compared:" : "",
                        fmt::join(group.strategies, ", "), group.why);
  }
  return text;
}

}  // namespace

std::string tune_text(const TuneSummary& summary) {
  return "\nRecommendation\n" + recommendation_block(summary);
}

std::string recommendation_block(const TuneSummary& report) {
  std::string text = sweep_line(report);
  if (!report.recommendation) {
    return text + "  nothing to recommend: no adoptable strategy ran without failures here\n" +
           ineligible_note(report);
  }
  const Recommendation& rec = *report.recommendation;
  const std::size_t tied = rec.within_noise.size() + 1;
  if (rec.inconclusive()) {
    text += fmt::format(
        "  inconclusive:  none of the {} settings is separated from the fastest ({}: {}), "
        "so the simplest is recommended; a larger --budget or a quieter machine may tell them "
        "apart\n",
        rec.compared, setting_text(report.sweep, rec.fastest),
        rate_text(report, rec.fastest.ops_per_sec));
  } else if (tied > 1) {
    text += fmt::format(
        "  {} of {} settings are not separated from the fastest ({}: {}): the simplest "
        "of them is recommended\n",
        tied, rec.compared, setting_text(report.sweep, rec.fastest),
        rate_text(report, rec.fastest.ops_per_sec));
  }
  text += fmt::format("  use:           {}: {}\n", setting_text(report.sweep, rec.best),
                      rate_text(report, rec.best.ops_per_sec));
  if (rec.within_noise.empty()) {
    text += "  not separated: none: it is ahead of every other setting\n";
  }
  const std::size_t shown = std::min(rec.within_noise.size(), kAlternativesShown);
  for (std::size_t i = 0; i < shown; ++i) {
    text += fmt::format("  {:<15}{}: {}\n", i == 0 ? "not separated:" : "",
                        setting_text(report.sweep, rec.within_noise[i]),
                        rate_text(report, rec.within_noise[i].ops_per_sec));
  }
  if (shown < rec.within_noise.size()) {
    text += fmt::format("                 and {} more (--format json lists them all)\n",
                        rec.within_noise.size() - shown);
  }
  text += fmt::format(
      "  knee:          {} (the fewest with which {} is the same within 10% as its fastest)\n",
      workers_text(report.sweep, rec.fastest.strategy, rec.knee_threads), rec.fastest.strategy);
  return text + table_advice(report) + nofile_advice(report.nofile) + ineligible_note(report);
}

}  // namespace fdbench
