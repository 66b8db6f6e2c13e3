// json: the output contract (schema_version kSchemaVersion), written once at the end with
// every result finished so far; "complete" says whether the run was cut short.
#include <nlohmann/json.hpp>
#include <ostream>

#include "fdbench/version.hpp"
#include "model/results_json.hpp"
#include "output/reporter.hpp"
#include "output/reporters/registry.hpp"

namespace fdbench {

namespace {

template <class T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json environment_json(const Environment& env) {
  nlohmann::json j = {
      {"os", env.os},
      {"kernel", env.kernel},
      {"cpu_model", env.cpu_model},
      {"logical_cpus", env.logical_cpus},
      {"fs_type", env.fs_type},
      {"rlimit_nofile", {{"soft", env.rlimit_nofile.soft}, {"hard", env.rlimit_nofile.hard}}},
      {"fdsize_at_start", optional_json(env.fdsize_at_start)},
      {"build_type", env.build_type},
      {"compiler", env.compiler},
      {"liburing_version", optional_json(env.liburing_version)},
      {"libuv_version", optional_json(env.libuv_version)},
      {"virtualization", env.virtualization},
      {"cpu_mitigations", env.cpu_mitigations},
      {"syscall_ns", optional_json(env.syscall_ns)},
      {"cpus_allowed", optional_json(env.cpus_allowed)},
      {"cpu_quota", optional_json(env.cpu_quota)},
      {"memory_bytes", optional_json(env.memory_bytes)},
      {"fs_mount_options", optional_json(env.fs_mount_options)},
  };
  if (env.os == "Linux") {
    j["io_uring_disabled"] = optional_json(env.io_uring_disabled);
    j["rcu_expedited"] = optional_json(env.rcu_expedited);
  }
  if (!env.warnings.empty()) j["warnings"] = env.warnings;
  return j;
}

nlohmann::json totals_json(const EventTotals& t) {
  return {
      {"count", t.count}, {"total_ns", t.total_ns}, {"share_of_repetition", t.share_of_repetition}};
}

// --latency: the percentiles per operation, every growth event and the stalls.
void add_latency(const Latency& latency, nlohmann::json& j) {
  nlohmann::json ns = nlohmann::json::object();
  for (const auto& [op, p] : latency.ns) {
    ns[op] = {{"count", p.count}, {"p50", p.p50},   {"p90", p.p90},
              {"p99", p.p99},     {"p999", p.p999}, {"max", p.max}};
  }
  j["latency_ns"] = std::move(ns);
  nlohmann::json growth = nlohmann::json::array();
  for (const auto& g : latency.growth_events) {
    growth.push_back({{"repetition", g.repetition},
                      {"worker", g.worker},
                      {"index", g.index},
                      {"fd", g.fd},
                      {"ns", g.ns},
                      {"fdsize_before", g.fdsize_before},
                      {"fdsize_after", g.fdsize_after},
                      {"shared", g.shared}});
  }
  if (latency.growth_known) {  // where the table's size is not shown, there are none to tell
    j["growth_events"] = std::move(growth);
    j["growth_summary"] = totals_json(latency.growth_totals);
  }
  nlohmann::json stalls = nlohmann::json::array();
  for (const auto& s : latency.stalls) {
    stalls.push_back({{"repetition", s.repetition},
                      {"worker", s.worker},
                      {"index", s.index},
                      {"op", s.op},
                      {"fd", s.fd},
                      {"ns", s.ns},
                      {"cause", s.cause}});
  }
  j["stalls"] = std::move(stalls);
  j["stall_summary"] = totals_json(latency.stall_totals);
}

nlohmann::json result_json(const Result& r) {
  nlohmann::json j = {
      {"workload", r.workload},
      {"strategy", r.strategy},
      {"threads", r.threads},
      {"runnable_threads", r.runnable_threads},
      {"batch", r.batch},
      {"batch_unit", std::string(to_string(r.batch_unit))},
      {"kind", r.kind},
      {"pregrow", r.pregrow.label()},
      {"ops", r.ops},
      {"repeat", r.repeat},
      {"warmup", r.warmup},
      {"times_ns", r.times_ns},
      {"min_ns", r.stats.min},
      {"median_ns", r.stats.median},
      {"max_ns", r.stats.max},
      {"mean_ns", r.stats.mean},
      {"stddev_ns", r.stats.stddev},
      {"median_ci_ns", {r.median_ci.lo, r.median_ci.hi}},
      {"median_ci_level", r.median_ci.level},  // below 0.95: too few repetitions for 95%
      {"outliers", r.outliers},
      {"ops_per_sec", r.ops_per_sec},
      {"fdsize_before", optional_json(r.fdsize_before)},
      {"fdsize_after", optional_json(r.fdsize_after)},
      {"failures", r.failures},
      {"workers", std::string(to_string(r.workers))},
      {"fd_table", std::string(to_string(r.fd_table))},
      {"reference", r.reference},
      {"holds_descriptors", r.holds_descriptors},
      {"unit", r.unit},
      {"workload_kind", std::string(to_string(r.workload_kind))},
      {"recommendable", r.recommendable},
  };
  if (r.rcu_expedited) j["rcu_expedited"] = *r.rcu_expedited;
  if (!r.first_failure.empty()) j["first_failure"] = r.first_failure;
  if (!r.failures_by_errno.empty()) {
    nlohmann::json by_errno = nlohmann::json::object();
    for (const auto& [name, n] : r.failures_by_errno) {
      by_errno[name] = {{"count", n.count}, {"message", n.message}};
    }
    j["failures_by_errno"] = std::move(by_errno);
  }
  if (!r.parameters.empty()) j["parameters"] = r.parameters;
  if (r.input) {
    j["input"] = {
        {"source", r.input->source},       {"origin", r.input->origin},
        {"layout", r.input->layout},       {"flags", r.input->flags},
        {"keep_open", r.input->keep_open}, {"files", r.input->files},
        {"skipped", r.input->skipped},     {"missing", r.input->missing},
    };
    if (!r.input->file_set.empty()) j["input"]["file_set"] = r.input->file_set;
    // The schema's place for it is the result: the set-up of whatever the result measured.
    if (r.input->setup_ns) j["setup_ns"] = *r.input->setup_ns;
  }
  if (r.latency) add_latency(*r.latency, j);
  j["status"] = std::string(to_string(r.status));
  if (!r.error.empty()) j["error"] = r.error;
  if (!r.warnings.empty()) {
    // Two arrays of one length: the texts as they always were, and what each is about.
    nlohmann::json texts = nlohmann::json::array();
    nlohmann::json kinds = nlohmann::json::array();
    for (const auto& w : r.warnings) {
      texts.push_back(w.text);
      kinds.push_back(std::string(to_string(w.kind)));
    }
    j["warnings"] = std::move(texts);
    j["warning_kinds"] = std::move(kinds);
  }
  return j;
}

// Paths (--dir, --tree, --list) and error texts are bytes, not necessarily UTF-8: replace
// what JSON cannot carry with U+FFFD rather than throw and lose every result.
std::string dump(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json finding_json(const Finding& f) {
  nlohmann::json numbers = nlohmann::json::object();
  for (const auto& [name, value] : f.numbers) numbers[name] = value;
  return {{"kind", f.kind}, {"text", f.text}, {"numbers", std::move(numbers)}};
}

nlohmann::json document(const Environment& env, std::span<const Result> results,
                        std::span<const Finding> findings, bool complete) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : results) list.push_back(result_json(r));
  nlohmann::json concluded = nlohmann::json::array();
  for (const auto& f : findings) concluded.push_back(finding_json(f));
  return {
      {"schema_version", kSchemaVersion},
      {"tool", {{"name", "fdbench"}, {"version", std::string(version())}}},
      {"environment", environment_json(env)},
      {"complete", complete},
      {"results", std::move(list)},
      {"findings", std::move(concluded)},
  };
}

class JsonReporter final : public Reporter {
 public:
  explicit JsonReporter(std::ostream& out) : out_(out) {}
  void begin(const Environment& env) override { env_ = env; }
  void add(const Result& /*result*/) override {}
  void end(std::span<const Result> all, std::span<const Finding> findings, bool complete) override {
    out_ << dump(document(env_, all, findings, complete)) << '\n';
    out_.flush();
  }

 private:
  std::ostream& out_;
  Environment env_;
};

}  // namespace

std::string to_json_document(const Environment& env, std::span<const Result> results,
                             std::span<const Finding> findings) {
  return dump(document(env, results, findings, true));
}

std::unique_ptr<Reporter> make_json_reporter(std::ostream& out) {
  return std::make_unique<JsonReporter>(out);
}

}  // namespace fdbench
