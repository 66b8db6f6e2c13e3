// Results files side by side: which results they share, how far apart the medians are, and
// whether the difference is more than noise (Mann-Whitney U on the raw repetition times).
#include "analysis/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "common/errors.hpp"
#include "fdbench/error.hpp"

namespace fdbench {

namespace {

// Average ranks (1-based) of the pooled samples, and the tie term sum(t^3 - t).
struct Ranks {
  double rank_sum_a = 0;
  double tie_term = 0;
};

Ranks rank(std::span<const std::int64_t> a, std::span<const std::int64_t> b) {
  std::vector<std::pair<std::int64_t, bool>> pooled;  // value, from a
  pooled.reserve(a.size() + b.size());
  for (const auto v : a) pooled.emplace_back(v, true);
  for (const auto v : b) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end());
  Ranks out;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j + 1 < pooled.size() && pooled[j + 1].first == pooled[i].first) ++j;
    const double average = static_cast<double>(i + j) / 2 + 1;
    const auto t = static_cast<double>(j - i + 1);
    out.tie_term += t * t * t - t;
    for (std::size_t k = i; k <= j; ++k) out.rank_sum_a += pooled[k].second ? average : 0;
    i = j + 1;
  }
  return out;
}

// P(U >= u) for samples of n1 and n2 distinct values under the null hypothesis, counting
// the orderings that give each U (f(m, n, k) = f(m - 1, n, k - n) + f(m, n - 1, k)).
double exact_upper_tail(std::size_t n1, std::size_t n2, double u) {
  const std::size_t max_u = n1 * n2;
  // counts[m][n] is the distribution of U for m and n values; built up one size at a time.
  std::vector<std::vector<std::vector<double>>> counts(
      n1 + 1, std::vector<std::vector<double>>(n2 + 1, std::vector<double>(max_u + 1, 0)));
  for (std::size_t m = 0; m <= n1; ++m) {
    for (std::size_t n = 0; n <= n2; ++n) {
      if (m == 0 || n == 0) {
        counts[m][n][0] = 1;
        continue;
      }
      for (std::size_t k = 0; k <= m * n; ++k) {
        counts[m][n][k] = (k >= n ? counts[m - 1][n][k - n] : 0) + counts[m][n - 1][k];
      }
    }
  }
  double total = 0;
  double tail = 0;
  for (std::size_t k = 0; k <= max_u; ++k) {
    total += counts[n1][n2][k];
    if (static_cast<double>(k) >= u) tail += counts[n1][n2][k];
  }
  return tail / total;
}

}  // namespace

MannWhitney mann_whitney_u(std::span<const std::int64_t> a, std::span<const std::int64_t> b) {
  MannWhitney out;
  if (a.empty() || b.empty()) return out;
  const auto n1 = static_cast<double>(a.size());
  const auto n2 = static_cast<double>(b.size());
  const Ranks ranks = rank(a, b);
  out.u = ranks.rank_sum_a - n1 * (n1 + 1) / 2;
  const double u = std::max(out.u, n1 * n2 - out.u);  // two-sided: the larger tail
  if (a.size() <= 8 && b.size() <= 8 && ranks.tie_term == 0) {
    out.exact = true;
    out.p_value = std::min(1.0, 2 * exact_upper_tail(a.size(), b.size(), u));
    return out;
  }
  const double n = n1 + n2;
  const double variance = n1 * n2 / 12 * ((n + 1) - ranks.tie_term / (n * (n - 1)));
  if (variance <= 0) return out;  // every value the same: no evidence of a difference
  const double z = (u - n1 * n2 / 2 - 0.5) / std::sqrt(variance);
  out.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return out;
}

ResultKey key_of(const Result& r) {
  // Parameters that say what was asked pair results (batch, paths, close, rcu_expedited);
  // those that describe what a machine made of it (the ring features its kernel accepted,
  // notes) would keep two machines' runs of one configuration apart.
  static const std::set<std::string> kDescriptive = {
      "dispatch", "batch_means", "ring_setup", "ring_fd", "paths_note", "latency", "order"};
  std::map<std::string, std::string> asked;
  for (const auto& [name, value] : r.parameters) {
    if (kDescriptive.count(name) == 0) asked.emplace(name, value);
  }
  if (r.config.rcu_expedited) asked["rcu_expedited"] = std::to_string(*r.config.rcu_expedited);
  // The configuration decides the pairing; these are its parts a row's label names.
  // The published harness times thread creation and more besides the calls: its results are
  // never paired with a minimal harness's (they are listed apart, labelled "harness published").
  const Configuration& c = r.config;
  if (c.harness == Harness::published) asked["harness"] = std::string(to_string(c.harness));
  if (c.paths) asked["paths"] = std::string(to_string(*c.paths));
  return {r.workload, c, r.ops, r.holds_descriptors, std::move(asked)};
}

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::baseline:
      return "baseline";
    case Verdict::faster:
      return "faster";
    case Verdict::slower:
      return "slower";
    case Verdict::same:
      return "no significant difference";
    case Verdict::too_few:
      return "too few repetitions to tell";
    case Verdict::no_samples:
      return "not measured";
    case Verdict::unpaired:
      return "not in the first file";
    case Verdict::absent:
      return "absent";
  }
  return "absent";
}

namespace {

CompareCell cell_of(const Result& r) {
  CompareCell cell;
  cell.verdict = Verdict::baseline;
  cell.status = r.status;
  cell.error = r.error;
  cell.repetitions = r.times_ns.size();
  cell.median_ns = r.stats.median;
  cell.min_ns = r.stats.min;
  cell.max_ns = r.stats.max;
  cell.interval = r.median_ci;
  cell.kernel_traced = r.kernel && r.kernel->available;
  cell.setting_changed = r.has_warning(WarningKind::setting_changed);
  if (cell.repetitions == 0 || cell.median_ns <= 0) cell.verdict = Verdict::no_samples;
  return cell;
}

// Sets `cell` against the first file's result.
void set_against(CompareCell& cell, const CompareCell& first, const Result& mine,
                 const Result& theirs) {
  if (cell.verdict == Verdict::no_samples) return;
  if (first.verdict == Verdict::no_samples) {
    cell.verdict = Verdict::no_samples;
    return;
  }
  cell.ratio = cell.median_ns / first.median_ns;
  cell.traced_on_one_side = cell.kernel_traced != first.kernel_traced;
  cell.setting_changed_on_a_side = cell.setting_changed || first.setting_changed;
  if (first.max_ns > 0 && first.min_ns > 0) {
    cell.ratio_low = static_cast<double>(cell.min_ns) / static_cast<double>(first.max_ns);
    cell.ratio_high = static_cast<double>(cell.max_ns) / static_cast<double>(first.min_ns);
  }
  cell.p_value = mann_whitney_u(mine.times_ns, theirs.times_ns).p_value;
  if (cell.repetitions < kMinRepetitionsToTell || first.repetitions < kMinRepetitionsToTell) {
    cell.verdict = Verdict::too_few;
  } else if (*cell.p_value >= kSignificanceLevel) {
    cell.verdict = Verdict::same;
  } else {
    cell.verdict = *cell.ratio < 1 ? Verdict::faster : Verdict::slower;
  }
}

// Fields that most often explain why two runs differ, shown whenever a file records them.
constexpr std::string_view kHeadlineFields[] = {
    "os",       "kernel",           "cpu_model",     "logical_cpus",      "virtualization",
    "fs_type",  "fs_mount_options", "rcu_expedited", "io_uring_disabled", "build_type",
    "compiler", "syscall_ns",
};
constexpr std::string_view kMitigationsPrefix = "cpu_mitigations.";

// Fields the machine measures rather than states, and how far apart two readings must be to
// say the machines differ: one machine's syscall cost read six times under load spread 893 to
// 1,093 ns (1.22×), while PTI or not is some 10×.
constexpr std::string_view kMeasuredFields[] = {"syscall_ns"};
constexpr double kMeasuredFieldSpread = 1.5;

// Whether the files' values differ: any difference for a stated field; for a measured one, a
// spread past kMeasuredFieldSpread (a value that is not a number differs as text does).
bool values_differ(const std::string& field,
                   const std::vector<std::optional<std::string>>& values) {
  if (std::find(std::begin(kMeasuredFields), std::end(kMeasuredFields), field) !=
      std::end(kMeasuredFields)) {
    std::vector<double> numbers;
    for (const auto& v : values) {
      if (!v) return true;  // recorded in one file only
      char* end = nullptr;
      const double x = std::strtod(v->c_str(), &end);
      if (end == v->c_str() || *end != '\0' || !(x > 0)) return true;
      numbers.push_back(x);
    }
    const auto [lo, hi] = std::minmax_element(numbers.begin(), numbers.end());
    return numbers.empty() ? false : *hi / *lo > kMeasuredFieldSpread;
  }
  return std::adjacent_find(values.begin(), values.end(), std::not_equal_to<>()) != values.end();
}

bool is_headline(const std::string& field) {
  return field.rfind(kMitigationsPrefix, 0) == 0 ||
         std::find(std::begin(kHeadlineFields), std::end(kHeadlineFields), field) !=
             std::end(kHeadlineFields);
}

std::vector<EnvironmentRow> environment_rows(std::span<const ResultsDocument> docs) {
  std::set<std::string> names;
  for (const auto& doc : docs) {
    for (const auto& [name, value] : doc.environment_fields) names.insert(name);
  }
  std::vector<EnvironmentRow> headline;
  std::vector<EnvironmentRow> others;
  for (const auto& name : names) {
    EnvironmentRow row{name, {}, false};
    for (const auto& doc : docs) {
      const auto it = doc.environment_fields.find(name);
      row.values.push_back(it == doc.environment_fields.end() ? std::nullopt
                                                              : std::optional(it->second));
    }
    row.differs = values_differ(name, row.values);
    if (is_headline(name)) {
      headline.push_back(std::move(row));
    } else if (row.differs) {
      others.push_back(std::move(row));
    }
  }
  // Headline fields in the order above, then the rest by name.
  auto order = [](const EnvironmentRow& row) {
    const bool mitigation = row.field.starts_with(kMitigationsPrefix);
    const std::string_view field = mitigation ? "virtualization" : std::string_view(row.field);
    const auto at = std::find(std::begin(kHeadlineFields), std::end(kHeadlineFields), field) -
                    std::begin(kHeadlineFields);
    return 2 * at + (mitigation ? 1 : 0);  // each mitigation right after virtualization
  };
  std::stable_sort(headline.begin(), headline.end(),
                   [&](const auto& x, const auto& y) { return order(x) < order(y); });
  headline.insert(headline.end(), std::make_move_iterator(others.begin()),
                  std::make_move_iterator(others.end()));
  return headline;
}

}  // namespace

Comparison compare(std::span<const ResultsDocument> docs, std::span<const std::string> labels) {
  FDBENCH_ASSERT(docs.size() == labels.size());
  Comparison out;
  // Every key in order of first appearance; a key repeated within a file is a second result.
  std::vector<std::pair<ResultKey, int>> keys;
  std::set<std::pair<ResultKey, int>> known;  // the same keys, found in log time
  std::vector<std::map<std::pair<ResultKey, int>, const Result*>> by_key(docs.size());
  for (std::size_t f = 0; f < docs.size(); ++f) {
    out.files.push_back(
        {labels[f], docs[f].tool_version, docs[f].complete, docs[f].results.size()});
    std::map<ResultKey, int> seen;
    for (const auto& r : docs[f].results) {
      const std::pair<ResultKey, int> key{key_of(r), seen[key_of(r)]++};
      by_key[f][key] = &r;
      if (known.insert(key).second) keys.push_back(key);
    }
  }
  for (const auto& key : keys) {
    CompareRow row{key.first, std::vector<CompareCell>(docs.size())};
    bool everywhere = true;
    for (std::size_t f = 0; f < docs.size(); ++f) {
      const auto it = by_key[f].find(key);
      if (it == by_key[f].end()) {
        everywhere = false;
        continue;
      }
      row.cells[f] = cell_of(*it->second);
      const auto first = by_key[0].find(key);
      if (f > 0 && first != by_key[0].end()) {
        set_against(row.cells[f], row.cells[0], *it->second, *first->second);
      } else if (f > 0 && row.cells[f].verdict != Verdict::no_samples) {
        row.cells[f].verdict = Verdict::unpaired;
      }
    }
    (everywhere ? out.shared : out.partial).push_back(std::move(row));
  }
  out.environment = environment_rows(docs);
  return out;
}

}  // namespace fdbench
