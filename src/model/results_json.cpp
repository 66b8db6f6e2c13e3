#include "model/results_json.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fdbench/error.hpp"

namespace fdbench {

namespace {

using nlohmann::json;

// Typed field access with a path in every message.
class Reader {
 public:
  Reader(const json& node, std::string path) : node_(node), path_(std::move(path)) {
    if (!node_.is_object()) throw Error(fmt::format("{}: expected an object", path_));
  }

  [[nodiscard]] bool has(const char* key) const {
    return node_.contains(key) && !node_.at(key).is_null();
  }

  [[nodiscard]] const json& field(const char* key) const {
    if (!node_.contains(key)) throw Error(fmt::format("{}.{}: missing", path_, key));
    return node_.at(key);
  }

  [[nodiscard]] std::string text(const char* key) const {
    const json& v = field(key);
    if (!v.is_string()) throw Error(fmt::format("{}.{}: expected a string", path_, key));
    return v.get<std::string>();
  }

  [[nodiscard]] std::string text_or(const char* key, std::string fallback) const {
    return has(key) ? text(key) : std::move(fallback);
  }

  [[nodiscard]] bool flag_or(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    const json& v = field(key);
    if (!v.is_boolean()) throw Error(fmt::format("{}.{}: expected true or false", path_, key));
    return v.get<bool>();
  }

  template <class Enum>
  [[nodiscard]] Enum choice_or(const char* key, Enum fallback,
                               bool (*parse)(std::string_view, Enum&), const char* expected) const {
    if (!has(key)) return fallback;
    Enum value = fallback;
    if (!parse(text(key), value)) {
      throw Error(fmt::format("{}.{}: expected {}", path_, key, expected));
    }
    return value;
  }

  template <class Int>
  [[nodiscard]] Int integer(const char* key) const {
    const json& v = field(key);
    if (!v.is_number_integer()) {
      throw Error(fmt::format("{}.{}: expected an integer", path_, key));
    }
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<Int>::max())) {
        throw Error(fmt::format("{}.{}: out of range", path_, key));
      }
      return static_cast<Int>(u);
    }
    const auto i = v.get<std::int64_t>();
    if (i < static_cast<std::int64_t>(std::numeric_limits<Int>::min()) ||
        (i > 0 && static_cast<std::uint64_t>(i) >
                      static_cast<std::uint64_t>(std::numeric_limits<Int>::max()))) {
      throw Error(fmt::format("{}.{}: out of range", path_, key));
    }
    return static_cast<Int>(i);
  }

  template <class Int>
  [[nodiscard]] std::optional<Int> optional_integer(const char* key) const {
    if (!has(key)) return std::nullopt;
    return integer<Int>(key);
  }

  [[nodiscard]] double number(const char* key) const {
    const json& v = field(key);
    if (!v.is_number()) throw Error(fmt::format("{}.{}: expected a number", path_, key));
    return v.get<double>();
  }

  [[nodiscard]] std::optional<double> optional_number(const char* key) const {
    if (!has(key)) return std::nullopt;
    return number(key);
  }

  [[nodiscard]] std::optional<std::string> optional_text(const char* key) const {
    if (!has(key)) return std::nullopt;
    return text(key);
  }

  [[nodiscard]] std::vector<std::string> texts(const char* key) const {
    std::vector<std::string> out;
    if (!has(key)) return out;
    const json& v = field(key);
    if (!v.is_array()) throw Error(fmt::format("{}.{}: expected an array", path_, key));
    for (const auto& item : v) {
      if (!item.is_string()) throw Error(fmt::format("{}.{}: expected strings", path_, key));
      out.push_back(item.get<std::string>());
    }
    return out;
  }

  [[nodiscard]] std::map<std::string, std::string> text_map(const char* key) const {
    std::map<std::string, std::string> out;
    if (!has(key)) return out;
    const json& v = field(key);
    if (!v.is_object()) throw Error(fmt::format("{}.{}: expected an object", path_, key));
    for (const auto& [name, item] : v.items()) {
      if (!item.is_string()) {
        throw Error(fmt::format("{}.{}.{}: expected a string", path_, key, name));
      }
      out[name] = item.get<std::string>();
    }
    return out;
  }

  [[nodiscard]] std::map<std::string, std::uint64_t> counts(const char* key) const {
    std::map<std::string, std::uint64_t> out;
    if (!has(key)) return out;
    const json& v = field(key);
    if (!v.is_object()) throw Error(fmt::format("{}.{}: expected an object", path_, key));
    for (const auto& [name, n] : v.items()) {
      if (!n.is_number_unsigned()) {
        throw Error(fmt::format("{}.{}.{}: expected a count", path_, key, name));
      }
      out[name] = n.get<std::uint64_t>();
    }
    return out;
  }

  // {"EMFILE": {"count": 3, "message": "Too many open files"}}; a bare count, as fdbench 0.1
  // wrote keyed by message, is read with an empty message.
  [[nodiscard]] std::map<std::string, ErrnoCount> errno_counts(const char* key) const {
    std::map<std::string, ErrnoCount> out;
    if (!has(key)) return out;
    const json& v = field(key);
    if (!v.is_object()) throw Error(fmt::format("{}.{}: expected an object", path_, key));
    for (const auto& [name, entry] : v.items()) {
      if (entry.is_number_unsigned()) {
        out[name].count = entry.get<std::uint64_t>();
        continue;
      }
      if (!entry.is_object()) {
        throw Error(
            fmt::format("{}.{}.{}: expected a count or {{count, message}}", path_, key, name));
      }
      const Reader one(entry, fmt::format("{}.{}.{}", path_, key, name));
      out[name] = {one.integer<std::uint64_t>("count"), one.text_or("message", "")};
    }
    return out;
  }

  [[nodiscard]] std::string path(const char* key) const { return path_ + "." + key; }

 private:
  const json& node_;
  std::string path_;
};

Environment read_environment(const Reader& in) {
  Environment env;
  env.os = in.text("os");
  env.kernel = in.text("kernel");
  env.cpu_model = in.text("cpu_model");
  env.logical_cpus = in.integer<int>("logical_cpus");
  env.fs_type = in.text_or("fs_type", "unknown");
  const Reader limit(in.field("rlimit_nofile"), in.path("rlimit_nofile"));
  env.rlimit_nofile.soft = limit.integer<std::uint64_t>("soft");
  env.rlimit_nofile.hard = limit.integer<std::uint64_t>("hard");
  env.fdsize_at_start = in.optional_integer<int>("fdsize_at_start");
  env.io_uring_disabled = in.optional_integer<int>("io_uring_disabled");
  env.rcu_expedited = in.optional_integer<int>("rcu_expedited");
  // Added after schema_version 1 first shipped: older documents lack them.
  env.build_type = in.text_or("build_type", "unknown");
  env.compiler = in.text_or("compiler", "unknown");
  env.liburing_version = in.optional_text("liburing_version");
  env.libuv_version = in.optional_text("libuv_version");
  env.virtualization = in.text_or("virtualization", "unknown");
  env.cpu_mitigations = in.text_map("cpu_mitigations");
  env.syscall_ns = in.optional_number("syscall_ns");
  env.cpus_allowed = in.optional_integer<int>("cpus_allowed");
  env.cpu_quota = in.optional_number("cpu_quota");
  env.memory_bytes = in.optional_integer<std::uint64_t>("memory_bytes");
  env.fs_mount_options = in.optional_text("fs_mount_options");
  env.warnings = in.texts("warnings");
  return env;
}

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

const LegacyStrategy* legacy_strategy(std::string_view name) {
  for (const auto& s : kLegacyStrategies) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

// What the strategy and the workload are. A document written before fdbench recorded them
// gets the properties the strategy had then, and the workload's from the input record (only
// open results had one: they counted files, held them only with keep_open, and opened
// existing files where every other workload created descriptors).
void read_properties(const Reader& in, Result& r) {
  const LegacyStrategy* known = legacy_strategy(r.strategy);
  r.workers = in.choice_or("workers", known ? known->workers : r.workers, parse_worker_kind,
                           "\"threads\" or \"processes\"");
  r.fd_table = in.choice_or("fd_table", known ? known->fd_table : r.fd_table, parse_fd_table,
                            "\"shared\", \"per-worker\" or \"none\"");
  r.reference = in.flag_or("reference", known != nullptr && known->reference);
  r.runnable_threads =
      in.optional_integer<int>("runnable_threads")
          .value_or(known != nullptr && known->caller_runs_beside ? r.threads + 1 : r.threads);
  r.holds_descriptors = in.flag_or("holds_descriptors", !r.input || r.input->keep_open);
  r.unit = in.text_or("unit", r.input ? "files" : "fds");
  r.workload_kind =
      in.choice_or("workload_kind", r.input ? WorkloadKind::open : WorkloadKind::create,
                   parse_workload_kind, "\"open\" or \"create\"");
  r.batch_unit =
      in.choice_or("batch_unit", known ? known->batch_unit : BatchUnit::none, parse_batch_unit,
                   "\"none\", \"task\", \"submission\" or \"in-flight\"");
  r.recommendable = in.flag_or("recommendable", known == nullptr || known->recommendable);
}

// The value --rcu-expedited set for the result. Before results recorded it, a parameter of
// that name said it.
void read_rcu_expedited(const Reader& in, Result& r) {
  r.rcu_expedited = in.optional_integer<int>("rcu_expedited");
  const auto old = r.parameters.find("rcu_expedited");
  if (old == r.parameters.end()) return;
  if (!r.rcu_expedited && (old->second == "0" || old->second == "1")) {
    r.rcu_expedited = old->second == "1" ? 1 : 0;
  }
  r.parameters.erase(old);
}

EventTotals read_totals(const Reader& in) {
  EventTotals t;
  t.count = in.integer<std::uint64_t>("count");
  t.total_ns = in.integer<std::int64_t>("total_ns");
  t.share_of_repetition = in.number("share_of_repetition");
  return t;
}

// Elements of the array `key` of `in`, each read by `read` with its own path.
template <class Read>
void each_of(const Reader& in, const char* key, Read read) {
  const json& list = in.field(key);
  if (!list.is_array()) throw Error(in.path(key) + ": expected an array");
  for (std::size_t i = 0; i < list.size(); ++i) {
    read(Reader(list[i], fmt::format("{}[{}]", in.path(key), i)));
  }
}

// --latency's fields, present together or not at all.
std::optional<Latency> read_latency(const Reader& in) {
  if (!in.has("latency_ns")) return std::nullopt;
  Latency latency;
  const json& ns = in.field("latency_ns");
  if (!ns.is_object()) throw Error(in.path("latency_ns") + ": expected an object");
  for (const auto& [op, value] : ns.items()) {
    const Reader p(value, in.path("latency_ns") + "." + op);
    latency.ns[op] = {p.integer<std::uint64_t>("count"), p.integer<std::int64_t>("p50"),
                      p.integer<std::int64_t>("p90"),    p.integer<std::int64_t>("p99"),
                      p.integer<std::int64_t>("p999"),   p.integer<std::int64_t>("max")};
  }
  latency.growth_known = in.has("growth_summary");
  if (latency.growth_known) {
    each_of(in, "growth_events", [&](const Reader& g) {
      latency.growth_events.push_back({g.integer<int>("repetition"), g.integer<int>("worker"),
                                       g.integer<std::uint64_t>("index"), g.integer<int>("fd"),
                                       g.integer<std::int64_t>("ns"),
                                       g.integer<int>("fdsize_before"),
                                       g.integer<int>("fdsize_after"), g.flag_or("shared", false)});
    });
    latency.growth_totals =
        read_totals(Reader(in.field("growth_summary"), in.path("growth_summary")));
  }
  each_of(in, "stalls", [&](const Reader& s) {
    latency.stalls.push_back({s.integer<int>("repetition"), s.integer<int>("worker"),
                              s.integer<std::uint64_t>("index"), s.text("op"), s.integer<int>("fd"),
                              s.integer<std::int64_t>("ns"), s.text("cause")});
  });
  latency.stall_totals = read_totals(Reader(in.field("stall_summary"), in.path("stall_summary")));
  return latency;
}

// Schema 1 had no kinds: they are recognised from the texts it wrote, here and nowhere else.
WarningKind kind_of_old_warning(std::string_view text) {
  if (text.starts_with("noisy: ")) return WarningKind::noisy;
  if (text.starts_with("interrupted: ")) return WarningKind::cut_short;
  if (text.starts_with("descriptor leak: ")) return WarningKind::leak;
  return WarningKind::other;
}

void read_warnings(const Reader& in, Result& r) {
  const std::vector<std::string> texts = in.texts("warnings");
  const std::vector<std::string> kinds = in.texts("warning_kinds");
  if (in.has("warning_kinds") && kinds.size() != texts.size()) {
    throw Error(in.path("warning_kinds") + ": expected one kind for each warning");
  }
  for (std::size_t i = 0; i < texts.size(); ++i) {
    Warning w{WarningKind::other, texts[i]};
    if (kinds.empty()) {
      w.kind = kind_of_old_warning(w.text);
    } else if (!parse_warning_kind(kinds[i], w.kind)) {
      w.kind = WarningKind::other;  // a kind added after this version: still a warning
    }
    r.warnings.push_back(std::move(w));
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

void read_status(const Reader& in, Result& r) {
  if (!in.has("status")) return status_of_old_result(r);
  if (!parse_status(in.text("status"), r.status)) {
    throw Error(in.path("status") + ": '" + in.text("status") +
                "' is not a status (measured, unavailable, failed, cut-short, timed-out, hung)");
  }
  if (!r.ran() && !r.times_ns.empty()) {
    throw Error(in.path("status") + ": a " + in.text("status") + " result has no times");
  }
}

Result read_result(const Reader& in) {
  Result r;
  r.workload = in.text("workload");
  r.strategy = in.text("strategy");
  r.threads = in.integer<int>("threads");
  r.batch = in.integer<int>("batch");
  r.kind = in.text("kind");
  if (in.has("pregrow") && !parse_pregrow(in.text("pregrow"), r.pregrow)) {
    throw Error(in.path("pregrow") + ": expected \"off\", \"auto\" or a descriptor number");
  }
  r.ops = in.integer<std::uint64_t>("ops");
  r.repeat = in.integer<int>("repeat");
  r.warmup = in.integer<int>("warmup");
  const json& times = in.field("times_ns");
  if (!times.is_array()) throw Error(in.path("times_ns") + ": expected an array of integers");
  for (const auto& t : times) {
    if (!t.is_number_integer()) {
      throw Error(in.path("times_ns") + ": expected an array of integers");
    }
    r.times_ns.push_back(t.get<std::int64_t>());
  }
  r.fdsize_before = in.optional_integer<int>("fdsize_before");
  r.fdsize_after = in.optional_integer<int>("fdsize_after");
  r.failures = in.integer<std::uint64_t>("failures");
  r.first_failure = in.text_or("first_failure", "");
  r.failures_by_errno = in.errno_counts("failures_by_errno");
  r.error = in.text_or("error", "");
  read_warnings(in, r);
  read_status(in, r);
  if (in.has("parameters")) {
    const json& p = in.field("parameters");
    if (!p.is_object()) throw Error(in.path("parameters") + ": expected an object");
    for (const auto& [key, value] : p.items()) {
      r.parameters[key] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  }
  if (in.has("input")) {
    const Reader input(in.field("input"), in.path("input"));
    InputSummary s;
    s.source = input.text("source");
    s.origin = input.text_or("origin", "");
    s.layout = input.text_or("layout", "");
    s.flags = input.text_or("flags", "rdonly");
    s.keep_open = input.has("keep_open") && input.field("keep_open").is_boolean() &&
                  input.field("keep_open").get<bool>();
    s.files = input.integer<std::uint64_t>("files");
    s.skipped = input.counts("skipped");
    s.missing = input.counts("missing");
    s.file_set = input.text_or("file_set", "");
    s.setup_ns = in.optional_integer<std::int64_t>("setup_ns");  // the result's, not the input's
    r.input = std::move(s);
  }
  r.latency = read_latency(in);
  read_properties(in, r);
  read_rcu_expedited(in, r);
  // Statistics are derived from the raw samples, so a reader never trusts stale copies.
  finalize(r);
  return r;
}

// Nested objects become "parent.child" names, to a small depth (a fuzzed document may nest
// deeper than the stack allows); what lies deeper is kept as JSON text.
void flatten(const json& node, const std::string& prefix, int depth,
             std::map<std::string, std::string>& out) {
  for (const auto& [key, value] : node.items()) {
    const std::string name = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object() && depth < 3) {
      flatten(value, name, depth + 1, out);
    } else if (value.is_string()) {
      out[name] = value.get<std::string>();
    } else if (!value.is_null()) {
      out[name] = value.dump(-1, ' ', false, json::error_handler_t::replace);
    }
  }
}

ResultsDocument read_document(const json& root);

}  // namespace

ResultsDocument parse_results_json(std::string_view text) {
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {  // parse_error, and out_of_range for huge numbers
    throw Error(fmt::format("not valid JSON: {}", e.what()));
  }
  try {
    return read_document(root);
  } catch (const json::exception& e) {  // a conversion the Reader did not foresee
    throw Error(fmt::format("malformed document: {}", e.what()));
  }
}

namespace {

Finding read_finding(const json& node, const std::string& path) {
  const Reader in(node, path);
  Finding f;
  f.kind = in.text("kind");
  f.text = in.text("text");
  if (!in.has("numbers")) return f;
  const json& numbers = in.field("numbers");
  if (!numbers.is_object()) throw Error(fmt::format("{}.numbers: expected an object", path));
  for (const auto& [name, value] : numbers.items()) {
    if (!value.is_number()) {
      throw Error(fmt::format("{}.numbers.{}: expected a number", path, name));
    }
    f.numbers[name] = value.get<double>();
  }
  return f;
}

ResultsDocument read_document(const json& root) {
  const Reader doc(root, "document");
  ResultsDocument out;
  out.schema_version = doc.integer<int>("schema_version");
  if (out.schema_version < 1 || out.schema_version > kSchemaVersion) {
    throw Error(fmt::format(
        "schema_version {} is not supported (this fdbench reads 1 to {}{})", out.schema_version,
        kSchemaVersion, out.schema_version > kSchemaVersion ? "; a newer fdbench wrote it" : ""));
  }
  const Reader tool(doc.field("tool"), "tool");
  if (tool.text("name") != "fdbench") throw Error("tool.name: not an fdbench document");
  out.tool_version = tool.text("version");
  out.complete = !doc.has("complete") || !doc.field("complete").is_boolean() ||
                 doc.field("complete").get<bool>();
  out.environment = read_environment(Reader(doc.field("environment"), "environment"));
  flatten(doc.field("environment"), "", 0, out.environment_fields);
  const json& results = doc.field("results");
  if (!results.is_array()) throw Error("results: expected an array");
  for (std::size_t i = 0; i < results.size(); ++i) {
    out.results.push_back(read_result(Reader(results[i], fmt::format("results[{}]", i))));
  }
  if (doc.has("findings")) {
    const json& list = doc.field("findings");
    if (!list.is_array()) throw Error("findings: expected an array");
    out.findings_recorded = true;
    for (std::size_t i = 0; i < list.size(); ++i) {
      out.findings.push_back(read_finding(list[i], fmt::format("findings[{}]", i)));
    }
  }
  return out;
}

}  // namespace

ResultsDocument read_results_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: {}", path, errno_text(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return parse_results_json(text.str());
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace fdbench
