// json: the output contract (schema_version kSchemaVersion), written once at the end with
// every result finished so far; "complete" says whether the run was cut short.
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "fdbench/version.hpp"
#include "model/json_fields.hpp"
#include "model/results_json.hpp"
#include "output/reporter.hpp"
#include "output/reporters/registry.hpp"

namespace fdbench {

namespace {

// A record as its table's rows write it (a row may leave its field out).
template <class Record>
nlohmann::json record_json(const Record& record, std::span<const JsonField<Record>> fields) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& f : fields) {
    if (auto value = f.write(record)) j[f.name] = std::move(*value);
  }
  return j;
}

// Paths (--dir, --tree, --list) and error texts are bytes, not necessarily UTF-8: replace
// what JSON cannot carry with U+FFFD rather than throw and lose every result.
std::string dump(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A count or whole nanoseconds as a JSON integer, anything else as a number.
nlohmann::json number_json(const FindingNumber& n) {
  if (n.is_integer()) return n.integer();
  return static_cast<double>(n);
}

nlohmann::json subject_json(const FindingSubject& s) {
  const Configuration& c = s.config;
  nlohmann::json j = {{"role", s.role},
                      {"workload", s.workload},
                      {"kind", to_string(c.kind)},
                      {"strategy", c.strategy},
                      {"threads", c.threads},
                      {"batch", c.batch},
                      {"pregrow", c.pregrow.label()}};
  if (c.rcu_expedited) j["rcu_expedited"] = *c.rcu_expedited;
  // schema 6 on, where published; schema 9 on, where absolute
  if (c.harness != Harness::minimal) j["harness"] = to_string(c.harness);
  if (paths_or_relative(c) != PathMode::relative) j["paths"] = to_string(*c.paths);
  return j;
}

nlohmann::json finding_json(const Finding& f) {
  nlohmann::json numbers = nlohmann::json::object();
  for (const auto& [name, value] : f.numbers) numbers[name] = number_json(value);
  nlohmann::json subjects = nlohmann::json::array();
  for (const auto& s : f.subjects) subjects.push_back(subject_json(s));
  return {{"kind", f.kind},
          {"text", f.text},
          {"numbers", std::move(numbers)},
          {"subjects", std::move(subjects)}};
}

nlohmann::json document(const Environment& env, const RunContext* context,
                        std::span<const Result> results, std::span<const Finding> findings,
                        bool complete) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : results) list.push_back(record_json(r, result_fields()));
  nlohmann::json concluded = nlohmann::json::array();
  for (const auto& f : findings) concluded.push_back(finding_json(f));
  nlohmann::json doc = {
      {"schema_version", kSchemaVersion},
      {"tool", {{"name", "fdbench"}, {"version", std::string(version())}}},
  };
  if (context != nullptr) doc["context"] = record_json(*context, context_fields());
  doc["environment"] = record_json(env, environment_fields());
  doc["complete"] = complete;
  doc["results"] = std::move(list);
  doc["findings"] = std::move(concluded);
  return doc;
}

class JsonReporter final : public Reporter {
 public:
  explicit JsonReporter(std::ostream& out) : out_(out) {}
  void begin(const Environment& env) override { env_ = env; }
  void context(const RunContext& context) override { context_ = context; }
  void add(const Result& /*result*/) override {}
  // tune's top-level "recommendation" (left out when there is none).
  void recommendation(const TuneSummary& summary) override {
    if (summary.recommendation) recommendation_ = recommendation_object(*summary.recommendation);
  }
  void end(std::span<const Result> all, std::span<const Finding> findings, bool complete) override {
    auto doc = document(env_, context_ ? &*context_ : nullptr, all, findings, complete);
    if (recommendation_) doc["recommendation"] = *recommendation_;
    out_ << dump(doc) << '\n';
    out_.flush();
  }

 private:
  std::ostream& out_;
  Environment env_;
  std::optional<RunContext> context_;
  std::optional<nlohmann::json> recommendation_;
};

}  // namespace

std::string to_json_document(const Environment& env, std::span<const Result> results,
                             std::span<const Finding> findings, const RunContext* context) {
  return dump(document(env, context, results, findings, true));
}

std::unique_ptr<Reporter> make_json_reporter(std::ostream& out) {
  return std::make_unique<JsonReporter>(out);
}

}  // namespace fdbench
