#pragma once
// A finding as data: what every output format prints and the JSON contract records. The
// findings themselves are worked out in analysis/findings.hpp.
#include <concepts>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "model/configuration.hpp"

namespace fdbench {

// A number a finding cites: a count, or whole nanoseconds, is an integer (and written as one);
// a ratio, a rate or an average is not. Read as a double wherever it is used.
class FindingNumber {
 public:
  FindingNumber() = default;
  template <std::integral Int>
  FindingNumber(Int count) : value_(static_cast<std::int64_t>(count)) {}  // NOLINT: implicit
  FindingNumber(double measured) : value_(measured) {}                    // NOLINT: implicit

  [[nodiscard]] bool is_integer() const { return std::holds_alternative<std::int64_t>(value_); }
  [[nodiscard]] std::int64_t integer() const { return std::get<std::int64_t>(value_); }
  operator double() const {  // NOLINT: implicit, a number is read as one
    return is_integer() ? static_cast<double>(integer()) : std::get<double>(value_);
  }
  // By value: 2 and 2.0 (an older document's count) are the same number.
  bool operator==(const FindingNumber& other) const {
    return static_cast<double>(*this) == static_cast<double>(other);
  }
  template <class Number>
  requires std::is_arithmetic_v<Number>
  friend bool operator==(const FindingNumber& a, Number b) {
    return static_cast<double>(a) == static_cast<double>(b);
  }

 private:
  std::variant<std::int64_t, double> value_ = std::int64_t{0};
};

// One result a finding is about, as fields a script can match against the results (its
// `workload` and its configuration: `kind`, `strategy`, `threads`, `batch`, `pregrow`,
// `rcu_expedited`, `harness` and `paths`), and what it is to the finding (`role`: "fastest",
// "tied", "knee", "reference", "pregrown", ...).
struct FindingSubject {
  std::string role;
  std::string workload;  // "open", "socket"
  // The result's; its paths always set (relative where the result did not say).
  Configuration config;

  bool operator==(const FindingSubject&) const = default;
};

struct Finding {
  std::string kind;  // what it concludes: "fastest", "tied", "knee", "pregrow", "events", ...
  std::string text;  // the sentence every format prints
  std::map<std::string, FindingNumber> numbers;  // the measured numbers it cites, by name
  std::vector<FindingSubject> subjects;          // the results it is about (schema 3 on)

  bool operator==(const Finding&) const = default;
};

}  // namespace fdbench
