// The recommendation a sweep supports, and its JSON: pure functions over Results, so the
// within-noise logic is tested on hand-built sweeps.
#include "analysis/recommendation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "fdbench/error.hpp"

namespace fdbench {

namespace {

using nlohmann::json;

// A result a program could act on, whatever its table: it ran, without failures, with a
// strategy it can adopt, under one rcu_expedited throughout.
bool usable(const Result& r) {
  return r.recommendable && r.config.harness == Harness::minimal && r.ok() && !r.times_ns.empty() &&
         r.ops_per_sec > 0 && !r.has_warning(WarningKind::setting_changed);
}

// ... and one whose descriptors the program can use (`eligibility`).
bool eligible(const Result& r, const Eligibility& eligibility) {
  return usable(r) && eligibility.allows(r.fd_table);
}

// Why descriptors that go into `table` are no use to the calling program, and the flag that
// says they are.
std::string ineligible_why(FdTable table) {
  switch (table) {
    case FdTable::per_worker:
      return "its descriptors are made in worker processes, each in a table of its own, where "
             "the calling program cannot use them; --allow-process to include it";
    case FdTable::none:
      return "its descriptors live in the io_uring, not in the process's table, so a program "
             "cannot use them as descriptors; --allow-direct to include it";
    case FdTable::shared:
      break;
  }
  return {};
}

// Simpler first: no io_uring (a ring to set up and drain), fewer threads, the plain loop
// before a pool, descriptors in the process's own table before those of worker processes or
// a ring's direct ones, a smaller batch; among equals, the faster.
bool simpler(const Result& a, const Result& b) {
  const auto key = [](const Result& r) {
    return std::tuple(r.batch_unit == BatchUnit::submission, r.config.threads, !r.reference,
                      r.fd_table != FdTable::shared, r.config.batch, -r.ops_per_sec);
  };
  return key(a) < key(b);
}

TunedSetting setting_of(const Result& r) {
  return {r.config.strategy, r.config.threads, r.config.batch, r.ops_per_sec};
}

json setting_json(const TunedSetting& s) {
  return {{"strategy", s.strategy},
          {"threads", s.threads},
          {"batch", s.batch},
          {"ops_per_sec", s.ops_per_sec}};
}

const json& field(const json& object, const std::string& where, const char* name) {
  if (!object.contains(name)) throw Error(fmt::format("{}.{}: missing", where, name));
  return object.at(name);
}

int whole_number(const json& object, const std::string& where, const char* name, int min) {
  const json& value = field(object, where, name);
  if (!value.is_number_integer() || value.get<long long>() < min ||
      value.get<long long>() > 1LL << 30) {
    throw Error(fmt::format("{}.{}: expected a whole number of at least {}", where, name, min));
  }
  return value.get<int>();
}

TunedSetting parse_setting(const json& object, const std::string& where) {
  if (!object.is_object()) throw Error(fmt::format("{}: expected an object", where));
  TunedSetting s;
  const json& strategy = field(object, where, "strategy");
  if (!strategy.is_string() || strategy.get<std::string>().empty()) {
    throw Error(fmt::format("{}.strategy: expected a strategy name", where));
  }
  s.strategy = strategy.get<std::string>();
  s.threads = whole_number(object, where, "threads", 1);
  s.batch = whole_number(object, where, "batch", 1);
  const json& rate = field(object, where, "ops_per_sec");
  if (!rate.is_number() || rate.get<double>() < 0) {
    throw Error(fmt::format("{}.ops_per_sec: expected a non-negative number", where));
  }
  s.ops_per_sec = rate.get<double>();
  return s;
}

}  // namespace

bool Eligibility::allows(FdTable table) const {
  switch (table) {
    case FdTable::per_worker:
      return processes;
    case FdTable::none:
      return direct;
    case FdTable::shared:
      break;
  }
  return true;
}

std::vector<Ineligible> ineligible(std::span<const Result> sweep, const Eligibility& eligibility) {
  std::vector<Ineligible> out;
  std::vector<FdTable> tables;  // out[i]'s
  for (const auto& r : sweep) {
    if (!usable(r) || eligibility.allows(r.fd_table)) continue;
    const auto at = std::find(tables.begin(), tables.end(), r.fd_table);
    if (at == tables.end()) {
      tables.push_back(r.fd_table);
      out.push_back({{r.config.strategy}, ineligible_why(r.fd_table)});
      continue;
    }
    auto& names = out[static_cast<std::size_t>(at - tables.begin())].strategies;
    if (std::find(names.begin(), names.end(), r.config.strategy) == names.end()) {
      names.push_back(r.config.strategy);
    }
  }
  return out;
}

std::optional<Recommendation> recommend_from(std::span<const Result> sweep,
                                             const Eligibility& eligibility) {
  const Result* fastest = nullptr;
  int compared = 0;
  for (const auto& r : sweep) {
    if (!eligible(r, eligibility)) continue;
    ++compared;
    if (fastest == nullptr || r.ops_per_sec > fastest->ops_per_sec) fastest = &r;
  }
  if (fastest == nullptr) return std::nullopt;
  Recommendation rec;
  rec.fastest = setting_of(*fastest);
  rec.compared = compared;
  rec.knee_threads = fastest->config.threads;
  // The fastest and those not separated from it (statistics.hpp's rule): the same, too wide to
  // tell, or too few repetitions: the candidates. The knee needs more: shown the same.
  std::vector<const Result*> tied{fastest};
  for (const auto& r : sweep) {
    if (&r == fastest || !eligible(r, eligibility) ||
        separation(r.median_ci, fastest->median_ci) == Separation::separated) {
      continue;
    }
    tied.push_back(&r);
    if (r.config.strategy == fastest->config.strategy && r.config.batch == fastest->config.batch &&
        separation(r.median_ci, fastest->median_ci) == Separation::same) {
      rec.knee_threads = std::min(rec.knee_threads, r.config.threads);
    }
  }
  const Result* best = *std::min_element(
      tied.begin(), tied.end(), [](const Result* a, const Result* b) { return simpler(*a, *b); });
  rec.best = setting_of(*best);
  std::stable_sort(tied.begin(), tied.end(), [](const Result* a, const Result* b) {
    return a->ops_per_sec > b->ops_per_sec;
  });
  for (const Result* r : tied) {
    if (r != best) rec.within_noise.push_back(setting_of(*r));
  }
  // Held descriptors fill the table on top of what the program holds already; direct
  // descriptors live in the ring's table and never grow the process's.
  if (best->holds_descriptors && best->fd_table != FdTable::none) {
    rec.pregrow_to = static_cast<int>(best->ops) + kProgramDescriptors;
  }
  return rec;
}

nlohmann::json recommendation_object(const Recommendation& rec) {
  json out = setting_json(rec.best);
  // A recommendation made by hand may leave fastest unset: then best is the fastest it knows.
  out["fastest"] = setting_json(rec.fastest.strategy.empty() ? rec.best : rec.fastest);
  out["compared"] = rec.compared;
  out["inconclusive"] = rec.inconclusive();
  out["within_noise"] = json::array();
  for (const auto& s : rec.within_noise) out["within_noise"].push_back(setting_json(s));
  out["knee_threads"] = rec.knee_threads;
  out["pregrow_to"] = rec.pregrow_to ? json(*rec.pregrow_to) : json(nullptr);
  return out;
}

std::string recommendation_json(const Recommendation& rec) {
  return recommendation_object(rec).dump(2);
}

Recommendation parse_recommendation(std::string_view text) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::parse_error& e) {
    throw Error(fmt::format("not JSON: {}", e.what()));
  }
  // A whole `tune --format json` document carries it under "recommendation".
  std::string where = "recommendation";
  if (document.is_object() && document.contains("recommendation")) {
    document = document.at("recommendation");
    if (document.is_null()) throw Error("recommendation: null (tune found nothing to recommend)");
  }
  Recommendation rec;
  rec.best = parse_setting(document, where);
  const json& alternatives = field(document, where, "within_noise");
  if (!alternatives.is_array()) throw Error(where + ".within_noise: expected an array");
  for (std::size_t i = 0; i < alternatives.size(); ++i) {
    rec.within_noise.push_back(
        parse_setting(alternatives[i], fmt::format("{}.within_noise[{}]", where, i)));
  }
  // Written since the recommendation names the simplest of equals; before, best was fastest.
  rec.fastest = document.contains("fastest")
                    ? parse_setting(document.at("fastest"), where + ".fastest")
                    : rec.best;
  rec.compared = document.contains("compared") ? whole_number(document, where, "compared", 1)
                                               : static_cast<int>(rec.within_noise.size()) + 1;
  rec.knee_threads = whole_number(document, where, "knee_threads", 1);
  if (!field(document, where, "pregrow_to").is_null()) {
    rec.pregrow_to = whole_number(document, where, "pregrow_to", 0);
  }
  return rec;
}

Recommendation load_recommendation(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: {}", path, errno_text(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return parse_recommendation(text.str());
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {} (write it with fdbench tune --save {})", path, e.what(), path));
  }
}

}  // namespace fdbench
