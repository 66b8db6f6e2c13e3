// The JSON results reader on hand-built documents: what the json reporter writes comes back
// field for field, and every malformed document is an Error that says where it is wrong.
#include "model/results_json.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "fdbench/error.hpp"
#include "fdbench/tune.hpp"
#include "output/reporter.hpp"
#include "output/results_file.hpp"
#include "output/trace_out.hpp"
#include "support/parse_error.hpp"
#include "support/results.hpp"
#include "support/temp_dir.hpp"

namespace fdbench {
namespace results_json_test {

using testing::ResultBuilder;

// Every field set, with values that test the writer: quotes to escape, RLIM_INFINITY (the
// largest unsigned 64-bit number), the Linux-only fields away from their defaults.
Environment full_environment() {
  Environment env = testing::linux_environment();
  env.kernel = "6.8.0-test";
  env.cpu_model = "Test CPU \"quoted\" @ 2.00GHz";
  env.logical_cpus = 64;
  env.fs_type = "ext4";
  env.rlimit_nofile = {1024, std::numeric_limits<std::uint64_t>::max()};
  env.fdsize_at_start = 256;
  env.io_uring_disabled = 2;
  env.rcu_expedited = 0;
  env.build_type = "Debug";
  env.compiler = "gcc 12.2.0";
  env.liburing_version = "2.3";
  env.libuv_version = "1.44.2";
  env.virtualization = "kvm";
  env.cpu_mitigations = {{"meltdown", "Mitigation: PTI"}, {"spectre_v2", "Not affected"}};
  env.syscall_ns = 1234.5;
  env.cpus_allowed = 48;
  env.cpu_quota = 1.5;
  env.memory_bytes = 137'438'953'472;
  env.fs_mount_options = "rw,relatime,discard";
  env.warnings = {"this fdbench is a Debug build, not Release"};
  return env;
}

// Every optional part of a result present: failures of two kinds, parameters, the input
// summary, warnings; a median that is not a whole number.
Result open_result() {
  InputSummary input;
  input.source = InputSource::list;
  input.origin = "/home/user/files.txt";
  input.layout = "";
  input.flags = "path";
  input.keep_open = true;
  input.files = 9998;
  input.skipped = {{"fifo", 1}, {"directory", 3}};
  input.missing = {{"No such file or directory", 2}};
  input.setup_ns = 1'250'000;  // reading the list
  return ResultBuilder::open("pool-batch", 16)
      .batch(64)
      .ops(10000)
      .warmup(1)
      .times({30'000'000, 10'000'000, 20'000'001})
      .fdsize(64, 128)
      .failed({{EMFILE, 5}, {-1, 2}}, EMFILE)
      .parameters({{"batch", "64"}})
      .input(input)
      .warnings(
          {{WarningKind::leak, "descriptor leak: held {0,1,2} before the run, {0,1,2,3} after"},
           {WarningKind::other, "second"}})
      .holds_descriptors(true)  // kept open
      .timed_region({0, 0, 12, 3});
}

KernelEvidence unavailable_kernel() {
  KernelEvidence k;
  k.reason = "kernel evidence needs root or CAP_PERFMON (it is 2)";
  return k;
}

// Unavailable: no samples, no table sizes.
Result socket_result() {
  return ResultBuilder::socket("uring-direct", 2, "tcp6")
      .pregrow("auto")
      .ops(512)
      .unavailable("io_uring_disabled is 2", 2)
      .kernel(unavailable_kernel());
}

// --kernel-trace's evidence, every field set.
KernelEvidence traced() {
  KernelEvidence k;
  k.available = true;
  k.repetitions = 3;
  k.threads = 2;
  k.window_ns = 4'000'000;
  k.off_cpu_ns = 1'500'000;
  k.off_cpu[static_cast<std::size_t>(OffCpuCause::io_uring_wait)] = 1'000'000;
  k.off_cpu[static_cast<std::size_t>(OffCpuCause::other)] = 500'000;
  k.at_edges_ns = 200'000;
  k.at_edges[static_cast<std::size_t>(OffCpuCause::io_uring_wait)] = 200'000;
  k.switches = 7;
  k.page_faults = 3;
  k.io_uring_punts = 0;
  k.other_stacks = {{"do_nanosleep ← hrtimer_nanosleep", 500'000}};
  k.incomplete = 1;
  k.steal_ns = 20'000'000;
  k.steal_reported = true;
  return k;
}

// The ring features an io_uring strategy records, and uring-direct's way of closing.
Result uring_result() {
  return ResultBuilder::open("uring-direct", 2)
      .batch(64)
      .ops(10000)
      .times({4'000'000, 4'100'000, 3'900'000})
      .fdsize(64, 64)
      .parameters({{"batch", "64"},
                   {"ring_setup", "single_issuer,defer_taskrun"},
                   {"ring_fd", "registered"},
                   {"close", "batched"}})
      .timed_regions({{0, 0, 3, 1}, {2, 0, 5, 0}, {1, 0, 4, 2}})
      .kernel(traced());
}

void expect_same(const Result& a, const Result& b) {
  EXPECT_EQ(a.workload, b.workload);
  EXPECT_EQ(a.config.strategy, b.config.strategy);
  EXPECT_EQ(a.config.threads, b.config.threads);
  EXPECT_EQ(a.runnable_threads, b.runnable_threads);
  EXPECT_EQ(a.config.batch, b.config.batch);
  EXPECT_EQ(a.config.kind, b.config.kind);
  EXPECT_EQ(a.config.pregrow, b.config.pregrow);
  EXPECT_EQ(a.ops, b.ops);
  EXPECT_EQ(a.repeat, b.repeat);
  EXPECT_EQ(a.warmup, b.warmup);
  EXPECT_EQ(a.times_ns, b.times_ns);
  EXPECT_EQ(a.stats.count, b.stats.count);
  EXPECT_EQ(a.stats.min, b.stats.min);
  EXPECT_DOUBLE_EQ(a.stats.median, b.stats.median);
  EXPECT_EQ(a.stats.max, b.stats.max);
  EXPECT_DOUBLE_EQ(a.stats.mean, b.stats.mean);
  EXPECT_DOUBLE_EQ(a.stats.stddev, b.stats.stddev);
  EXPECT_DOUBLE_EQ(a.ops_per_sec, b.ops_per_sec);
  EXPECT_EQ(a.median_ci.lo, b.median_ci.lo);
  EXPECT_EQ(a.median_ci.hi, b.median_ci.hi);
  EXPECT_DOUBLE_EQ(a.median_ci.level, b.median_ci.level);
  EXPECT_EQ(a.median_ci.reached, b.median_ci.reached);
  EXPECT_EQ(a.outliers, b.outliers);
  EXPECT_EQ(a.fdsize_before, b.fdsize_before);
  EXPECT_EQ(a.fdsize_after, b.fdsize_after);
  EXPECT_EQ(a.failures, b.failures);
  EXPECT_EQ(a.first_failure, b.first_failure);
  EXPECT_EQ(a.failures_by_errno, b.failures_by_errno);
  EXPECT_EQ(a.parameters, b.parameters);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.error, b.error);
  EXPECT_EQ(a.warnings, b.warnings);
  EXPECT_EQ(a.workers, b.workers);
  EXPECT_EQ(a.fd_table, b.fd_table);
  EXPECT_EQ(a.reference, b.reference);
  EXPECT_EQ(a.holds_descriptors, b.holds_descriptors);
  EXPECT_EQ(a.unit, b.unit);
  EXPECT_EQ(a.timed_region, b.timed_region);
  EXPECT_EQ(a.auto_repeat, b.auto_repeat);
  EXPECT_EQ(a.kernel, b.kernel);
  ASSERT_EQ(a.input.has_value(), b.input.has_value());
  if (a.input) {
    EXPECT_EQ(a.input->source, b.input->source);
    EXPECT_EQ(a.input->origin, b.input->origin);
    EXPECT_EQ(a.input->layout, b.input->layout);
    EXPECT_EQ(a.input->flags, b.input->flags);
    EXPECT_EQ(a.input->keep_open, b.input->keep_open);
    EXPECT_EQ(a.input->files, b.input->files);
    EXPECT_EQ(a.input->skipped, b.input->skipped);
    EXPECT_EQ(a.input->missing, b.input->missing);
    EXPECT_EQ(a.input->setup_ns, b.input->setup_ns);
  }
}

// A parse can be ended from outside (compare and report end it at a signal): the poll is
// called while the text is parsed, not only once it is, and what it throws comes out as it is.
TEST(ResultsJson, APollThatThrowsEndsTheParse) {
  Result big = open_result();
  big.times_ns.assign(100'000, 1'000'000);
  const std::vector<Result> results{big};
  const std::string text = to_json_document(full_environment(), results);
  struct Stop {};
  int polls = 0;
  EXPECT_THROW(parse_results_json(text,
                                  [&polls] {
                                    if (++polls == 2) throw Stop{};
                                  }),
               Stop);
  EXPECT_EQ(polls, 2);
  int all = 0;
  EXPECT_EQ(parse_results_json(text, [&all] { ++all; }).results.size(), 1U);
  EXPECT_GE(all, 3);  // every so many of its 100,000 values, and once for the result
}

TEST(ResultsJson, RoundTripKeepsEveryField) {
  const Environment env = full_environment();
  const std::vector<Result> results{open_result(), socket_result(), uring_result()};
  const ResultsDocument doc = parse_results_json(to_json_document(env, results));
  EXPECT_EQ(doc.schema_version, kSchemaVersion);
  EXPECT_FALSE(doc.tool_version.empty());
  EXPECT_TRUE(doc.complete);
  EXPECT_EQ(doc.environment.os, env.os);
  EXPECT_EQ(doc.environment.kernel, env.kernel);
  EXPECT_EQ(doc.environment.cpu_model, env.cpu_model);
  EXPECT_EQ(doc.environment.logical_cpus, env.logical_cpus);
  EXPECT_EQ(doc.environment.fs_type, env.fs_type);
  EXPECT_EQ(doc.environment.rlimit_nofile.soft, env.rlimit_nofile.soft);
  EXPECT_EQ(doc.environment.rlimit_nofile.hard, env.rlimit_nofile.hard);
  EXPECT_EQ(doc.environment.fdsize_at_start, env.fdsize_at_start);
  EXPECT_EQ(doc.environment.io_uring_disabled, env.io_uring_disabled);
  EXPECT_EQ(doc.environment.rcu_expedited, env.rcu_expedited);
  EXPECT_EQ(doc.environment.build_type, env.build_type);
  EXPECT_EQ(doc.environment.compiler, env.compiler);
  EXPECT_EQ(doc.environment.liburing_version, env.liburing_version);
  EXPECT_EQ(doc.environment.libuv_version, env.libuv_version);
  EXPECT_EQ(doc.environment.virtualization, env.virtualization);
  EXPECT_EQ(doc.environment.cpu_mitigations, env.cpu_mitigations);
  EXPECT_EQ(doc.environment.syscall_ns, env.syscall_ns);
  EXPECT_EQ(doc.environment.cpus_allowed, env.cpus_allowed);
  EXPECT_EQ(doc.environment.cpu_quota, env.cpu_quota);
  EXPECT_EQ(doc.environment.memory_bytes, env.memory_bytes);
  EXPECT_EQ(doc.environment.fs_mount_options, env.fs_mount_options);
  EXPECT_EQ(doc.environment.warnings, env.warnings);
  ASSERT_EQ(doc.results.size(), results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    SCOPED_TRACE(i);
    expect_same(doc.results[i], results[i]);
  }
}

// The run's context: written at the top level and read back as it was, the load before and
// after with it; a part of the load the system did not tell stays absent.
TEST(ResultsJson, TheRunsContextComesBack) {
  RunContext context = testing::run_context();
  const std::vector<Result> results{open_result()};
  const auto text = to_json_document(full_environment(), results, {}, &context);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j.at("context").at("date"), "2026-12-05T09:14:03Z");
  EXPECT_EQ(j.at("context").at("command_line"), nlohmann::json(context.command_line));
  EXPECT_TRUE(j.at("context").at("user").is_number_integer());
  EXPECT_EQ(j.at("context").at("load_before").at("load_average"),
            nlohmann::json::parse("[0.5, 0.25, 0.125]"));
  EXPECT_TRUE(
      j.at("context").at("load_after").at("cpu_pressure").at("some_total_us").is_number_integer());
  ASSERT_TRUE(parse_results_json(text).context.has_value());
  EXPECT_EQ(*parse_results_json(text).context, context);

  context.load_before->cpu_pressure.reset();  // no /proc/pressure/cpu
  context.load_after.reset();                 // an export rewritten while the run goes on
  const auto partial = to_json_document(full_environment(), results, {}, &context);
  EXPECT_FALSE(
      nlohmann::json::parse(partial).at("context").at("load_before").contains("cpu_pressure"));
  EXPECT_FALSE(nlohmann::json::parse(partial).at("context").contains("load_after"));
  EXPECT_EQ(*parse_results_json(partial).context, context);
}

// Documents of schema 1 and 2 had no context: none is made up for them.
TEST(ResultsJson, OlderDocumentsHaveNoContext) {
  auto j = nlohmann::json::parse(
      to_json_document(full_environment(), std::vector<Result>{open_result()}));
  EXPECT_FALSE(j.contains("context"));
  for (const int version : {1, 2}) {
    j["schema_version"] = version;
    const ResultsDocument doc = parse_results_json(j.dump());
    EXPECT_EQ(doc.schema_version, version);
    EXPECT_FALSE(doc.context.has_value());
    EXPECT_EQ(doc.results.size(), 1U);
  }
}

// A version 2 document as fdbench 0.1 wrote it: counts in findings and medians as numbers
// with a fraction, no subjects, no context. It reads, and its counts equal the integers.
TEST(ResultsJson, AVersionTwoDocumentWithFloatCountsReads) {
  auto j = nlohmann::json::parse(
      to_json_document(full_environment(), std::vector<Result>{open_result()}));
  j["schema_version"] = 2;
  j["results"][0]["median_ns"] = 9211781.5;
  j["results"][0]["mean_ns"] = 9211781.25;
  j["findings"] = nlohmann::json::parse(R"([{"kind": "tied", "text": "Opening files: ...",
      "numbers": {"threads": 2.0, "tied_with": 4.0, "median_ns": 9211781.5}}])");
  const ResultsDocument doc = parse_results_json(j.dump());
  ASSERT_EQ(doc.findings.size(), 1U);
  EXPECT_EQ(doc.findings[0].numbers.at("threads"), 2);
  EXPECT_EQ(doc.findings[0].numbers.at("tied_with"), 4);
  EXPECT_DOUBLE_EQ(doc.findings[0].numbers.at("median_ns"), 9211781.5);
  EXPECT_TRUE(doc.findings[0].subjects.empty());
}

// Counts and whole nanoseconds are JSON integers: a result's median, mean and deviation (the
// median of an even number of repetitions rounded), and a finding's counts.
TEST(ResultsJson, CountsAndNanosecondsAreIntegers) {
  const Result r =
      testing::ResultBuilder::open("threads", 2).ops(100).times({1000, 1001, 1004, 1005});
  Finding f{"tied", "text", {{"threads", 2}, {"tied_with", std::size_t{4}}, {"ratio", 1.5}}, {}};
  const auto j = nlohmann::json::parse(
      to_json_document(full_environment(), std::vector<Result>{r}, std::vector<Finding>{f}));
  const auto& result = j.at("results").at(0);
  for (const char* name : {"median_ns", "mean_ns", "stddev_ns", "min_ns", "max_ns"}) {
    EXPECT_TRUE(result.at(name).is_number_integer()) << name << ": " << result.at(name);
  }
  EXPECT_EQ(result.at("median_ns"), 1003);  // 1002.5, to the whole nanosecond
  const auto& numbers = j.at("findings").at(0).at("numbers");
  EXPECT_EQ(numbers.at("threads").dump(), "2");
  EXPECT_EQ(numbers.at("tied_with").dump(), "4");
  EXPECT_EQ(numbers.at("ratio").dump(), "1.5");
  const ResultsDocument doc = parse_results_json(j.dump());
  EXPECT_TRUE(doc.findings.at(0).numbers.at("threads").is_integer());
  EXPECT_EQ(doc.findings.at(0), f);
}

// A socket subject of 2 threads, as the reader gives it back (its paths relative).
FindingSubject subject_of(std::string role, std::string_view pregrow, std::optional<int> rcu) {
  FindingSubject s{std::move(role), "socket", {}};
  s.config.kind = DescriptorKind::tcp;
  s.config.strategy = "threads";
  s.config.threads = 2;
  EXPECT_TRUE(parse_pregrow(pregrow, s.config.pregrow));
  s.config.rcu_expedited = rcu;
  s.config.paths = PathMode::relative;
  return s;
}

// A finding's subjects are written as fields and come back as they were.
TEST(ResultsJson, FindingSubjectsComeBack) {
  Finding f{"pregrow",
            "text",
            {{"threads", 2}},
            {subject_of("not-pregrown", "off", 1), subject_of("pregrown", "auto", std::nullopt)}};
  const auto text = to_json_document(full_environment(), std::vector<Result>{open_result()},
                                     std::vector<Finding>{f});
  const auto subjects = nlohmann::json::parse(text).at("findings").at(0).at("subjects");
  ASSERT_EQ(subjects.size(), 2U);
  EXPECT_EQ(subjects[0].at("pregrow"), "off");
  EXPECT_EQ(subjects[0].at("rcu_expedited"), 1);
  EXPECT_EQ(subjects[1].at("role"), "pregrown");
  EXPECT_FALSE(subjects[1].contains("rcu_expedited"));
  EXPECT_EQ(parse_results_json(text).findings.at(0), f);
}

TEST(ResultsJson, LatencyPerSubmissionComesBack) {
  Result r = ResultBuilder::open("uring", 2).batch(64).ops(10000).times({4'000'000});
  Latency l;
  l.ns[kSubmitOp] = {300, 90'000, 120'000, 400'000, 900'000, 7'000'000};
  l.ns[kSubmitCloseOp] = {300, 40'000, 50'000, 80'000, 90'000, 100'000};
  l.growth_events.push_back({0, 1, 64, 130, 7'000'000, 128, 256, true});
  l.growth_totals = {1, 7'000'000, 0.5};
  l.stalls.push_back({0, 1, 64, kSubmitOp, 130, 7'000'000, "fd-table-growth", std::nullopt});
  l.stall_totals = {1, 7'000'000, 0.5};
  r.latency = l;
  r.parameters["latency"] = per_submission_note(64);
  const ResultsDocument doc =
      parse_results_json(to_json_document(full_environment(), std::vector<Result>{r}));
  ASSERT_EQ(doc.results.size(), 1U);
  ASSERT_TRUE(doc.results[0].latency.has_value());
  EXPECT_EQ(*doc.results[0].latency, l);
  EXPECT_EQ(doc.results[0].parameters.at("latency"), per_submission_note(64));
}

// Every stall's cause and each repetition's count come back; a document before schema 9 has
// neither, and its listed stalls' causes are all it tells.
TEST(ResultsJson, StallCausesAndEachRepetitionsStallsComeBack) {
  Result r = ResultBuilder::socket("threads", 2).ops(512).times({40'000'000, 30'000'000});
  Latency l;
  l.ns["create"] = {1024, 3000, 4000, 60000, 7'000'000, 7'000'000};
  l.stalls.push_back({0, 1, 64, "create", 66, 7'000'000, "preempted", 6'000'000});
  l.stall_totals = {3, 21'000'000, 0.3};
  l.stall_causes = {{"preempted", {2, 14'000'000, 2}}, {"on-cpu", {1, 7'000'000, 1}}};
  l.stalls_per_repetition = {1, 2};
  r.latency = l;
  const std::string text = to_json_document(full_environment(), std::vector<Result>{r});
  const auto written = nlohmann::json::parse(text).at("results").at(0);
  EXPECT_EQ(written.at("stall_causes").at("preempted").at("from_kernel"), 2);
  EXPECT_EQ(written.at("stalls_per_repetition").dump(), "[1,2]");
  EXPECT_EQ(*parse_results_json(text).results.at(0).latency, l);
  auto older = nlohmann::json::parse(text);
  older["schema_version"] = 8;
  older["results"][0].erase("stall_causes");
  older["results"][0].erase("stalls_per_repetition");
  const Latency read = *parse_results_json(older.dump()).results.at(0).latency;
  EXPECT_EQ(read.stall_causes,
            (std::map<std::string, StallCause>{{"preempted", {1, 7'000'000, 1}}}));
  EXPECT_TRUE(read.stalls_per_repetition.empty());
}

// A reused kept set: the input says which set it was, and the result's setup_ns (where the
// schema puts it) how long checking it took; both come back.
TEST(ResultsJson, SetupTimeAndFileSetAreWrittenAndComeBack) {
  InputSummary input;
  input.origin = "/scratch/set-10k";
  input.layout = "dirs:4";
  input.files = 10000;
  input.source = InputSource::reused;
  input.setup_ns = 45'000'000;
  const std::vector<Result> results{
      ResultBuilder::open("threads", 2).ops(10000).times({1000, 2000}).input(input)};
  const std::string text = to_json_document(full_environment(), results);
  const auto json = nlohmann::json::parse(text).at("results").at(0);
  EXPECT_EQ(json.at("setup_ns"), 45'000'000);
  EXPECT_EQ(json.at("input").at("file_set"), "reused");
  EXPECT_FALSE(json.at("input").contains("setup_ns"));
  const auto back = parse_results_json(text).results.at(0);
  ASSERT_TRUE(back.input.has_value());
  EXPECT_EQ(back.input->setup_ns, std::optional<std::int64_t>(45'000'000));
  EXPECT_EQ(back.input->source, InputSource::reused);

  // Documents from before either field read as unknown.
  auto older = nlohmann::json::parse(text);
  older["results"][0].erase("setup_ns");
  older["results"][0]["input"].erase("file_set");
  const auto old = parse_results_json(older.dump()).results.at(0);
  EXPECT_EQ(old.input->setup_ns, std::nullopt);
  EXPECT_EQ(old.input->source, InputSource::generated);
}

TEST(ResultsJson, AnEnvironmentWithoutTheLaterFieldsReadsAsUnknown) {
  auto j = nlohmann::json::parse(to_json_document(full_environment(), std::vector<Result>{}));
  for (const char* key : {"build_type", "compiler", "liburing_version", "libuv_version",
                          "virtualization", "cpu_mitigations", "syscall_ns", "cpus_allowed",
                          "cpu_quota", "memory_bytes", "fs_mount_options", "warnings"}) {
    ASSERT_EQ(j["environment"].erase(key), 1U) << key;
  }
  const Environment env = parse_results_json(j.dump()).environment;
  EXPECT_EQ(env.build_type, "unknown");
  EXPECT_EQ(env.compiler, "unknown");
  EXPECT_EQ(env.virtualization, "unknown");
  EXPECT_EQ(env.liburing_version, std::nullopt);
  EXPECT_TRUE(env.cpu_mitigations.empty());
  EXPECT_EQ(env.syscall_ns, std::nullopt);
  EXPECT_EQ(env.cpu_quota, std::nullopt);
  EXPECT_EQ(env.memory_bytes, std::nullopt);
  EXPECT_EQ(env.fs_mount_options, std::nullopt);
  EXPECT_TRUE(env.warnings.empty());
}

TEST(ResultsJson, RoundTripOfAnEmptyAndOfAnInterruptedRun) {
  EXPECT_TRUE(parse_results_json(to_json_document(full_environment(), std::vector<Result>{}))
                  .results.empty());

  // What the json reporter writes after Ctrl-C.
  std::ostringstream out;
  const auto reporter = make_reporter("json", out);
  ASSERT_NE(reporter, nullptr);
  const std::vector<Result> finished{open_result()};
  reporter->begin(full_environment());
  reporter->add(finished[0]);
  const std::vector<Finding> concluded{
      {"fastest", "`threads` was fastest.", {{"median_ns", 1.5e6}, {"threads", 2}}, {}},
      {"unavailable", "1 combination could not run here.", {}, {}}};
  reporter->end(finished, concluded, false);
  const ResultsDocument doc = parse_results_json(out.str());
  EXPECT_FALSE(doc.complete);
  ASSERT_EQ(doc.results.size(), 1U);
  expect_same(doc.results[0], finished[0]);
  EXPECT_TRUE(doc.findings_recorded);
  EXPECT_EQ(doc.findings, concluded);  // kinds, texts and numbers come back as they were
}

TEST(ResultsJson, ADocumentWithoutFindingsSaysSo) {
  auto j = nlohmann::json::parse(to_json_document(full_environment(), std::vector<Result>{}));
  j.erase("findings");
  const ResultsDocument doc = parse_results_json(j.dump());
  EXPECT_FALSE(doc.findings_recorded);
  j["findings"] = {{{"kind", "fastest"}, {"text", "x"}, {"numbers", {{"median_ns", "fast"}}}}};
  try {
    (void)parse_results_json(j.dump());
    ADD_FAILURE() << "a finding's number that is text was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "findings[0].numbers.median_ns: expected a number");
  }
}

TEST(ResultsJson, EveryStatusAndWarningKindComesBack) {
  const Result cut = ResultBuilder::open("threads", 1).ops(10).times({5, 6}).cut_short(9);
  const Result failed =
      ResultBuilder::open("process", 2).ops(10).ended(Status::failed, "worker 1 died", 3);
  const Result timed_out =
      ResultBuilder::open("pool", 2).ops(10).ended(Status::timed_out, "threads: ...", 3);
  const Result hung = ResultBuilder::open("pool", 4).ops(10).ended(Status::hung, "pool: ...", 3);
  const std::vector<Result> results{cut, failed, timed_out, hung, socket_result()};
  const std::string text = to_json_document(full_environment(), results);
  const auto written = nlohmann::json::parse(text).at("results");
  EXPECT_EQ(written[0].at("status"), "cut-short");
  EXPECT_EQ(written[0].at("warning_kinds"), nlohmann::json({"cut-short"}));
  EXPECT_EQ(written[1].at("status"), "failed");
  EXPECT_EQ(written[2].at("status"), "timed-out");
  EXPECT_EQ(written[3].at("status"), "hung");
  EXPECT_EQ(written[4].at("status"), "unavailable");
  const ResultsDocument doc = parse_results_json(text);
  ASSERT_EQ(doc.results.size(), results.size());
  for (std::size_t i = 0; i < results.size(); ++i) expect_same(doc.results[i], results[i]);
}

// The timed region's counts are the medians per repetition, written as integers, and come back;
// the page faults among them make a typed warning.
TEST(ResultsJson, TheTimedRegionIsWrittenAsIntegersAndComesBack) {
  const Result r = uring_result();
  ASSERT_TRUE(r.timed_region.has_value());
  EXPECT_EQ(*r.timed_region, (TimedRegion{1, 0, 4, 1}));
  const std::string text = to_json_document(full_environment(), std::vector<Result>{r});
  const auto written = nlohmann::json::parse(text).at("results").at(0).at("timed_region");
  for (const char* count :
       {"minor_faults", "major_faults", "voluntary_switches", "involuntary_switches"}) {
    EXPECT_TRUE(written.at(count).is_number_unsigned()) << count << " = " << written.at(count);
  }
  EXPECT_EQ(written.at("minor_faults"), 1);
  EXPECT_EQ(written.at("voluntary_switches"), 4);
  const ResultsDocument doc = parse_results_json(text);
  ASSERT_EQ(doc.results.size(), 1U);
  EXPECT_EQ(doc.results[0].timed_region, r.timed_region);
  EXPECT_TRUE(doc.results[0].has_warning(WarningKind::page_faults));
  EXPECT_EQ(doc.results[0].warnings, r.warnings);  // read back, not warned twice
}

// A result whose regions were not counted leaves the field out, and reads back as not counted.
TEST(ResultsJson, ATimedRegionNotCountedIsLeftOut) {
  const Result r = ResultBuilder::open("threads", 2).ops(10).times({5, 6});
  const std::string text = to_json_document(full_environment(), std::vector<Result>{r});
  EXPECT_FALSE(nlohmann::json::parse(text).at("results").at(0).contains("timed_region"));
  EXPECT_FALSE(parse_results_json(text).results.at(0).timed_region.has_value());
}

// Documents of schema 1 and 2 had no timed region: their results read as not counted, not as
// zero counts, and warn of nothing.
TEST(ResultsJson, OlderDocumentsHaveNoTimedRegion) {
  for (const int version : {1, 2}) {
    SCOPED_TRACE(version);
    auto j = nlohmann::json::parse(
        to_json_document(full_environment(), std::vector<Result>{uring_result()}));
    j["schema_version"] = version;
    j["results"][0].erase("timed_region");
    j["results"][0].erase("warnings");
    j["results"][0].erase("warning_kinds");
    const ResultsDocument doc = parse_results_json(j.dump());
    ASSERT_EQ(doc.results.size(), 1U);
    EXPECT_FALSE(doc.results[0].timed_region.has_value());
    EXPECT_FALSE(doc.results[0].has_warning(WarningKind::page_faults));
  }
}

// A document of schema 1 had no status and no warning kinds: the reader derives both, once,
// from the words schema 1 wrote.
TEST(ResultsJson, AVersionOneDocumentGetsItsStatusAndWarningKindsFromItsWords) {
  auto j = nlohmann::json::parse(to_json_document(
      full_environment(),
      // Noisy by today's rule too (±80%), which judges the warning again as it is read.
      std::vector<Result>{ResultBuilder::open("threads", 1).ops(10).times({1, 5, 5, 5, 5, 9}),
                          socket_result(), socket_result(), socket_result()}));
  j["schema_version"] = 1;
  for (auto& r : j["results"]) {
    r.erase("status");
    r.erase("warning_kinds");
  }
  auto& r = j["results"];
  r[0]["warnings"] = {"interrupted: 6 of 10 timed repetitions ran", "noisy: spread"};
  r[1]["error"] = "timed out: threads, 1 thread: repetition 1 of 2 did not finish within 5 s";
  r[2]["error"] = "hung: threads, 1 thread: repetition 1 of 2 was still running";
  const ResultsDocument doc = parse_results_json(j.dump());
  ASSERT_EQ(doc.results.size(), 4U);
  EXPECT_EQ(doc.results[0].status, Status::cut_short);
  ASSERT_EQ(doc.results[0].warnings.size(), 2U);
  EXPECT_EQ(doc.results[0].warnings[0].kind, WarningKind::cut_short);
  EXPECT_EQ(doc.results[0].warnings[1].kind, WarningKind::noisy);
  EXPECT_EQ(doc.results[1].status, Status::timed_out);
  EXPECT_EQ(doc.results[1].error, "threads, 1 thread: repetition 1 of 2 did not finish within 5 s");
  EXPECT_EQ(doc.results[2].status, Status::hung);
  EXPECT_EQ(doc.results[3].status, Status::unavailable);
  EXPECT_EQ(doc.results[3].error, "io_uring_disabled is 2");
}

TEST(ResultsJson, NoiseFieldsAreWrittenAndComeBack) {
  Result r = open_result();
  r.warnings.clear();
  r.times_ns = {10, 11, 10, 12, 11, 10, 50, 11, 10, 12};  // ten, one far too slow
  finalize(r);
  ASSERT_EQ(r.outliers, std::vector<std::size_t>{6});
  ASSERT_TRUE(r.median_ci.reached);
  const std::string text = to_json_document(full_environment(), std::vector<Result>{r});
  const auto written = nlohmann::json::parse(text).at("results").at(0);
  EXPECT_EQ(written.at("median_ci_ns"), nlohmann::json({10, 12}));  // x(2) and x(9)
  EXPECT_DOUBLE_EQ(written.at("median_ci_level").get<double>(), 1 - 22.0 / 1024);
  EXPECT_EQ(written.at("outliers"), nlohmann::json({6}));
  // Min–max is 40 / 11, but the 95% interval [10, 12] reaches ±1 / 11 of the median, ±9.1%:
  // not noisy.
  EXPECT_FALSE(written.contains("warnings"));
  const ResultsDocument doc = parse_results_json(text);
  ASSERT_EQ(doc.results.size(), 1U);
  expect_same(doc.results[0], r);
}

TEST(ResultsJson, PrecisionIsWrittenAndTheAutoRepeatGoalComesBack) {
  Result r = open_result();
  r.warnings.clear();
  r.times_ns = {100, 101, 99, 100, 102, 98, 100, 101};
  r.repeat = 8;
  r.auto_repeat = AutoRepeat{0.03, 2.5, RepeatStop::precision};
  finalize(r);
  const std::string text = to_json_document(full_environment(), std::vector<Result>{r});
  const auto p = nlohmann::json::parse(text).at("results").at(0).at("precision");
  ASSERT_TRUE(r.precision().has_value());
  EXPECT_DOUBLE_EQ(p.at("half_width").get<double>(), *r.precision());
  EXPECT_DOUBLE_EQ(p.at("target").get<double>(), 0.03);
  EXPECT_DOUBLE_EQ(p.at("max_time_s").get<double>(), 2.5);
  EXPECT_TRUE(p.at("met").get<bool>());
  EXPECT_EQ(p.at("stopped_by"), "precision");
  const ResultsDocument doc = parse_results_json(text);
  ASSERT_EQ(doc.results.size(), 1U);
  expect_same(doc.results[0], r);

  // A fixed --repeat writes how precise the median is and nothing of a goal; below six
  // repetitions there is no 95% interval to say it with.
  r.auto_repeat.reset();
  r.times_ns = {100, 200, 150};
  r.repeat = 3;
  finalize(r);
  const auto few =
      nlohmann::json::parse(to_json_document(full_environment(), std::vector<Result>{r}))
          .at("results")
          .at(0)
          .at("precision");
  EXPECT_EQ(few, nlohmann::json({{"half_width", nullptr}}));
  EXPECT_FALSE(parse_results_json(to_json_document(full_environment(), std::vector<Result>{r}))
                   .results[0]
                   .auto_repeat.has_value());
}

// tune's combinations stop at their share of --budget, which is nothing left once it is spent.
TEST(ResultsJson, AStopAtAShareOfTheBudgetComesBack) {
  Result r = open_result();
  r.warnings.clear();
  r.times_ns = {100, 130, 70, 100, 100, 120, 80};
  r.repeat = 7;
  r.auto_repeat = AutoRepeat{0.03, 0, RepeatStop::budget};
  finalize(r);
  const std::string text = to_json_document(full_environment(), std::vector<Result>{r});
  const auto p = nlohmann::json::parse(text).at("results").at(0).at("precision");
  EXPECT_EQ(p.at("stopped_by"), "budget");
  EXPECT_DOUBLE_EQ(p.at("max_time_s").get<double>(), 0);
  EXPECT_FALSE(p.at("met").get<bool>());
  const ResultsDocument doc = parse_results_json(text);
  ASSERT_EQ(doc.results.size(), 1U);
  expect_same(doc.results[0], r);
}

TEST(ResultsJson, AnUnknownReasonToStopIsAnErrorThatSaysWhere) {
  Result r = open_result();
  r.auto_repeat = AutoRepeat{0.03, 3, RepeatStop::max_time};
  finalize(r);
  auto doc = nlohmann::json::parse(to_json_document(full_environment(), std::vector<Result>{r}));
  doc["results"][0]["precision"]["stopped_by"] = "boredom";
  try {
    parse_results_json(doc.dump());
    FAIL() << "an unknown stopped_by was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("results[0].precision.stopped_by"), std::string::npos)
        << e.what();
  }
}

TEST(ResultsJson, UnknownFieldsAreIgnored) {
  auto j = nlohmann::json::parse(
      to_json_document(full_environment(), std::vector<Result>{open_result()}));
  j["added_later"] = {1, 2, 3};
  j["results"][0]["new_metric"] = "x";
  const ResultsDocument doc = parse_results_json(j.dump());
  ASSERT_EQ(doc.results.size(), 1U);
  expect_same(doc.results[0], open_result());
}

TEST(ResultsJson, PropertiesOfAStrategyNotRegisteredHereComeBackAsWritten) {
  Result r = socket_result();
  r.config.strategy = "forked-loop";
  r.workers = WorkerKind::processes;
  r.fd_table = FdTable::per_worker;
  r.reference = true;
  const ResultsDocument doc =
      parse_results_json(to_json_document(full_environment(), std::vector<Result>{r}));
  ASSERT_EQ(doc.results.size(), 1U);
  expect_same(doc.results[0], r);
}

// Documents written before results recorded what their strategy and workload are: the
// registry knows the strategies, and only open results carried an input record.
TEST(ResultsJson, OlderDocumentsGetTheProperties) {
  Result process = socket_result();
  process.config.strategy = "process";
  process.error.clear();
  Result threads = open_result();
  threads.config.strategy = "threads";
  threads.input->keep_open = false;
  auto j = nlohmann::json::parse(
      to_json_document(full_environment(), std::vector<Result>{process, threads}));
  for (auto& result : j["results"]) {
    for (const char* field : {"workers", "fd_table", "reference", "holds_descriptors", "unit"}) {
      result.erase(field);
    }
  }
  const ResultsDocument doc = parse_results_json(j.dump());
  ASSERT_EQ(doc.results.size(), 2U);
  const Result& p = doc.results[0];
  EXPECT_EQ(p.workers, WorkerKind::processes);
  EXPECT_EQ(p.fd_table, FdTable::per_worker);
  EXPECT_FALSE(p.reference);
  EXPECT_TRUE(p.holds_descriptors);
  EXPECT_EQ(p.unit, "fds");
  const Result& t = doc.results[1];
  EXPECT_EQ(t.workers, WorkerKind::threads);
  EXPECT_EQ(t.fd_table, FdTable::shared);
  EXPECT_TRUE(t.reference);
  EXPECT_FALSE(t.holds_descriptors);
  EXPECT_EQ(t.unit, "files");
}

// The typed settings come back as written, and a document from before they were recorded
// gets them once: the batch's unit and whether tune may recommend it from the strategies of
// that time, the workload's kind from the input record, rcu_expedited from its parameter.
TEST(ResultsJson, TypedSettingsComeBackAndOlderDocumentsGetThem) {
  Result pool = socket_result();
  pool.config.strategy = "pool";
  pool.error.clear();
  pool.recommendable = false;
  pool.config.rcu_expedited = 0;
  ASSERT_TRUE(parse_pregrow("1023", pool.config.pregrow));
  Result uring = open_result();
  uring.config.strategy = "uring";
  uring.batch_unit = BatchUnit::submission;
  uring.workload_kind = WorkloadKind::open;
  const std::string text = to_json_document(full_environment(), std::vector<Result>{pool, uring});
  const ResultsDocument now = parse_results_json(text);
  ASSERT_EQ(now.results.size(), 2U);
  EXPECT_EQ(now.results[0].config.pregrow, (Pregrow{Pregrow::Mode::fd, 1023}));
  EXPECT_EQ(now.results[0].config.rcu_expedited, 0);
  EXPECT_FALSE(now.results[0].recommendable);
  EXPECT_EQ(now.results[0].workload_kind, WorkloadKind::create);
  EXPECT_EQ(now.results[1].batch_unit, BatchUnit::submission);
  EXPECT_EQ(now.results[1].workload_kind, WorkloadKind::open);
  EXPECT_TRUE(now.results[1].recommendable);
  EXPECT_EQ(now.results[1].config.rcu_expedited, std::nullopt);

  auto j = nlohmann::json::parse(text);
  for (auto& result : j["results"]) {
    for (const char* field : {"batch_unit", "workload_kind", "recommendable", "rcu_expedited"}) {
      result.erase(field);
    }
  }
  j["results"][0]["parameters"]["rcu_expedited"] = "1";
  const ResultsDocument old = parse_results_json(j.dump());
  ASSERT_EQ(old.results.size(), 2U);
  EXPECT_EQ(old.results[0].config.rcu_expedited, 1);
  EXPECT_EQ(old.results[0].parameters.count("rcu_expedited"), 0U);
  EXPECT_FALSE(old.results[0].recommendable);
  EXPECT_EQ(old.results[0].batch_unit, BatchUnit::none);
  EXPECT_EQ(old.results[0].workload_kind, WorkloadKind::create);
  EXPECT_EQ(old.results[1].batch_unit, BatchUnit::submission);
  EXPECT_EQ(old.results[1].workload_kind, WorkloadKind::open);
  EXPECT_TRUE(old.results[1].recommendable);

  j["results"][0]["pregrow"] = "sometimes";
  EXPECT_THROW(parse_results_json(j.dump()), Error);
}

TEST(ResultsJson, RunnableThreadsComeBackAsWritten) {
  Result pool = open_result();  // pool-batch, 16 threads: the caller waits beside them
  ASSERT_EQ(pool.runnable_threads, 17);
  Result unknown = open_result();
  unknown.config.strategy = "a-later-strategy";
  unknown.runnable_threads = 40;
  const ResultsDocument doc =
      parse_results_json(to_json_document(full_environment(), std::vector<Result>{pool, unknown}));
  ASSERT_EQ(doc.results.size(), 2U);
  EXPECT_EQ(doc.results[0].runnable_threads, 17);
  EXPECT_EQ(doc.results[1].runnable_threads, 40);
}

// Written before runnable_threads was recorded: the registry's count for a known strategy,
// the thread count for one this build does not know.
TEST(ResultsJson, OlderDocumentsGetRunnableThreadsFromTheRegistry) {
  Result pool = open_result();
  Result libuv = open_result();
  libuv.config.strategy = "libuv";
  Result threads = open_result();
  threads.config.strategy = "threads";
  Result unknown = open_result();
  unknown.config.strategy = "a-later-strategy";
  auto j = nlohmann::json::parse(
      to_json_document(full_environment(), std::vector<Result>{pool, libuv, threads, unknown}));
  for (auto& result : j["results"]) result.erase("runnable_threads");
  const ResultsDocument doc = parse_results_json(j.dump());
  ASSERT_EQ(doc.results.size(), 4U);
  EXPECT_EQ(doc.results[0].runnable_threads, 17);
  EXPECT_EQ(doc.results[1].runnable_threads, 17);
  EXPECT_EQ(doc.results[2].runnable_threads, 16);
  EXPECT_EQ(doc.results[3].runnable_threads, 16);
}

TEST(ResultsJson, FailuresByErrnoCarryNameCountAndMessage) {
  const auto j = nlohmann::json::parse(
      to_json_document(full_environment(), std::vector<Result>{open_result()}));
  const auto& emfile = j["results"][0]["failures_by_errno"]["EMFILE"];
  EXPECT_EQ(emfile["count"], 5);
  EXPECT_EQ(emfile["message"], "Too many open files");
}

TEST(ResultsJson, FailuresByErrnoAsBareCountsFromOlderVersionsAreRead) {
  auto j = nlohmann::json::parse(
      to_json_document(full_environment(), std::vector<Result>{open_result()}));
  j["results"][0]["failures_by_errno"] = {{"Too many open files", 7}};
  const ResultsDocument doc = parse_results_json(j.dump());
  ASSERT_EQ(doc.results.size(), 1U);
  const std::map<std::string, ErrnoCount> expected{{"Too many open files", {7, ""}}};
  EXPECT_EQ(doc.results[0].failures_by_errno, expected);
}

TEST(ResultsJson, KernelEvidenceBeforeSchemaEightHasNoEdgesToldApart) {
  auto j = nlohmann::json::parse(
      to_json_document(full_environment(), std::vector<Result>{uring_result()}));
  auto& kernel = j["results"][0]["kernel"];
  EXPECT_EQ(kernel.at("at_edges_ns"), 200'000);
  EXPECT_EQ(kernel.at("at_edges_by_cause_ns").at("io_uring-wait"), 200'000);
  j["schema_version"] = 7;
  kernel.erase("at_edges_ns");
  kernel.erase("at_edges_by_cause_ns");
  const ResultsDocument doc = parse_results_json(j.dump());
  ASSERT_EQ(doc.results.size(), 1U);
  ASSERT_TRUE(doc.results[0].kernel);
  EXPECT_EQ(doc.results[0].kernel->at_edges_ns, 0);
  EXPECT_EQ(doc.results[0].kernel->in_work_ns(), 1'500'000) << "all of it counts as in the work";
}

using testing::parse_error_of;

nlohmann::json valid_document() {
  return nlohmann::json::parse(
      to_json_document(full_environment(), std::vector<Result>{open_result(), socket_result()}));
}

struct Malformed {
  const char* what;
  std::string text;
  std::vector<std::string> parts;  // the message names the place and the problem
};

// A valid document changed by `change`, and what the error must name.
template <typename Change>
Malformed edited(const char* what, Change change, std::vector<std::string> parts) {
  auto j = valid_document();
  change(j);
  return {what, j.dump(), std::move(parts)};
}

// Results the reader must refuse, each in an otherwise valid document.
std::vector<Malformed> malformed_results() {
  return {
      edited("missing result field", [](auto& j) { j["results"][1].erase("threads"); },
             {"results[1].threads", "missing"}),
      edited("times not an array", [](auto& j) { j["results"][0]["times_ns"] = "fast"; },
             {"results[0].times_ns", "array of integers"}),
      edited("a time not an integer", [](auto& j) { j["results"][0]["times_ns"][1] = 1.5; },
             {"results[0].times_ns", "array of integers"}),
      edited("threads a string", [](auto& j) { j["results"][0]["threads"] = "16"; },
             {"results[0].threads", "expected an integer"}),
      edited("threads out of range", [](auto& j) { j["results"][0]["threads"] = 1LL << 40; },
             {"results[0].threads", "out of range"}),
      edited("workload a number", [](auto& j) { j["results"][0]["workload"] = 1; },
             {"results[0].workload", "expected a string"}),
      edited("negative count", [](auto& j) { j["results"][0]["failures_by_errno"]["other"] = -2; },
             {"results[0].failures_by_errno.other", "expected a count"}),
      edited("negative errno count",
             [](auto& j) { j["results"][0]["failures_by_errno"]["EMFILE"]["count"] = -2; },
             {"results[0].failures_by_errno.EMFILE.count", "out of range"}),
      edited("errno count missing",
             [](auto& j) { j["results"][0]["failures_by_errno"]["EMFILE"].erase("count"); },
             {"results[0].failures_by_errno.EMFILE.count", "missing"}),
      edited("input not an object", [](auto& j) { j["results"][0]["input"] = "list"; },
             {"results[0].input", "expected an object"}),
      edited("unknown workers", [](auto& j) { j["results"][1]["workers"] = "fibers"; },
             {"results[1].workers", "expected \"threads\" or \"processes\""}),
      edited("unknown fd_table", [](auto& j) { j["results"][0]["fd_table"] = "global"; },
             {"results[0].fd_table", "expected \"shared\""}),
      edited("reference a string", [](auto& j) { j["results"][0]["reference"] = "yes"; },
             {"results[0].reference", "expected true or false"}),
      edited("result not an object", [](auto& j) { j["results"][0] = 3; },
             {"results[0]", "expected an object"}),
      edited("a status it does not know", [](auto& j) { j["results"][0]["status"] = "exploded"; },
             {"results[0].status", "'exploded' is not a status"}),
      edited("a failed result with times", [](auto& j) { j["results"][0]["status"] = "failed"; },
             {"results[0].status", "has no times"}),
      edited("a timed region's count negative",
             [](auto& j) { j["results"][0]["timed_region"]["minor_faults"] = -1; },
             {"results[0].timed_region.minor_faults", "out of range"}),
      edited("a timed region's count a fraction",
             [](auto& j) { j["results"][0]["timed_region"]["voluntary_switches"] = 1.5; },
             {"results[0].timed_region.voluntary_switches", "expected an integer"}),
      edited("a timed region without a count",
             [](auto& j) { j["results"][0]["timed_region"].erase("major_faults"); },
             {"results[0].timed_region.major_faults", "missing"}),
      edited("a kind for each warning",
             [](auto& j) { j["results"][0]["warning_kinds"] = nlohmann::json::array(); },
             {"results[0].warning_kinds", "one kind for each warning"})};
}

// Documents the reader must refuse for what is outside their results, or for not being one.
std::vector<Malformed> malformed_documents() {
  return {
      edited("missing top-level field", [](auto& j) { j.erase("environment"); },
             {"environment", "missing"}),
      edited("missing environment field", [](auto& j) { j["environment"].erase("kernel"); },
             {"environment.kernel", "missing"}),
      edited("results not an array", [](auto& j) { j["results"] = nlohmann::json::object(); },
             {"results", "expected an array"}),
      edited("a newer schema_version", [](auto& j) { j["schema_version"] = kSchemaVersion + 1; },
             {"schema_version " + std::to_string(kSchemaVersion + 1), "not supported",
              "reads 1 to " + std::to_string(kSchemaVersion), "a newer fdbench"}),
      edited("context without a date",
             [](auto& j) {
               j["context"] = {{"host", "h"}, {"command_line", {"fdbench"}}, {"user", 0}};
             },
             {"context.date", "missing"}),
      edited("load average of two numbers",
             [](auto& j) {
               j["context"] = {{"date", "2026-12-05T09:14:03Z"},
                               {"host", "h"},
                               {"command_line", {"fdbench"}},
                               {"user", 0},
                               {"load_before", {{"load_average", {0.5, 0.25}}}}};
             },
             {"context.load_before.load_average", "expected three numbers"}),
      edited("schema_version a string", [](auto& j) { j["schema_version"] = "1"; },
             {"schema_version", "expected an integer"}),
      edited("another tool's document", [](auto& j) { j["tool"]["name"] = "hyperfine"; },
             {"tool.name", "not an fdbench document"}),
      edited("syscall cost a string", [](auto& j) { j["environment"]["syscall_ns"] = "fast"; },
             {"environment.syscall_ns", "expected a number"}),
      edited("mitigation not a string",
             [](auto& j) { j["environment"]["cpu_mitigations"]["mds"] = 1; },
             {"environment.cpu_mitigations.mds", "expected a string"}),
      edited("environment warnings not strings",
             [](auto& j) { j["environment"]["warnings"] = {1}; },
             {"environment.warnings", "expected strings"}),
      {"not JSON", "fdbench,threads,2\n", {"not valid JSON at line 1"}},
      {"not JSON further on", "{\n  \"a\": x}", {"not valid JSON at line 2, column 8"}},
      {"cut short", valid_document().dump().substr(0, 200), {"not valid JSON", "cut short"}},
      {"empty", "", {"not valid JSON", "empty"}},
      {"an array", "[1, 2]", {"document", "expected an object"}},
      {"hyperfine-like",
       R"({"results": [{"command": "ls", "mean": 0.1}]})",
       {"schema_version", "missing"}}};
}

TEST(ResultsJson, MalformedDocumentsAreErrorsThatSayWhere) {
  std::vector<Malformed> cases = malformed_results();
  for (auto& c : malformed_documents()) cases.push_back(std::move(c));
  for (const auto& [what, text, parts] : cases) {
    SCOPED_TRACE(what);
    const std::string message = parse_error_of(text);
    ASSERT_FALSE(message.empty()) << "accepted: " << text.substr(0, 300);
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    for (const auto& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos) << "'" << message << "' lacks " << part;
    }
  }
}

TEST(ResultsJson, FileErrorsNameTheFile) {
  testing::TempDir dir;
  const std::string missing = dir / "missing.json";
  try {
    read_results_file(missing, "compare");
    ADD_FAILURE() << "read a missing file";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  const std::string bad = dir / "bad.json";
  const std::string newer = "schema_version " + std::to_string(kSchemaVersion + 1);
  testing::write_text(bad, R"({"schema_version": )" + std::to_string(kSchemaVersion + 1) + "}");
  try {
    read_results_file(bad, "compare");
    ADD_FAILURE() << "read a " << newer << " file";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(bad + ": ", 0), 0U) << e.what();
    EXPECT_NE(std::string(e.what()).find(newer), std::string::npos) << e.what();
  }
  const std::string good = dir / "good.json";
  testing::write_text(good,
                      to_json_document(full_environment(), std::vector<Result>{open_result()}));
  EXPECT_EQ(read_results_file(good, "compare").results.size(), 1U);
}

// What compare and report are given instead of results: each told apart, in one line that
// names the file, what it is and what the command reads.
TEST(ResultsFile, OtherDocumentsAreToldApart) {
  Recommendation saved;
  saved.best = {"threads", 2, 1, 1e5};
  const std::string csv = csv_header() + "\nopen,threads,1\n";
  const std::vector<std::pair<std::string, std::string>> cases{
      {csv, "fdbench's CSV export"},
      {std::string(TraceOut::kHeader) + "\n", "a --trace-out file"},
      {recommendation_json(saved), "a recommendation written by fdbench tune --save"},
      {R"({"comparison": {}})", "fdbench compare's JSON output"},
      {R"({"name": "something else"})", "JSON, but not an fdbench results document"},
      {"[1, 2]", "JSON, but not an fdbench results document (it is an array)"},
      {"<!DOCTYPE html>\n<html>", "an HTML report"},
      {"# fdbench 0.1.0\n", "fdbench's markdown output"},
      {"fdbench 0.1.0 · Linux 6.8\n", "fdbench's table output"},
  };
  for (const auto& [text, kind] : cases) {
    SCOPED_TRACE(text.substr(0, 60));
    EXPECT_EQ(other_document(text).rfind(kind, 0), 0U) << other_document(text);
  }
  EXPECT_EQ(other_document(to_json_document(full_environment(), {})), "");
  EXPECT_EQ(other_document(R"({"schema_version": 3})"), "");  // the reader says what is wrong
  EXPECT_EQ(other_document("not json at all"), "");
}

TEST(ResultsFile, AFileThatIsSomethingElseIsOneLineSayingWhat) {
  testing::TempDir dir;
  const std::string csv = dir / "a.csv";
  testing::write_text(csv, csv_header() + "\n");
  try {
    read_results_file(csv, "compare");
    ADD_FAILURE() << "read a CSV export";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              csv +
                  " is fdbench's CSV export; compare reads the JSON results of a run (written "
                  "with --format json or --export-json)");
  }
  const std::string text = dir / "notes.txt";
  testing::write_text(text, "hello\n");
  try {
    read_results_file(text, "report");
    ADD_FAILURE() << "read a text file";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              text +
                  ": not valid JSON at line 1, column 1; report reads the JSON results of a "
                  "run (written with --format json or --export-json)");
  }
}

}  // namespace results_json_test
}  // namespace fdbench
