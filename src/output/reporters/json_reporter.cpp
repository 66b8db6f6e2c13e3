// json: the output contract (schema_version kSchemaVersion), written once at the end with
// every result finished so far; "complete" says whether the run was cut short.
#include <nlohmann/json.hpp>
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

nlohmann::json finding_json(const Finding& f) {
  nlohmann::json numbers = nlohmann::json::object();
  for (const auto& [name, value] : f.numbers) numbers[name] = value;
  return {{"kind", f.kind}, {"text", f.text}, {"numbers", std::move(numbers)}};
}

nlohmann::json document(const Environment& env, std::span<const Result> results,
                        std::span<const Finding> findings, bool complete) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : results) list.push_back(record_json(r, result_fields()));
  nlohmann::json concluded = nlohmann::json::array();
  for (const auto& f : findings) concluded.push_back(finding_json(f));
  return {
      {"schema_version", kSchemaVersion},
      {"tool", {{"name", "fdbench"}, {"version", std::string(version())}}},
      {"environment", record_json(env, environment_fields())},
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
