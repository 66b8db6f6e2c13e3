// argv -> Command. CLI11 binds each row of the one option table (option_rows.hpp) to text; one
// function per subcommand (command_builders.hpp) then turns that text into its command's
// struct, so that every message names its flag (by its row).
#include "cli.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>

#include "application/checks.hpp"
#include "application/option_rows.hpp"
#include "command_builders.hpp"
#include "common/errors.hpp"
#include "completion.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "fdbench/version.hpp"
#include "help_text.hpp"
#include "inputs/file_set.hpp"
#include "model/format.hpp"
#include "option_values.hpp"
#include "parse_error.hpp"
#include "platform/platform.hpp"
#include "run/runnable.hpp"

namespace fdbench::cli {

using namespace app;  // NOLINT: the application layer this file is the front of

namespace {

// Each command's CLI11 subcommand (the app itself for the default suite).
using Subcommands = std::map<Cmd, CLI::App*>;
// Each option's completion hint, by the option CLI11 made of its row.
using OptionHints = std::map<const CLI::Option*, ValueHint>;

// An option given "" is refused: CLI11 leaves the bound text as when it was not given, so
// --timeout "" or --export-json "" would silently mean the default.
const CLI::Validator kNotEmpty(
    [](const std::string& value) {
      return value.empty() ? std::string("an empty value: give one, or leave the option out")
                           : std::string();
    },
    "");

// Which row of which command's values an option CLI11 made is: once parsed, the rows named.
struct Named {
  const CLI::Option* option;
  OptionValues* values;
  Opt id;
};

// Every row `command` takes, bound to its text in `values` (which defaults_of() filled).
void add_options(CLI::App& cmd, Cmd command, OptionValues& values, OptionHints& hints,
                 std::vector<Named>& named) {
  for (const OptionRow& row : option_rows()) {
    if (!row.commands.has(command)) continue;
    const std::string& names = row.names_in(command);
    const std::string& help = row.help_in(command);
    CLI::Option* option = nullptr;
    const std::string& value = row.value_in(command);
    if (row.bind_in(command) == Bind::flag) {
      option = cmd.add_flag(names, values.set.at(row.id), help);
    } else if (row.bind_in(command) == Bind::list) {
      option = cmd.add_option(names, values.list.at(row.id), help);
    } else {
      option = cmd.add_option(names, values.text.at(row.id), help);
    }
    if (!value.empty()) option->type_name(value);
    if (!value.empty()) option->check(kNotEmpty);
    if (row.show_default.has(command)) option->capture_default_str();
    if (row.required) option->required();
    hints[option] = row.hint_in(command);
    named.push_back({option, &values, row.id});
  }
}

// Every command and its options, made from the rows and the commands' help.
Subcommands add_subcommands(CLI::App& app, std::map<Cmd, OptionValues>& values,
                            OptionHints& hints, std::vector<Named>& named) {
  Subcommands sub;
  for (const CommandHelp& command : commands_help()) {
    CLI::App* cmd = &app;
    if (command.command != Cmd::suite) {
      cmd = app.add_subcommand(command.name, command.summary);
    } else {
      app.require_subcommand(0, 1);
    }
    cmd->footer(command.footer);
    values[command.command] = defaults_of(command.command);
    add_options(*cmd, command.command, values[command.command], hints, named);
    sub[command.command] = cmd;
  }
  return sub;
}

// Parses argv into the texts; an exit code when there is nothing to run (help, version, a
// CLI11 parse error as one line).
std::optional<int> parse_arguments(CLI::App& app, int argc, const char* const* argv,
                                   std::ostream& out, std::ostream& err) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    // One line, like every other error: scripts and people read the first line only.
    err << "Error: "
        << printable(with_long_arguments_cut(parse_error_line(app, e, argc, argv), argc, argv))
        << "\n";
    return 2;
  }
  return std::nullopt;
}

// Top-level options belong to the default suite; before a subcommand they would be ignored.
void reject_suite_options(const CLI::App& app, std::string_view subcommand) {
  for (const auto* option : app.get_options()) {
    if (option->count() > 0 && option->get_name() != "--help" &&
        option->get_name() != "--version") {
      throw UsageError(fmt::format("{} goes after the subcommand (fdbench {} {} ...)",
                                   option->get_name(), subcommand, option->get_name()));
    }
  }
}

// The completion script for `shell`, made from the commands and their rows' hints.
CompletionCommand completion_command(const CLI::App& app, const OptionHints& hints,
                                     const std::string& shell) {
  const HintFor hint_for = [&hints](const CLI::App&, const CLI::Option& option) {
    const auto it = hints.find(&option);
    return it == hints.end() ? ValueHint{} : it->second;
  };
  CompletionCommand command;
  if (shell == "bash") {
    command.text = bash_completion_script(app, hint_for);
  } else if (shell == "zsh") {
    command.text = zsh_completion_script(app, hint_for);
  } else if (shell == "fish") {
    command.text = fish_completion_script(app, hint_for);
  } else {
    throw BadValue(fmt::format("'{}' is not a shell fdbench writes for (bash, zsh, fish)", shell));
  }
  return command;
}

// The command argv names (the suite where it names none).
Cmd parsed_command(const Subcommands& sub) {
  for (const auto& [command, app] : sub) {
    if (command != Cmd::suite && app->parsed()) return command;
  }
  return Cmd::suite;
}

CommandKind make_command(const CLI::App& app, const Subcommands& sub,
                         const std::map<Cmd, OptionValues>& values, const OptionHints& hints) {
  for (const Cmd measuring : {Cmd::open, Cmd::socket, Cmd::accept, Cmd::tune}) {
    if (sub.at(measuring)->parsed()) reject_suite_options(app, sub.at(measuring)->get_name());
  }
  // The one rule of outputs, for every command alike: none over another, none over an input.
  const Cmd command = parsed_command(sub);
  check_outputs_apart(command, values.at(command));
  const auto parsed = [&sub](Cmd c) { return sub.at(c)->parsed(); };
  if (parsed(Cmd::open)) return open_command(values.at(Cmd::open));
  if (parsed(Cmd::socket)) return socket_command(values.at(Cmd::socket));
  if (parsed(Cmd::accept)) return accept_command(values.at(Cmd::accept));
  if (parsed(Cmd::clean)) return clean_command(values.at(Cmd::clean));
  if (parsed(Cmd::env)) return env_command(values.at(Cmd::env));
  if (parsed(Cmd::compare)) return compare_command(values.at(Cmd::compare));
  if (parsed(Cmd::trace)) return trace_command(values.at(Cmd::trace));
  if (parsed(Cmd::completion)) {
    return completion_command(app, hints, values.at(Cmd::completion)[Opt::shell]);
  }
  if (parsed(Cmd::report)) return report_command(values.at(Cmd::report));
  if (parsed(Cmd::history)) return history_command(values.at(Cmd::history));
  if (parsed(Cmd::tune)) return tune_command(values.at(Cmd::tune));
  if (parsed(Cmd::strategies)) return StrategiesCommand{};
  if (parsed(Cmd::pregrow)) return pregrow_command(values.at(Cmd::pregrow));
  if (parsed(Cmd::server)) return server_command(values.at(Cmd::server));
  return suite_command(values.at(Cmd::suite));
}

// Every path the command line names, looked at in a child process first, under --timeout's
// limit where it is given (a valid one; a bad one is refused later), but at least
// kLeastPathAnswerTimeout, else kDefaultPathAnswerTimeout: the command's builders stat() them
// in this process.
void check_named_paths_answer(Cmd command, const OptionValues& values) {
  double limit = kDefaultPathAnswerTimeout;
  if (!values[Opt::timeout].empty()) {
    try {
      limit = parse_timeout(values[Opt::timeout], false);
      if (limit > 0) limit = std::max(limit, kLeastPathAnswerTimeout);
    } catch (const UsageError&) {
    }
  }
  check_paths_answer(named_paths(command, values), limit);
}

}  // namespace

Parsed parse_command_line(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
                          PathLook look) {
  CLI::App app{commands_help().front().summary, "fdbench"};
  app.set_version_flag("--version", "fdbench " + std::string(version()));
  std::map<Cmd, OptionValues> values;
  OptionHints hints;
  std::vector<Named> named;
  const Subcommands sub = add_subcommands(app, values, hints, named);
  if (const auto code = parse_arguments(app, argc, argv, out, err)) return {std::nullopt, *code};
  for (const auto& [option, of, id] : named) {
    if (option->count() > 0) of->named.insert(id);
  }
  try {
    const Cmd command = parsed_command(sub);
    if (look == PathLook::first) check_named_paths_answer(command, values.at(command));
  } catch (const TimedOut& e) {
    err << "Error: " << printable(with_long_arguments_cut(e.what(), argc, argv)) << "\n";
    return {std::nullopt, 1};
  } catch (const Interrupted& e) {
    err << fmt::format("fdbench: interrupted by signal {}\n", e.signal());
    return {std::nullopt, 128 + e.signal()};
  }
  try {
    Command command{make_command(app, sub, values, hints), {argv, argv + argc}};
    return {std::move(command), 0};
  } catch (const UsageError& e) {
    const bool see_help = dynamic_cast<const BadValue*>(&e) != nullptr;
    err << "Error: "
        << printable(with_long_arguments_cut(usage_line(command_name(app), e.what(), see_help),
                                             argc, argv))
        << "\n";
    return {std::nullopt, 2};
  }
}

}  // namespace fdbench::cli
