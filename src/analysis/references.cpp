// Figures others published (docs/references.json, compiled in at build time) and where a
// results file stands against them. They were measured on other machines with other
// programs: context for a result, never a controlled comparison, and always labelled so.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "analysis/compare.hpp"
#include "fdbench/error.hpp"

namespace fdbench {

extern const std::string_view kShippedReferencesJson;  // generated from docs/references.json

namespace {

using nlohmann::json;

std::string text_or(const json& j, const char* key, std::string fallback = "") {
  if (!j.contains(key) || j.at(key).is_null()) return fallback;
  if (!j.at(key).is_string()) throw Error(fmt::format("{}: expected a string", key));
  return j.at(key).get<std::string>();
}

Reference read_reference(const json& j) {
  if (!j.is_object()) throw Error("expected an object");
  Reference r;
  r.id = text_or(j, "id");
  if (r.id.empty()) throw Error("id: missing");
  r.source = text_or(j, "source");
  r.url = text_or(j, "url");
  r.machine = text_or(j, "machine");
  r.os = text_or(j, "os");
  r.measured = text_or(j, "measured");
  r.quote = text_or(j, "quote");
  const json& match = j.at("match");
  r.workload = text_or(match, "workload");
  if (const std::string kind = text_or(match, "kind"); !kind.empty()) {
    r.kind.emplace();
    if (!parse_descriptor_kind(kind, *r.kind)) throw Error("kind: unknown kind " + kind);
  }
  if (const std::string pregrow = text_or(match, "pregrow"); !pregrow.empty()) {
    r.pregrow.emplace();
    if (!parse_pregrow(pregrow, *r.pregrow)) throw Error("pregrow: unknown value " + pregrow);
  }
  if (match.contains("threads")) r.threads = match.at("threads").get<int>();
  r.ops = match.at("ops").get<std::uint64_t>();
  if (match.contains("strategies"))
    r.strategies = match.at("strategies").get<std::vector<std::string>>();
  if (j.contains("ops_per_sec")) r.ops_per_sec = j.at("ops_per_sec").get<double>();
  r.unit = text_or(j, "unit", r.unit);
  if (j.contains("times_ns")) r.times_ns = j.at("times_ns").get<std::vector<std::int64_t>>();
  if (r.ops_per_sec.has_value() == !r.times_ns.empty()) {
    throw Error("give either ops_per_sec or times_ns");
  }
  return r;
}

bool matches(const Reference& ref, const Result& r) {
  if (!r.ok() || r.stats.median <= 0) return false;
  if (r.workload != ref.workload || r.ops != ref.ops) return false;
  if (ref.kind && r.config.kind != *ref.kind) return false;
  if (ref.pregrow && r.config.pregrow != *ref.pregrow) return false;
  if (ref.threads && r.config.threads != *ref.threads) return false;
  // Their files were their own, opened and closed: not a --tree, --list or --keep-open run.
  if (r.input && (!generated(r.input->source) || r.input->keep_open)) return false;
  return ref.strategies.empty() || std::find(ref.strategies.begin(), ref.strategies.end(),
                                             r.config.strategy) != ref.strategies.end();
}

double median_of(std::vector<std::int64_t> times) {
  return summarize(times).median;
}

}  // namespace

std::vector<Reference> parse_references(std::string_view text) {
  std::vector<Reference> out;
  try {
    const json root = json::parse(text.begin(), text.end());
    const json& list = root.at("references");
    if (!list.is_array()) throw Error("references: expected an array");
    for (std::size_t i = 0; i < list.size(); ++i) {
      try {
        out.push_back(read_reference(list[i]));
      } catch (const Error& e) {
        throw Error(fmt::format("references[{}]: {}", i, e.what()));
      } catch (const json::exception& e) {
        throw Error(fmt::format("references[{}]: {}", i, e.what()));
      }
    }
  } catch (const json::exception& e) {
    throw Error(fmt::format("references: {}", e.what()));
  }
  return out;
}

std::vector<Reference> shipped_references() {
  return parse_references(kShippedReferencesJson);
}

std::vector<Standing> stand_against(const ResultsDocument& document,
                                    std::span<const Reference> references) {
  std::vector<Standing> out;
  for (const auto& ref : references) {
    Standing standing{ref, std::nullopt, 0};
    // The fastest matching result: what this machine can do against what they saw.
    for (const auto& r : document.results) {
      if (matches(ref, r) && (!standing.mine || r.ops_per_sec > standing.mine->ops_per_sec)) {
        standing.mine = r;
      }
    }
    if (standing.mine) {
      standing.speed_ratio = ref.ops_per_sec
                                 ? standing.mine->ops_per_sec / *ref.ops_per_sec
                                 : median_of(ref.times_ns) / standing.mine->stats.median;
    }
    out.push_back(std::move(standing));
  }
  return out;
}

}  // namespace fdbench
