#pragma once
// A command line CLI11 could not parse, said in fdbench's words: one line naming the command,
// what is wrong with the line and where its usage is ("fdbench open: unknown option '--fils'
// (did you mean --files?); see 'fdbench open --help'"). Every name in it comes from the
// CLI11 definition made of the option tables, none is written here.
#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace fdbench::cli {

// The command the line named: "fdbench open", or "fdbench" for none.
std::string command_name(const CLI::App& app);

// The usage error's line without "Error: ": "<command>: <cause>", and, when `see_help`, where
// the command's usage is.
std::string usage_line(const std::string& command, std::string_view cause, bool see_help);

// The line for a ParseError that app.parse(argc, argv) threw.
std::string parse_error_line(const CLI::App& app, const CLI::ParseError& error, int argc,
                             const char* const* argv);

// The longest an argument is echoed whole in an error line, in bytes: a longer one (a
// 100,000-character value) is shown cut, its start and end around "…".
inline constexpr std::size_t kLongestEchoed = 80;
// `line` with every part of argv it echoes that is longer than kLongestEchoed (an argument, the
// value of --opt=VALUE, an item of a comma list) cut to its first and last characters around
// "…", at UTF-8 character boundaries.
std::string with_long_arguments_cut(std::string line, int argc, const char* const* argv);

// The name in `names` that `word` is likely a mistyping of (at most two edits, and fewer
// than half its letters), or "" for none. The first of the closest wins.
std::string closest_name(std::string_view word, const std::vector<std::string>& names);

}  // namespace fdbench::cli
