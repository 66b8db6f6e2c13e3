// csv: one header row, then one row per result as it finishes (RFC 4180 quoting).
#include <fmt/format.h>

#include <ostream>

#include "output/reporter.hpp"
#include "output/reporters/registry.hpp"

namespace fdbench {

namespace {

std::string quoted(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string out = "\"";
  for (const char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

template <class T>
std::string optional_text(const std::optional<T>& value) {
  return value ? std::to_string(*value) : "";
}

class CsvReporter final : public Reporter {
 public:
  explicit CsvReporter(std::ostream& out) : out_(out) {}
  void begin(const Environment& /*env*/) override { out_ << csv_header() << '\n'; }
  void add(const Result& result) override { out_ << csv_row(result) << '\n' << std::flush; }
  void end(std::span<const Result> /*all*/, std::span<const Finding> /*findings*/,
           bool /*complete*/) override {
    out_.flush();
  }

 private:
  std::ostream& out_;
};

}  // namespace

std::string csv_header() {
  return "workload,strategy,threads,batch,kind,pregrow,ops,repeat,warmup,min_ns,median_ns,"
         "max_ns,mean_ns,stddev_ns,ops_per_sec,fdsize_before,fdsize_after,failures,error,"
         "runnable_threads,times_ns,status";
}

std::string csv_row(const Result& r) {
  std::string times;
  for (const auto t : r.times_ns) times += (times.empty() ? "" : ";") + std::to_string(t);
  return fmt::format(
      "{},{},{},{},{},{},{},{},{},{},{:.1f},{},{:.1f},{:.1f},{:.1f},{},{},{},{},{},{},{}",
      quoted(r.workload), quoted(r.strategy), r.threads, r.batch, quoted(r.kind), quoted(r.pregrow.label()),
      r.ops, r.repeat, r.warmup, r.stats.min, r.stats.median, r.stats.max, r.stats.mean,
      r.stats.stddev, r.ops_per_sec, optional_text(r.fdsize_before), optional_text(r.fdsize_after),
      r.failures, quoted(r.error), r.runnable_threads, times, to_string(r.status));
}

std::unique_ptr<Reporter> make_csv_reporter(std::ostream& out) {
  return std::make_unique<CsvReporter>(out);
}

}  // namespace fdbench
