#include "model/settings.hpp"

#include <charconv>

namespace fdbench {

std::string Pregrow::label() const {
  switch (mode) {
    case Mode::off:
      return "off";
    case Mode::automatic:
      return "auto";
    case Mode::fd:
      return std::to_string(fd);
  }
  return "off";
}

bool parse_pregrow(std::string_view text, Pregrow& out) {
  if (text == "off") {
    out = Pregrow{};
    return true;
  }
  if (text == "auto") {
    out = Pregrow{Pregrow::Mode::automatic, 0};
    return true;
  }
  int fd = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), fd);
  if (ec != std::errc{} || end != text.data() + text.size() || fd < 0) return false;
  out = Pregrow{Pregrow::Mode::fd, fd};
  return true;
}

std::string_view to_string(RepeatStop stop) {
  switch (stop) {
    case RepeatStop::precision:
      return "precision";
    case RepeatStop::decided:
      return "decided";
    case RepeatStop::max_time:
      return "max-time";
    case RepeatStop::budget:
      return "budget";
    case RepeatStop::max_repetitions:
      return "max-repetitions";
    case RepeatStop::interrupted:
      return "interrupted";
    case RepeatStop::fixed_repeat:
      return "fixed-repeat";
  }
  return "precision";
}

bool parse_repeat_stop(std::string_view text, RepeatStop& stop) {
  for (const RepeatStop s : {RepeatStop::precision, RepeatStop::decided, RepeatStop::max_time,
                             RepeatStop::budget, RepeatStop::max_repetitions,
                             RepeatStop::interrupted, RepeatStop::fixed_repeat}) {
    if (text == to_string(s)) {
      stop = s;
      return true;
    }
  }
  return false;
}

std::string_view to_string(BatchUnit unit) {
  switch (unit) {
    case BatchUnit::none:
      return "none";
    case BatchUnit::task:
      return "task";
    case BatchUnit::submission:
      return "submission";
    case BatchUnit::in_flight:
      return "in-flight";
  }
  return "none";
}

bool parse_batch_unit(std::string_view text, BatchUnit& unit) {
  for (const BatchUnit u :
       {BatchUnit::none, BatchUnit::task, BatchUnit::submission, BatchUnit::in_flight}) {
    if (text == to_string(u)) {
      unit = u;
      return true;
    }
  }
  return false;
}

std::string_view to_string(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::open:
      return "open";
    case WorkloadKind::accept:
      return "accept";
    case WorkloadKind::create:
      break;
  }
  return "create";
}

bool parse_workload_kind(std::string_view text, WorkloadKind& kind) {
  for (const WorkloadKind k : {WorkloadKind::open, WorkloadKind::create, WorkloadKind::accept}) {
    if (text == to_string(k)) {
      kind = k;
      return true;
    }
  }
  return false;
}

std::string_view to_string(Harness harness) {
  return harness == Harness::published ? "published" : "minimal";
}

bool parse_harness(std::string_view text, Harness& harness) {
  if (text != "minimal" && text != "published") return false;
  harness = text == "published" ? Harness::published : Harness::minimal;
  return true;
}

}  // namespace fdbench
