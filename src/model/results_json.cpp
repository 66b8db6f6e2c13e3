#include "model/results_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <utility>
#include <vector>
#include <nlohmann/json.hpp>

#include "fdbench/error.hpp"
#include "model/json_fields.hpp"
#include "model/json_reader.hpp"

namespace fdbench {

namespace {

using nlohmann::json;

// Every row of a table, in its order: what the document has, and for what it lacks the
// row's default (or "missing").
template <class Record>
void read_fields(const JsonReader& in, std::span<const JsonField<Record>> fields, Record& out) {
  for (const auto& f : fields) {
    switch (f.read_as) {
      case FieldRead::required:
        f.read(in, f.name, out);
        break;
      case FieldRead::optional:
        if (in.has(f.name)) {
          f.read(in, f.name, out);
        } else {
          f.older(out);
        }
        break;
      case FieldRead::together:  // read with the row above
      case FieldRead::derived:   // computed below
        break;
    }
  }
}

Environment read_environment(const JsonReader& in) {
  Environment env;
  read_fields(in, environment_fields(), env);
  return env;
}

RunContext read_context(const JsonReader& in) {
  RunContext context;
  read_fields(in, context_fields(), context);
  return context;
}

Result read_result(const JsonReader& in) {
  Result r;
  read_fields(in, result_fields(), r);
  // Statistics are derived from the raw samples, so a reader never trusts stale copies.
  finalize(r);
  return r;
}

// Nested objects become "parent.child" names, to a small depth (a fuzzed document may nest
// deeper than the stack allows); what lies deeper is kept as JSON text.
void flatten(const json& node, const std::string& prefix, int depth,
             std::map<std::string, std::string>& out) {
  for (const auto& [key, value] : node.items()) {
    const std::string name = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object() && depth < 3) {
      flatten(value, name, depth + 1, out);
    } else if (value.is_string()) {
      out[name] = value.get<std::string>();
    } else if (!value.is_null()) {
      out[name] = value.dump(-1, ' ', false, json::error_handler_t::replace);
    }
  }
}

// The results read as the parse reached them, or what was wrong with the first that was not
// one: said only once the document's header and environment are found sound, as a reader of
// the whole tree would (the writer's keys are in order: "results" before "schema_version").
struct StreamedResults {
  std::vector<Result> results;
  std::optional<Error> wrong;
};

ResultsDocument read_document(const json& root, StreamedResults results);

// A result read as soon as its element of the array ends, its tree dropped at once.
Result read_result_element(const json& element, std::size_t index) {
  try {
    return read_result(JsonReader(element, fmt::format("results[{}]", index)));
  } catch (const json::parse_error&) {
    throw;
  } catch (const json::exception& e) {  // a conversion the JsonReader did not foresee
    throw Error(fmt::format("malformed document: {}", e.what()));
  }
}

// The document parsed as a stream (nlohmann-json's SAX interface): the tree of everything but
// the top-level "results" array's elements, each of which is built alone and read into a
// Result as soon as it ends. A document's memory is then its results and one result's tree,
// never the tree of the whole text (about eight times its size: a 120 MiB file took 987 MB).
class ResultsStream {
 public:
  ResultsStream(json& root, StreamedResults& results, const std::function<void()>& poll)
      : root_parser_(root), results_(results), poll_(poll) {}

  bool null() { return scalar([](auto& p) { return p.null(); }); }
  bool boolean(bool v) { return scalar([v](auto& p) { return p.boolean(v); }); }
  bool number_integer(json::number_integer_t v) {
    return scalar([v](auto& p) { return p.number_integer(v); });
  }
  bool number_unsigned(json::number_unsigned_t v) {
    return scalar([v](auto& p) { return p.number_unsigned(v); });
  }
  bool number_float(json::number_float_t v, const json::string_t& text) {
    return scalar([v, &text](auto& p) { return p.number_float(v, text); });
  }
  bool string(json::string_t& v) { return scalar([&v](auto& p) { return p.string(v); }); }
  bool binary(json::binary_t& v) { return scalar([&v](auto& p) { return p.binary(v); }); }
  bool start_object(std::size_t n) { return open([n](auto& p) { return p.start_object(n); }); }
  bool start_array(std::size_t n) { return open([n](auto& p) { return p.start_array(n); }); }
  bool end_object() { return close([](auto& p) { return p.end_object(); }); }
  bool end_array() { return close([](auto& p) { return p.end_array(); }); }
  bool key(json::string_t& k) {
    tick();
    if (element_parser_) return element_parser_->key(k);
    results_key_ = depth_ == 1 && k == "results";
    return root_parser_.key(k);
  }
  template <class Exception>
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/, const Exception& ex) {
    throw ex;
  }

 private:
  using DomParser = nlohmann::detail::json_sax_dom_parser<json>;

  // An element of "results" starts here (at the array's own depth, none begun yet).
  [[nodiscard]] bool element_starts() const {
    return in_results_ && depth_ == 2 && !element_parser_;
  }
  void begin_element() {
    element_ = json();
    element_parser_.emplace(element_);
  }
  void end_element() {
    element_parser_.reset();
    if (!results_.wrong) {
      try {
        results_.results.push_back(read_result_element(element_, results_.results.size()));
      } catch (const Error& e) {
        results_.wrong = e;
      }
    }
    element_ = json();
    if (poll_) poll_();
  }
  template <class Event>
  bool scalar(Event event) {
    tick();
    results_key_ = false;
    if (element_starts()) {
      begin_element();
      const bool ok = event(*element_parser_);
      end_element();
      return ok;
    }
    return element_parser_ ? event(*element_parser_) : event(root_parser_);
  }
  template <class Event>
  bool open(Event event) {
    tick();
    if (element_starts()) begin_element();
    const bool ok = element_parser_ ? event(*element_parser_) : event(root_parser_);
    if (!element_parser_ && depth_ == 1 && results_key_) in_results_ = true;
    results_key_ = false;
    ++depth_;
    return ok;
  }
  template <class Event>
  bool close(Event event) {
    tick();
    --depth_;
    if (element_parser_) {
      const bool ok = event(*element_parser_);
      if (depth_ == 2) end_element();
      return ok;
    }
    if (in_results_ && depth_ == 1) in_results_ = false;
    return event(root_parser_);
  }
  // `poll` every so many values: a large document takes seconds to parse.
  void tick() {
    if ((++values_ & 0x3FFF) == 0 && poll_) poll_();
  }

 public:
  // Whether the parse met any value at all.
  [[nodiscard]] bool started() const { return values_ > 0; }

 private:

  DomParser root_parser_;
  json element_;
  std::optional<DomParser> element_parser_;  // while an element of "results" is read
  StreamedResults& results_;
  const std::function<void()>& poll_;
  std::size_t values_ = 0;
  int depth_ = 0;             // containers open
  bool results_key_ = false;  // the key just read is the document's "results"
  bool in_results_ = false;   // inside the document's "results" array
};

// Where a text stops being JSON, in words: empty, cut short, or the line and column.
std::string not_json(std::string_view text, std::size_t byte) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return "not valid JSON: the file is empty";
  }
  if (byte > text.size()) return "not valid JSON: it ends before the document does (cut short?)";
  const std::string_view before = text.substr(0, byte == 0 ? 0 : byte - 1);
  const auto line = std::count(before.begin(), before.end(), '\n') + 1;
  const auto newline = before.rfind('\n');
  const auto column = before.size() - (newline == std::string_view::npos ? 0 : newline + 1) + 1;
  return fmt::format("not valid JSON at line {}, column {}", line, column);
}

}  // namespace

ResultsDocument parse_results_json(std::string_view text, const std::function<void()>& poll) {
  json root;
  StreamedResults results;
  try {
    ResultsStream stream(root, results, poll);
    json::sax_parse(text.begin(), text.end(), &stream);
  } catch (const json::parse_error& e) {
    throw Error(not_json(text, e.byte));
  } catch (const json::exception&) {  // out_of_range: a number beyond any double
    throw Error("not valid JSON: it holds a number too large to read");
  }
  try {
    return read_document(root, std::move(results));
  } catch (const json::exception& e) {  // a conversion the JsonReader did not foresee
    throw Error(fmt::format("malformed document: {}", e.what()));
  }
}

namespace {

// Where a stream stops being JSON, in the words not_json uses: at its end having met nothing
// (empty), at its end inside the document (cut short), or the parser's line and column.
std::string stream_not_json(const json::parse_error& e, bool at_end, bool started) {
  if (at_end && !started) return "not valid JSON: the file is empty";
  if (at_end) return "not valid JSON: it ends before the document does (cut short?)";
  const std::string what = e.what();
  const auto at = what.find(" at line ");
  const auto colon = what.find(':', at == std::string::npos ? 0 : at);
  if (at == std::string::npos || colon == std::string::npos) {
    return fmt::format("not valid JSON at byte {}", e.byte);
  }
  return "not valid JSON" + what.substr(at, colon - at);  // " at line 3, column 7"
}

}  // namespace

ResultsDocument parse_results_json(std::istream& in, const std::function<void()>& poll) {
  json root;
  StreamedResults results;
  ResultsStream stream(root, results, poll);
  try {
    json::sax_parse(in, &stream);
  } catch (const json::parse_error& e) {
    throw Error(stream_not_json(e, in.eof(), stream.started()));
  } catch (const json::exception&) {  // out_of_range: a number beyond any double
    throw Error("not valid JSON: it holds a number too large to read");
  }
  try {
    return read_document(root, std::move(results));
  } catch (const json::exception& e) {  // a conversion the JsonReader did not foresee
    throw Error(fmt::format("malformed document: {}", e.what()));
  }
}

namespace {

// An integer as one; a number with a fraction, or a count schema 1 and 2 wrote as 2.0, as a
// double (equal to the integer all the same).
FindingNumber read_number(const json& value) {
  if (value.is_number_integer() && !value.is_number_unsigned()) {
    return value.get<std::int64_t>();
  }
  if (value.is_number_unsigned() &&
      value.get<std::uint64_t>() <=
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return static_cast<std::int64_t>(value.get<std::uint64_t>());
  }
  return value.get<double>();
}

FindingSubject read_subject(const JsonReader& in) {
  FindingSubject s;
  s.role = in.text_or("role", "");
  s.workload = in.text("workload");
  Configuration& c = s.config;
  // A subject without its kind (none written so) reads as a file's.
  if (in.has("kind")) c.kind = in.choice("kind", parse_descriptor_kind, "a descriptor kind");
  c.strategy = in.text("strategy");
  c.threads = in.integer<int>("threads");
  c.batch = in.optional_integer<int>("batch").value_or(1);
  if (in.has("pregrow")) c.pregrow = in.choice("pregrow", parse_pregrow, "a pregrow");
  c.rcu_expedited = in.optional_integer<int>("rcu_expedited");
  if (in.has("harness")) c.harness = in.choice("harness", parse_harness, "a harness");
  c.paths = PathMode::relative;
  if (in.has("paths")) c.paths = in.choice("paths", parse_path_mode, "a path mode");
  return s;
}

Finding read_finding(const json& node, const std::string& path) {
  const JsonReader in(node, path);
  Finding f;
  f.kind = in.text("kind");
  f.text = in.text("text");
  if (in.has("numbers")) {
    const json& numbers = in.field("numbers");
    if (!numbers.is_object()) throw Error(fmt::format("{}.numbers: expected an object", path));
    for (const auto& [name, value] : numbers.items()) {
      if (!value.is_number()) {
        throw Error(fmt::format("{}.numbers.{}: expected a number", path, name));
      }
      f.numbers[name] = read_number(value);
    }
  }
  if (in.has("subjects")) {  // schema 3 on
    const json& subjects = in.field("subjects");
    if (!subjects.is_array()) throw Error(fmt::format("{}.subjects: expected an array", path));
    for (std::size_t i = 0; i < subjects.size(); ++i) {
      f.subjects.push_back(
          read_subject(JsonReader(subjects[i], fmt::format("{}.subjects[{}]", path, i))));
    }
  }
  return f;
}

ResultsDocument read_document(const json& root, StreamedResults results) {
  const JsonReader doc(root, "document");
  ResultsDocument out;
  out.schema_version = doc.integer<int>("schema_version");
  if (out.schema_version < 1 || out.schema_version > kSchemaVersion) {
    throw Error(fmt::format(
        "schema_version {} is not supported (this fdbench reads 1 to {}{})", out.schema_version,
        kSchemaVersion, out.schema_version > kSchemaVersion ? "; a newer fdbench wrote it" : ""));
  }
  const JsonReader tool(doc.field("tool"), "tool");
  if (tool.text("name") != "fdbench") throw Error("tool.name: not an fdbench document");
  out.tool_version = tool.text("version");
  out.complete = !doc.has("complete") || !doc.field("complete").is_boolean() ||
                 doc.field("complete").get<bool>();
  out.environment = read_environment(JsonReader(doc.field("environment"), "environment"));
  flatten(doc.field("environment"), "", 0, out.environment_fields);
  if (doc.has("context")) out.context = read_context(JsonReader(doc.field("context"), "context"));
  // Read as the parse reached them; the tree keeps the array, empty.
  if (!doc.field("results").is_array()) throw Error("results: expected an array");
  if (results.wrong) throw *results.wrong;
  out.results = std::move(results.results);
  if (doc.has("findings")) {
    const json& list = doc.field("findings");
    if (!list.is_array()) throw Error("findings: expected an array");
    out.findings_recorded = true;
    for (std::size_t i = 0; i < list.size(); ++i) {
      out.findings.push_back(read_finding(list[i], fmt::format("findings[{}]", i)));
    }
  }
  return out;
}

}  // namespace

}  // namespace fdbench
