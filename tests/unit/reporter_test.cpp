// Reporters on hand-built results: the JSON contract, CSV shape and quoting, and every
// registered format driven through the Reporter interface the way a Session drives it.
#include "output/reporter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/findings.hpp"
#include "fdbench/version.hpp"
#include "support/contract.hpp"
#include "support/results.hpp"

namespace fdbench {
namespace reporter_test {

using testing::linux_environment;
using testing::ResultBuilder;

// 1,000 files, 3 timed repetitions (3, 1 and 2 ms) after one warm-up, the table at 64 slots.
ResultBuilder open_result(const std::string& strategy, int threads) {
  return ResultBuilder::open(strategy, threads)
      .batch(strategy == "pool-batch" ? 64 : 1)
      .ops(1000)
      .warmup(1)
      .times({3'000'000, 1'000'000, 2'000'000})
      .fdsize(64, 64);
}

// 2 threads x 256 tcp sockets, 2 repetitions of `ns` each, no warm-up.
ResultBuilder socket_result(const std::string& pregrow, std::int64_t ns, int before, int after) {
  return ResultBuilder::socket("threads", 2)
      .pregrow(pregrow)
      .ops(512)
      .each_took(ns, 2)
      .fdsize(before, after);
}

// A comma and quotes, for CSV.
constexpr const char* kUnavailable = R"(cannot run "pool", here: no threads)";

ResultBuilder unavailable_result() {
  return ResultBuilder::open("pool", 4).ops(1000).unavailable(kUnavailable, 3);
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
  EXPECT_EQ(r["workers"], "threads");
  EXPECT_EQ(r["fd_table"], "shared");
  EXPECT_EQ(r["reference"], false);
  EXPECT_EQ(r["holds_descriptors"], false);
  EXPECT_EQ(r["unit"], "files");
  EXPECT_FALSE(r.contains("error"));
}

TEST(JsonDocument, StrategyAndWorkloadPropertiesAreWritten) {
  Result r = socket_result("off", 20, 64, 512);
  r.config.strategy = "process";
  r.workers = WorkerKind::processes;
  r.fd_table = FdTable::per_worker;
  r.reference = false;
  Result direct = socket_result("off", 20, 64, 64);
  direct.fd_table = FdTable::none;
  const auto doc =
      nlohmann::json::parse(to_json_document(linux_environment(), std::vector<Result>{r, direct}));
  testing::expect_document_contract(doc);
  const auto& j = doc["results"][0];
  EXPECT_EQ(j["workers"], "processes");
  EXPECT_EQ(j["fd_table"], "per-worker");
  EXPECT_EQ(j["reference"], false);
  EXPECT_EQ(j["holds_descriptors"], true);
  EXPECT_EQ(j["unit"], "fds");
  EXPECT_EQ(doc["results"][1]["fd_table"], "none");
}

TEST(JsonDocument, ErrorOnlyWhenSet) {
  const std::vector<Result> results{open_result("threads", 1), unavailable_result()};
  const auto doc = nlohmann::json::parse(to_json_document(linux_environment(), results));
  EXPECT_FALSE(doc["results"][0].contains("error"));
  ASSERT_TRUE(doc["results"][1].contains("error"));
  EXPECT_EQ(doc["results"][1]["error"], kUnavailable);
  EXPECT_TRUE(doc["results"][1]["times_ns"].empty());
}

TEST(JsonDocument, MissingFdSizeIsNull) {
  const Result r = open_result("threads", 1).fdsize(std::nullopt, std::nullopt);
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

TEST(Csv, HeaderNamesTheContractColumnsInOrder) {
  EXPECT_EQ(csv_header(),
            "workload,strategy,threads,batch,kind,pregrow,ops,repeat,warmup,min_ns,median_ns,"
            "max_ns,mean_ns,stddev_ns,ops_per_sec,fdsize_before,fdsize_after,failures,error,"
            "runnable_threads,times_ns,status,latency_op,latency_count,latency_p50_ns,"
            "latency_p90_ns,latency_p99_ns,latency_p999_ns,latency_max_ns,precision,"
            "precision_target,harness");
}

TEST(Csv, RowsAreTheValuesInHeaderOrder) {
  // The samples after the statistics, in the order they ran; counts and nanoseconds whole, a
  // rate with one decimal; a size that is not known, latency without --latency, and precision
  // below six repetitions (and its target without --repeat auto), empty.
  EXPECT_EQ(csv_row(open_result("threads", 1)),
            "open,threads,1,1,file,off,1000,3,1,1000000,2000000,3000000,2000000,1000000,"
            "500000.0,64,64,0,,1,3000000;1000000;2000000,measured,,,,,,,,,,minimal");
  EXPECT_EQ(csv_row(socket_result("auto", 5, 512, 1024)),
            "socket,threads,2,1,tcp,auto,512,2,0,5,5,5,5,0,102400000000.0,512,1024,0,,2,5;5,"
            "measured,,,,,,,,,,minimal");
  EXPECT_EQ(csv_row(open_result("threads", 8).fdsize(std::nullopt, std::nullopt).failed(7, EMFILE)),
            "open,threads,8,1,file,off,1000,3,1,1000000,2000000,3000000,2000000,1000000,"
            "500000.0,,,7,,8,3000000;1000000;2000000,measured,,,,,,,,,,minimal");
  EXPECT_EQ(csv_row(unavailable_result()),
            R"(open,pool,4,1,file,off,1000,3,0,0,0,0,0,0,0.0,,,0,"cannot run ""pool"", )"
            R"(here: no threads",5,,unavailable,,,,,,,,,,minimal)");
}

// How precise each median is, and with --repeat auto the precision asked for: shares.
TEST(Csv, PrecisionAndItsTargetAreColumns) {
  const auto header = split_csv(csv_header());
  const auto row = split_csv(csv_row(open_result("threads", 1)
                                         .times({100, 104, 96, 100, 100, 102, 98, 100, 101, 99})
                                         .auto_repeat(0.03, 3, RepeatStop::precision)));
  ASSERT_EQ(row.size(), header.size());
  ASSERT_EQ(header[header.size() - 3], "precision");
  // Ten samples: the interval is x(2)..x(9), 98..102, ±2% of the median 100.
  EXPECT_EQ(row[row.size() - 3], "0.02");
  EXPECT_EQ(row[row.size() - 2], "0.03");
  EXPECT_EQ(row.back(), "minimal");
}

// With --latency, each operation's percentiles: one value per operation, in the same order in
// every latency column.
TEST(Csv, LatencyPercentilesAreColumns) {
  Latency latency;
  latency.ns["open"] = {1000, 1200, 1500, 9000, 40000, 250000};
  latency.ns["close"] = {1000, 400, 500, 800, 2000, 7000};
  const std::string row = csv_row(open_result("threads", 1).latency(latency));
  EXPECT_TRUE(
      row.ends_with(",measured,close;open,1000;1000,400;1200,500;1500,800;9000,"
                    "2000;40000,7000;250000,,,minimal"))
      << row;
}

TEST(Csv, RowFieldCountMatchesTheHeader) {
  const auto header = split_csv(csv_header());
  for (const Result& r :
       {open_result("threads", 1).build(), socket_result("auto", 5, 512, 512).build(),
        unavailable_result().build()}) {
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
  EXPECT_EQ(column("runnable_threads"), "2");
  EXPECT_EQ(split_csv(csv_row(open_result("pool", 2)))[static_cast<std::size_t>(
                std::find(header.begin(), header.end(), "runnable_threads") - header.begin())],
            "3");
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

// Drives a reporter the way Session does; `published`: the section ran --harness published.
std::string report(std::string_view format, const std::vector<Result>& results,
                   bool published = false) {
  std::ostringstream out;
  auto reporter = make_reporter(format, out, {.columns = 0});
  EXPECT_NE(reporter, nullptr) << format;
  if (!reporter) return {};
  reporter->begin(linux_environment());
  Section section;
  section.workload = "open";
  section.kind = DescriptorKind::file;
  section.input = InputSummary{};
  section.input->origin = "/tmp";
  section.input->files = 1000;
  section.fs_type = "tmpfs";
  section.harness_column = published;
  reporter->section(section);
  for (const auto& r : results) reporter->add(r);
  reporter->end(results, findings(results, linux_environment()), true);
  return out.str();
}

std::vector<Result> sample_results() {
  return {open_result("threads", 1), open_result("pool", 2), open_result("pool-batch", 2),
          socket_result("off", 20'000'000, 64, 512), socket_result("auto", 2'000'000, 512, 512)};
}

TEST(Reporters, EveryRegisteredNameMakesAReporter) {
  const auto names = reporter_names();
  for (const char* expected : {"table", "json", "csv", "markdown"}) {
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

// --harness: a column only where the published harness ran, and a label in the markdown.
TEST(Reporters, TheHarnessIsShownOnlyWhereThePublishedOneRan) {
  Result published = open_result("threads", 1).build();
  published.config.harness = Harness::published;
  const std::vector<Result> both{open_result("threads", 1).build(), published};
  const std::string table = report("table", both, true);
  EXPECT_NE(table.find("threads harness"), std::string::npos) << table;
  EXPECT_NE(table.find("  threads            1 minimal"), std::string::npos) << table;
  EXPECT_NE(table.find("  threads            1 published"), std::string::npos) << table;
  EXPECT_NE(table.find("with the published harness, the seed's threads are created inside the "
                       "clock"),
            std::string::npos)
      << table;
  EXPECT_NE(report("markdown", both, true).find("| threads (published harness) | 1 |"),
            std::string::npos);
  const std::string minimal = report("table", {open_result("threads", 1).build()});
  EXPECT_EQ(minimal.find("harness"), std::string::npos) << minimal;
  EXPECT_EQ(report("markdown", {open_result("threads", 1).build()}).find("harness"),
            std::string::npos);
}

TEST(Reporters, TableShowsEveryRow) {
  const std::string text = report("table", sample_results());
  EXPECT_NE(text.find(std::string(version())), std::string::npos);
  EXPECT_NE(text.find("open: 1,000 empty files in /tmp (tmpfs)"), std::string::npos);
  for (const char* strategy : {"threads", "pool", "pool-batch"}) {
    EXPECT_NE(text.find(strategy), std::string::npos) << strategy;
  }
  EXPECT_NE(text.find("tcp"), std::string::npos);
  EXPECT_NE(text.find("64 → 512"), std::string::npos) << text;
  EXPECT_NE(text.find("Findings"), std::string::npos) << text;
}

// "2 (+1)": the pool's caller waits beside its 2 workers; threads and processes are what
// they say. The same in the markdown table.
TEST(Reporters, TablesShowRunnableThreadsWhereTheyDifferFromThreads) {
  const std::vector<Result> results{open_result("threads", 2), open_result("pool", 2),
                                    open_result("libuv", 4), open_result("process", 2)};
  for (const char* format : {"table", "markdown"}) {
    SCOPED_TRACE(format);
    const std::string text = report(format, results);
    std::vector<std::string> rows;
    for (const auto& line : lines_of(text)) {
      for (const char* strategy : {"threads", "pool", "libuv", "process"}) {
        const std::string table_lead = std::string("  ") + strategy + " ";
        const std::string markdown_lead = std::string("| ") + strategy + " |";
        if (line.rfind(table_lead, 0) == 0 || line.rfind(markdown_lead, 0) == 0) {
          rows.push_back(line);
        }
      }
    }
    ASSERT_EQ(rows.size(), 4U) << text;
    EXPECT_EQ(rows[0].find("(+"), std::string::npos) << rows[0];
    EXPECT_NE(rows[1].find(" 2 (+1) "), std::string::npos) << rows[1];
    EXPECT_NE(rows[2].find(" 4 (+1) "), std::string::npos) << rows[2];
    EXPECT_EQ(rows[3].find("(+"), std::string::npos) << rows[3];
  }
}

// The column header a table printed for its rows (the line that starts with "strategy").
std::string table_header(const std::string& text) {
  for (const auto& line : lines_of(text)) {
    if (line.rfind("  strategy", 0) == 0) return line;
  }
  ADD_FAILURE() << "no column header in:\n" << text;
  return {};
}

// A workload and a strategy the table has never heard of: its columns follow the properties
// each result carries, so adding either does not touch the reporter.
TEST(Reporters, TableColumnsFollowTheResultsProperties) {
  Result held = socket_result("off", 20'000'000, 64, 512);
  held.workload = "burst";
  held.config.strategy = "forked-loop";
  held.workers = WorkerKind::processes;
  held.fd_table = FdTable::per_worker;
  held.reference = false;
  const std::string held_text = report("table", {held});
  const std::string held_header = table_header(held_text);
  EXPECT_NE(held_header.find("pregrow"), std::string::npos) << held_header;
  EXPECT_NE(held_header.find("FDSize"), std::string::npos) << held_header;
  EXPECT_NE(held_header.find("fds/s"), std::string::npos) << held_header;
  EXPECT_NE(held_text.find("forked-loop"), std::string::npos) << held_text;
  EXPECT_NE(held_text.find("64 → 512"), std::string::npos) << held_text;

  Result listed = open_result("forked-loop", 2);
  listed.workload = "scan";
  listed.unit = "entries";
  const std::string listed_header = table_header(report("table", {listed}));
  EXPECT_NE(listed_header.find("entries/s"), std::string::npos) << listed_header;
  EXPECT_EQ(listed_header.find("pregrow"), std::string::npos) << listed_header;
  EXPECT_EQ(listed_header.find("FDSize"), std::string::npos) << listed_header;
}

// The first lines the table reporter prints for `env`: the header and its warnings.
std::vector<std::string> environment_header(const Environment& env) {
  std::ostringstream out;
  make_reporter("table", out, {.columns = 0})->begin(env);
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
  const auto lines = environment_header(env);
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
  const auto bare = environment_header(env);
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
  const auto lines = environment_header(env);
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[1], "! this fdbench is a Debug build, not Release");
}

TEST(Reporters, EachOutcomeIsNamedByItsStatusNeverByItsWords) {
  EXPECT_EQ(status_words(Status::timed_out), "timed out");
  EXPECT_EQ(status_words(Status::hung), "hung");
  EXPECT_EQ(status_words(Status::failed), "failed");
  EXPECT_EQ(status_words(Status::unavailable), "unavailable");
  const std::string why = "threads, 2 threads: repetition 1 of 10 did not finish within 60 s";
  const Result timed_out = open_result("threads", 2).ended(Status::timed_out, why, 10);
  EXPECT_TRUE(timed_out.hung());
  EXPECT_FALSE(unavailable_result().build().hung());
  // A failed result whose words look like a timeout is still failed, and says so.
  const Result failed = open_result("pool", 2).ended(Status::failed, "timed out: no, it broke", 3);
  EXPECT_FALSE(failed.hung());
  for (const char* format : {"table", "markdown"}) {
    const std::string text = report(format, {timed_out, failed});
    EXPECT_NE(text.find("timed out: " + why), std::string::npos) << format << "\n" << text;
    EXPECT_EQ(text.find("unavailable: timed out"), std::string::npos) << format << "\n" << text;
    EXPECT_NE(text.find("failed: timed out: no, it broke"), std::string::npos) << format << "\n"
                                                                               << text;
  }
}

TEST(Reporters, TableMarksUnavailableAndFailedRows) {
  const Result failed = open_result("threads", 8).failed(7, EMFILE);
  const std::string text = report("table", {unavailable_result(), failed});
  EXPECT_NE(text.find("unavailable"), std::string::npos) << text;
  EXPECT_NE(text.find(kUnavailable), std::string::npos) << text;
  EXPECT_NE(text.find("FAILED"), std::string::npos) << text;
  EXPECT_NE(text.find("EMFILE (Too many open files): 7"), std::string::npos) << text;
}

// Every row says how precisely its median is known and how many repetitions made it; with
// --repeat auto, a row that missed the precision asked for is marked, and one legend line says
// why; "-" where there are too few repetitions for a 95% interval.
TEST(Reporters, EachRowShowsItsPrecisionAndAMissedTargetIsMarkedOnce) {
  // Ten samples: the 95% interval is the 2nd to the 9th, 98..102 around 100: ±2%.
  const Result precise = open_result("threads", 1)
                             .times({100, 104, 96, 100, 100, 102, 98, 100, 101, 99})
                             .auto_repeat(0.03, 3, RepeatStop::precision);
  const Result wide = open_result("threads", 2)
                          .times({100, 130, 70, 100, 100, 120, 80, 100, 100, 100})
                          .auto_repeat(0.03, 3, RepeatStop::max_time);
  const Result few = open_result("uring", 1).times({100, 100, 100});
  for (const std::string format : {"table", "markdown"}) {
    SCOPED_TRACE(format);
    const std::string text = report(format, {precise, wide, few});
    EXPECT_NE(text.find("±95%"), std::string::npos) << text;
    EXPECT_NE(text.find("reps"), std::string::npos) << text;
    EXPECT_NE(text.find("±2%"), std::string::npos) << text;
    EXPECT_EQ(text.find("±2%*"), std::string::npos) << text;
    EXPECT_EQ(text.find("±2%\\*"), std::string::npos) << text;
    EXPECT_NE(text.find(format == "table" ? "±20%*" : "±20%\\*"), std::string::npos) << text;
    const std::string legend =
        "imprecise: the median's 95% interval did not reach ±3% before "
        "--max-time (3 s) ran out";
    const auto at = text.find(legend);
    ASSERT_NE(at, std::string::npos) << text;
    EXPECT_EQ(text.find(legend, at + 1), std::string::npos) << "said twice:\n" << text;
  }
  // Without a goal, nothing is marked.
  EXPECT_EQ(report("table", {few}).find("imprecise"), std::string::npos);

  // tune's rows stop at their share of --budget, which the legend names instead.
  const Result tuned = open_result("threads", 2)
                           .times({100, 130, 70, 100, 100, 120, 80, 100, 100, 100})
                           .auto_repeat(0.03, 0.4, RepeatStop::budget);
  const std::string text = report("table", {tuned});
  EXPECT_NE(text.find("imprecise: the median's 95% interval did not reach ±3% before its share of "
                      "--budget ran out: compare such rows loosely, raise --budget"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("--max-time"), std::string::npos) << text;
}

// A noisy result is a mark after its median, not a line of its own, and one legend line under
// the tables says what the mark means; a quiet table has neither.
TEST(Reporters, NoisyRowsAreMarkedAndExplainedOnce) {
  const auto noisy = [](const std::string& strategy, int threads) {
    // Six repetitions: the 95% interval is the range, 2 ms of a median 2 ms.
    return open_result(strategy, threads)
        .times({1'000'000, 2'000'000, 2'000'000, 2'000'000, 2'000'000, 3'000'000})
        .build();
  };
  const Result quiet = open_result("threads", 1).each_took(2'000'000, 6).build();
  for (const char* format : {"table", "markdown"}) {
    const std::string text = report(format, {noisy("threads", 2), quiet, noisy("pool", 4)});
    const auto lines = lines_of(text);
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                            [](const std::string& l) { return l.find("noisy") != l.npos; }),
              1)
        << text;
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                            [](const std::string& l) {
                              return l.find("2.00 ~") != l.npos || l.find("2.00~") != l.npos ||
                                     l.find("2.00 \\~") != l.npos;
                            }),
              2)
        << text;
    EXPECT_NE(text.find("~ noisy: the median's 95% interval reaches beyond ±10% of it (the ±95% "
                        "column; fewer than 6 repetitions give no such interval, shown as -, and "
                        "are not judged)"),
              std::string::npos)
        << text;
    const std::string calm = report(format, {quiet});
    EXPECT_EQ(calm.find("noisy"), std::string::npos) << calm;
    EXPECT_EQ(calm.find("~"), std::string::npos) << calm;
  }
}

// Issue 34, case 7: one rule for the mark, the ± column, the HTML and the JSON. A row shown
// as more than ±10% is noisy in every format, one shown as less in none; the HTML's ± is the
// table's, and its note says the same figure.
TEST(Reporters, EveryFormatMarksNoiseByTheColumnItShows) {
  const auto ten_around_10ms = [](int threads, std::int64_t below_us, std::int64_t above_us) {
    std::vector<std::int64_t> times;
    for (const std::int64_t us :
         std::initializer_list<std::int64_t>{5000, 10'000 - below_us, 9900, 9900, 10'000, 10'000,
                                             10'100, 10'100, 10'000 + above_us, 30'000}) {
      times.push_back(us * 1000);
    }
    return open_result("threads", threads).times(times).build();
  };
  const std::vector<Result> results = {ten_around_10ms(1, 1700, 300),  // ±17%
                                       ten_around_10ms(2, 900, 900)};  // ±9%
  const auto row = [](const std::string& text, const std::string& threads_cell) {
    for (const auto& line : lines_of(text)) {
      if (line.find("threads") != std::string::npos &&
          line.find(threads_cell) != std::string::npos && line.find("10.00") != std::string::npos) {
        return line;
      }
    }
    return std::string();
  };
  const std::string table = report("table", results);
  const std::string noisy_row = row(table, "      1 ");
  const std::string calm_row = row(table, "      2 ");
  EXPECT_NE(noisy_row.find("10.00~   ±17%"), std::string::npos) << table;
  EXPECT_NE(calm_row.find("10.00     ±9%"), std::string::npos) << table;
  const std::string markdown = report("markdown", results);
  EXPECT_NE(row(markdown, "| 1 |").find("| 10.00 \\~ | ±17% |"), std::string::npos) << markdown;
  EXPECT_NE(row(markdown, "| 2 |").find("| 10.00 | ±9% |"), std::string::npos) << markdown;
  const std::string html = report("html", results);
  EXPECT_NE(html.find("<td>10.00</td><td>±17%</td><td>10</td><td>5.00–30.00</td><td>100,000</td>"
                      "<td class=\"text\">noisy: the median&#39;s 95% interval reaches ±17% of it "
                      "(over ±10%)</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td>10.00</td><td>±9%</td><td>10</td><td>5.00–30.00</td><td>100,000</td>"
                      "<td class=\"text\"></td>"),
            std::string::npos)
      << html;
  const auto doc = nlohmann::json::parse(report("json", results));
  EXPECT_EQ(doc.at("results")[0].at("warning_kinds"), nlohmann::json({"noisy"}));
  EXPECT_FALSE(doc.at("results")[1].contains("warnings"));
}

TEST(Reporters, JsonWritesOneDocumentWithEveryResult) {
  const auto results = sample_results();
  const auto doc = nlohmann::json::parse(report("json", results));
  testing::expect_document_contract(doc);
  ASSERT_EQ(doc["results"].size(), results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(doc["results"][i]["strategy"], results[i].config.strategy);
    EXPECT_EQ(doc["results"][i]["workload"], results[i].workload);
  }
}

TEST(Reporters, CsvWritesOneHeaderAndOneRowPerResult) {
  EXPECT_EQ(
      report("csv", sample_results()),
      "workload,strategy,threads,batch,kind,pregrow,ops,repeat,warmup,min_ns,median_ns,max_ns,"
      "mean_ns,stddev_ns,ops_per_sec,fdsize_before,fdsize_after,failures,error,runnable_threads,"
      "times_ns,status,latency_op,latency_count,latency_p50_ns,latency_p90_ns,latency_p99_ns,"
      "latency_p999_ns,latency_max_ns,precision,precision_target,harness\n"
      "open,threads,1,1,file,off,1000,3,1,1000000,2000000,3000000,2000000,1000000,"
      "500000.0,64,64,0,,1,3000000;1000000;2000000,measured,,,,,,,,,,minimal\n"
      "open,pool,2,1,file,off,1000,3,1,1000000,2000000,3000000,2000000,1000000,500000.0,"
      "64,64,0,,3,3000000;1000000;2000000,measured,,,,,,,,,,minimal\n"
      "open,pool-batch,2,64,file,off,1000,3,1,1000000,2000000,3000000,2000000,1000000,"
      "500000.0,64,64,0,,3,3000000;1000000;2000000,measured,,,,,,,,,,minimal\n"
      "socket,threads,2,1,tcp,off,512,2,0,20000000,20000000,20000000,20000000,0,25600.0,"
      "64,512,0,,2,20000000;20000000,measured,,,,,,,,,,minimal\n"
      "socket,threads,2,1,tcp,auto,512,2,0,2000000,2000000,2000000,2000000,0,256000.0,"
      "512,512,0,,2,2000000;2000000,measured,,,,,,,,,,minimal\n");
}

TEST(Reporters, NothingMeasuredStillGivesValidOutput) {
  const auto doc = nlohmann::json::parse(report("json", {}));
  EXPECT_TRUE(doc["results"].empty());
  EXPECT_EQ(lines_of(report("csv", {})), std::vector<std::string>{csv_header()});
}

}  // namespace reporter_test
}  // namespace fdbench
