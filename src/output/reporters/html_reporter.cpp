// html: the report page for this run (see fdbench/html_report.hpp), written once at the end,
// or after every result by --export-html. The run goes through the JSON contract first, so
// the page shows exactly what a saved results file would, and `fdbench report` of that file
// makes the same page.
#include <optional>
#include <ostream>

#include "model/results_json.hpp"
#include "output/html_report.hpp"
#include "output/reporter.hpp"
#include "output/reporters/registry.hpp"
#include "output/tune_text.hpp"

namespace fdbench {

namespace {

class HtmlReporter final : public Reporter {
 public:
  explicit HtmlReporter(std::ostream& out) : out_(out) {}

  void begin(const Environment& env) override { env_ = env; }
  void context(const RunContext& context) override { context_ = context; }
  void add(const Result& /*result*/) override {}

  void end(std::span<const Result> all, std::span<const Finding> findings, bool complete) override {
    ReportInput run{
        "this run",
        parse_results_json(to_json_document(env_, all, findings, context_ ? &*context_ : nullptr)),
        tune_ ? recommendation_block(*tune_) : ""};
    run.document.complete = complete;
    out_ << html_report({&run, 1}) << std::flush;
  }
  void recommendation(const TuneSummary& summary) override { tune_ = summary; }

 private:
  std::ostream& out_;
  Environment env_;
  std::optional<RunContext> context_;
  std::optional<TuneSummary> tune_;  // tune's: its Recommendation is a section of the page
};

}  // namespace

std::unique_ptr<Reporter> make_html_reporter(std::ostream& out) {
  return std::make_unique<HtmlReporter>(out);
}

}  // namespace fdbench
