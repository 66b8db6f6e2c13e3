// CLI11's parse errors in fdbench's words. CLI11 says which arguments were left over (in its
// message, in reverse order) and little else; what it parsed tells the rest: the command named,
// the arguments each command kept aside, the options given twice or missing their value.
#include "parse_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <numeric>

namespace fdbench::cli {

namespace {

// The subcommand the line named, or the top-level app.
const CLI::App& named_app(const CLI::App& app) {
  const auto named = app.get_subcommands();
  return named.empty() ? app : *named.front();
}

// Edits (insert, delete, replace, swap two neighbours) that turn one word into the other.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  std::iota(d[0].begin(), d[0].end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t replace = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + replace});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// A value, not an option: CLI11 takes "-5" and "-0.5" as values too.
bool is_number(const std::string& text) {
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return !text.empty() && end == text.c_str() + text.size();
}

// A flag takes no value; CLI11 expects none after it.
bool takes_value(const CLI::Option& option) {
  return !option.get_positional() && option.get_items_expected_max() > 0;
}

bool looks_like_option(const std::string& arg) {
  return arg.size() > 1 && arg[0] == '-' && !is_number(arg);
}

// Every name an option of `cmd` answers to: "--files", "-o", "--output".
std::vector<std::string> option_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* option : cmd.get_options()) {
    if (option->get_positional()) continue;
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
    for (const auto& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

// The other commands that have option `name`: where it was probably meant to go.
std::vector<std::string> commands_with(const CLI::App& app, const CLI::App& cmd,
                                       const std::string& name) {
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub != &cmd && sub->get_option_no_throw(name) != nullptr) {
      commands.push_back(sub->get_name());
    }
  }
  return commands;
}

std::string join_names(const std::vector<std::string>& names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string unknown_option(const CLI::App& app, const CLI::App& cmd, const std::string& arg) {
  const std::string name = arg.substr(0, arg.find('='));
  if (const auto others = commands_with(app, cmd, name); !others.empty()) {
    return fmt::format("unknown option '{}' (an option of {})", name, join_names(others));
  }
  if (const auto near = closest_name(name, option_names(cmd)); !near.empty()) {
    return fmt::format("unknown option '{}' (did you mean {}?)", name, near);
  }
  return fmt::format("unknown option '{}'", name);
}

std::string unknown_command(const CLI::App& app, const std::string& word) {
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands({})) commands.push_back(sub->get_name());
  if (const auto near = closest_name(word, commands); !near.empty()) {
    return fmt::format("unknown command '{}' (did you mean {}?)", word, near);
  }
  return fmt::format("unknown command '{}' (the commands: {})", word, join_names(commands));
}

// Where `cmd`'s own arguments start in argv: after its name, or at 1 for the top level.
int first_argument(const CLI::App& app, const CLI::App& cmd, int argc, const char* const* argv) {
  if (&cmd == &app) return 1;
  for (int i = 1; i < argc; ++i) {
    if (argv[i] == cmd.get_name()) return i + 1;
  }
  return argc;
}

// An argument nothing takes: a word the command has no place for, perhaps after a flag.
std::string unexpected_argument(const CLI::App& cmd, const std::string& arg, int first, int argc,
                                const char* const* argv) {
  for (int i = first + 1; i < argc; ++i) {
    if (argv[i] != arg) continue;
    const CLI::Option* before = cmd.get_option_no_throw(argv[i - 1]);
    const CLI::Option* taker = i - 2 >= first ? cmd.get_option_no_throw(argv[i - 2]) : nullptr;
    if (before != nullptr && taker != nullptr && takes_value(*before) && takes_value(*taker)) {
      // "--files --threads 2": CLI11 gave --files the next option as its value
      return fmt::format("{} needs a value ({}); it took {} as its value", argv[i - 2],
                         taker->get_type_name(), argv[i - 1]);
    }
    if (before != nullptr && !before->get_positional() && !takes_value(*before)) {
      return fmt::format("unexpected argument '{}' ({} takes no value)", arg, argv[i - 1]);
    }
    break;
  }
  return fmt::format("unexpected argument '{}'", arg);
}

std::string extras_cause(const CLI::App& app, const CLI::App& cmd, int argc,
                         const char* const* argv) {
  auto left = cmd.remaining(false);
  if (left.empty()) left = app.remaining(false);
  std::erase(left, "--");  // the end of options, not an argument
  if (left.empty()) return "";
  const std::string& first = left.front();
  if (looks_like_option(first)) return unknown_option(app, cmd, first);
  if (&cmd == &app) return unknown_command(app, first);
  return unexpected_argument(cmd, first, first_argument(app, cmd, argc, argv), argc, argv);
}

// An option CLI11 refused after counting it: given twice, or without its value.
std::string mismatch_cause(const CLI::App& app, const CLI::App& cmd, int argc,
                           const char* const* argv) {
  for (const CLI::Option* option : cmd.get_options()) {
    if (takes_value(*option) && option->get_items_expected_max() == 1 && option->count() > 1) {
      return fmt::format("{} is given more than once; give it once", option->get_name());
    }
  }
  for (int i = first_argument(app, cmd, argc, argv); i < argc; ++i) {
    const std::string arg = argv[i];
    const auto equals = arg.find('=');  // "--files=N"
    const std::string name = arg.substr(0, equals);
    const CLI::Option* option = cmd.get_option_no_throw(name);
    if (option == nullptr || !takes_value(*option)) continue;
    const bool missing = equals == std::string::npos
                             ? i + 1 == argc || looks_like_option(argv[i + 1])
                             : equals + 1 == arg.size();
    if (missing) return fmt::format("{} needs a value ({})", name, option->get_type_name());
  }
  return "";
}

std::string required_cause(const CLI::App& cmd) {
  for (const CLI::Option* option : cmd.get_options()) {
    if (option->get_required() && option->count() == 0) {
      std::string help = option->get_description();
      if (!help.empty())
        help[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(help[0])));
      return fmt::format("{} is missing ({})", option->get_type_name(), help);
    }
  }
  return "";
}

}  // namespace

std::string command_name(const CLI::App& app) {
  const CLI::App& cmd = named_app(app);
  return &cmd == &app ? app.get_name() : fmt::format("{} {}", app.get_name(), cmd.get_name());
}

std::string usage_line(const std::string& command, std::string_view cause, bool see_help) {
  // A cause that names the command itself ("history: unknown action") is not prefixed twice.
  const std::string word = command.substr(command.rfind(' ') + 1) + ": ";
  if (command.find(' ') != std::string::npos && cause.starts_with(word)) {
    cause.remove_prefix(word.size());
  }
  return see_help ? fmt::format("{}: {}; see '{} --help'", command, cause, command)
                  : fmt::format("{}: {}", command, cause);
}

namespace {

// `text` cut to about kLongestEchoed bytes: its start and its end around "…", neither split
// inside a UTF-8 character.
std::string cut(std::string_view text) {
  const auto continuation = [&text](std::size_t at) {
    return at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80;
  };
  std::size_t head = kLongestEchoed * 3 / 4;
  while (head > 0 && continuation(head)) --head;
  std::size_t tail = text.size() - (kLongestEchoed - kLongestEchoed * 3 / 4);
  while (tail < text.size() && continuation(tail)) ++tail;
  return fmt::format("{}…{}", text.substr(0, head), text.substr(tail));
}

void replace_all(std::string& line, std::string_view what, const std::string& with) {
  for (auto at = line.find(what); at != std::string::npos; at = line.find(what, at + with.size())) {
    line.replace(at, what.size(), with);
  }
}

}  // namespace

std::string with_long_arguments_cut(std::string line, int argc, const char* const* argv) {
  std::vector<std::string_view> long_parts;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.size() <= kLongestEchoed) continue;
    long_parts.push_back(arg);
    if (const auto equals = arg.find('='); arg.starts_with("--") && equals != std::string::npos) {
      long_parts.push_back(arg.substr(equals + 1));
    }
    for (std::size_t begin = 0; begin <= arg.size();) {
      const std::size_t end = std::min(arg.find(',', begin), arg.size());
      if (end - begin > kLongestEchoed && end - begin < arg.size()) {
        long_parts.push_back(arg.substr(begin, end - begin));
      }
      begin = end + 1;
    }
  }
  // The longest first: a part of an argument is cut where the whole is not echoed.
  std::sort(long_parts.begin(), long_parts.end(),
            [](std::string_view a, std::string_view b) { return a.size() > b.size(); });
  for (const std::string_view part : long_parts) {
    if (line.find(part) != std::string::npos) replace_all(line, part, cut(part));
  }
  return line;
}

std::string closest_name(std::string_view word, const std::vector<std::string>& names) {
  const std::size_t letters = word.size() - std::min(word.find_first_not_of('-'), word.size());
  std::string best;
  std::size_t best_distance = 3;
  for (const auto& name : names) {
    const std::size_t distance = edit_distance(word, name);
    if (distance < best_distance && 2 * distance < letters) {
      best = name;
      best_distance = distance;
    }
  }
  return best;
}

std::string parse_error_line(const CLI::App& app, const CLI::ParseError& error, int argc,
                             const char* const* argv) {
  const CLI::App& cmd = named_app(app);
  std::string cause;
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    cause = extras_cause(app, cmd, argc, argv);
  } else if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
    cause = mismatch_cause(app, cmd, argc, argv);
  } else if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) {
    cause = required_cause(cmd);
  }
  if (cause.empty()) {  // a case fdbench does not word itself: CLI11's, on one line
    cause = error.what();
    std::replace(cause.begin(), cause.end(), '\n', ' ');
  }
  return usage_line(command_name(app), cause, true);
}

}  // namespace fdbench::cli
