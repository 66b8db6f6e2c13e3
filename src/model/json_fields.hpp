#pragma once
// The JSON contract's fields in one place: a table of the fields of a result, one of the
// environment and one of the run's context, a row per field with its JSON name, the schema_version
// that added it, how its value is written, how a document's value is read, and what a document
// without it reads as. The json reporter writes every row, the reader (results_json.cpp) reads
// every row, the CSV's columns are rows, and a unit test holds the names to
// docs/fdbench.schema.json: a field is added here, once. What is nested (the input record,
// --latency's events and stalls) or read with a mapping from schema 1 (status, warning kinds) has
// functions of its own, named in its row.
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>

#include "model/context.hpp"
#include "model/environment.hpp"
#include "model/result.hpp"

namespace fdbench {

class JsonReader;

// How the reader gets a field's value.
enum class FieldRead {
  required,  // `read`, always: a document without it is malformed ("results[0].ops: missing")
  optional,  // `read` where the document has it (and it is not null), `older` where not
  together,  // read as one with the nearest row above that is read (input: its setup_ns)
  derived,   // not read: computed from the others (the statistics, by finalize())
};

template <class Record>
struct JsonField {
  const char* name;  // in JSON, and the CSV's header
  int since = 1;     // the schema_version that added it
  // Its value, or nullopt where the contract leaves the field out (an error only when there is
  // one, a Linux-only figure on other systems).
  std::optional<nlohmann::json> (*write)(const Record&) = nullptr;
  FieldRead read_as = FieldRead::required;
  void (*read)(const JsonReader& in, const char* name, Record& out) = nullptr;
  // What a document without it (older, or leaving it out where it does not apply) reads as.
  // Called after the rows above it are read: a default may depend on them.
  void (*older)(Record& out) = nullptr;
  int csv_column = -1;  // its place among the CSV's columns, from 0; -1: not a column

  [[nodiscard]] constexpr JsonField added_in(int version) const {
    JsonField f = *this;
    f.since = version;
    return f;
  }
  [[nodiscard]] constexpr JsonField csv(int column) const {
    JsonField f = *this;
    f.csv_column = column;
    return f;
  }
};

using ResultField = JsonField<Result>;
using EnvironmentField = JsonField<Environment>;
using ContextField = JsonField<RunContext>;

// Every field of a result, of the environment and of the run's context, in the order the
// reader reads them (a malformed document's Error names the first wrong field in this order).
std::span<const ResultField> result_fields();
std::span<const EnvironmentField> environment_fields();
std::span<const ContextField> context_fields();

// A CSV column that is a part of a result field rather than a field of its own: --latency's
// percentiles, one column each, from the latency_ns row's value. Numbered among the rows'
// columns; empty cells where the result has no such part.
struct CsvPartColumn {
  const char* name;  // the CSV's header
  int csv_column;
  std::optional<nlohmann::json> (*write)(const Result&);
};
std::span<const CsvPartColumn> csv_part_columns();

}  // namespace fdbench
