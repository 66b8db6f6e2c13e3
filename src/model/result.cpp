#include "model/result.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "model/format.hpp"

namespace fdbench {

namespace {

constexpr std::pair<WorkerKind, std::string_view> kWorkerNames[] = {
    {WorkerKind::threads, "threads"}, {WorkerKind::processes, "processes"}};
constexpr std::pair<FdTable, std::string_view> kTableNames[] = {
    {FdTable::shared, "shared"}, {FdTable::per_worker, "per-worker"}, {FdTable::none, "none"}};
constexpr std::pair<Status, std::string_view> kStatusNames[] = {
    {Status::measured, "measured"},   {Status::unavailable, "unavailable"},
    {Status::failed, "failed"},       {Status::cut_short, "cut-short"},
    {Status::timed_out, "timed-out"}, {Status::hung, "hung"}};
constexpr std::pair<Status, std::string_view> kStatusWords[] = {
    {Status::measured, "measured"},   {Status::unavailable, "unavailable"},
    {Status::failed, "failed"},       {Status::cut_short, "cut short"},
    {Status::timed_out, "timed out"}, {Status::hung, "hung"}};
constexpr std::pair<WarningKind, std::string_view> kWarningNames[] = {
    {WarningKind::noisy, "noisy"},
    {WarningKind::cut_short, "cut-short"},
    {WarningKind::leak, "leak"},
    {WarningKind::page_faults, "page-faults"},
    {WarningKind::setting_changed, "setting-changed"},
    {WarningKind::other, "other"}};

template <class Enum, std::size_t N>
std::string_view name_of(const std::pair<Enum, std::string_view> (&names)[N], Enum value) {
  for (const auto& [v, name] : names) {
    if (v == value) return name;
  }
  return "unknown";
}

template <class Enum, std::size_t N>
bool value_of(const std::pair<Enum, std::string_view> (&names)[N], std::string_view text,
              Enum& value) {
  for (const auto& [v, name] : names) {
    if (name == text) {
      value = v;
      return true;
    }
  }
  return false;
}

}  // namespace

std::string_view to_string(WorkerKind workers) {
  return name_of(kWorkerNames, workers);
}
std::string_view to_string(FdTable table) {
  return name_of(kTableNames, table);
}
bool parse_worker_kind(std::string_view text, WorkerKind& workers) {
  return value_of(kWorkerNames, text, workers);
}
bool parse_fd_table(std::string_view text, FdTable& table) {
  return value_of(kTableNames, text, table);
}

std::string_view to_string(Status status) {
  return name_of(kStatusNames, status);
}
bool parse_status(std::string_view text, Status& status) {
  return value_of(kStatusNames, text, status);
}
std::string_view status_words(Status status) {
  return name_of(kStatusWords, status);
}
std::string_view to_string(WarningKind kind) {
  return name_of(kWarningNames, kind);
}
bool parse_warning_kind(std::string_view text, WarningKind& kind) {
  return value_of(kWarningNames, text, kind);
}

namespace {

// Each InputSource with JSON's "source" and "file_set" for it.
struct InputSourceNames {
  InputSource source;
  std::string_view source_name;
  std::string_view file_set;
};
constexpr InputSourceNames kInputSourceNames[] = {
    {InputSource::generated, "generated", ""}, {InputSource::private_set, "generated", "private"},
    {InputSource::kept, "generated", "kept"},  {InputSource::reused, "generated", "reused"},
    {InputSource::tree, "tree", ""},           {InputSource::list, "list", ""}};

const InputSourceNames& input_source_names(InputSource source) {
  for (const auto& n : kInputSourceNames) {
    if (n.source == source) return n;
  }
  return kInputSourceNames[0];
}

}  // namespace

std::string_view source_name(InputSource source) {
  return input_source_names(source).source_name;
}
std::string_view file_set_name(InputSource source) {
  return input_source_names(source).file_set;
}

bool parse_input_source(std::string_view source, std::string_view file_set, InputSource& out) {
  for (const auto& n : kInputSourceNames) {
    if (n.source_name == source && n.file_set == file_set) {
      out = n.source;
      return true;
    }
  }
  return false;
}

std::string Result::rcu_setting() const {
  return config.rcu_expedited ? std::to_string(*config.rcu_expedited) : std::string();
}

bool Result::has_warning(WarningKind about) const {
  return std::any_of(warnings.begin(), warnings.end(),
                     [about](const Warning& w) { return w.kind == about; });
}

void Result::warn(WarningKind about, std::string text) {
  Warning w{about, std::move(text)};
  if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) {
    warnings.push_back(std::move(w));
  }
}

std::string error_text(const Result& result) {
  const std::string_view words = status_words(result.status);
  return result.error.empty() ? std::string(words) : fmt::format("{}: {}", words, result.error);
}

TimedRegion& TimedRegion::operator+=(const TimedRegion& other) {
  minor_faults += other.minor_faults;
  major_faults += other.major_faults;
  voluntary_switches += other.voluntary_switches;
  involuntary_switches += other.involuntary_switches;
  return *this;
}

std::optional<TimedRegion> median_timed_region(std::span<const TimedRegion> repetitions) {
  if (repetitions.empty()) return std::nullopt;
  const auto median = [&](std::uint64_t TimedRegion::*count) {
    std::vector<std::uint64_t> v;
    v.reserve(repetitions.size());
    for (const auto& r : repetitions) v.push_back(r.*count);
    std::sort(v.begin(), v.end());
    const std::size_t mid = v.size() / 2;
    // Halves first: the sum of two counts near 2^64 must not wrap.
    return v.size() % 2 == 1 ? v[mid]
                             : v[mid - 1] / 2 + v[mid] / 2 + (v[mid - 1] % 2 + v[mid] % 2) / 2;
  };
  return TimedRegion{median(&TimedRegion::minor_faults), median(&TimedRegion::major_faults),
                     median(&TimedRegion::voluntary_switches),
                     median(&TimedRegion::involuntary_switches)};
}

namespace {

// The timed regions' medians from their samples (a document read back has the medians alone),
// and the warning they call for.
void finalize_timed_region(Result& result) {
  if (!result.timed_region_samples.empty()) {
    // Counted for every timed repetition or not at all: a median of some says nothing.
    result.timed_region = result.timed_region_samples.size() == result.times_ns.size()
                              ? median_timed_region(result.timed_region_samples)
                              : std::nullopt;
  }
  if (!result.timed_region || result.timed_region->page_faults() == 0) return;
  const TimedRegion& t = *result.timed_region;
  result.warn(WarningKind::page_faults,
              fmt::format("page faults while timed: a median of {} minor and {} major per "
                          "repetition; the clock held the kernel's memory work (pages first "
                          "touched or copied), not only the calls measured",
                          t.minor_faults, t.major_faults));
}

}  // namespace

bool is_noisy(const Result& result) {
  const auto half = result.precision();
  return half && shown_percent(*half) > shown_percent(kNoisyHalfWidth);
}

void finalize(Result& result) {
  finalize_timed_region(result);
  result.stats = summarize(result.times_ns);
  result.ops_per_sec =
      result.stats.median > 0 ? static_cast<double>(result.ops) * 1e9 / result.stats.median : 0.0;
  result.median_ci = median_interval(result.times_ns);
  result.outliers = outlier_indices(result.times_ns);
  // From times_ns alone, in the place of any noisy warning there was: finalizing again (a
  // reader does) changes nothing, and a document judged by an older rule is judged by this one.
  const auto is_noise = [](const Warning& w) { return w.kind == WarningKind::noisy; };
  auto& warnings = result.warnings;
  const auto place = std::find_if(warnings.begin(), warnings.end(), is_noise) - warnings.begin();
  std::erase_if(warnings, is_noise);
  if (!is_noisy(result)) return;
  warnings.insert(
      warnings.begin() + place,
      {WarningKind::noisy,
       fmt::format("noisy: the median's 95% interval reaches ±{} of it (over ±{})",
                   format_percent(*result.precision()), format_percent(kNoisyHalfWidth))});
}

}  // namespace fdbench
