// docs/fdbench.schema.json, the JSON contract's home, against real output of the built binary,
// validated by python3-jsonschema (no validator of our own): an open run over every strategy, a
// socket run, --keep-open, an export cut short by SIGTERM, a hand-built document with every
// optional field of today's output, and one with the fields the open issues add. Broken
// documents must fail, so the check is never vacuous.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "engine/strategy.hpp"
#include "model/results_json.hpp"
#include "output/reporter.hpp"
#include "platform/platform.hpp"
#include "support/fdbench_process.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace schema_test {

struct Validation {
  int exit_code = -1;
  std::string output;  // one line per problem
};

Validation validate(const std::vector<std::string>& documents) {
  TempDir scratch;
  std::string command = std::string("'") + FDBENCH_SCHEMA_PYTHON + "' '" +
                        FDBENCH_SCHEMA_VALIDATOR + "' '" + FDBENCH_SCHEMA + "'";
  for (const auto& d : documents) command += " '" + d + "'";
  command += " >'" + (scratch / "out") + "' 2>&1";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(scratch / "out")};
}

class Schema : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(FDBENCH_SCHEMA_PYTHON).empty()) {
      GTEST_FAIL() << "no python3 with jsonschema was found when configuring: run scripts/setup "
                      "(it installs python3-jsonschema), then configure again";
    }
  }
  // Runs fdbench with `args` plus --format json --output FILE and returns FILE.
  std::string run_to_file(std::vector<std::string> args, const std::string& name) {
    const std::string file = out_ / name;
    args.insert(args.end(), {"--format", "json", "--output", file});
    const RunResult run = run_fdbench(args);
    EXPECT_EQ(run.exit_code, 0) << describe(args) << "\n" << run.err;
    return file;
  }
  void expect_valid(const std::vector<std::string>& documents) {
    const Validation v = validate(documents);
    EXPECT_EQ(v.exit_code, 0) << v.output;
  }
  FastTempDir work_;
  TempDir out_;
};

Environment hand_built_environment() {
  Environment env;
  env.os = "Linux";
  env.kernel = "6.18.0-test";
  env.cpu_model = "Test CPU";
  env.logical_cpus = 2;
  env.fs_type = "ext4";
  env.rlimit_nofile = {1024, 18446744073709551615ULL};  // RLIM_INFINITY
  env.fdsize_at_start = 64;
  env.io_uring_disabled = 0;
  env.rcu_expedited = 1;
  return env;
}

// Every optional field today's output can carry.
std::vector<Result> hand_built_results() {
  Result r;
  r.workload = "open";
  r.config.strategy = "pool-batch";
  r.config.threads = 2;
  r.runnable_threads = 3;  // the caller waits beside the 2 workers
  r.config.batch = 64;
  r.config.kind = DescriptorKind::file;
  r.ops = 1000;
  r.repeat = 2;
  r.warmup = 1;
  r.times_ns = {2'000'000, 3'000'000};
  r.fdsize_before = 64;
  r.fdsize_after = 64;
  r.failures = 5;
  r.first_failure = "Permission denied";
  r.failures_by_errno = {{"EACCES", {4, "Permission denied"}}, {"other", {1, "unknown"}}};
  r.parameters = {{"dispatch", "queue"}, {"batch", "64"}};
  r.input = InputSummary{InputSource::list,
                         "/tmp/list",
                         "",
                         "rdonly",
                         false,
                         998,
                         {{"fifo", 1}},
                         {{"No such file or directory", 1}},
                         1'500'000,
                         {}};
  r.warnings = {{WarningKind::other, "a warning"}};
  r.timed_region_samples = {{2, 0, 14, 1}, {3, 1, 20, 0}};  // a page fault: its warning too
  finalize(r);
  Result unavailable = r;
  unavailable.times_ns.clear();
  unavailable.failures = 0;
  unavailable.failures_by_errno.clear();
  unavailable.timed_region_samples.clear();
  unavailable.timed_region.reset();
  unavailable.warnings = {{WarningKind::other, "a warning"}};
  unavailable.status = Status::unavailable;
  unavailable.error = "io_uring_disabled is 2";
  finalize(unavailable);
  return {r, unavailable};
}

// A context with every part: the load before and after, with CPU pressure.
RunContext hand_built_context() {
  RunContext c;
  c.date = "2026-12-05T09:14:03Z";
  c.host = "test-host";
  c.command_line = {"fdbench", "open", "--dir", "/tmp/a b"};
  c.user = 1000;
  c.load_before = LoadSnapshot{LoadAverages{0.5, 0.25, 0.125},
                               CpuPressure{1.5, 0.75, 123456}};
  c.load_after = LoadSnapshot{LoadAverages{1.5, 0.5, 0.25}, std::nullopt};
  return c;
}

// A socket subject: 2 threads of `threads` creating tcp sockets.
FindingSubject socket_subject(std::string role, Pregrow pregrow, std::optional<int> rcu) {
  FindingSubject s{std::move(role), "socket", {}};
  s.config.kind = DescriptorKind::tcp;
  s.config.strategy = "threads";
  s.config.threads = 2;
  s.config.pregrow = pregrow;
  s.config.rcu_expedited = rcu;
  return s;
}

// A finding with its numbers, integers and not, and its subjects.
std::vector<Finding> hand_built_findings() {
  return {{"pregrow",
           "text",
           {{"threads", 2}, {"median_ns", 20'000'000}, {"ratio", 10.5}},
           {socket_subject("not-pregrown", Pregrow{}, 1),
            socket_subject("pregrown", Pregrow{Pregrow::Mode::automatic, 0}, std::nullopt)}}};
}

TEST_F(Schema, IsAJsonSchemaThatRejectsBrokenDocuments) {
  const RunContext context = hand_built_context();
  auto doc = nlohmann::json::parse(to_json_document(hand_built_environment(), hand_built_results(),
                                                    hand_built_findings(), &context));
  struct Broken {
    const char* what;
    void (*change)(nlohmann::json&);
    const char* reason;
  };
  const Broken cases[] = {
      {"no results", [](nlohmann::json& j) { j.erase("results"); }, "'results' is a required"},
      {"zero threads", [](nlohmann::json& j) { j["results"][0]["threads"] = 0; }, "minimum"},
      {"zero runnable threads", [](nlohmann::json& j) { j["results"][0]["runnable_threads"] = 0; },
       "minimum"},
      {"runnable threads as text",
       [](nlohmann::json& j) { j["results"][0]["runnable_threads"] = "3"; }, "is not of type"},
      {"errno keyed by message",
       [](nlohmann::json& j) {
         j["results"][0]["failures_by_errno"] = {
             {"Permission denied", {{"count", 1}, {"message", "x"}}}};
       },
       "does not match"},
      {"another version", [](nlohmann::json& j) { j["schema_version"] = kSchemaVersion + 1; },
       "is not one of"},
      {"a precision below zero",
       [](nlohmann::json& j) { j["results"][0]["precision"]["half_width"] = -0.1; }, "minimum"},
      {"a reason to stop it does not know",
       [](nlohmann::json& j) {
         j["results"][0]["precision"] = {{"half_width", 0.01},
                                         {"target", 0.03},
                                         {"max_time_s", 3},
                                         {"met", true},
                                         {"stopped_by", "boredom"}};
       },
       "is not one of"},
      {"a date without its zone",
       [](nlohmann::json& j) { j["context"]["date"] = "2026-12-05T09:14:03"; }, "does not match"},
      {"a context without its host", [](nlohmann::json& j) { j["context"].erase("host"); },
       "'host' is a required"},
      {"a command line as one string",
       [](nlohmann::json& j) { j["context"]["command_line"] = "fdbench open"; }, "is not of type"},
      {"a finding's threads as text",
       [](nlohmann::json& j) { j["findings"][0]["subjects"][0]["threads"] = "2"; },
       "is not of type"},
      {"a status it does not know", [](nlohmann::json& j) { j["results"][0]["status"] = "ok"; },
       "is not one of"},
      {"a negative page fault count",
       [](nlohmann::json& j) { j["results"][0]["timed_region"]["minor_faults"] = -1; }, "minimum"},
      {"a context switch count as a fraction",
       [](nlohmann::json& j) { j["results"][0]["timed_region"]["voluntary_switches"] = 0.5; },
       "is not of type"},
      {"a warning kind it does not know",
       [](nlohmann::json& j) { j["results"][0]["warning_kinds"][0] = "faults"; }, "is not one of"},
      {"a time as text", [](nlohmann::json& j) { j["results"][0]["times_ns"][0] = "1ms"; },
       "is not of type"},
  };
  std::vector<std::string> files;
  for (const auto& c : cases) {
    auto broken = doc;
    c.change(broken);
    files.push_back(out_ / (std::to_string(files.size()) + ".json"));
    write_text(files.back(), broken.dump());
  }
  const Validation v = validate(files);  // one interpreter start for all of them
  EXPECT_EQ(v.exit_code, 1) << v.output;
  for (std::size_t i = 0; i < files.size(); ++i) {
    SCOPED_TRACE(cases[i].what);
    const auto at = v.output.find(files[i] + ": ");
    ASSERT_NE(at, std::string::npos) << "accepted:\n" << v.output;
    const std::string line = v.output.substr(at, v.output.find('\n', at) - at);
    EXPECT_NE(line.find(cases[i].reason), std::string::npos) << line;
  }
}

TEST_F(Schema, HandBuiltDocumentWithEveryOptionalField) {
  const RunContext context = hand_built_context();
  write_text(out_ / "full.json", to_json_document(hand_built_environment(), hand_built_results(),
                                                  hand_built_findings(), &context));
  expect_valid({out_ / "full.json"});
}

// Environment fields the open issues added, each with a value of its type.
void add_later_environment_fields(nlohmann::json& env) {
  env.update({{"syscall_ns", 1250.5},
              {"cpu_mitigations", {{"meltdown", "Mitigation: PTI"}, {"spectre_v2", "Vulnerable"}}},
              {"build_type", "Release"},
              {"compiler", "GCC 12.2.0"},
              {"virtualization", "kvm"},
              {"liburing_version", "2.3"},
              {"libuv_version", nullptr},
              {"cpus_allowed", 2},
              {"memory_bytes", 4294967296LL},
              {"fs_mount_options", "rw,relatime,discard"}});
}

// Result fields the open issues added: latency percentiles, growth events and stalls with
// their summaries, and a parameter.
void add_later_result_fields(nlohmann::json& r) {
  const nlohmann::json latency = {{"p50", 1200},  {"p90", 1500},     {"p99", 3000},
                                  {"p999", 9000}, {"max", 12000000}, {"count", 2000}};
  r.update(
      {{"runnable_threads", 3},
       {"setup_ns", 45000000},
       {"median_ci_ns", {2000000, 3000000}},
       {"outliers", {1}},
       {"latency_ns", {{"open", latency}, {"close", latency}, {"submit", latency}}},
       {"growth_events",
        {{{"repetition", 0},
          {"worker", 1},
          {"index", 63},
          {"fd", 64},
          {"ns", 7000000},
          {"fdsize_before", 64},
          {"fdsize_after", 128},
          {"shared", true}}}},
       {"stalls",
        {{{"repetition", 0},
          {"worker", 0},
          {"index", 62},
          {"op", "create"},
          {"fd", 65},
          {"ns", 6900000},
          {"cause", "waiting-on-growth"}},
         {{"repetition", 0},
          {"worker", 1},
          {"index", 64},
          {"op", "submit"},
          {"fd", -1},
          {"ns", 6900000},
          {"cause", "unexplained"}}}},
       {"growth_summary", {{"count", 1}, {"total_ns", 7000000}, {"share_of_repetition", 0.7}}},
       {"stall_summary", {{"count", 1}, {"total_ns", 6900000}, {"share_of_repetition", 0.69}}}});
  r["parameters"]["paths"] = "relative";
}

TEST_F(Schema, FieldsTheOpenIssuesAddHaveTheirTypes) {
  auto doc =
      nlohmann::json::parse(to_json_document(hand_built_environment(), hand_built_results()));
  add_later_environment_fields(doc["environment"]);
  add_later_result_fields(doc["results"][0]);
  doc["findings"] = {{{"kind", "stall"}, {"text", "4 growth events"}, {"events", 4}}};
  doc["recommendation"] = {{"strategy", "fast-pool"},
                           {"threads", 2},
                           {"batch", 1},
                           {"ops_per_sec", 400000.5},
                           {"knee_threads", 2},
                           {"pregrow_to", 1023},
                           {"within_noise", {{{"strategy", "threads"}, {"threads", 2}}}}};
  write_text(out_ / "later.json", doc.dump());
  expect_valid({out_ / "later.json"});
}

// Every result that ran carries its timed region's counts as non-negative integers: every
// strategy where the OS counts a thread's own (Linux), and those of worker processes elsewhere.
void expect_timed_regions_counted(const std::string& file) {
  SCOPED_TRACE(file);
  int counted = 0;
  const auto doc = nlohmann::json::parse(read_text(file));  // outlives the loop over its results
  for (const auto& r : doc.at("results")) {
    SCOPED_TRACE(r.at("strategy").get<std::string>());
    if (r.at("status") != "measured") continue;  // an unavailable one has no timed region
    if (platform::uses_linux_interfaces() || r.at("workers") == "processes") {
      ASSERT_TRUE(r.contains("timed_region")) << r.dump();
    }
    if (!r.contains("timed_region")) continue;
    ++counted;
    for (const auto& [count, value] : r.at("timed_region").items()) {
      EXPECT_TRUE(value.is_number_unsigned()) << count << " = " << value;
    }
    EXPECT_EQ(r.at("timed_region").size(), 4U);
  }
  EXPECT_GT(counted, 0);
}

TEST_F(Schema, RealOpenSocketAndKeepOpenRuns) {
  const std::string open = run_to_file({"open", "--files", "50", "--threads", "1,2", "--repeat",
                                        "2", "--warmup", "0", "--dir", work_.path()},
                                       "open.json");
  const std::string keep = run_to_file(
      {"open", "--files", "100", "--threads", "2", "--strategy", "threads,process", "--keep-open",
       "--pregrow", "off,auto", "--repeat", "2", "--warmup", "0", "--dir", work_.path()},
      "keep.json");
  const std::string socket =
      run_to_file({"socket", "--per-thread", "32", "--strategy", "threads,process,uring-direct",
                   "--kind", "udp", "--repeat", "2", "--warmup", "0"},
                  "socket.json");
  expect_valid({open, keep, socket});
  for (const auto& file : {open, keep, socket}) expect_timed_regions_counted(file);
  // The run's context: the date it started, parseable, and the command line as given.
  const auto context = nlohmann::json::parse(read_text(keep)).at("context");
  std::tm date{};
  const std::string when = context.at("date");
  std::istringstream in(when);
  in >> std::get_time(&date, "%Y-%m-%dT%H:%M:%SZ");
  EXPECT_FALSE(in.fail()) << when;
  EXPECT_EQ(when.size(), 20U) << when;
  EXPECT_GE(date.tm_year + 1900, 2024) << when;
  const std::vector<std::string> args = context.at("command_line");
  ASSERT_GE(args.size(), 2U);
  EXPECT_EQ(args.front(), fdbench_binary());
  EXPECT_EQ(std::vector<std::string>(args.begin() + 1, args.end()),
            (std::vector<std::string>{"open",
                                      "--files",
                                      "100",
                                      "--threads",
                                      "2",
                                      "--strategy",
                                      "threads,process",
                                      "--keep-open",
                                      "--pregrow",
                                      "off,auto",
                                      "--repeat",
                                      "2",
                                      "--warmup",
                                      "0",
                                      "--dir",
                                      work_.path(),
                                      "--format",
                                      "json",
                                      "--output",
                                      keep}));
  EXPECT_EQ(context.at("user"), ::getuid());
  EXPECT_TRUE(context.at("load_before").contains("load_average"));
  EXPECT_TRUE(context.at("load_after").contains("load_average"));
  // Every strategy's count, as the registry declares it: "pool" at 2 threads is 2 + its caller.
  int checked = 0;
  const auto doc = nlohmann::json::parse(read_text(open));
  for (const auto& r : doc.at("results")) {
    const StrategyInfo* info = find_strategy(r.at("strategy").get<std::string>());
    ASSERT_NE(info, nullptr);
    const int threads = r.at("threads");
    EXPECT_EQ(r.at("runnable_threads"), info->runnable_threads({threads, r.at("batch")}));
    if (r.at("strategy") == "pool" && threads == 2) {
      EXPECT_EQ(r.at("runnable_threads"), 3);
    }
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(strategy_names_for(WorkloadKind::open).size()) * 2);
}

// --harness minimal,published: every result says its harness, a strategy without a published
// harness is an unavailable row, and the harness finding names both rows.
TEST_F(Schema, RealRunsWithBothHarnesses) {
  const std::string open = run_to_file(
      {"open", "--files", "50", "--threads", "1,2", "--strategy", "threads,pool,fast-pool",
       "--harness", "minimal,published", "--repeat", "6", "--warmup", "0", "--dir", work_.path()},
      "open.json");
  const std::string socket =
      run_to_file({"socket", "--per-thread", "16", "--strategy", "threads,process", "--pregrow",
                   "off", "--harness", "minimal,published", "--repeat", "2", "--warmup", "0"},
                  "socket.json");
  expect_valid({open, socket});
  for (const auto& file : {open, socket}) expect_timed_regions_counted(file);
  const auto doc = nlohmann::json::parse(read_text(open));
  EXPECT_EQ(doc.at("schema_version"), kSchemaVersion);
  int published = 0;
  for (const auto& r : doc.at("results")) {
    SCOPED_TRACE(r.dump());
    ASSERT_TRUE(r.contains("harness"));
    if (r.at("harness") != "published") continue;
    ++published;
    if (r.at("strategy") == "fast-pool") {
      EXPECT_EQ(r.at("status"), "unavailable");
    } else {
      EXPECT_EQ(r.at("status"), "measured");
      EXPECT_EQ(r.at("failures"), 0);
      EXPECT_EQ(r.at("times_ns").size(), 6U);
    }
  }
  EXPECT_EQ(published, 6);  // 3 strategies x 2 thread counts
  int harness_findings = 0;
  for (const auto& f : doc.at("findings")) {
    if (f.at("kind") != "harness") continue;
    ++harness_findings;
    ASSERT_EQ(f.at("subjects").size(), 2U);
    EXPECT_EQ(f.at("subjects")[0].at("harness"), "published");
    EXPECT_FALSE(f.at("subjects")[1].contains("harness"));  // minimal: left out
  }
  EXPECT_EQ(harness_findings, 4);  // threads and pool, at 1 and 2 threads
  const auto sockets = nlohmann::json::parse(read_text(socket)).at("results");
  ASSERT_EQ(sockets.size(), 4U);
  for (const auto& r : sockets) {
    const bool unavailable = r.at("harness") == "published" && r.at("strategy") == "process";
    EXPECT_EQ(r.at("status"), unavailable ? "unavailable" : "measured") << r.dump();
  }
}

// A kept set's run and a run reusing it: input.file_set and setup_ns as the schema has them.
TEST_F(Schema, RealKeptAndReusedSetRuns) {
  const std::string set = work_ / "set";
  const std::vector<std::string> common{"--threads", "1", "--strategy", "threads",
                                        "--repeat",  "2", "--warmup",   "0"};
  std::vector<std::string> keep{"open", "--keep-files", set, "--files", "30"};
  keep.insert(keep.end(), common.begin(), common.end());
  std::vector<std::string> reuse{"open", "--reuse-files", set};
  reuse.insert(reuse.end(), common.begin(), common.end());
  const std::string kept = run_to_file(keep, "kept.json");
  const std::string reused = run_to_file(reuse, "reused.json");
  expect_valid({kept, reused});
  const auto r = nlohmann::json::parse(read_text(reused)).at("results").at(0);
  EXPECT_EQ(r.at("input").at("file_set"), "reused");
  EXPECT_TRUE(r.contains("setup_ns"));
}

TEST_F(Schema, ARealTuneWithItsRecommendation) {
  const std::string file = out_ / "tune.json";
  const RunResult run = run_fdbench(
      {"tune", "--files", "200", "--budget", "1", "--dir", work_.path(), "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_TRUE(nlohmann::json::parse(run.out).contains("recommendation"));
  write_text(file, run.out);
  // The same document by --export-json, written beside another format.
  const std::string exported = out_ / "tune-export.json";
  const RunResult beside =
      run_fdbench({"tune", "--files", "200", "--budget", "1", "--dir", work_.path(), "--format",
                   "csv", "--export-json", exported});
  ASSERT_EQ(beside.exit_code, 0) << beside.err;
  ASSERT_TRUE(nlohmann::json::parse(read_text(exported)).contains("recommendation"));
  expect_valid({file, exported});
}

TEST_F(Schema, AnInterruptedExport) {
  const std::string file = out_ / "cut.json";
  FdbenchProcess child({"open", "--files", "20", "--threads", "1,2,4", "--strategy", "threads,pool",
                        "--repeat", "3000", "--warmup", "0", "--dir", work_.path(), "--export-json",
                        file, "--order", "sequential"});
  ASSERT_TRUE(wait_until([&] { return exists(file); }, std::chrono::seconds(120)));
  child.signal(SIGTERM);
  const RunResult run = child.wait();
  EXPECT_EQ(run.exit_code, 128 + SIGTERM) << run.err;
  EXPECT_EQ(nlohmann::json::parse(read_text(file)).at("complete"), false);
  expect_valid({file});
}

}  // namespace schema_test
}  // namespace fdbench::testing
