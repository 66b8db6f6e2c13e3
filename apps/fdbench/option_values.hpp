#pragma once
// An option's text as its command takes it: numbers, lists and words parsed and held to their
// ranges, each refusal a message naming the option by its row.
#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "application/option_rows.hpp"
#include "common/errors.hpp"
#include "fdbench/error.hpp"
#include "run/options.hpp"

namespace fdbench::cli {

using app::Opt;
using app::OptionValues;

// A value its option does not take (not a number, out of range, not one of its words): what
// the command's --help answers, so its line points there.
class BadValue : public UsageError {
 public:
  using UsageError::UsageError;
};

constexpr long long kMaxFiles = 10'000'000;
constexpr long long kMaxPerThread = 1'000'000;
constexpr long long kMaxPregrowFd = 1 << 20;  // Linux's default fs.nr_open
// --timeout for --tree and --list when none is given: the user's files may be on a network or
// FUSE mount that stops answering, and a minute is far beyond any repetition that is working.
constexpr double kDefaultTreeTimeout = 60;
// How long a path the command line names (--dir, TMPDIR, an output, an input) may take to
// answer its first stat() when no --timeout is given: a dead mount never answers, and a
// working one answers in far less.
constexpr double kDefaultPathAnswerTimeout = 10;
// A --timeout below this is a limit for a repetition, not for a stat(): a path is given this
// long to answer (a working NFS mount under load may take some milliseconds).
constexpr double kLeastPathAnswerTimeout = 1;
constexpr double kMaxTimeout = 7 * 24 * 3600;

std::string join(const std::vector<std::string>& items);
long long parse_number(std::string_view flag, std::string_view text, long long min, long long max);
std::vector<std::string> split_list(std::string_view flag, const std::string& text);
std::vector<int> parse_threads(const std::string& text);
std::vector<std::string> parse_strategies(const std::string& text,
                                          WorkloadKind kind = WorkloadKind::open);
std::vector<Pregrow> parse_pregrow_list(const std::string& text);
std::size_t parse_layout(const std::string& text);
// --format: one of the formats `command` writes.
std::string parse_format(const OptionValues& values, app::Cmd command);
std::vector<Harness> parse_harness_list(const std::string& text);
std::vector<int> parse_rcu_expedited(const std::string& text);
// --timeout SECONDS|none: 0 for none; given nothing, `existing` (the user's files) gets
// kDefaultTreeTimeout, a private set none.
double parse_timeout(const std::string& text, bool existing);
// A positive number in [min, max] ("3", "0.5"), with an optional `suffix` ("%").
double parse_decimal(std::string_view flag, std::string text, std::string_view unit, double min,
                     double max, std::string_view suffix = {});
double parse_precision(const std::string& text);
Repeat parse_repeat(const OptionValues& values);
void apply_uring_tuning(const std::string& text, UringOptions& uring);

// An enum's value by its word, or the message naming the choices.
template <typename T, typename Parse>
void apply_choice(Opt id, const std::string& text, Parse parse, std::vector<std::string> names,
                  std::string_view what, T& out) {
  if (!parse(text, out)) {
    throw BadValue(fmt::format("{}: unknown {} '{}' (choose from {})", app::flag(id), what, text,
                               join(names)));
  }
}

}  // namespace fdbench::cli
