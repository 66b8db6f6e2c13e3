// The JSON contract's field tables (src/model/json_fields.hpp) against docs/fdbench.schema.json:
// a result's properties in the schema are exactly the rows of the result table, and the
// environment's those of the environment table, so a field added to one and not the other
// fails here. Every property is a row, the nested ones (input, failures_by_errno, latency's
// events and stalls) and those with a schema 1 mapping (status, warning_kinds) included: they
// have functions of their own, named in their rows.
#include "model/json_fields.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "fdbench/error.hpp"
#include "model/results_json.hpp"
#include "output/reporter.hpp"
#include "support/results.hpp"

namespace fdbench {
namespace json_fields_test {

const nlohmann::json& schema() {
  static const nlohmann::json kSchema = [] {
    std::ifstream in(FDBENCH_SCHEMA);
    EXPECT_TRUE(in) << FDBENCH_SCHEMA;
    return nlohmann::json::parse(in);
  }();
  return kSchema;
}

std::set<std::string> property_names(const nlohmann::json& object) {
  std::set<std::string> names;
  for (const auto& [name, property] : object.at("properties").items()) names.insert(name);
  return names;
}

template <class Record>
std::set<std::string> row_names(std::span<const JsonField<Record>> fields) {
  std::set<std::string> names;
  for (const auto& f : fields) names.insert(f.name);
  return names;
}

// What one set has and the other lacks, for the message.
std::string difference(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::string out;
  for (const auto& name : a) {
    if (!b.contains(name)) out += " " + name;
  }
  return out.empty() ? " (none)" : out;
}

template <class Record>
void expect_same_fields(const char* what, std::span<const JsonField<Record>> fields) {
  const std::set<std::string> in_schema = property_names(schema().at("$defs").at(what));
  const std::set<std::string> in_table = row_names(fields);
  EXPECT_TRUE(in_schema == in_table)
      << what << ": in the schema only:" << difference(in_schema, in_table)
      << "; in the table only:" << difference(in_table, in_schema);
}

TEST(JsonFields, TheSchemasResultPropertiesAreTheResultTable) {
  expect_same_fields("result", result_fields());
}

TEST(JsonFields, TheSchemasEnvironmentPropertiesAreTheEnvironmentTable) {
  expect_same_fields("environment", environment_fields());
}

TEST(JsonFields, TheSchemasContextPropertiesAreTheContextTable) {
  expect_same_fields("context", context_fields());
}

// The schema says "since schema N" of exactly the fields a later version added.
template <class Record>
void expect_versions(const char* what, std::span<const JsonField<Record>> fields) {
  const nlohmann::json& properties = schema().at("$defs").at(what).at("properties");
  for (const auto& f : fields) {
    SCOPED_TRACE(f.name);
    EXPECT_GE(f.since, 1);
    EXPECT_LE(f.since, kSchemaVersion);
    if (!properties.contains(f.name)) continue;  // the test above says so
    const std::string description = properties.at(f.name).value("description", "");
    for (int version = 2; version <= kSchemaVersion; ++version) {
      const bool says = description.starts_with("since schema " + std::to_string(version));
      EXPECT_EQ(says, f.since == version) << description;
    }
  }
}

TEST(JsonFields, FieldsALaterSchemaAddedSaySoInTheSchema) {
  expect_versions("result", result_fields());
  expect_versions("environment", environment_fields());
  expect_versions("context", context_fields());
}

// A field the reader cannot do without is one the schema requires.
template <class Record>
void expect_required(const char* what, std::span<const JsonField<Record>> fields) {
  std::set<std::string> required;
  for (const auto& name : schema().at("$defs").at(what).at("required")) required.insert(name);
  for (const auto& f : fields) {
    if (f.read_as == FieldRead::required) {
      EXPECT_TRUE(required.contains(f.name)) << what << "." << f.name;
    }
  }
}

TEST(JsonFields, WhatTheReaderRequiresTheSchemaRequires) {
  expect_required("result", result_fields());
  expect_required("environment", environment_fields());
  expect_required("context", context_fields());
}

// Every row is written; a row that is read has a reader, and a default where it may be
// absent; a row read together with the one above it has one above it that is read.
template <class Record>
void expect_complete_rows(std::span<const JsonField<Record>> fields) {
  std::set<std::string> seen;
  bool above_is_read = false;
  for (const auto& f : fields) {
    SCOPED_TRACE(f.name);
    EXPECT_TRUE(seen.insert(f.name).second) << "named twice";
    EXPECT_NE(f.write, nullptr);
    switch (f.read_as) {
      case FieldRead::required:
        EXPECT_NE(f.read, nullptr);
        above_is_read = true;
        break;
      case FieldRead::optional:
        EXPECT_NE(f.read, nullptr);
        EXPECT_NE(f.older, nullptr);
        above_is_read = true;
        break;
      case FieldRead::together:
        EXPECT_TRUE(above_is_read);
        break;
      case FieldRead::derived:
        EXPECT_EQ(f.read, nullptr);
        above_is_read = false;
        break;
    }
  }
}

TEST(JsonFields, EveryRowIsWrittenAndRead) {
  expect_complete_rows(result_fields());
  expect_complete_rows(environment_fields());
  expect_complete_rows(context_fields());
}

// The CSV's columns, the fields' and the parts of fields', are numbered 0, 1, 2, ... without a
// gap, and its header names them.
TEST(JsonFields, CsvColumnsAreNumberedInOrder) {
  std::vector<std::string> by_column;
  const auto place = [&](int column, const char* name) {
    const auto at = static_cast<std::size_t>(column);
    if (by_column.size() <= at) by_column.resize(at + 1);
    EXPECT_TRUE(by_column[at].empty())
        << "column " << at << ": " << by_column[at] << " and " << name;
    by_column[at] = name;
  };
  for (const auto& f : result_fields()) {
    if (f.csv_column >= 0) place(f.csv_column, f.name);
  }
  for (const auto& c : csv_part_columns()) {
    EXPECT_GE(c.csv_column, 0) << c.name;
    place(c.csv_column, c.name);
  }
  std::string header;
  for (const auto& name : by_column) {
    EXPECT_FALSE(name.empty()) << "a column without a field";
    header += (header.empty() ? "" : ",") + name;
  }
  EXPECT_EQ(csv_header(), header);
}

// Leaves out every field the reader does not require.
template <class Record>
void keep_only_required(nlohmann::json& object, std::span<const JsonField<Record>> fields) {
  for (const auto& f : fields) {
    if (f.read_as != FieldRead::required) object.erase(f.name);
  }
}

// The Error `document` makes the reader throw ("" if it reads).
std::string error_of(const nlohmann::json& document) {
  try {
    parse_results_json(document.dump());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A document with only what the reader requires reads (every other field gets its row's
// default), and one without any one of those is malformed and says which.
TEST(JsonFields, OnlyTheRequiredFieldsAreRequired) {
  const Result pool = testing::ResultBuilder::socket("pool", 2).ops(10).times({1, 2, 3});
  const RunContext context = testing::run_context();
  auto doc = nlohmann::json::parse(
      to_json_document(testing::linux_environment(), std::vector<Result>{pool}, {}, &context));
  keep_only_required(doc["environment"], environment_fields());
  keep_only_required(doc["context"], context_fields());
  keep_only_required(doc["results"][0], result_fields());
  ASSERT_EQ(error_of(doc), "");
  const ResultsDocument read = parse_results_json(doc.dump());
  ASSERT_EQ(read.results.size(), 1U);
  EXPECT_EQ(read.results[0].status, Status::measured);
  EXPECT_EQ(read.results[0].runnable_threads, 3);  // the pool's caller waits beside its workers
  EXPECT_EQ(read.results[0].unit, "fds");
  EXPECT_EQ(read.environment.fs_type, "unknown");
  ASSERT_TRUE(read.context.has_value());
  EXPECT_EQ(read.context->date, context.date);
  EXPECT_FALSE(read.context->load_before.has_value());
  for (const auto& f : result_fields()) {
    if (f.read_as != FieldRead::required) continue;
    auto without = doc;
    without["results"][0].erase(f.name);
    EXPECT_EQ(error_of(without), "results[0]." + std::string(f.name) + ": missing");
  }
  for (const auto& f : environment_fields()) {
    if (f.read_as != FieldRead::required) continue;
    auto without = doc;
    without["environment"].erase(f.name);
    EXPECT_EQ(error_of(without), "environment." + std::string(f.name) + ": missing");
  }
  for (const auto& f : context_fields()) {
    if (f.read_as != FieldRead::required) continue;
    auto without = doc;
    without["context"].erase(f.name);
    EXPECT_EQ(error_of(without), "context." + std::string(f.name) + ": missing");
  }
}

}  // namespace json_fields_test
}  // namespace fdbench
