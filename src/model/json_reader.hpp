#pragma once
// Typed access to the fields of one JSON object, for the results reader and the contract's
// field table (json_fields.hpp): every Error names the field's path in the document
// ("results[3].times_ns: expected an array of integers").
#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fdbench/error.hpp"
#include "model/result.hpp"

namespace fdbench {

class JsonReader {
 public:
  using json = nlohmann::json;

  JsonReader(const json& node, std::string path) : node_(node), path_(std::move(path)) {
    if (!node_.is_object()) throw Error(fmt::format("{}: expected an object", path_));
  }

  [[nodiscard]] bool has(const char* key) const {
    return node_.contains(key) && !node_.at(key).is_null();
  }

  [[nodiscard]] const json& field(const char* key) const {
    if (!node_.contains(key)) throw Error(fmt::format("{}.{}: missing", path_, key));
    return node_.at(key);
  }

  [[nodiscard]] std::string text(const char* key) const {
    const json& v = field(key);
    if (!v.is_string()) throw Error(fmt::format("{}.{}: expected a string", path_, key));
    return v.get<std::string>();
  }

  [[nodiscard]] std::string text_or(const char* key, std::string fallback) const {
    return has(key) ? text(key) : std::move(fallback);
  }

  [[nodiscard]] bool flag(const char* key) const {
    const json& v = field(key);
    if (!v.is_boolean()) throw Error(fmt::format("{}.{}: expected true or false", path_, key));
    return v.get<bool>();
  }

  [[nodiscard]] bool flag_or(const char* key, bool fallback) const {
    return has(key) ? flag(key) : fallback;
  }

  // One of the spellings `parse` knows; `expected` lists them for the message.
  template <class Value>
  [[nodiscard]] Value choice(const char* key, bool (*parse)(std::string_view, Value&),
                             const char* expected) const {
    Value value{};
    if (!parse(text(key), value)) {
      throw Error(fmt::format("{}.{}: expected {}", path_, key, expected));
    }
    return value;
  }

  template <class Int>
  [[nodiscard]] Int integer(const char* key) const {
    const json& v = field(key);
    if (!v.is_number_integer()) {
      throw Error(fmt::format("{}.{}: expected an integer", path_, key));
    }
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<Int>::max())) {
        throw Error(fmt::format("{}.{}: out of range", path_, key));
      }
      return static_cast<Int>(u);
    }
    const auto i = v.get<std::int64_t>();
    if (i < static_cast<std::int64_t>(std::numeric_limits<Int>::min()) ||
        (i > 0 && static_cast<std::uint64_t>(i) >
                      static_cast<std::uint64_t>(std::numeric_limits<Int>::max()))) {
      throw Error(fmt::format("{}.{}: out of range", path_, key));
    }
    return static_cast<Int>(i);
  }

  template <class Int>
  [[nodiscard]] std::optional<Int> optional_integer(const char* key) const {
    if (!has(key)) return std::nullopt;
    return integer<Int>(key);
  }

  [[nodiscard]] double number(const char* key) const {
    const json& v = field(key);
    if (!v.is_number()) throw Error(fmt::format("{}.{}: expected a number", path_, key));
    return v.get<double>();
  }

  [[nodiscard]] std::optional<double> optional_number(const char* key) const {
    if (!has(key)) return std::nullopt;
    return number(key);
  }

  [[nodiscard]] std::optional<std::string> optional_text(const char* key) const {
    if (!has(key)) return std::nullopt;
    return text(key);
  }

  [[nodiscard]] std::vector<std::string> texts(const char* key) const {
    std::vector<std::string> out;
    if (!has(key)) return out;
    const json& v = field(key);
    if (!v.is_array()) throw Error(fmt::format("{}.{}: expected an array", path_, key));
    for (const auto& item : v) {
      if (!item.is_string()) throw Error(fmt::format("{}.{}: expected strings", path_, key));
      out.push_back(item.get<std::string>());
    }
    return out;
  }

  [[nodiscard]] std::map<std::string, std::string> text_map(const char* key) const {
    std::map<std::string, std::string> out;
    if (!has(key)) return out;
    const json& v = field(key);
    if (!v.is_object()) throw Error(fmt::format("{}.{}: expected an object", path_, key));
    for (const auto& [name, item] : v.items()) {
      if (!item.is_string()) {
        throw Error(fmt::format("{}.{}.{}: expected a string", path_, key, name));
      }
      out[name] = item.get<std::string>();
    }
    return out;
  }

  [[nodiscard]] std::map<std::string, std::uint64_t> counts(const char* key) const {
    std::map<std::string, std::uint64_t> out;
    if (!has(key)) return out;
    const json& v = field(key);
    if (!v.is_object()) throw Error(fmt::format("{}.{}: expected an object", path_, key));
    for (const auto& [name, n] : v.items()) {
      if (!n.is_number_unsigned()) {
        throw Error(fmt::format("{}.{}.{}: expected a count", path_, key, name));
      }
      out[name] = n.get<std::uint64_t>();
    }
    return out;
  }

  // {"EMFILE": {"count": 3, "message": "Too many open files"}}; a bare count, as fdbench 0.1
  // wrote keyed by message, is read with an empty message.
  [[nodiscard]] std::map<std::string, ErrnoCount> errno_counts(const char* key) const {
    std::map<std::string, ErrnoCount> out;
    if (!has(key)) return out;
    const json& v = field(key);
    if (!v.is_object()) throw Error(fmt::format("{}.{}: expected an object", path_, key));
    for (const auto& [name, entry] : v.items()) {
      if (entry.is_number_unsigned()) {
        out[name].count = entry.get<std::uint64_t>();
        continue;
      }
      if (!entry.is_object()) {
        throw Error(
            fmt::format("{}.{}.{}: expected a count or {{count, message}}", path_, key, name));
      }
      const JsonReader one(entry, fmt::format("{}.{}.{}", path_, key, name));
      out[name] = {one.integer<std::uint64_t>("count"), one.text_or("message", "")};
    }
    return out;
  }

  [[nodiscard]] std::string path(const char* key) const { return path_ + "." + key; }

 private:
  const json& node_;
  std::string path_;
};

}  // namespace fdbench
