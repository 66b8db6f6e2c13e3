// A published figure and a run's standing against it, in words (reference_text.hpp).
#include "output/reporters/reference_text.hpp"

#include <fmt/format.h>

#include "model/format.hpp"
#include "model/statistics.hpp"

namespace fdbench {

namespace {

// What a matching result must be, for the reader whose file has none.
std::string needed(const Reference& ref) {
  std::string text = fmt::format("{}, {} descriptors", ref.workload, group_digits(ref.ops));
  if (ref.kind) text += fmt::format(", {}", to_string(*ref.kind));
  if (ref.threads) text += fmt::format(", {} threads", *ref.threads);
  if (ref.pregrow) text += ", pregrow " + ref.pregrow->label();
  std::string strategies;
  for (const auto& name : ref.strategies) strategies += (strategies.empty() ? "" : "/") + name;
  return strategies.empty() ? text : text + ", " + strategies;
}

}  // namespace

std::string my_figure(const Standing& s) {
  if (!s.mine) return "no matching result (needs " + needed(s.reference) + ")";
  const Result& r = *s.mine;
  const std::string figure = s.reference.ops_per_sec
                                 ? format_rate(r.ops_per_sec) + " " + s.reference.unit
                                 : fmt::format("{} ms", format_ms(r.stats.median));
  return fmt::format("{} ({}, {}{})", figure, r.config.strategy,
                     thread_count_text(r.config.threads),
                     r.config.pregrow.grows() ? ", pregrow " + r.config.pregrow.label() : "");
}

std::string their_figure(const Reference& ref) {
  if (ref.ops_per_sec) return "~" + format_rate(*ref.ops_per_sec) + " " + ref.unit;
  const Summary s = summarize(ref.times_ns);
  return fmt::format("{}–{} ms (median {})", format_ms(static_cast<double>(s.min)),
                     format_ms(static_cast<double>(s.max)), format_ms(s.median));
}

}  // namespace fdbench
