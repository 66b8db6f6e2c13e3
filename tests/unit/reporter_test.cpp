// Reporters on hand-built results: the JSON contract, CSV shape and quoting, and every
// registered format driven through the Reporter interface the way a Session drives it.
#include "fdbench/reporter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "fdbench/version.hpp"
#include "support/contract.hpp"

namespace fdbench {
namespace {

Environment linux_environment() {
  Environment env;
  env.os = "Linux";
  env.kernel = "6.1.0-test";
  env.cpu_model = "Test CPU @ 1.00GHz";
  env.logical_cpus = 8;
  env.fs_type = "tmpfs";
  env.rlimit_nofile = {1024, 524288};
  env.fdsize_at_start = 64;
  env.io_uring_disabled = 0;
  env.rcu_expedited = 1;
  return env;
}

Result open_result(const std::string& strategy, int threads) {
  Result r;
  r.workload = "open";
  r.strategy = strategy;
  r.threads = threads;
  r.batch = strategy == "pool-batch" ? 64 : 1;
  r.kind = "file";
  r.ops = 1000;
  r.repeat = 3;
  r.warmup = 1;
  r.times_ns = {3'000'000, 1'000'000, 2'000'000};
  r.fdsize_before = 64;
  r.fdsize_after = 64;
  finalize(r);
  return r;
}

Result socket_result(const std::string& pregrow, std::int64_t ns, int before, int after) {
  Result r;
  r.workload = "socket";
  r.strategy = "threads";
  r.threads = 2;
  r.kind = "tcp";
  r.pregrow = pregrow;
  r.ops = 512;
  r.repeat = 2;
  r.warmup = 0;
  r.times_ns = {ns, ns};
  r.fdsize_before = before;
  r.fdsize_after = after;
  finalize(r);
  return r;
}

Result unavailable_result() {
  Result r;
  r.workload = "open";
  r.strategy = "pool";
  r.threads = 4;
  r.kind = "file";
  r.ops = 1000;
  r.repeat = 3;
  r.error = R"(cannot run "pool", here: no threads)";  // a comma and quotes, for CSV
  finalize(r);
  return r;
}

// Minimal RFC 4180 split of one line (no embedded newlines in our fields).
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(JsonDocument, CarriesTheWholeContract) {
  const std::vector<Result> results{open_result("threads", 2), socket_result("off", 20, 64, 512),
                                    unavailable_result()};
  const auto doc = nlohmann::json::parse(to_json_document(linux_environment(), results));
  testing::expect_document_contract(doc);

  EXPECT_EQ(doc["tool"]["version"], std::string(version()));
  const auto& env = doc["environment"];
  EXPECT_EQ(env["os"], "Linux");
  EXPECT_EQ(env["kernel"], "6.1.0-test");
  EXPECT_EQ(env["cpu_model"], "Test CPU @ 1.00GHz");
  EXPECT_EQ(env["logical_cpus"], 8);
  EXPECT_EQ(env["fs_type"], "tmpfs");
  EXPECT_EQ(env["rlimit_nofile"]["soft"], 1024);
  EXPECT_EQ(env["rlimit_nofile"]["hard"], 524288);
  EXPECT_EQ(env["fdsize_at_start"], 64);
  EXPECT_EQ(env["io_uring_disabled"], 0);
  EXPECT_EQ(env["rcu_expedited"], 1);
  ASSERT_EQ(doc["results"].size(), 3U);
}

TEST(JsonDocument, ResultValuesRoundTrip) {
  const std::vector<Result> results{open_result("pool-batch", 4)};
  const auto doc = nlohmann::json::parse(to_json_document(linux_environment(), results));
  const auto& r = doc["results"][0];
  EXPECT_EQ(r["workload"], "open");
  EXPECT_EQ(r["strategy"], "pool-batch");
  EXPECT_EQ(r["threads"], 4);
  EXPECT_EQ(r["batch"], 64);
  EXPECT_EQ(r["kind"], "file");
  EXPECT_EQ(r["pregrow"], "off");
  EXPECT_EQ(r["ops"], 1000);
  EXPECT_EQ(r["repeat"], 3);
  EXPECT_EQ(r["warmup"], 1);
  EXPECT_EQ(r["times_ns"], (std::vector<std::int64_t>{3'000'000, 1'000'000, 2'000'000}));
  EXPECT_EQ(r["min_ns"], 1'000'000);
  EXPECT_DOUBLE_EQ(r["median_ns"].get<double>(), 2'000'000);
  EXPECT_EQ(r["max_ns"], 3'000'000);
  EXPECT_DOUBLE_EQ(r["mean_ns"].get<double>(), 2'000'000);
  EXPECT_DOUBLE_EQ(r["stddev_ns"].get<double>(), 1'000'000);
  EXPECT_DOUBLE_EQ(r["ops_per_sec"].get<double>(), 500'000);  // 1000 ops / 2 ms
  EXPECT_EQ(r["fdsize_before"], 64);
  EXPECT_EQ(r["fdsize_after"], 64);
  EXPECT_EQ(r["failures"], 0);
  EXPECT_FALSE(r.contains("error"));
}

TEST(JsonDocument, ErrorOnlyWhenSet) {
  const std::vector<Result> results{open_result("threads", 1), unavailable_result()};
  const auto doc = nlohmann::json::parse(to_json_document(linux_environment(), results));
  EXPECT_FALSE(doc["results"][0].contains("error"));
  ASSERT_TRUE(doc["results"][1].contains("error"));
  EXPECT_EQ(doc["results"][1]["error"], unavailable_result().error);
  EXPECT_TRUE(doc["results"][1]["times_ns"].empty());
}

TEST(JsonDocument, MissingFdSizeIsNull) {
  Result r = open_result("threads", 1);
  r.fdsize_before.reset();
  r.fdsize_after.reset();
  Environment env = linux_environment();
  env.fdsize_at_start.reset();
  const auto doc = nlohmann::json::parse(to_json_document(env, std::vector<Result>{r}));
  EXPECT_TRUE(doc["environment"]["fdsize_at_start"].is_null());
  EXPECT_TRUE(doc["results"][0]["fdsize_before"].is_null());
  EXPECT_TRUE(doc["results"][0]["fdsize_after"].is_null());
}

TEST(JsonDocument, LinuxOnlyFieldsOnlyOnLinux) {
  Environment env = linux_environment();
  env.os = "Darwin";
  env.io_uring_disabled.reset();
  env.rcu_expedited.reset();
  const auto doc = nlohmann::json::parse(to_json_document(env, {}));
  testing::expect_document_contract(doc);
  EXPECT_FALSE(doc["environment"].contains("io_uring_disabled"));
  EXPECT_FALSE(doc["environment"].contains("rcu_expedited"));
  EXPECT_TRUE(doc["results"].is_array());
  EXPECT_TRUE(doc["results"].empty());
}

TEST(JsonDocument, BytesThatAreNotUtf8DoNotLoseTheDocument) {
  // Paths and error texts are bytes: a directory named with Latin-1 must not abort the run.
  Environment env = linux_environment();
  env.cpu_model = "caf\xe9";
  Result r = unavailable_result();
  r.error = "cannot open /tmp/\xff\xfe: Permission denied";
  std::string text;
  ASSERT_NO_THROW(text = to_json_document(env, std::vector<Result>{r}));
  const auto doc = nlohmann::json::parse(text);
  testing::expect_document_contract(doc);
  EXPECT_EQ(doc["environment"]["cpu_model"].get<std::string>().rfind("caf", 0), 0U);
  EXPECT_NE(doc["results"][0]["error"].get<std::string>().find("Permission denied"),
            std::string::npos);
}

TEST(Csv, HeaderNamesTheContractColumns) {
  const auto header = split_csv(csv_header());
  for (const char* column :
       {"workload", "strategy", "threads", "batch", "kind", "pregrow", "ops", "repeat", "warmup",
        "min_ns", "median_ns", "max_ns", "mean_ns", "stddev_ns", "ops_per_sec", "fdsize_before",
        "fdsize_after", "failures", "error"}) {
    EXPECT_NE(std::find(header.begin(), header.end(), column), header.end()) << column;
  }
  EXPECT_EQ(csv_header().find('\n'), std::string::npos);
}

TEST(Csv, RowFieldCountMatchesTheHeader) {
  const auto header = split_csv(csv_header());
  for (const Result& r :
       {open_result("threads", 1), socket_result("auto", 5, 512, 512), unavailable_result()}) {
    const std::string row = csv_row(r);
    EXPECT_EQ(row.find('\n'), std::string::npos);
    EXPECT_EQ(split_csv(row).size(), header.size()) << row;
  }
}

TEST(Csv, RowValuesLineUpWithTheHeader) {
  const auto header = split_csv(csv_header());
  const auto row = split_csv(csv_row(socket_result("auto", 5, 512, 1024)));
  ASSERT_EQ(row.size(), header.size());
  auto column = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? std::string("<no column>") : row[it - header.begin()];
  };
  EXPECT_EQ(column("workload"), "socket");
  EXPECT_EQ(column("strategy"), "threads");
  EXPECT_EQ(column("threads"), "2");
  EXPECT_EQ(column("kind"), "tcp");
  EXPECT_EQ(column("pregrow"), "auto");
  EXPECT_EQ(column("ops"), "512");
  EXPECT_EQ(column("fdsize_before"), "512");
  EXPECT_EQ(column("fdsize_after"), "1024");
  EXPECT_EQ(column("failures"), "0");
  EXPECT_EQ(column("error"), "");
}

TEST(Csv, QuotesCommasAndQuotesInTheError) {
  const Result r = unavailable_result();
  const std::string row = csv_row(r);
  // RFC 4180: the field is quoted and inner quotes are doubled.
  EXPECT_NE(row.find(R"("cannot run ""pool"", here: no threads")"), std::string::npos) << row;
  const auto header = split_csv(csv_header());
  const auto fields = split_csv(row);
  const auto at = std::find(header.begin(), header.end(), "error") - header.begin();
  ASSERT_LT(static_cast<std::size_t>(at), fields.size());
  EXPECT_EQ(fields[static_cast<std::size_t>(at)], r.error);
}

// Drives a reporter the way Session does.
std::string report(std::string_view format, const std::vector<Result>& results) {
  std::ostringstream out;
  auto reporter = make_reporter(format, out);
  EXPECT_NE(reporter, nullptr) << format;
  if (!reporter) return {};
  reporter->begin(linux_environment());
  reporter->section({"open: 1,000 files", "thread creation is not timed"});
  for (const auto& r : results) reporter->add(r);
  reporter->end(results, true);
  return out.str();
}

std::vector<Result> sample_results() {
  return {open_result("threads", 1), open_result("pool", 2), open_result("pool-batch", 2),
          socket_result("off", 20'000'000, 64, 512), socket_result("auto", 2'000'000, 512, 512)};
}

TEST(Reporters, EveryRegisteredNameMakesAReporter) {
  const auto names = reporter_names();
  for (const char* expected : {"table", "json", "csv"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
  std::ostringstream out;
  for (const auto& name : names) EXPECT_NE(make_reporter(name, out), nullptr) << name;
}

TEST(Reporters, UnknownFormatIsNull) {
  std::ostringstream out;
  EXPECT_EQ(make_reporter("xml", out), nullptr);
  EXPECT_EQ(make_reporter("", out), nullptr);
  EXPECT_EQ(make_reporter("JSON", out), nullptr);
}

TEST(Reporters, TableShowsEveryRow) {
  const std::string text = report("table", sample_results());
  EXPECT_NE(text.find(std::string(version())), std::string::npos);
  EXPECT_NE(text.find("open: 1,000 files"), std::string::npos);
  for (const char* strategy : {"threads", "pool", "pool-batch"}) {
    EXPECT_NE(text.find(strategy), std::string::npos) << strategy;
  }
  EXPECT_NE(text.find("tcp"), std::string::npos);
  EXPECT_NE(text.find("64 → 512"), std::string::npos) << text;
  EXPECT_NE(text.find("Findings"), std::string::npos) << text;
}

// The first lines the table reporter prints for `env`: the header and its warnings.
std::vector<std::string> table_header(const Environment& env) {
  std::ostringstream out;
  make_reporter("table", out)->begin(env);
  return lines_of(out.str());
}

TEST(Reporters, TableHeaderSaysWhatASyscallCostsAndWhy) {
  Environment env = linux_environment();
  env.syscall_ns = 1234;
  env.virtualization = "kvm";
  env.cpu_mitigations = {{"meltdown", "Mitigation: PTI"},
                         {"spectre_v2", "Mitigation: Retpolines; STIBP: disabled"},
                         {"mds", "Not affected"}};
  env.cpus_allowed = 2;
  env.cpu_quota = 1.5;
  env.build_type = "Release";
  const auto lines = table_header(env);
  ASSERT_EQ(lines.size(), 1U);
  for (const char* part : {"syscall 1.23 µs", "VM kvm", "meltdown: PTI, spectre_v2: Retpolines",
                           "2 of them allowed", "cgroup quota 1.5 CPUs"}) {
    EXPECT_NE(lines[0].find(part), std::string::npos) << "lacks " << part << ": " << lines[0];
  }
  EXPECT_EQ(lines[0].find("mds"), std::string::npos) << lines[0];  // only the two that matter

  env.syscall_ns = 95.4;
  env.virtualization = "none";
  env.cpu_mitigations = {{"meltdown", "Not affected"}};
  env.cpus_allowed = 8;  // all of them: not worth a word
  env.cpu_quota.reset();
  const auto bare = table_header(env);
  ASSERT_EQ(bare.size(), 1U);
  for (const char* part : {"syscall 95 ns", "no hypervisor", "meltdown: not affected"}) {
    EXPECT_NE(bare[0].find(part), std::string::npos) << "lacks " << part << ": " << bare[0];
  }
  EXPECT_EQ(bare[0].find("allowed"), std::string::npos) << bare[0];
  EXPECT_EQ(bare[0].find("quota"), std::string::npos) << bare[0];
}

TEST(Reporters, TableHeaderWarnsAboutTheEnvironment) {
  Environment env = linux_environment();
  env.warnings = {"this fdbench is a Debug build, not Release"};
  const auto lines = table_header(env);
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[1], "! this fdbench is a Debug build, not Release");
}

TEST(Reporters, TableMarksUnavailableAndFailedRows) {
  Result failed = open_result("threads", 8);
  failed.failures = 7;
  failed.first_failure = "Too many open files";
  failed.failures_by_errno = {{"Too many open files", 7}};
  const std::string text = report("table", {unavailable_result(), failed});
  EXPECT_NE(text.find("unavailable"), std::string::npos) << text;
  EXPECT_NE(text.find(unavailable_result().error), std::string::npos) << text;
  EXPECT_NE(text.find("FAILED"), std::string::npos) << text;
  EXPECT_NE(text.find("Too many open files"), std::string::npos) << text;
}

TEST(Reporters, JsonWritesOneDocumentWithEveryResult) {
  const auto results = sample_results();
  const auto doc = nlohmann::json::parse(report("json", results));
  testing::expect_document_contract(doc);
  ASSERT_EQ(doc["results"].size(), results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(doc["results"][i]["strategy"], results[i].strategy);
    EXPECT_EQ(doc["results"][i]["workload"], results[i].workload);
  }
}

TEST(Reporters, CsvWritesOneHeaderAndOneRowPerResult) {
  const auto results = sample_results();
  const auto lines = lines_of(report("csv", results));
  ASSERT_EQ(lines.size(), results.size() + 1);
  EXPECT_EQ(lines[0], csv_header());
  for (std::size_t i = 0; i < results.size(); ++i) EXPECT_EQ(lines[i + 1], csv_row(results[i]));
}

TEST(Reporters, NothingMeasuredStillGivesValidOutput) {
  const auto doc = nlohmann::json::parse(report("json", {}));
  EXPECT_TRUE(doc["results"].empty());
  EXPECT_EQ(lines_of(report("csv", {})), std::vector<std::string>{csv_header()});
}

}  // namespace
}  // namespace fdbench
