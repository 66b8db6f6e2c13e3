// compare on hand-built documents: Mann-Whitney U against known values, identical inputs,
// clear differences, disjoint results, too few repetitions, environment differences, the
// shipped reference figures and where a file stands against them, the three formats, and a
// result traced with --kernel-trace set against one that was not.
#include "analysis/compare.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "fdbench/error.hpp"
#include "output/reporter.hpp"
#include "support/results.hpp"

namespace fdbench {
namespace compare_test {

TEST(MannWhitney, ScipyDocumentationExampleExact) {
  // SciPy's mannwhitneyu documentation: males vs females, U = 17, p = 0.1111 (exact).
  const std::vector<std::int64_t> males{19, 22, 16, 29, 24};
  const std::vector<std::int64_t> females{20, 11, 17, 12};
  const MannWhitney mw = mann_whitney_u(males, females);
  EXPECT_TRUE(mw.exact);
  EXPECT_DOUBLE_EQ(mw.u, 17);
  EXPECT_NEAR(mw.p_value, 1.0 / 9, 1e-12);
}

TEST(MannWhitney, CompletelySeparatedSmallSamplesExact) {
  const std::vector<std::int64_t> a{1, 2, 3, 4, 5};
  const std::vector<std::int64_t> b{6, 7, 8, 9, 10};
  const MannWhitney mw = mann_whitney_u(a, b);
  EXPECT_TRUE(mw.exact);
  EXPECT_DOUBLE_EQ(mw.u, 0);
  EXPECT_NEAR(mw.p_value, 2.0 / 252, 1e-12);  // one ordering of C(10, 5), both tails
  EXPECT_NEAR(mann_whitney_u(b, a).p_value, 2.0 / 252, 1e-12);
  EXPECT_DOUBLE_EQ(mann_whitney_u(b, a).u, 25);
}

TEST(MannWhitney, NormalApproximationBeyondEightValues) {
  std::vector<std::int64_t> a;
  std::vector<std::int64_t> b;
  for (int i = 1; i <= 10; ++i) {
    a.push_back(i);
    b.push_back(i + 10);
  }
  const MannWhitney mw = mann_whitney_u(a, b);
  EXPECT_FALSE(mw.exact);
  // z = (100 - 50 - 0.5) / sqrt(175), p = erfc(z / sqrt 2)
  EXPECT_NEAR(mw.p_value, 0.0001826717911095504, 1e-12);
}

TEST(MannWhitney, TiesUseTheCorrectedVariance) {
  const std::vector<std::int64_t> a{10, 20, 20, 30, 40, 50, 50, 60};
  const std::vector<std::int64_t> b{20, 30, 30, 40, 70, 80, 90, 90, 100};
  const MannWhitney mw = mann_whitney_u(a, b);
  EXPECT_FALSE(mw.exact);  // ties: no exact distribution
  EXPECT_DOUBLE_EQ(mw.u, 18.5);
  EXPECT_NEAR(mw.p_value, 0.09956538596930134, 1e-12);
}

TEST(MannWhitney, IdenticalAndEmptySamples) {
  const std::vector<std::int64_t> same{5, 5, 5, 5, 5, 5};
  EXPECT_DOUBLE_EQ(mann_whitney_u(same, same).p_value, 1.0);
  const std::vector<std::int64_t> a{1, 2, 3, 4, 5, 6};
  EXPECT_DOUBLE_EQ(mann_whitney_u(a, a).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u(a, {}).p_value, 1.0);
}

Environment environment(const std::string& fs_type) {
  Environment env = testing::linux_environment();
  env.fs_type = fs_type;
  env.build_type = "Release";
  env.compiler = "gcc 12.2.0";
  env.virtualization = "kvm";
  return env;
}

Result open_result(const std::string& strategy, int threads, std::vector<std::int64_t> times) {
  return testing::ResultBuilder::open(strategy, threads).ops(10000).times(std::move(times));
}

std::vector<std::int64_t> around(std::int64_t ns, int n = 10) {
  std::vector<std::int64_t> times;
  for (int i = 0; i < n; ++i) times.push_back(ns + (i % 5) * ns / 100);  // ±2% spread
  return times;
}

ResultsDocument document(const std::string& fs_type, const std::vector<Result>& results) {
  return parse_results_json(to_json_document(environment(fs_type), results));
}

Comparison compare_two(const ResultsDocument& a, const ResultsDocument& b) {
  const std::vector<ResultsDocument> docs{a, b};
  const std::vector<std::string> labels{"a.json", "b.json"};
  return compare(docs, labels);
}

TEST(Compare, IdenticalInputsHaveRatioOneAndNoDifference) {
  const auto doc = document("ext4", {open_result("threads", 1, around(20'000'000)),
                                     open_result("threads", 2, around(12'000'000))});
  const Comparison c = compare_two(doc, doc);
  ASSERT_EQ(c.shared.size(), 2U);
  EXPECT_TRUE(c.partial.empty());
  for (const auto& row : c.shared) {
    EXPECT_EQ(row.cells[0].verdict, Verdict::baseline);
    const CompareCell& cell = row.cells[1];
    ASSERT_TRUE(cell.ratio.has_value());
    EXPECT_DOUBLE_EQ(*cell.ratio, 1.0);
    ASSERT_TRUE(cell.p_value.has_value());
    EXPECT_GE(*cell.p_value, kSignificanceLevel);
    EXPECT_EQ(cell.verdict, Verdict::same);
    EXPECT_LE(*cell.ratio_low, 1.0);
    EXPECT_GE(*cell.ratio_high, 1.0);
  }
}

TEST(Compare, ClearlyDifferentIsSignificant) {
  const auto slow = document("ext4", {open_result("threads", 1, around(20'000'000))});
  const auto fast = document("tmpfs", {open_result("threads", 1, around(10'000'000))});
  const Comparison c = compare_two(slow, fast);
  ASSERT_EQ(c.shared.size(), 1U);
  const CompareCell& cell = c.shared[0].cells[1];
  EXPECT_NEAR(*cell.ratio, 0.5, 0.01);
  EXPECT_LT(*cell.p_value, 0.001);
  EXPECT_EQ(cell.verdict, Verdict::faster);
  EXPECT_LT(*cell.ratio_high, 1.0);  // even the extremes do not overlap

  const Comparison reverse = compare_two(fast, slow);
  EXPECT_EQ(reverse.shared[0].cells[1].verdict, Verdict::slower);
}

TEST(Compare, DisjointResultsAreListedNotDropped) {
  const auto a = document("ext4", {open_result("threads", 1, around(20'000'000)),
                                   open_result("pool", 2, around(30'000'000))});
  const auto b = document("ext4", {open_result("threads", 1, around(20'000'000)),
                                   open_result("uring", 1, around(8'000'000))});
  const Comparison c = compare_two(a, b);
  ASSERT_EQ(c.shared.size(), 1U);
  EXPECT_EQ(c.shared[0].key.config.strategy, "threads");
  ASSERT_EQ(c.partial.size(), 2U);
  EXPECT_EQ(c.partial[0].key.config.strategy, "pool");
  EXPECT_EQ(c.partial[0].cells[0].verdict, Verdict::baseline);
  EXPECT_EQ(c.partial[0].cells[1].verdict, Verdict::absent);
  EXPECT_EQ(c.partial[1].key.config.strategy, "uring");
  EXPECT_EQ(c.partial[1].cells[0].verdict, Verdict::absent);
  EXPECT_EQ(c.partial[1].cells[1].verdict, Verdict::unpaired);
  EXPECT_FALSE(c.partial[1].cells[1].ratio.has_value());
}

TEST(Compare, DifferentWorkIsNeverPaired) {
  Result more_files = open_result("threads", 1, around(20'000'000));
  more_files.ops = 20000;
  Result batched = open_result("pool-batch", 1, around(20'000'000));
  batched.config.batch = 64;
  Result batched_more = batched;
  batched_more.config.batch = 128;
  const auto a = document("ext4", {open_result("threads", 1, around(10'000'000)), batched});
  const auto b = document("ext4", {more_files, batched_more});
  const Comparison c = compare_two(a, b);
  EXPECT_TRUE(c.shared.empty());
  EXPECT_EQ(c.partial.size(), 4U);
}

TEST(Compare, UnderFiveRepetitionsThereIsNoVerdict) {
  const auto a = document("ext4", {open_result("threads", 1, around(20'000'000, 4))});
  const auto b = document("ext4", {open_result("threads", 1, around(10'000'000, 10))});
  const Comparison c = compare_two(a, b);
  ASSERT_EQ(c.shared.size(), 1U);
  const CompareCell& cell = c.shared[0].cells[1];
  EXPECT_EQ(cell.verdict, Verdict::too_few);
  EXPECT_TRUE(cell.ratio.has_value());
  EXPECT_TRUE(cell.p_value.has_value());  // shown, but not called
  EXPECT_EQ(to_string(cell.verdict), "too few repetitions to tell");
}

TEST(Compare, UnavailableOnOneSideHasNoRatio) {
  const Result missing =
      testing::ResultBuilder::open("uring", 1).ops(10000).unavailable("io_uring_disabled is 2", 10);
  const auto a = document("ext4", {open_result("uring", 1, around(5'000'000))});
  const auto b = document("ext4", {missing});
  const Comparison c = compare_two(a, b);
  ASSERT_EQ(c.shared.size(), 1U);
  EXPECT_EQ(c.shared[0].cells[1].verdict, Verdict::no_samples);
  EXPECT_EQ(c.shared[0].cells[1].error, "io_uring_disabled is 2");
  EXPECT_FALSE(c.shared[0].cells[1].ratio.has_value());
  EXPECT_EQ(compare_two(b, a).shared[0].cells[1].verdict, Verdict::no_samples);
}

TEST(Compare, EnvironmentShowsHeadlineFieldsAndWhatDiffers) {
  const auto a = document("ext4", {});
  auto b = document("tmpfs", {});
  b.environment_fields["rlimit_nofile.soft"] = "4096";
  b.environment_fields["cpu_mitigations.meltdown"] = "Mitigation: PTI";
  const Comparison c = compare_two(a, b);
  std::vector<std::string> fields;
  for (const auto& row : c.environment) fields.push_back(row.field);
  const std::vector<std::string> expected{
      "os",           "kernel",         "cpu_model",
      "logical_cpus", "virtualization", "cpu_mitigations.meltdown",
      "fs_type",      "rcu_expedited",  "io_uring_disabled",
      "build_type",   "compiler",       "rlimit_nofile.soft"};
  EXPECT_EQ(fields, expected);
  for (const auto& row : c.environment) {
    const bool should_differ = row.field == "fs_type" || row.field == "rlimit_nofile.soft" ||
                               row.field == "cpu_mitigations.meltdown";
    EXPECT_EQ(row.differs, should_differ) << row.field;
    if (row.field == "cpu_mitigations.meltdown") {
      EXPECT_EQ(row.values[0], std::nullopt);
    }
    if (row.field == "fs_type") {
      EXPECT_EQ(row.values[1], "tmpfs");
    }
  }
}

TEST(References, TheShippedFiguresAreTheSeeds) {
  const auto refs = shipped_references();
  ASSERT_EQ(refs.size(), 4U);
  EXPECT_EQ(refs[0].os, "macOS");
  EXPECT_EQ(refs[0].ops_per_sec, 120000);
  EXPECT_EQ(refs[1].ops_per_sec, 400000);
  EXPECT_EQ(refs[2].times_ns, (std::vector<std::int64_t>{17770000, 26309000, 18414000}));
  EXPECT_EQ(refs[3].os, "OpenBSD");
  EXPECT_EQ(refs[3].times_ns, (std::vector<std::int64_t>{6096000, 2508000, 2326000}));
  for (const auto& ref : refs) {
    EXPECT_FALSE(ref.source.empty()) << ref.id;
    EXPECT_EQ(ref.url.rfind("https://", 0), 0U) << ref.id;
    EXPECT_FALSE(ref.measured.empty()) << ref.id;
  }
}

TEST(References, MalformedReferencesAreErrors) {
  EXPECT_THROW(parse_references("{"), Error);
  EXPECT_THROW(parse_references(R"({"references": {}})"), Error);
  EXPECT_THROW(parse_references(R"({"references": [{"id": "x", "match": {"ops": 1}}]})"),
               Error);  // neither ops_per_sec nor times_ns
}

Result socket_result(const std::string& pregrow, std::int64_t ns) {
  return testing::ResultBuilder::socket("threads", 2).pregrow(pregrow).ops(512).times(around(ns));
}

TEST(References, StandingTakesTheBestMatchingResult) {
  Result uring = open_result("uring-direct", 1, around(5'000'000));  // not what they ran
  const auto doc =
      document("ext4", {open_result("threads", 1, around(40'000'000)),
                        open_result("threads", 2, around(20'000'000)), uring,
                        socket_result("off", 36'828'000), socket_result("auto", 2'000'000)});
  const auto standings = stand_against(doc, shipped_references());
  ASSERT_EQ(standings.size(), 4U);
  ASSERT_TRUE(standings[0].mine.has_value());
  EXPECT_EQ(standings[0].mine->config.strategy, "threads");
  EXPECT_EQ(standings[0].mine->config.threads, 2);
  EXPECT_NEAR(standings[0].speed_ratio, standings[0].mine->ops_per_sec / 120000, 1e-9);
  ASSERT_TRUE(standings[2].mine.has_value());
  EXPECT_EQ(standings[2].mine->config.pregrow.label(), "off");
  EXPECT_NEAR(standings[2].speed_ratio, 18'414'000 / standings[2].mine->stats.median, 1e-9);

  const auto nothing = stand_against(document("ext4", {}), shipped_references());
  for (const auto& s : nothing) EXPECT_FALSE(s.mine.has_value());
}

std::string written(const CompareReport& report, std::string_view format) {
  std::ostringstream out;
  write_compare_report(out, report, format);
  return out.str();
}

TEST(CompareReport, EveryFormatCarriesTheVerdicts) {
  const auto a = document("ext4", {open_result("threads", 1, around(20'000'000)),
                                   open_result("pool", 1, around(30'000'000, 3))});
  const auto b = document("tmpfs", {open_result("threads", 1, around(10'000'000)),
                                    open_result("pool", 1, around(30'000'000, 3)),
                                    open_result("uring", 1, around(5'000'000))});
  CompareReport report;
  report.comparison = compare_two(a, b);
  report.references.push_back({"b.json", stand_against(b, shipped_references())});

  const std::string table = written(report, "table");
  for (const char* part :
       {"[1] a.json", "[2] b.json", "≠ fs_type", "faster", "too few repetitions to tell",
        "not in the first file", "Only in some files", "published elsewhere", "not a controlled",
        "lemire.me", "0.50×"}) {
    EXPECT_NE(table.find(part), std::string::npos) << part << "\n" << table;
  }
  const std::string markdown = written(report, "markdown");
  EXPECT_NE(markdown.find("# fdbench compare"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("|:--|"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| threads, 1 thread |"), std::string::npos) << markdown;

  const auto j = nlohmann::json::parse(written(report, "json"));
  EXPECT_EQ(j["comparison"]["files"].size(), 2U);
  EXPECT_EQ(j["comparison"]["shared"].size(), 2U);
  EXPECT_EQ(j["comparison"]["partial"].size(), 1U);
  EXPECT_EQ(j["comparison"]["shared"][0]["files"][1]["verdict"], "faster");
  EXPECT_EQ(j["references"]["files"][0]["standings"].size(), 4U);
}

// A measured value is marked only where the files' readings are further apart than one
// machine's own spread: 7% apart is the same machine, 10× (PTI against none) is not.
TEST(Compare, AMeasuredSyscallCostDiffersOnlyPastItsOwnSpread) {
  const auto with_cost = [](const char* ns) {
    auto doc = document("ext4", {});
    doc.environment_fields["syscall_ns"] = ns;
    return doc;
  };
  const auto differs = [&](const char* a, const char* b) {
    for (const auto& row : compare_two(with_cost(a), with_cost(b)).environment) {
      if (row.field == "syscall_ns") return row.differs;
    }
    ADD_FAILURE() << "no syscall_ns row";
    return false;
  };
  EXPECT_FALSE(differs("114.2", "122.7"));
  EXPECT_FALSE(differs("893.3", "1092.9"));
  EXPECT_TRUE(differs("81.1", "1017.9"));
  EXPECT_TRUE(differs("81.1", "not measured"));
}

TEST(CompareReport, MitigationsAlikeEverywhereAreOneLineAndSyscallCostHasItsUnit) {
  auto a = document("ext4", {});
  auto b = document("ext4", {});
  for (auto* doc : {&a, &b}) {
    doc->environment_fields["cpu_mitigations.mds"] = "Not affected";
    doc->environment_fields["cpu_mitigations.l1tf"] = "Not affected";
    doc->environment_fields["syscall_ns"] = "1234.56789";
  }
  a.environment_fields["cpu_mitigations.meltdown"] = "Mitigation: PTI";
  b.environment_fields["cpu_mitigations.meltdown"] = "Not affected";
  CompareReport report;
  report.comparison = compare_two(a, b);
  const std::string table = written(report, "table");
  EXPECT_NE(table.find("≠ cpu_mitigations.meltdown"), std::string::npos) << table;
  EXPECT_EQ(table.find("cpu_mitigations.mds"), std::string::npos) << table;
  EXPECT_NE(table.find("cpu_mitigations (others)"), std::string::npos) << table;
  EXPECT_NE(table.find("2 alike"), std::string::npos) << table;
  EXPECT_NE(table.find("1.2 µs"), std::string::npos) << table;
  EXPECT_EQ(table.find("1234.56789"), std::string::npos) << table;
  // The machine-readable form keeps every field as recorded.
  const auto j = nlohmann::json::parse(written(report, "json"));
  EXPECT_NE(j.dump().find("cpu_mitigations.mds"), std::string::npos);
}

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// A result timed with --kernel-trace attached (its evidence recorded), or asked for it where
// it could not be.
Result kernel_traced(Result r, bool recorded = true) {
  KernelEvidence k;
  k.available = recorded;
  if (recorded) {
    k.repetitions = static_cast<int>(r.times_ns.size());
    k.threads = r.config.threads;
    k.window_ns = static_cast<std::int64_t>(r.stats.median);
  } else {
    k.reason = "perf_event_paranoid is 2";
  }
  r.kernel = k;
  return r;
}

TEST(Compare, ResultsOfDifferentHarnessesAreNeverPaired) {
  Result published = open_result("threads", 1, around(26'000'000));
  published.config.harness = Harness::published;
  const auto minimal = document("ext4", {open_result("threads", 1, around(20'000'000))});
  const auto both = document("ext4", {open_result("threads", 1, around(20'000'000)), published});
  const Comparison c = compare_two(minimal, both);
  // The minimal rows pair; the published one is listed apart, not set against the minimal.
  ASSERT_EQ(c.shared.size(), 1U);
  EXPECT_EQ(c.shared[0].key.parameters.count("harness"), 0U);
  ASSERT_EQ(c.partial.size(), 1U);
  EXPECT_EQ(c.partial[0].key.parameters.at("harness"), "published");
  EXPECT_EQ(c.partial[0].cells[0].verdict, Verdict::absent);
  EXPECT_FALSE(c.partial[0].cells[1].ratio.has_value());
  CompareReport report;
  report.comparison = c;
  const std::string table = written(report, "table");
  EXPECT_NE(table.find("harness published"), std::string::npos) << table;
  // Published against published pairs.
  EXPECT_EQ(compare_two(both, both).shared.size(), 2U);
}

TEST(Compare, TracedAgainstUntracedIsPairedButMarked) {
  const auto plain = document("ext4", {open_result("threads", 1, around(20'000'000)),
                                       open_result("pool", 1, around(30'000'000)),
                                       open_result("uring", 1, around(5'000'000))});
  const auto traced =
      document("ext4", {kernel_traced(open_result("threads", 1, around(24'000'000))),
                        open_result("pool", 1, around(30'000'000)),
                        kernel_traced(open_result("uring", 1, around(5'000'000)), false)});
  const Comparison c = compare_two(plain, traced);
  ASSERT_EQ(c.shared.size(), 3U);
  // Still set side by side, with its ratio and verdict, but marked.
  const CompareRow& threads = c.shared[0];
  EXPECT_FALSE(threads.cells[0].kernel_traced);
  EXPECT_TRUE(threads.cells[1].kernel_traced);
  EXPECT_TRUE(threads.cells[1].traced_on_one_side);
  EXPECT_NEAR(*threads.cells[1].ratio, 1.2, 0.01);
  EXPECT_EQ(threads.cells[1].verdict, Verdict::slower);
  // Neither traced, and asked for but not recorded (nothing attached, no cost): not marked.
  EXPECT_FALSE(c.shared[1].cells[1].traced_on_one_side);
  EXPECT_FALSE(c.shared[2].cells[1].kernel_traced);
  EXPECT_FALSE(c.shared[2].cells[1].traced_on_one_side);
  // Either way round; both traced is a fair pair.
  EXPECT_TRUE(compare_two(traced, plain).shared[0].cells[1].traced_on_one_side);
  EXPECT_FALSE(compare_two(traced, traced).shared[0].cells[1].traced_on_one_side);

  CompareReport report;
  report.comparison = c;
  const std::string legend =
      "† traced with --kernel-trace on one side only: its times include the tracing's cost";
  const std::string table = written(report, "table");
  EXPECT_NE(table.find("slower †"), std::string::npos) << table;
  EXPECT_EQ(count_of(table, "†"), 2U) << table;  // the row's mark, and the legend once
  EXPECT_NE(table.find("\n\n" + legend + "\n"), std::string::npos) << table;
  const std::string markdown = written(report, "markdown");
  EXPECT_NE(markdown.find("| slower † |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("|\n\n" + legend), std::string::npos) << markdown;  // not a row
  const auto j = nlohmann::json::parse(written(report, "json"));
  EXPECT_EQ(j["comparison"]["shared"][0]["files"][0]["kernel_traced"], false);
  EXPECT_EQ(j["comparison"]["shared"][0]["files"][1]["kernel_traced"], true);
  EXPECT_EQ(j["comparison"]["shared"][0]["files"][1]["traced_on_one_side"], true);
  EXPECT_EQ(j["comparison"]["shared"][1]["files"][1]["traced_on_one_side"], false);

  // Nothing traced on one side only: no mark, no legend.
  report.comparison = compare_two(plain, plain);
  EXPECT_EQ(written(report, "table").find("†"), std::string::npos);
}

// A result measured while another program changed rcu_expedited is paired too, but marked,
// whichever side it is on.
TEST(Compare, AResultMeasuredWhileTheSettingChangedIsPairedButMarked) {
  const auto changed = [](Result r) {
    r.warn(WarningKind::setting_changed, "rcu_expedited changed");
    return r;
  };
  const auto plain = document("ext4", {open_result("threads", 1, around(20'000'000)),
                                       open_result("pool", 1, around(30'000'000))});
  const auto touched = document("ext4", {changed(open_result("threads", 1, around(24'000'000))),
                                         open_result("pool", 1, around(30'000'000))});
  for (const auto& [first, second] : {std::pair{&plain, &touched}, std::pair{&touched, &plain}}) {
    const Comparison c = compare_two(*first, *second);
    ASSERT_EQ(c.shared.size(), 2U);
    EXPECT_TRUE(c.shared[0].cells[1].setting_changed_on_a_side);
    EXPECT_TRUE(c.shared[0].cells[1].ratio.has_value());  // still paired
    EXPECT_FALSE(c.shared[1].cells[1].setting_changed_on_a_side);
  }
  CompareReport report;
  report.comparison = compare_two(plain, touched);
  const std::string table = written(report, "table");
  EXPECT_NE(table.find("slower ‡"), std::string::npos) << table;
  EXPECT_NE(table.find("\n‡ measured, on one side or both, while another program changed "
                       "rcu_expedited"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("†"), std::string::npos) << table;
  const auto j = nlohmann::json::parse(written(report, "json"));
  EXPECT_EQ(j["comparison"]["shared"][0]["files"][1]["setting_changed"], true);
  EXPECT_EQ(j["comparison"]["shared"][0]["files"][1]["setting_changed_on_a_side"], true);
  EXPECT_EQ(j["comparison"]["shared"][1]["files"][1]["setting_changed_on_a_side"], false);
  report.comparison = compare_two(plain, plain);
  EXPECT_EQ(written(report, "table").find("‡"), std::string::npos);
}

}  // namespace compare_test
}  // namespace fdbench

namespace fdbench {
namespace compare_test {

TEST(CompareKey, WhatAMachineMadeOfAConfigurationDoesNotKeepRunsApart) {
  Result a;
  a.config.strategy = "uring";
  a.parameters = {{"batch", "64"},
                  {"ring_setup", "single_issuer,defer_taskrun"},
                  {"ring_fd", "registered"},
                  {"dispatch", "T threads"}};
  Result b = a;
  b.parameters["ring_setup"] = "none";  // an older kernel accepted fewer flags
  b.parameters["ring_fd"] = "not registered";
  b.parameters["latency"] = "not recorded: ...";
  EXPECT_EQ(key_of(a), key_of(b));
  b.parameters["batch"] = "128";  // asked differently: another measurement
  EXPECT_NE(key_of(a), key_of(b));
  Result c = a;
  c.parameters["rcu_expedited"] = "0";
  Result d = a;
  d.parameters["rcu_expedited"] = "1";
  EXPECT_NE(key_of(c), key_of(d));
}

}  // namespace compare_test
}  // namespace fdbench
