#include "analysis/finding_parts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <tuple>
#include <utility>

#include "analysis/compare.hpp"
#include "model/format.hpp"

namespace fdbench::findings_parts {

Results select(std::span<const Result> results, std::string_view workload) {
  Results out;
  for (const auto& r : results) {
    if (r.workload == workload && comparable(r) && r.stats.count > 0 &&
        r.config.harness == Harness::minimal) {
      out.push_back(&r);
    }
  }
  return out;
}

Results ranked_with(const Result& r, std::span<const Result> results) {
  const Results listed =
      only(select(results, r.workload), [](const Result& x) { return x.input.has_value(); });
  return only(listed, [&r](const Result& x) {
    return x.config.pregrow.grows() == r.config.pregrow.grows();
  });
}

const Result* fastest(const Results& rs) {
  // The highest rate; between equal rates a fixed order, so that the order given changes
  // nothing.
  const auto order = [](const Result* x) {
    return std::tuple(-x->ops_per_sec, x->config.strategy, x->config.threads, x->config.batch,
                      x->config.pregrow.label());
  };
  const Result* best = nullptr;
  for (const auto* r : rs) {
    if (best == nullptr || order(r) < order(best)) best = r;
  }
  return best;
}

const Result* with_threads(const Results& rs, int threads) {
  for (const auto* r : rs) {
    if (r->config.threads == threads) return r;
  }
  return nullptr;
}

// The limit a result's repetitions met, as the advice that lifts it; "" where none did.
std::string_view lifted_limit(RepeatStop stopped) {
  switch (stopped) {
    case RepeatStop::budget:
      return "a larger --budget";
    case RepeatStop::max_time:
      return "more time a result (--max-time)";
    case RepeatStop::fixed_repeat:
    case RepeatStop::max_repetitions:
      return "more repetitions (--repeat)";
    case RepeatStop::interrupted:
      return "a run that is not cut short";
    case RepeatStop::precision:
      return "a finer --precision";
    case RepeatStop::decided:
      return {};
  }
  return {};
}

std::string settle_text(const Results& rs, std::string_view it) {
  std::vector<std::string> advice;
  for (const auto* r : rs) {
    const std::string_view lift = lifted_limit(r->stopped());
    if (!lift.empty() && std::find(advice.begin(), advice.end(), lift) == advice.end()) {
      advice.emplace_back(lift);
    }
  }
  advice.emplace_back("a quieter machine");
  std::string text = advice.front();
  for (std::size_t i = 1; i < advice.size(); ++i) {
    text += (i + 1 == advice.size() ? " or " : ", ") + advice[i];
  }
  return fmt::format("{} would settle {}", text, it);
}

std::string part_of_repetition(const Result& r, double part_ns, bool brief) {
  const std::string part = format_ms(part_ns);
  const std::string whole = format_ms(r.stats.mean);
  if (part_ns <= r.stats.mean) {
    return brief ? fmt::format("{} of {} ms", part, whole)
                 : fmt::format("{} ms of the {} ms a repetition took on average", part, whole);
  }
  const std::string workers = workers_text(r);
  return fmt::format("{} ms summed over {}{} calls, which overlap ({} {} ms on average)", part,
                     workers, workers.ends_with('s') ? "'" : "'s",
                     brief ? "repetitions" : "a repetition took", whole);
}

const Result* fewest_without_interval(const Results& rs) {
  const Result* fewest = nullptr;
  for (const auto* r : rs) {
    if (r->median_ci.reached) continue;
    // The fewest repetitions, then a fixed order, so that the order given changes nothing.
    const auto order = [](const Result* x) {
      return std::tuple(x->times_ns.size(), x->config.strategy, x->config.threads, x->config.batch,
                        x->config.pregrow.label());
    };
    if (fewest == nullptr || order(r) < order(fewest)) fewest = r;
  }
  return fewest;
}

std::string workers_text(const Result& r) {
  return worker_count_text(r.workers, r.config.threads);
}

namespace {

std::string paths_of(const Result& r) {
  return std::string(to_string(paths_or_relative(r.config)));
}

// Each setting a sentence may have to name, with its words.
std::map<std::string, std::string> settings_of(const Result& r) {
  return {{"batch", std::to_string(r.config.batch)},
          {"pregrow", r.config.pregrow.label()},
          {"paths", paths_of(r)},
          {"kind", std::string(to_string(r.config.kind))},
          {"rcu", r.rcu_setting()}};
}

std::string setting_words(const std::string& name, const Result& r) {
  if (name == "batch") return fmt::format("batch {}", r.config.batch);
  if (name == "pregrow") return fmt::format("pregrow {}", r.config.pregrow.label());
  if (name == "paths") return paths_of(r) + " paths";
  if (name == "kind") return std::string(to_string(r.config.kind));
  return "rcu_expedited=" + r.rcu_setting();
}

}  // namespace

Naming::Naming(std::span<const Result> results) {
  for (const auto& r : results) {
    // Only timings are named in comparisons; a failed row's setting changes no sentence.
    if (!comparable(r)) continue;
    auto& mine = values_[r.workload + "/" + r.config.strategy];
    for (const auto& [name, value] : settings_of(r)) mine[name].insert(value);
  }
}

bool Naming::names(const Result& r, std::string_view setting) const {
  const auto it = values_.find(r.workload + "/" + r.config.strategy);
  if (it == values_.end()) return false;
  const auto values = it->second.find(std::string(setting));
  return values != it->second.end() && values->second.size() > 1;
}

std::string Naming::settings(const Result& r, bool pregrow) const {
  std::string text;
  for (const char* name : {"batch", "kind", "paths", "pregrow", "rcu"}) {
    if (!pregrow && std::string_view(name) == "pregrow") continue;
    if (names(r, name)) text += ", " + setting_words(name, r);
  }
  return text;
}

std::string Naming::workers(const Result& r) const {
  return workers_text(r) + settings(r);
}

std::string Naming::operator()(const Result& r) const {
  return fmt::format("`{}` with {}", r.config.strategy, workers(r));
}

FindingSubject subject(const Result& r, std::string role) {
  FindingSubject s{std::move(role), r.workload, r.config};
  s.config.paths = paths_or_relative(r.config);
  return s;
}

FindingClaim separation_claim(const Result& a, const Result& b, std::size_t ia, std::size_t ib) {
  switch (separation(a.median_ci, b.median_ci)) {
    case Separation::separated:
      return {ClaimKind::separated, ia, ib};
    case Separation::same:
      return {ClaimKind::same, ia, ib};
    case Separation::cannot_tell:
      return {ClaimKind::cannot_tell, ia, ib};
    case Separation::too_few:
      break;
  }
  return {ClaimKind::too_few, ia, ib};
}

std::string too_few_to_separate() {
  return fmt::format("too few repetitions to separate these (use --repeat ≥ {})",
                     min_samples_for());
}

std::string noise_text(const Result& a, const Result& b) {
  const auto pa = a.precision();
  const auto pb = b.precision();
  if (!pa && !pb) return {};
  const double widest = std::max(pa.value_or(0), pb.value_or(0));
  // Past ±100% the figure says nothing a reader can use: what the repetitions did, instead.
  if (widest > 1) {
    const Result& w = pa.value_or(0) >= pb.value_or(0) ? a : b;
    return fmt::format("an interval wider than the median itself ({} repetitions from {} to {} ms)",
                       w.stats.count, format_ms(static_cast<double>(w.stats.min)),
                       format_ms(static_cast<double>(w.stats.max)));
  }
  return "±" + format_percent(widest);
}

std::string same_words() {
  return fmt::format("the same within {}", format_percent(kSameMargin));
}

std::string ratio_qualifier(const Result& r, const Result& base) {
  switch (separation(r.median_ci, base.median_ci)) {
    case Separation::same:
      return ", " + same_words();
    case Separation::cannot_tell:
      return fmt::format(", cannot tell apart at {}", noise_text(r, base));
    case Separation::too_few:
      return ", medians alone";
    case Separation::separated:
      break;
  }
  return "";
}

int growths(const Result& r) {
  if (!r.fdsize_before || !r.fdsize_after || *r.fdsize_before <= 0) return 0;
  const auto ratio = static_cast<unsigned>(*r.fdsize_after / *r.fdsize_before);
  return ratio <= 1 ? 0 : std::bit_width(ratio) - 1;
}

double growth_share(const Result& r) {
  return r.latency ? r.latency->growth_totals.share_of_repetition : 0;
}

bool GrowthPair::under_twice() const {
  const MedianInterval& a = off->median_ci;
  const MedianInterval& b = grown->median_ci;
  if (!a.reached || !b.reached || a.lo <= 0 || b.lo <= 0) return false;
  return a.hi < 2 * b.lo && b.hi < 2 * a.lo;
}

namespace {

// The same measurement as compare pairs it (strategy, threads, kind, size and the parameters
// that configure it, --rcu-expedited's included) but for the pregrow setting.
bool same_but_pregrow(const Result& a, const Result& b) {
  ResultKey ka = key_of(a);
  ResultKey kb = key_of(b);
  ka.config.pregrow = kb.config.pregrow;
  return ka == kb;
}

}  // namespace

std::vector<GrowthPair> growth_pairs(const Results& all) {
  std::vector<GrowthPair> pairs;
  for (const auto* off : all) {
    if (off->config.pregrow.grows()) continue;
    for (const auto* r : all) {
      if (r->config.pregrow.grows() && same_but_pregrow(*r, *off)) pairs.push_back({off, r});
    }
  }
  return pairs;
}

std::int64_t kernel_growth_ns(const KernelEvidence& k) {
  return k.off_cpu[static_cast<std::size_t>(OffCpuCause::fd_table_growth)] +
         k.off_cpu[static_cast<std::size_t>(OffCpuCause::waiting_on_growth)];
}

bool kernel_traced(const Result& r) {
  return r.ran() && r.kernel && r.kernel->available;
}

std::string listed(const std::vector<std::string>& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == values.size() ? " and " : ", ") + values[i];
  }
  return text;
}

}  // namespace fdbench::findings_parts
