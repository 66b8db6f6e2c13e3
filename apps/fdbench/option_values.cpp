// An option's text as its command takes it (option_values.hpp).
#include "option_values.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "engine/strategy.hpp"
#include "platform/platform.hpp"

namespace fdbench::cli {

using app::flag;
using app::formats_of;

namespace {

// "60", "0.5": digits with at most one point between digits. No sign, exponent, hex or
// infinity: strtod takes "0x10" and "1e-300", which nobody means as a number of seconds.
bool plain_decimal(const std::string& text) {
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  const std::size_t point = text.find('.');
  const std::string_view whole = std::string_view(text).substr(0, point);
  const std::string_view part =
      point == std::string::npos ? std::string_view("0") : std::string_view(text).substr(point + 1);
  return !whole.empty() && !part.empty() && std::all_of(whole.begin(), whole.end(), digit) &&
         std::all_of(part.begin(), part.end(), digit);
}

}  // namespace

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

long long parse_number(std::string_view flag, std::string_view text, long long min, long long max) {
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range ||
      (ec == std::errc{} && end == text.data() + text.size() && (value < min || value > max))) {
    throw BadValue(fmt::format("{}: {} is out of range (allowed: {} to {})", flag, text, min, max));
  }
  if (ec != std::errc{} || end != text.data() + text.size()) {
    throw BadValue(fmt::format("{}: '{}' is not a whole number", flag, text));
  }
  return value;
}

std::vector<std::string> split_list(std::string_view flag, const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    if (item.empty()) throw BadValue(fmt::format("{}: empty item in '{}'", flag, text));
    if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
  }
  if (items.empty() || text.back() == ',') {
    throw BadValue(fmt::format("{}: expected a comma-separated list, got '{}'", flag, text));
  }
  return items;
}

std::vector<int> parse_threads(const std::string& text) {
  std::vector<int> threads;
  for (const auto& item : split_list(flag(Opt::threads), text)) {
    threads.push_back(static_cast<int>(parse_number(flag(Opt::threads), item, 1, kMaxThreads)));
  }
  return threads;
}

std::vector<std::string> parse_strategies(const std::string& text, WorkloadKind kind) {
  if (text == "all") return strategy_names_for(kind);
  std::vector<std::string> names;
  for (const auto& name : split_list(flag(Opt::strategy), text)) {
    if (find_strategy(name) == nullptr) {
      throw BadValue(fmt::format("{}: unknown strategy '{}' (choose from {}, or all)",
                                 flag(Opt::strategy), name, join(strategy_names())));
    }
    names.push_back(name);
  }
  return names;
}

std::vector<Pregrow> parse_pregrow_list(const std::string& text) {
  std::vector<Pregrow> list;
  for (const auto& item : split_list(flag(Opt::pregrow), text)) {
    Pregrow p;
    if (!parse_pregrow(item, p)) {
      throw BadValue(fmt::format("{}: '{}' is not off, auto or a descriptor number",
                                 flag(Opt::pregrow), item));
    }
    if (p.mode == Pregrow::Mode::fd) parse_number(flag(Opt::pregrow), item, 0, kMaxPregrowFd);
    list.push_back(p);
  }
  return list;
}

std::size_t parse_layout(const std::string& text) {
  if (text == "flat") return 0;
  if (text.rfind("dirs:", 0) == 0) {
    return static_cast<std::size_t>(parse_number(flag(Opt::layout), text.substr(5), 1, 100000));
  }
  throw BadValue(fmt::format("{}: '{}' is not flat or dirs:K", flag(Opt::layout), text));
}

namespace {

// The format an --output file's name asks for by its extension; "" for any other name.
std::string format_of_name(const std::string& path) {
  static const std::vector<std::pair<std::string, std::string>> kExtensions = {
      {".json", "json"}, {".csv", "csv"}, {".md", "markdown"}, {".html", "html"}};
  for (const auto& [extension, format] : kExtensions) {
    if (path.size() > extension.size() && path.ends_with(extension)) return format;
  }
  return {};
}

}  // namespace

// --format: one of the formats `command` writes. Not given, an --output named .json, .csv, .md
// or .html writes that format; given, it must agree with such a name.
std::string parse_format(const OptionValues& values, app::Cmd command) {
  const auto formats = formats_of(command);
  const std::string named = format_of_name(values[Opt::output]);
  const bool writes_named = std::find(formats.begin(), formats.end(), named) != formats.end();
  if (!values.given(Opt::format) && writes_named) return named;
  const std::string& value = values[Opt::format];
  if (std::find(formats.begin(), formats.end(), value) == formats.end()) {
    throw BadValue(fmt::format("{}: unknown format '{}' (choose from {})", flag(Opt::format), value,
                               join(formats)));
  }
  if (writes_named && value != named) {
    throw UsageError(fmt::format("{} {} and {} {} disagree: drop {}, or name the file for {}",
                                 flag(Opt::format), value, flag(Opt::output), values[Opt::output],
                                 flag(Opt::format), value));
  }
  return value;
}

// --harness: minimal, published, or both in the order given (a repeated one counts once, as in
// every list).
std::vector<Harness> parse_harness_list(const std::string& text) {
  std::vector<Harness> harnesses;
  for (const auto& item : split_list(flag(Opt::harness), text)) {
    Harness harness{};
    if (!parse_harness(item, harness)) {
      throw BadValue(fmt::format(
          "{}: unknown value '{}' (choose from minimal, published, minimal,published)",
          flag(Opt::harness), item));
    }
    harnesses.push_back(harness);
  }
  return harnesses;
}

// --rcu-expedited keep|0|1|0,1: the values to set in turn (none for keep), refused up front
// where they cannot be set.
std::vector<int> parse_rcu_expedited(const std::string& text) {
  if (text == "keep") return {};
  std::vector<int> values;
  for (const auto& item : split_list(flag(Opt::rcu_expedited), text)) {
    if (item != "0" && item != "1") {
      throw BadValue(fmt::format("{}: '{}' is not keep, 0, 1 or a list of them such as 0,1",
                                 flag(Opt::rcu_expedited), item));
    }
    values.push_back(item == "1" ? 1 : 0);
  }
  if (const std::string why = platform::rcu_expedited_unsettable(); !why.empty()) {
    throw UsageError(fmt::format("{} {}: {}", flag(Opt::rcu_expedited), text, why));
  }
  return values;
}

// --timeout SECONDS|none: 0 for none (a 0 given is refused). Given nothing, `existing` (the user's
// files, which may be on a mount that stops answering) gets kDefaultTreeTimeout, a private set
// none. Given "" (CLI11 leaves the text as when not given), refused by add_options.
double parse_timeout(const std::string& text, bool existing) {
  if (text.empty()) return existing ? kDefaultTreeTimeout : 0;
  if (text == "none") return 0;
  if (!plain_decimal(text)) {
    throw BadValue(fmt::format(
        "{}: '{}' is not a number of seconds in plain decimals (such as 60 or 0.5) or none",
        flag(Opt::timeout), text));
  }
  const double seconds = std::strtod(text.c_str(), nullptr);
  if (seconds > kMaxTimeout) {
    throw BadValue(fmt::format("{}: {} is out of range (allowed: up to {} seconds, or none)",
                               flag(Opt::timeout), text, kMaxTimeout));
  }
  // 0 once meant "no limit" silently; a limit of nothing is not one, so no limit is said so.
  if (seconds == 0) {
    throw BadValue(fmt::format(
        "--timeout: {} is no limit at all; for no limit say --timeout none, else give seconds "
        "above 0",
        text));
  }
  // The limit is kept in whole nanoseconds; less would be 0 there, which is no limit at all.
  if (std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(seconds))
          .count() == 0) {
    throw BadValue(fmt::format(
        "--timeout: {} is below the clock's resolution of 1 ns: give at least 0.000000001 "
        "seconds, or none",
        text));
  }
  return seconds;
}

// A positive number in [min, max] ("3", "0.5"), with an optional `suffix` ("%").
double parse_decimal(std::string_view flag, std::string text, std::string_view unit, double min,
                     double max, std::string_view suffix) {
  if (!suffix.empty() && text.ends_with(suffix)) text.resize(text.size() - suffix.size());
  // One grammar for every number of the command line, --timeout's: plain decimals. strtod
  // alone would read "0x10" as 16 and "1e2" as 100.
  if (!plain_decimal(text)) {
    throw BadValue(fmt::format("{}: '{}' is not a number of {} in plain decimals (such as 10 or "
                               "2.5)",
                               flag, text, unit));
  }
  // strtod, not from_chars: libc++ on macOS has no floating-point from_chars.
  const double value = std::strtod(text.c_str(), nullptr);
  if (value < min || value > max) {
    throw BadValue(fmt::format("{}: {} is out of range (allowed: {:g} to {:g} {})", flag, text, min,
                               max, unit));
  }
  return value;
}

// --precision PERCENT (open, socket, tune), as a share of the median.
double parse_precision(const std::string& text) {
  return parse_decimal(flag(Opt::precision), text, "percent", 0.1, 50, "%") / 100;
}

// --repeat N|auto, with --precision and --max-time for auto.
Repeat parse_repeat(const OptionValues& values) {
  Repeat repeat;
  const std::string& text = values[Opt::repeat];
  if (text != "auto") {
    repeat.count = static_cast<int>(parse_number(flag(Opt::repeat), text, 1, 100000));
    for (const Opt id : {Opt::precision, Opt::max_time}) {
      if (!values[id].empty()) {
        throw UsageError(fmt::format("{} applies to --repeat auto, not to --repeat {}: drop one",
                                     flag(id), text));
      }
    }
    return repeat;
  }
  if (!values[Opt::precision].empty()) repeat.precision = parse_precision(values[Opt::precision]);
  if (!values[Opt::max_time].empty()) {
    repeat.max_time_s =
        parse_decimal(flag(Opt::max_time), values[Opt::max_time], "seconds", 0.001, 86400);
  }
  return repeat;
}

void apply_uring_tuning(const std::string& text, UringOptions& uring) {
  if (!parse_uring_tuning(text, uring)) {
    throw BadValue(fmt::format("{}: unknown value '{}' (choose from {})", flag(Opt::uring_tuning),
                               text, join(uring_tuning_names())));
  }
}

}  // namespace fdbench::cli
