#pragma once
// The JSON output contract (schema_version kSchemaVersion), checked field by field. Shared by
// the reporter unit tests (hand-built results) and the CLI tests (real runs).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "model/results_json.hpp"

namespace fdbench::testing {

// Fields every result carries; `error` is checked separately because it appears only when set.
inline constexpr const char* kResultFields[] = {
    "workload",        "strategy",      "threads",          "batch",    "kind",
    "pregrow",         "ops",           "repeat",           "warmup",   "times_ns",
    "min_ns",          "median_ns",     "max_ns",           "mean_ns",  "stddev_ns",
    "ops_per_sec",     "fdsize_before", "fdsize_after",     "failures", "median_ci_ns",
    "median_ci_level", "outliers",      "runnable_threads", "status",
};
// What the strategy and the workload are, so that readers never have to go by their names.
inline constexpr const char* kPropertyFields[] = {"workers", "fd_table", "reference",
                                                  "holds_descriptors", "unit"};

inline constexpr const char* kEnvironmentFields[] = {
    "os",
    "kernel",
    "cpu_model",
    "logical_cpus",
    "fs_type",
    "rlimit_nofile",
    "fdsize_at_start",
    "build_type",
    "compiler",
    "liburing_version",
    "libuv_version",
    "virtualization",
    "cpu_mitigations",
    "syscall_ns",
    "cpus_allowed",
    "cpu_quota",
    "memory_bytes",
    "fs_mount_options",
};

inline void expect_result_contract(const nlohmann::json& r) {
  ASSERT_TRUE(r.is_object()) << r;
  for (const char* field : kResultFields)
    EXPECT_TRUE(r.contains(field)) << "result lacks " << field;
  for (const char* field : kPropertyFields) {
    ASSERT_TRUE(r.contains(field)) << "result lacks " << field;
  }
  EXPECT_TRUE(r.at("workload").is_string());
  EXPECT_TRUE(r.at("strategy").is_string());
  EXPECT_TRUE(r.at("kind").is_string());
  EXPECT_TRUE(r.at("pregrow").is_string());
  // Counts and nanoseconds are integers (schema 3); a rate is a number.
  for (const char* field : {"threads", "runnable_threads", "batch", "ops", "repeat", "warmup",
                            "min_ns", "max_ns", "failures", "median_ns", "mean_ns", "stddev_ns"}) {
    EXPECT_TRUE(r.at(field).is_number_integer()) << field << " = " << r.at(field);
  }
  EXPECT_TRUE(r.at("ops_per_sec").is_number()) << r.at("ops_per_sec");
  EXPECT_TRUE(r.at("workers") == "threads" || r.at("workers") == "processes") << r.at("workers");
  EXPECT_TRUE(r.at("fd_table") == "shared" || r.at("fd_table") == "per-worker" ||
              r.at("fd_table") == "none")
      << r.at("fd_table");
  EXPECT_TRUE(r.at("reference").is_boolean());
  EXPECT_TRUE(r.at("holds_descriptors").is_boolean());
  EXPECT_TRUE(r.at("unit").is_string());
  for (const char* field : {"fdsize_before", "fdsize_after"}) {
    EXPECT_TRUE(r.at(field).is_null() || r.at(field).is_number_integer()) << field;
  }
  ASSERT_TRUE(r.at("times_ns").is_array());
  for (const auto& t : r.at("times_ns")) EXPECT_TRUE(t.is_number_integer()) << t;
  const auto& ci = r.at("median_ci_ns");
  ASSERT_TRUE(ci.is_array() && ci.size() == 2) << ci;
  EXPECT_TRUE(ci[0].is_number_integer() && ci[1].is_number_integer()) << ci;
  EXPECT_LE(ci[0], r.at("median_ns"));
  EXPECT_GE(ci[1], r.at("median_ns"));
  EXPECT_TRUE(r.at("median_ci_level").is_number());
  ASSERT_TRUE(r.at("outliers").is_array());
  for (const auto& i : r.at("outliers")) {
    EXPECT_TRUE(i.is_number_unsigned() && i < r.at("times_ns").size()) << i;
  }
  const std::string status = r.at("status").get<std::string>();
  EXPECT_TRUE(status == "measured" || status == "unavailable" || status == "failed" ||
              status == "cut-short" || status == "timed-out" || status == "hung")
      << status;
  const bool ran = status == "measured" || status == "cut-short";
  EXPECT_EQ(r.contains("error"), !ran) << r.dump();
  if (!ran) {
    EXPECT_TRUE(r.at("times_ns").empty()) << status << " with times";
  }
  if (r.contains("error")) {
    EXPECT_TRUE(r.at("error").is_string());
    EXPECT_FALSE(r.at("error").get<std::string>().empty()) << "error present but empty";
  }
  if (r.contains("timed_region")) {  // counted: four counts, medians per repetition
    EXPECT_TRUE(ran) << status << " with a timed region";
    const auto& t = r.at("timed_region");
    for (const char* count :
         {"minor_faults", "major_faults", "voluntary_switches", "involuntary_switches"}) {
      ASSERT_TRUE(t.contains(count)) << "timed_region lacks " << count;
      EXPECT_TRUE(t.at(count).is_number_unsigned()) << count << " = " << t.at(count);
    }
  }
  // --kernel-trace: evidence with every cause, or why there is none.
  if (r.contains("kernel")) {
    const auto& k = r.at("kernel");
    ASSERT_TRUE(k.at("available").is_boolean()) << k;
    if (!k.at("available").get<bool>()) {
      EXPECT_FALSE(k.at("reason").get<std::string>().empty()) << k;
    } else {
      EXPECT_TRUE(ran) << status << " with kernel evidence";
      std::int64_t sum = 0;
      for (const char* cause : {"fd-table-growth", "waiting-on-growth", "io_uring-wait", "io-wq",
                                "page-fault", "lock", "preempted", "other"}) {
        const auto& ns = k.at("off_cpu_by_cause_ns").at(cause);
        EXPECT_TRUE(ns.is_number_integer() && ns.get<std::int64_t>() >= 0) << cause << k;
        sum += ns.get<std::int64_t>();
      }
      EXPECT_GE(k.at("threads").get<int>(), 1) << k;
      // Every figure is the median repetition's: the causes add up to the total, and that
      // never exceeds the threads' whole time in the region.
      EXPECT_EQ(sum, k.at("off_cpu_ns").get<std::int64_t>()) << k;
      EXPECT_LE(k.at("off_cpu_ns").get<std::int64_t>(),
                k.at("threads").get<std::int64_t>() * k.at("window_ns").get<std::int64_t>())
          << k;
    }
  }
  // How precise the median is, on every result with times; with --repeat auto, the goal.
  EXPECT_EQ(r.contains("precision"), ran) << status;
  if (r.contains("precision")) {
    const auto& p = r.at("precision");
    const auto& half = p.at("half_width");
    EXPECT_TRUE(half.is_null() || (half.is_number() && half.get<double>() >= 0)) << half;
    EXPECT_EQ(half.is_null(), r.at("times_ns").size() < 6) << p;
    if (p.contains("target")) {
      EXPECT_GT(p.at("target").get<double>(), 0);
      EXPECT_GT(p.at("max_time_s").get<double>(), 0);
      EXPECT_EQ(p.at("met").get<bool>(),
                !half.is_null() && half.get<double>() <= p.at("target").get<double>())
          << p;
      const std::string stopped = p.at("stopped_by").get<std::string>();
      EXPECT_TRUE(stopped == "precision" || stopped == "max-time" || stopped == "max-repetitions" ||
                  stopped == "interrupted")
          << stopped;
      if (stopped == "precision") {
        EXPECT_TRUE(p.at("met").get<bool>()) << p;
      }
    } else {
      EXPECT_EQ(p.size(), 1U) << "a fixed --repeat has half_width alone: " << p;
    }
  }
  if (r.contains("warnings")) {
    ASSERT_TRUE(r.contains("warning_kinds")) << r.dump();
    EXPECT_EQ(r.at("warning_kinds").size(), r.at("warnings").size());
  }
}

// The run's context, where the document has one (every run of the CLI writes it).
inline void expect_context_contract(const nlohmann::json& c) {
  EXPECT_TRUE(c.at("date").is_string());
  EXPECT_EQ(c.at("date").get<std::string>().size(), 20U) << c.at("date");  // ...T09:14:03Z
  EXPECT_TRUE(c.at("host").is_string());
  EXPECT_TRUE(c.at("user").is_number_unsigned());
  ASSERT_TRUE(c.at("command_line").is_array());
  for (const auto& arg : c.at("command_line")) EXPECT_TRUE(arg.is_string()) << arg;
  for (const char* when : {"load_before", "load_after"}) {
    if (!c.contains(when)) continue;
    if (c.at(when).contains("load_average")) {
      EXPECT_EQ(c.at(when).at("load_average").size(), 3U);
    }
    if (c.at(when).contains("cpu_pressure")) {
      EXPECT_TRUE(c.at(when).at("cpu_pressure").at("some_total_us").is_number_unsigned());
    }
  }
}

// Each finding: its kind, text, numbers and the results it is about, as fields.
inline void expect_finding_contract(const nlohmann::json& f) {
  EXPECT_TRUE(f.at("kind").is_string());
  EXPECT_TRUE(f.at("text").is_string());
  ASSERT_TRUE(f.at("numbers").is_object());
  for (const char* count : {"threads", "tied_with", "files", "results", "stalls"}) {
    if (f.at("numbers").contains(count)) {
      EXPECT_TRUE(f.at("numbers").at(count).is_number_integer()) << count << " in " << f;
    }
  }
  ASSERT_TRUE(f.at("subjects").is_array()) << f;
  for (const auto& s : f.at("subjects")) {
    EXPECT_TRUE(s.at("strategy").is_string());
    EXPECT_TRUE(s.at("threads").is_number_integer());
    EXPECT_TRUE(s.at("pregrow").is_string());
  }
}

inline void expect_document_contract(const nlohmann::json& doc) {
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("schema_version"), kSchemaVersion);
  if (doc.contains("context")) expect_context_contract(doc.at("context"));
  if (doc.contains("findings")) {
    for (const auto& f : doc.at("findings")) expect_finding_contract(f);
  }
  ASSERT_TRUE(doc.contains("tool"));
  EXPECT_EQ(doc.at("tool").at("name"), "fdbench");
  EXPECT_TRUE(doc.at("tool").at("version").is_string());
  ASSERT_TRUE(doc.contains("environment"));
  const auto& env = doc.at("environment");
  for (const char* field : kEnvironmentFields) {
    EXPECT_TRUE(env.contains(field)) << "environment lacks " << field;
  }
  EXPECT_TRUE(env.at("logical_cpus").is_number_integer());
  EXPECT_TRUE(env.at("rlimit_nofile").at("soft").is_number_integer());
  EXPECT_TRUE(env.at("rlimit_nofile").at("hard").is_number_integer());
  EXPECT_TRUE(env.at("build_type").is_string());
  EXPECT_TRUE(env.at("compiler").is_string());
  EXPECT_TRUE(env.at("virtualization").is_string());
  EXPECT_TRUE(env.at("cpu_mitigations").is_object());
  for (const char* field : {"liburing_version", "libuv_version", "fs_mount_options"}) {
    EXPECT_TRUE(env.at(field).is_null() || env.at(field).is_string()) << field;
  }
  for (const char* field : {"syscall_ns", "cpu_quota"}) {
    EXPECT_TRUE(env.at(field).is_null() || env.at(field).is_number()) << field;
  }
  for (const char* field : {"cpus_allowed", "memory_bytes"}) {
    EXPECT_TRUE(env.at(field).is_null() || env.at(field).is_number_integer()) << field;
  }
  if (env.contains("warnings")) {
    EXPECT_TRUE(env.at("warnings").is_array());
  }
  if (env.at("os") == "Linux") {
    EXPECT_TRUE(env.contains("io_uring_disabled"));
    EXPECT_TRUE(env.contains("rcu_expedited"));
  }
  ASSERT_TRUE(doc.contains("results"));
  ASSERT_TRUE(doc.at("results").is_array());
  for (const auto& r : doc.at("results")) expect_result_contract(r);
}

}  // namespace fdbench::testing
