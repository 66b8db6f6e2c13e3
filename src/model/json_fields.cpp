#include "model/json_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string_view>
#include <type_traits>
#include <utility>

#include "common/errors.hpp"
#include "fdbench/error.hpp"
#include "model/json_reader.hpp"

namespace fdbench {

namespace {

using nlohmann::json;
using Written = std::optional<json>;

// ---- Values written and read as their type says ----------------------------------------

template <class T>
inline constexpr bool kIsOptional = false;
template <class T>
inline constexpr bool kIsOptional<std::optional<T>> = true;

// The settings written as words: how they are parsed, and the words a reader's message lists.
template <class T>
struct Spelling;
template <>
struct Spelling<Pregrow> {
  static constexpr auto parse = parse_pregrow;
  static constexpr const char* expected = "\"off\", \"auto\" or a descriptor number";
};
template <>
struct Spelling<WorkerKind> {
  static constexpr auto parse = parse_worker_kind;
  static constexpr const char* expected = "\"threads\" or \"processes\"";
};
template <>
struct Spelling<FdTable> {
  static constexpr auto parse = parse_fd_table;
  static constexpr const char* expected = "\"shared\", \"per-worker\" or \"none\"";
};
template <>
struct Spelling<WorkloadKind> {
  static constexpr auto parse = parse_workload_kind;
  static constexpr const char* expected = "\"open\" or \"create\"";
};
template <>
struct Spelling<BatchUnit> {
  static constexpr auto parse = parse_batch_unit;
  static constexpr const char* expected = "\"none\", \"task\", \"submission\" or \"in-flight\"";
};
template <>
struct Spelling<Harness> {
  static constexpr auto parse = parse_harness;
  static constexpr const char* expected = "\"minimal\" or \"published\"";
};
template <>
struct Spelling<DescriptorKind> {
  static constexpr auto parse = parse_descriptor_kind;
  static constexpr const char* expected =
      "\"eventfd\", \"file\", \"pipe\", \"tcp\", \"tcp6\", \"udp\" or \"unix\"";
};
template <class T>
concept Spelled = requires {
  Spelling<T>::expected;
};

// Texts, numbers and flags as they are; a setting as its word; an optional one null when unset.
template <class T>
json value_json(const T& value) {
  if constexpr (std::is_same_v<T, Pregrow>) {
    return value.label();
  } else if constexpr (std::is_enum_v<T>) {
    return std::string(to_string(value));
  } else if constexpr (kIsOptional<T>) {
    return value ? value_json(*value) : json(nullptr);
  } else {
    return value;
  }
}

template <class T>
T read_value(const JsonReader& in, const char* name) {
  if constexpr (Spelled<T>) {
    return in.choice(name, Spelling<T>::parse, Spelling<T>::expected);
  } else if constexpr (kIsOptional<T>) {
    return read_value<typename T::value_type>(in, name);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return in.text(name);
  } else if constexpr (std::is_same_v<T, bool>) {
    return in.flag(name);
  } else if constexpr (std::is_floating_point_v<T>) {
    return in.number(name);
  } else if constexpr (std::is_integral_v<T>) {
    return in.integer<T>(name);
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    (void)in.field(name);  // "missing" where it is required and absent
    return in.texts(name);
  } else {
    static_assert(std::is_same_v<T, std::map<std::string, std::string>>);
    return in.text_map(name);
  }
}

// ---- Rows for one member of the record --------------------------------------------------

template <class Pointer>
struct MemberOf;
template <class Record_, class Type_>
struct MemberOf<Type_ Record_::*> {
  using Record = Record_;
  using Type = Type_;
};
template <auto member>
using RecordOf = typename MemberOf<decltype(member)>::Record;
template <auto member>
using TypeOf = typename MemberOf<decltype(member)>::Type;

template <auto member>
Written write_member(const RecordOf<member>& r) {
  return value_json(r.*member);
}

// Left out while it is empty: "", no value, no entries.
template <auto member>
Written write_when_set(const RecordOf<member>& r) {
  const auto& value = r.*member;
  if constexpr (kIsOptional<TypeOf<member>>) {
    if (!value) return std::nullopt;
  } else {
    if (value.empty()) return std::nullopt;
  }
  return value_json(value);
}

template <auto member>
void read_member(const JsonReader& in, const char* name, RecordOf<member>& r) {
  r.*member = read_value<TypeOf<member>>(in, name);
}

// The member's empty value: "", no value, no entries, pregrow off.
template <auto member>
void reset(RecordOf<member>& r) {
  r.*member = TypeOf<member>{};
}

template <class Record>
using Older = void (*)(Record&);

// ---- Rows for one member of a result's configuration ------------------------------------

template <auto member>
Written write_config(const Result& r) {
  return value_json(r.config.*member);
}

template <auto member>
Written write_config_when_set(const Result& r) {
  const auto& value = r.config.*member;
  if (!value) return std::nullopt;
  return value_json(*value);
}

template <auto member>
void read_config(const JsonReader& in, const char* name, Result& r) {
  r.config.*member = read_value<TypeOf<member>>(in, name);
}

template <auto member>
void reset_config(Result& r) {
  r.config.*member = TypeOf<member>{};
}

template <auto member>
constexpr ResultField required_config(const char* name) {
  return {.name = name,
          .write = &write_config<member>,
          .read_as = FieldRead::required,
          .read = &read_config<member>};
}

template <auto member>
constexpr ResultField defaulted_config(const char* name) {
  return {.name = name,
          .write = &write_config<member>,
          .read_as = FieldRead::optional,
          .read = &read_config<member>,
          .older = &reset_config<member>};
}

// A field every document has: one without it is malformed.
template <auto member>
constexpr JsonField<RecordOf<member>> required(const char* name) {
  return {.name = name,
          .write = &write_member<member>,
          .read_as = FieldRead::required,
          .read = &read_member<member>};
}

// A field a document may lack (or hold null): it then reads as `older` sets it.
template <auto member>
constexpr JsonField<RecordOf<member>> defaulted(const char* name,
                                                Older<RecordOf<member>> older = &reset<member>) {
  return {.name = name,
          .write = &write_member<member>,
          .read_as = FieldRead::optional,
          .read = &read_member<member>,
          .older = older};
}

// Defaulted, and written only when it is set.
template <auto member>
constexpr JsonField<RecordOf<member>> when_set(const char* name) {
  JsonField<RecordOf<member>> f = defaulted<member>(name);
  f.write = &write_when_set<member>;
  return f;
}

// Written and read by functions of its own.
template <class Record>
constexpr JsonField<Record> custom(const char* name, Written (*write)(const Record&),
                                   FieldRead read_as,
                                   void (*read)(const JsonReader&, const char*, Record&) = nullptr,
                                   Older<Record> older = nullptr) {
  return {.name = name, .write = write, .read_as = read_as, .read = read, .older = older};
}

// Written, never read: computed again from the raw samples (a reader never trusts a stale copy).
constexpr ResultField derived(const char* name, Written (*write)(const Result&)) {
  return custom<Result>(name, write, FieldRead::derived);
}

// Written and read by the functions of the row above it, as one.
constexpr ResultField part(const char* name, Written (*write)(const Result&)) {
  return custom<Result>(name, write, FieldRead::together);
}

// ---- Documents written before a field existed -------------------------------------------

// The properties of the eight strategies as fdbench had them before results recorded them:
// what a document of that time leaves out. Frozen: a strategy added since records its own.
struct LegacyStrategy {
  std::string_view name;
  WorkerKind workers = WorkerKind::threads;
  FdTable fd_table = FdTable::shared;
  bool reference = false;
  bool caller_runs_beside = false;  // a pool's waiting caller or libuv's loop: T + 1 runnable
  BatchUnit batch_unit = BatchUnit::none;
  bool recommendable = true;
};
constexpr LegacyStrategy kLegacyStrategies[] = {
    {.name = "threads", .reference = true},
    {.name = "pool", .caller_runs_beside = true, .recommendable = false},
    {.name = "pool-batch", .caller_runs_beside = true, .batch_unit = BatchUnit::task},
    {.name = "fast-pool"},
    {.name = "process", .workers = WorkerKind::processes, .fd_table = FdTable::per_worker},
    {.name = "uring", .batch_unit = BatchUnit::submission},
    {.name = "uring-direct", .fd_table = FdTable::none, .batch_unit = BatchUnit::submission},
    {.name = "libuv", .caller_runs_beside = true, .batch_unit = BatchUnit::in_flight},
};

// The strategy as it was then; one added since reads as LegacyStrategy's defaults.
const LegacyStrategy& legacy(const Result& r) {
  static constexpr LegacyStrategy kUnknown{};
  for (const auto& s : kLegacyStrategies) {
    if (s.name == r.config.strategy) return s;
  }
  return kUnknown;
}

// ---- The fields written and read by hand ------------------------------------------------

void read_times(const JsonReader& in, const char* name, Result& r) {
  const json& times = in.field(name);
  if (!times.is_array()) throw Error(in.path(name) + ": expected an array of integers");
  for (const auto& t : times) {
    if (!t.is_number_integer()) throw Error(in.path(name) + ": expected an array of integers");
    // A time below 0 is no measurement: shown, it read "-0.00" ms (issue 39 item 14).
    if (t.get<std::int64_t>() < 0) {
      throw Error(fmt::format("{}: {} is a negative time; a repetition takes 0 ns or more",
                              in.path(name), t.get<std::int64_t>()));
    }
    r.times_ns.push_back(t.get<std::int64_t>());
  }
}

Written write_failures_by_errno(const Result& r) {
  if (r.failures_by_errno.empty()) return std::nullopt;
  json by_errno = json::object();
  for (const auto& [name, n] : r.failures_by_errno) {
    by_errno[name] = {{"count", n.count}, {"message", n.message}};
  }
  return by_errno;
}

void read_failures_by_errno(const JsonReader& in, const char* name, Result& r) {
  r.failures_by_errno = in.errno_counts(name);
}

// Two arrays of one length: the texts as they always were, and what each is about.
Written write_warnings(const Result& r) {
  if (r.warnings.empty()) return std::nullopt;
  json texts = json::array();
  for (const auto& w : r.warnings) texts.push_back(w.text);
  return texts;
}

Written write_warning_kinds(const Result& r) {
  if (r.warnings.empty()) return std::nullopt;
  json kinds = json::array();
  for (const auto& w : r.warnings) kinds.push_back(std::string(to_string(w.kind)));
  return kinds;
}

void read_warnings(const JsonReader& in, const char* name, Result& r) {
  for (auto& text : in.texts(name)) r.warnings.push_back({WarningKind::other, std::move(text)});
}

void read_warning_kinds(const JsonReader& in, const char* name, Result& r) {
  const std::vector<std::string> kinds = in.texts(name);
  if (kinds.size() != r.warnings.size()) {
    throw Error(in.path(name) + ": expected one kind for each warning");
  }
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (!parse_warning_kind(kinds[i], r.warnings[i].kind)) {
      r.warnings[i].kind = WarningKind::other;  // a kind added after this version: still a warning
    }
  }
}

// Schema 1 had no kinds: they are recognised from the texts it wrote, here and nowhere else.
void kinds_of_old_warnings(Result& r) {
  for (auto& w : r.warnings) {
    if (w.text.starts_with("noisy: ")) {
      w.kind = WarningKind::noisy;
    } else if (w.text.starts_with("interrupted: ")) {
      w.kind = WarningKind::cut_short;
    } else if (w.text.starts_with("descriptor leak: ")) {
      w.kind = WarningKind::leak;
    }
  }
}

void read_status(const JsonReader& in, const char* name, Result& r) {
  if (!parse_status(in.text(name), r.status)) {
    throw Error(in.path(name) + ": '" + in.text(name) +
                "' is not a status (measured, unavailable, failed, cut-short, timed-out, hung)");
  }
  if (!r.ran() && !r.times_ns.empty()) {
    throw Error(in.path(name) + ": a " + in.text(name) + " result has no times");
  }
}

// Schema 1 had no status: an error was "unavailable" unless its words said the repetition
// timed out or hung, and a cut-short result said so in a warning.
void status_of_old_result(Result& r) {
  constexpr std::string_view kTimedOut = "timed out: ";
  constexpr std::string_view kHung = "hung: ";
  if (r.error.starts_with(kTimedOut)) {
    r.status = Status::timed_out;
    r.error.erase(0, kTimedOut.size());
  } else if (r.error.starts_with(kHung)) {
    r.status = Status::hung;
    r.error.erase(0, kHung.size());
  } else if (!r.error.empty()) {
    r.status = Status::unavailable;
  } else if (r.has_warning(WarningKind::cut_short)) {
    r.status = Status::cut_short;
  }
}

// The strategy's parameters, and an open result's paths among them (schema 9 on).
Written write_parameters(const Result& r) {
  std::map<std::string, std::string> parameters = r.parameters;
  if (r.config.paths) parameters["paths"] = std::string(to_string(*r.config.paths));
  if (parameters.empty()) return std::nullopt;
  return json(parameters);
}

// Values other than strings (a later version's) are kept as their JSON text. The paths are
// the configuration's.
void read_parameters(const JsonReader& in, const char* name, Result& r) {
  const json& p = in.field(name);
  if (!p.is_object()) throw Error(in.path(name) + ": expected an object");
  for (const auto& [key, value] : p.items()) {
    r.parameters[key] = value.is_string() ? value.get<std::string>() : value.dump();
  }
  const auto paths = r.parameters.find("paths");
  if (paths == r.parameters.end()) return;
  PathMode mode{};
  if (!parse_path_mode(paths->second, mode)) {
    throw Error(in.path(name) + ".paths: expected \"relative\" or \"absolute\"");
  }
  r.config.paths = mode;
  r.parameters.erase(paths);
}

Written write_input(const Result& r) {
  if (!r.input) return std::nullopt;
  const InputSummary& in = *r.input;
  json j = {
      {"source", source_name(in.source)},
      {"origin", in.origin},
      {"layout", in.layout},
      {"flags", in.flags},
      {"keep_open", in.keep_open},
      {"files", in.files},
      {"skipped", in.skipped},
      {"missing", in.missing},
  };
  if (const auto set = file_set_name(in.source); !set.empty()) j["file_set"] = set;
  return j;
}

// The schema's place for it is the result: the set-up of whatever the result measured.
Written write_setup_ns(const Result& r) {
  if (!r.input || !r.input->setup_ns) return std::nullopt;
  return *r.input->setup_ns;
}

// The input record, and the result's setup_ns with it.
void read_input(const JsonReader& result, const char* name, Result& r) {
  const JsonReader input(result.field(name), result.path(name));
  InputSummary s;
  const std::string source = input.text("source");
  if (!parse_input_source(source, input.text_or("file_set", ""), s.source)) {
    throw Error(input.path("source") + ": unknown source '" + source + "' (with its file_set)");
  }
  s.origin = input.text_or("origin", "");
  s.layout = input.text_or("layout", "");
  s.flags = input.text_or("flags", "rdonly");
  s.keep_open = input.has("keep_open") && input.field("keep_open").is_boolean() &&
                input.field("keep_open").get<bool>();
  s.files = input.integer<std::uint64_t>("files");
  s.skipped = input.counts("skipped");
  s.missing = input.counts("missing");
  s.setup_ns = result.optional_integer<std::int64_t>("setup_ns");
  r.input = std::move(s);
}

// --latency: the percentiles per operation, every growth event and the stalls.
json totals_json(const EventTotals& t) {
  return {
      {"count", t.count}, {"total_ns", t.total_ns}, {"share_of_repetition", t.share_of_repetition}};
}

Written write_latency_ns(const Result& r) {
  if (!r.latency) return std::nullopt;
  json ns = json::object();
  for (const auto& [op, p] : r.latency->ns) {
    ns[op] = {{"count", p.count}, {"p50", p.p50},   {"p90", p.p90},
              {"p99", p.p99},     {"p999", p.p999}, {"max", p.max}};
  }
  return ns;
}

// Where the table's size is not shown, there are no growth events to tell.
Written write_growth_events(const Result& r) {
  if (!r.latency || !r.latency->growth_known) return std::nullopt;
  json growth = json::array();
  for (const auto& g : r.latency->growth_events) {
    growth.push_back({{"repetition", g.repetition},
                      {"worker", g.worker},
                      {"index", g.index},
                      {"fd", g.fd},
                      {"ns", g.ns},
                      {"fdsize_before", g.fdsize_before},
                      {"fdsize_after", g.fdsize_after},
                      {"shared", g.shared}});
  }
  return growth;
}

Written write_growth_summary(const Result& r) {
  if (!r.latency || !r.latency->growth_known) return std::nullopt;
  return totals_json(r.latency->growth_totals);
}

Written write_stalls(const Result& r) {
  if (!r.latency) return std::nullopt;
  json stalls = json::array();
  for (const auto& s : r.latency->stalls) {
    json stall = {{"repetition", s.repetition},
                  {"worker", s.worker},
                  {"index", s.index},
                  {"op", s.op},
                  {"fd", s.fd},
                  {"ns", s.ns},
                  {"cause", s.cause}};
    if (s.off_cpu_ns) stall["off_cpu_ns"] = *s.off_cpu_ns;
    stalls.push_back(std::move(stall));
  }
  return stalls;
}

Written write_stall_summary(const Result& r) {
  if (!r.latency) return std::nullopt;
  return totals_json(r.latency->stall_totals);
}

// Every stall by its cause: {"fd-table-growth": {"count": 56, "total_ns": ..., "from_kernel": 0}}.
Written write_stall_causes(const Result& r) {
  if (!r.latency) return std::nullopt;
  json causes = json::object();
  for (const auto& [cause, c] : r.latency->stall_causes) {
    causes[cause] = {{"count", c.count}, {"total_ns", c.total_ns}, {"from_kernel", c.from_kernel}};
  }
  return causes;
}

// Left out where not recorded (a document before schema 9, read and written again).
Written write_stalls_per_repetition(const Result& r) {
  if (!r.latency || r.latency->stalls_per_repetition.empty()) return std::nullopt;
  return r.latency->stalls_per_repetition;
}

EventTotals read_totals(const JsonReader& in) {
  EventTotals t;
  t.count = in.integer<std::uint64_t>("count");
  t.total_ns = in.integer<std::int64_t>("total_ns");
  t.share_of_repetition = in.number("share_of_repetition");
  return t;
}

// Elements of the array `key` of `in`, each read by `read` with its own path.
template <class Read>
void each_of(const JsonReader& in, const char* key, Read read) {
  const json& list = in.field(key);
  if (!list.is_array()) throw Error(in.path(key) + ": expected an array");
  for (std::size_t i = 0; i < list.size(); ++i) {
    read(JsonReader(list[i], fmt::format("{}[{}]", in.path(key), i)));
  }
}

void read_growth(const JsonReader& in, Latency& latency) {
  latency.growth_known = in.has("growth_summary");
  if (!latency.growth_known) return;
  each_of(in, "growth_events", [&](const JsonReader& g) {
    latency.growth_events.push_back({g.integer<int>("repetition"), g.integer<int>("worker"),
                                     g.integer<std::uint64_t>("index"), g.integer<int>("fd"),
                                     g.integer<std::int64_t>("ns"), g.integer<int>("fdsize_before"),
                                     g.integer<int>("fdsize_after"), g.flag_or("shared", false)});
  });
  latency.growth_totals =
      read_totals(JsonReader(in.field("growth_summary"), in.path("growth_summary")));
}

// The stalls by cause; before schema 9, only the listed stalls' causes are known.
void read_stall_causes(const JsonReader& in, Latency& latency) {
  if (!in.has("stall_causes")) {
    latency.stall_causes = causes_of(latency.stalls);
    return;
  }
  const json& causes = in.field("stall_causes");
  if (!causes.is_object()) throw Error(in.path("stall_causes") + ": expected an object");
  for (const auto& [cause, value] : causes.items()) {
    const JsonReader c(value, in.path("stall_causes") + "." + cause);
    latency.stall_causes[cause] = {c.integer<std::uint64_t>("count"),
                                   c.integer<std::int64_t>("total_ns"),
                                   c.integer<std::uint64_t>("from_kernel")};
  }
}

void read_stalls_per_repetition(const JsonReader& in, Latency& latency) {
  if (!in.has("stalls_per_repetition")) return;
  const json& counts = in.field("stalls_per_repetition");
  const auto wrong = [&] {
    return Error(in.path("stalls_per_repetition") + ": expected an array of counts");
  };
  if (!counts.is_array()) throw wrong();
  for (const auto& n : counts) {
    if (!n.is_number_unsigned()) throw wrong();
    latency.stalls_per_repetition.push_back(n.get<std::uint64_t>());
  }
}

// --latency's fields, present together or not at all: latency_ns and the rows below it.
void read_latency(const JsonReader& in, const char* name, Result& r) {
  Latency latency;
  const json& ns = in.field(name);
  if (!ns.is_object()) throw Error(in.path(name) + ": expected an object");
  for (const auto& [op, value] : ns.items()) {
    const JsonReader p(value, in.path(name) + "." + op);
    latency.ns[op] = {p.integer<std::uint64_t>("count"), p.integer<std::int64_t>("p50"),
                      p.integer<std::int64_t>("p90"),    p.integer<std::int64_t>("p99"),
                      p.integer<std::int64_t>("p999"),   p.integer<std::int64_t>("max")};
  }
  read_growth(in, latency);
  each_of(in, "stalls", [&](const JsonReader& s) {
    Stall stall{s.integer<int>("repetition"), s.integer<int>("worker"),
                s.integer<std::uint64_t>("index"), s.text("op"), s.integer<int>("fd"),
                s.integer<std::int64_t>("ns"), s.text("cause"), std::nullopt};
    stall.off_cpu_ns = s.optional_integer<std::int64_t>("off_cpu_ns");
    latency.stalls.push_back(std::move(stall));
  });
  latency.stall_totals =
      read_totals(JsonReader(in.field("stall_summary"), in.path("stall_summary")));
  read_stall_causes(in, latency);
  read_stalls_per_repetition(in, latency);
  r.latency = std::move(latency);
}

// The timed region's page faults and context switches, each the median per repetition. Left
// out where they were not counted; a document without them (or older) reads as not counted.
Written write_timed_region(const Result& r) {
  if (!r.timed_region) return std::nullopt;
  const TimedRegion& t = *r.timed_region;
  return json{{"minor_faults", t.minor_faults},
              {"major_faults", t.major_faults},
              {"voluntary_switches", t.voluntary_switches},
              {"involuntary_switches", t.involuntary_switches}};
}

void read_timed_region(const JsonReader& in, const char* name, Result& r) {
  const JsonReader t(in.field(name), in.path(name));
  r.timed_region = TimedRegion{t.integer<std::uint64_t>("minor_faults"),
                               t.integer<std::uint64_t>("major_faults"),
                               t.integer<std::uint64_t>("voluntary_switches"),
                               t.integer<std::uint64_t>("involuntary_switches")};
}

// --kernel-trace: where the measuring threads were off their CPU while timed, each figure
// the median repetition's ({"available": true, "off_cpu_by_cause_ns": {"fd-table-growth":
// 7609371, ...}, ...}), or why it could not be recorded ({"available": false, "reason": ...}).
Written write_kernel(const Result& r) {
  if (!r.kernel) return std::nullopt;
  const KernelEvidence& k = *r.kernel;
  if (!k.available) return json{{"available", false}, {"reason", k.reason}};
  json causes = json::object();
  json at_edges = json::object();
  for (const OffCpuCause c : kEveryOffCpuCause) {
    causes[std::string(cause_name(c))] = k.off_cpu[static_cast<std::size_t>(c)];
    at_edges[std::string(cause_name(c))] = k.at_edges[static_cast<std::size_t>(c)];
  }
  json stacks = json::array();
  for (const StackTime& s : k.other_stacks) stacks.push_back({{"stack", s.stack}, {"ns", s.ns}});
  json out{{"available", true},
           {"repetitions", k.repetitions},
           {"threads", k.threads},
           {"window_ns", k.window_ns},
           {"off_cpu_ns", k.off_cpu_ns},
           {"off_cpu_by_cause_ns", std::move(causes)},
           {"at_edges_ns", k.at_edges_ns},
           {"at_edges_by_cause_ns", std::move(at_edges)},
           {"switches", k.switches},
           {"page_faults", k.page_faults},
           {"other_stacks", std::move(stacks)},
           {"incomplete_repetitions", k.incomplete}};
  if (k.io_uring_punts) out["io_uring_punts"] = *k.io_uring_punts;
  if (!k.grace_period.empty()) out["grace_period"] = k.grace_period;
  if (k.steal_ns) out["steal_ns"] = *k.steal_ns;
  out["steal_reported"] = k.steal_reported;
  return out;
}

void read_kernel(const JsonReader& in, const char* name, Result& r) {
  const JsonReader k(in.field(name), in.path(name));
  KernelEvidence& e = r.kernel.emplace();
  e.available = k.flag("available");
  if (!e.available) {
    e.reason = k.text("reason");
    return;
  }
  e.repetitions = k.integer<int>("repetitions");
  e.threads = k.integer<int>("threads");
  e.window_ns = k.integer<std::int64_t>("window_ns");
  e.off_cpu_ns = k.integer<std::int64_t>("off_cpu_ns");
  const JsonReader causes(k.field("off_cpu_by_cause_ns"), k.path("off_cpu_by_cause_ns"));
  for (const OffCpuCause c : kEveryOffCpuCause) {
    e.off_cpu[static_cast<std::size_t>(c)] =
        causes.integer<std::int64_t>(std::string(cause_name(c)).c_str());
  }
  // Schema 8 on: before it, the edges were not told apart (0: all of it counts as in work).
  if (k.has("at_edges_ns")) {
    e.at_edges_ns = k.integer<std::int64_t>("at_edges_ns");
    const JsonReader edges(k.field("at_edges_by_cause_ns"), k.path("at_edges_by_cause_ns"));
    for (const OffCpuCause c : kEveryOffCpuCause) {
      e.at_edges[static_cast<std::size_t>(c)] =
          edges.integer<std::int64_t>(std::string(cause_name(c)).c_str());
    }
  }
  e.switches = k.integer<std::uint64_t>("switches");
  e.page_faults = k.integer<std::uint64_t>("page_faults");
  if (k.has("io_uring_punts")) e.io_uring_punts = k.integer<std::uint64_t>("io_uring_punts");
  e.grace_period = k.text_or("grace_period", "");
  e.incomplete = k.integer<int>("incomplete_repetitions");
  e.steal_ns = k.optional_integer<std::int64_t>("steal_ns");
  e.steal_reported = k.has("steal_reported") && k.flag("steal_reported");
  each_of(k, "other_stacks", [&](const JsonReader& s) {
    e.other_stacks.push_back({s.text("stack"), s.integer<std::int64_t>("ns")});
  });
}

// How precisely the median is known, and with --repeat auto what was asked and why the
// repetitions stopped: {"half_width": 0.012, "target": 0.03, "max_time_s": 3, "met": true,
// "stopped_by": "precision"}. half_width (the larger half of the median's 95% interval, a
// share of the median) is null below the repetitions such an interval needs; a fixed --repeat
// writes it alone. Read back: the goal; half_width and met follow from the times.
Written write_precision(const Result& r) {
  if (!r.ran()) return std::nullopt;
  const auto reached = r.precision();
  json j{{"half_width", reached ? json(*reached) : json(nullptr)}};
  if (const auto& goal = r.auto_repeat) {
    j["target"] = goal->precision;
    j["max_time_s"] = goal->max_time_s;
    j["met"] = reached && *reached <= goal->precision;
    j["stopped_by"] = to_string(goal->stopped);
  }
  return j;
}

// Why the repetitions stopped, and after how many timed ones: {"reason": "decided",
// "repetitions": 8}. Derived from the precision's stopped_by (or a fixed --repeat) and the
// times, so a reader takes it from those.
Written write_stopped(const Result& r) {
  if (!r.ran()) return std::nullopt;
  return json{{"reason", to_string(r.stopped())}, {"repetitions", r.times_ns.size()}};
}

void read_precision(const JsonReader& in, const char* name, Result& r) {
  const JsonReader p(in.field(name), in.path(name));
  if (!p.has("target")) {
    r.auto_repeat.reset();
    return;
  }
  AutoRepeat goal{p.number("target"), p.number("max_time_s")};
  const std::string stopped = p.text("stopped_by");
  if (!parse_repeat_stop(stopped, goal.stopped)) {
    throw Error(fmt::format("{}.stopped_by: unknown value '{}'", in.path(name), stopped));
  }
  r.auto_repeat = goal;
}

// The value --rcu-expedited set for the result. Before results recorded it, a parameter of
// that name said it (and is dropped either way).
void read_rcu_expedited(const JsonReader& in, const char* name, Result& r) {
  r.config.rcu_expedited = in.integer<int>(name);
  r.parameters.erase("rcu_expedited");
}

void rcu_expedited_of_old_result(Result& r) {
  r.config.rcu_expedited.reset();
  const auto old = r.parameters.find("rcu_expedited");
  if (old == r.parameters.end()) return;
  if (old->second == "0" || old->second == "1") r.config.rcu_expedited = old->second == "1" ? 1 : 0;
  r.parameters.erase(old);
}

// ---- The tables -------------------------------------------------------------------------

// Rows in the reader's order: an Error names the first wrong field, and a default may depend
// on the rows above it (a strategy's properties on its name, the workload's on the input).
// The CSV's columns have an order of their own, hence their numbers.
// clang-format off
constexpr ResultField kResultFields[] = {
    required<&Result::workload>("workload").csv(0),
    required_config<&Configuration::strategy>("strategy").csv(1),
    required_config<&Configuration::threads>("threads").csv(2),
    required_config<&Configuration::batch>("batch").csv(3),
    required_config<&Configuration::kind>("kind").csv(4),
    defaulted_config<&Configuration::pregrow>("pregrow").csv(5),
    required<&Result::ops>("ops").csv(6),
    required<&Result::repeat>("repeat").csv(7),
    required<&Result::warmup>("warmup").csv(8),
    custom<Result>("times_ns", &write_member<&Result::times_ns>, FieldRead::required,
                   &read_times).csv(20),
    defaulted<&Result::fdsize_before>("fdsize_before").csv(15),
    defaulted<&Result::fdsize_after>("fdsize_after").csv(16),
    required<&Result::failures>("failures").csv(17),
    when_set<&Result::first_failure>("first_failure"),
    custom<Result>("failures_by_errno", &write_failures_by_errno, FieldRead::optional,
                   &read_failures_by_errno, &reset<&Result::failures_by_errno>),
    when_set<&Result::error>("error").csv(18),
    custom<Result>("warnings", &write_warnings, FieldRead::optional, &read_warnings,
                   &reset<&Result::warnings>),
    custom<Result>("warning_kinds", &write_warning_kinds, FieldRead::optional,
                   &read_warning_kinds, &kinds_of_old_warnings).added_in(2),
    custom<Result>("status", &write_member<&Result::status>, FieldRead::optional, &read_status,
                   &status_of_old_result).added_in(2).csv(21),
    custom<Result>("parameters", &write_parameters, FieldRead::optional,
                   &read_parameters, &reset<&Result::parameters>),
    custom<Result>("input", &write_input, FieldRead::optional, &read_input,
                   &reset<&Result::input>),
    part("setup_ns", &write_setup_ns),
    custom<Result>("latency_ns", &write_latency_ns, FieldRead::optional, &read_latency,
                   &reset<&Result::latency>),
    part("growth_events", &write_growth_events),
    part("growth_summary", &write_growth_summary),
    part("stalls", &write_stalls),
    part("stall_summary", &write_stall_summary),
    part("stall_causes", &write_stall_causes).added_in(9),
    part("stalls_per_repetition", &write_stalls_per_repetition).added_in(9),
    // What the strategy and the workload are: a document from before they were recorded gets
    // what its strategy was then, and the workload's from the input record (only open results
    // had one: they counted files, held them only with keep_open, and opened existing files).
    defaulted<&Result::workers>("workers", [](Result& r) { r.workers = legacy(r).workers; }),
    defaulted<&Result::fd_table>("fd_table", [](Result& r) { r.fd_table = legacy(r).fd_table; }),
    defaulted<&Result::reference>("reference",
                                  [](Result& r) { r.reference = legacy(r).reference; }),
    defaulted<&Result::runnable_threads>("runnable_threads", [](Result& r) {
      r.runnable_threads = r.config.threads + (legacy(r).caller_runs_beside ? 1 : 0);
    }).csv(19),
    defaulted<&Result::holds_descriptors>("holds_descriptors", [](Result& r) {
      r.holds_descriptors = !r.input || r.input->keep_open;
    }),
    defaulted<&Result::unit>("unit", [](Result& r) { r.unit = r.input ? "files" : "fds"; }),
    defaulted<&Result::workload_kind>("workload_kind", [](Result& r) {
      r.workload_kind = r.input ? WorkloadKind::open : WorkloadKind::create;
    }).added_in(2),
    defaulted<&Result::batch_unit>("batch_unit", [](Result& r) {
      r.batch_unit = legacy(r).batch_unit;
    }).added_in(2),
    defaulted<&Result::recommendable>("recommendable", [](Result& r) {
      r.recommendable = legacy(r).recommendable;
    }).added_in(2),
    custom<Result>("rcu_expedited", &write_config_when_set<&Configuration::rcu_expedited>,
                   FieldRead::optional,
                   &read_rcu_expedited, &rcu_expedited_of_old_result).added_in(2),
    custom<Result>("timed_region", &write_timed_region, FieldRead::optional, &read_timed_region,
                   &reset<&Result::timed_region>).added_in(3),
    custom<Result>("precision", &write_precision, FieldRead::optional, &read_precision,
                   &reset<&Result::auto_repeat>).added_in(4),
    custom<Result>("kernel", &write_kernel, FieldRead::optional, &read_kernel,
                   &reset<&Result::kernel>).added_in(5),
    defaulted_config<&Configuration::harness>("harness").added_in(6).csv(31),
    derived("min_ns", [](const Result& r) -> Written { return r.stats.min; }).csv(9),
    derived("median_ns", [](const Result& r) -> Written { return whole_ns(r.stats.median); }).csv(10),
    derived("max_ns", [](const Result& r) -> Written { return r.stats.max; }).csv(11),
    derived("mean_ns", [](const Result& r) -> Written { return whole_ns(r.stats.mean); }).csv(12),
    derived("stddev_ns", [](const Result& r) -> Written { return whole_ns(r.stats.stddev); }).csv(13),
    derived("median_ci_ns", [](const Result& r) -> Written {
      return json::array({r.median_ci.lo, r.median_ci.hi});
    }),
    // Below 0.95: too few repetitions for 95%.
    derived("median_ci_level", [](const Result& r) -> Written { return r.median_ci.level; }),
    derived("outliers", [](const Result& r) -> Written { return r.outliers; }),
    derived("ops_per_sec", [](const Result& r) -> Written { return r.ops_per_sec; }).csv(14),
    custom<Result>("stopped", &write_stopped, FieldRead::derived).added_in(10),
};
// clang-format on

void read_rlimit_nofile(const JsonReader& in, const char* name, Environment& env) {
  const JsonReader limit(in.field(name), in.path(name));
  env.rlimit_nofile.soft = limit.integer<std::uint64_t>("soft");
  env.rlimit_nofile.hard = limit.integer<std::uint64_t>("hard");
}

// Linux's own figures are written on Linux only.
template <auto member>
constexpr EnvironmentField linux_only(const char* name) {
  EnvironmentField f = defaulted<member>(name);
  f.write = [](const Environment& env) -> Written {
    if (env.os != "Linux") return std::nullopt;
    return value_json(env.*member);
  };
  return f;
}

// clang-format off
constexpr EnvironmentField kEnvironmentFields[] = {
    required<&Environment::os>("os"),
    required<&Environment::kernel>("kernel"),
    required<&Environment::cpu_model>("cpu_model"),
    required<&Environment::logical_cpus>("logical_cpus"),
    defaulted<&Environment::fs_type>("fs_type", [](Environment& e) { e.fs_type = "unknown"; }),
    custom<Environment>("rlimit_nofile", [](const Environment& e) -> Written {
      return json{{"soft", e.rlimit_nofile.soft}, {"hard", e.rlimit_nofile.hard}};
    }, FieldRead::required, &read_rlimit_nofile),
    defaulted<&Environment::fdsize_at_start>("fdsize_at_start"),
    linux_only<&Environment::io_uring_disabled>("io_uring_disabled"),
    linux_only<&Environment::rcu_expedited>("rcu_expedited"),
    // Added after schema_version 1 first shipped: older documents lack them.
    defaulted<&Environment::build_type>("build_type",
                                        [](Environment& e) { e.build_type = "unknown"; }),
    defaulted<&Environment::compiler>("compiler", [](Environment& e) { e.compiler = "unknown"; }),
    defaulted<&Environment::liburing_version>("liburing_version"),
    defaulted<&Environment::libuv_version>("libuv_version"),
    defaulted<&Environment::virtualization>("virtualization",
                                            [](Environment& e) { e.virtualization = "unknown"; }),
    defaulted<&Environment::cpu_mitigations>("cpu_mitigations"),
    defaulted<&Environment::syscall_ns>("syscall_ns"),
    defaulted<&Environment::cpus_allowed>("cpus_allowed"),
    defaulted<&Environment::cpu_quota>("cpu_quota"),
    defaulted<&Environment::memory_bytes>("memory_bytes"),
    defaulted<&Environment::fs_mount_options>("fs_mount_options"),
    defaulted<&Environment::kernel_trace>("kernel_trace").added_in(5),
    when_set<&Environment::warnings>("warnings"),
};
// clang-format on

// ---- --latency's percentiles as CSV columns ----------------------------------------------

// One value per operation, in latency_ns's order (the operations' names sorted), so that the
// n-th value of every latency column is the same operation's.
template <class Value>
Written per_operation(const Result& r, Value value) {
  if (!r.latency || r.latency->ns.empty()) return std::nullopt;
  json values = json::array();
  for (const auto& [op, p] : r.latency->ns) values.push_back(value(op, p));
  return values;
}

template <std::int64_t LatencyPercentiles::*percentile>
Written percentile_column(const Result& r) {
  return per_operation(
      r, [](const std::string&, const LatencyPercentiles& p) { return json(p.*percentile); });
}

constexpr CsvPartColumn kCsvPartColumns[] = {
    {"latency_op", 22,
     [](const Result& r) {
       return per_operation(
           r, [](const std::string& op, const LatencyPercentiles&) { return json(op); });
     }},
    {"latency_count", 23,
     [](const Result& r) {
       return per_operation(
           r, [](const std::string&, const LatencyPercentiles& p) { return json(p.count); });
     }},
    {"latency_p50_ns", 24, &percentile_column<&LatencyPercentiles::p50>},
    {"latency_p90_ns", 25, &percentile_column<&LatencyPercentiles::p90>},
    {"latency_p99_ns", 26, &percentile_column<&LatencyPercentiles::p99>},
    {"latency_p999_ns", 27, &percentile_column<&LatencyPercentiles::p999>},
    {"latency_max_ns", 28, &percentile_column<&LatencyPercentiles::max>},
    // The "precision" object's two figures a spreadsheet wants: how precise, and the target.
    {"precision", 29,
     [](const Result& r) -> Written {
       const auto reached = r.precision();
       if (!r.ran() || !reached) return std::nullopt;
       return json(*reached);
     }},
    {"precision_target", 30,
     [](const Result& r) -> Written {
       if (!r.auto_repeat) return std::nullopt;
       return json(r.auto_repeat->precision);
     }},
};

// ---- The run's context ---------------------------------------------------------------

// {"load_average": [1, 5, 15 minutes], "cpu_pressure": {...}}, each part where it is known.
json load_json(const LoadSnapshot& load) {
  json j = json::object();
  if (const auto& a = load.load_average) j["load_average"] = {a->one, a->five, a->fifteen};
  if (const auto& p = load.cpu_pressure) {
    j["cpu_pressure"] = {{"some_avg10", p->some_avg10},
                         {"some_avg60", p->some_avg60},
                         {"some_total_us", p->some_total_us}};
  }
  return j;
}

LoadSnapshot read_load(const JsonReader& in) {
  LoadSnapshot load;
  if (in.has("load_average")) {
    const json& a = in.field("load_average");
    if (!a.is_array() || a.size() != 3 ||
        !std::all_of(a.begin(), a.end(), [](const json& v) { return v.is_number(); })) {
      throw Error(in.path("load_average") + ": expected three numbers");
    }
    load.load_average =
        LoadAverages{a[0].get<double>(), a[1].get<double>(), a[2].get<double>()};
  }
  if (in.has("cpu_pressure")) {
    const JsonReader p(in.field("cpu_pressure"), in.path("cpu_pressure"));
    load.cpu_pressure = CpuPressure{p.number("some_avg10"), p.number("some_avg60"),
                                              p.integer<std::uint64_t>("some_total_us")};
  }
  return load;
}

template <std::optional<LoadSnapshot> RunContext::*member>
Written write_load(const RunContext& c) {
  if (!(c.*member)) return std::nullopt;
  return load_json(*(c.*member));
}

template <std::optional<LoadSnapshot> RunContext::*member>
void read_load_member(const JsonReader& in, const char* name, RunContext& c) {
  c.*member = read_load(JsonReader(in.field(name), in.path(name)));
}

template <std::optional<LoadSnapshot> RunContext::*member>
constexpr ContextField load_field(const char* name) {
  return custom<RunContext>(name, &write_load<member>, FieldRead::optional,
                            &read_load_member<member>, &reset<member>);
}

// The context is new in schema 3 as a whole: a document that has one has these.
// clang-format off
constexpr ContextField kContextFields[] = {
    required<&RunContext::date>("date").added_in(3),
    required<&RunContext::host>("host").added_in(3),
    required<&RunContext::command_line>("command_line").added_in(3),
    required<&RunContext::user>("user").added_in(3),
    load_field<&RunContext::load_before>("load_before").added_in(3),
    load_field<&RunContext::load_after>("load_after").added_in(3),
};
// clang-format on

}  // namespace

std::span<const ResultField> result_fields() {
  return kResultFields;
}

std::span<const EnvironmentField> environment_fields() {
  return kEnvironmentFields;
}

std::span<const ContextField> context_fields() {
  return kContextFields;
}

std::span<const CsvPartColumn> csv_part_columns() {
  return kCsvPartColumns;
}

}  // namespace fdbench
