// The bash completion script, written from the CLI11 definition of every command.
#include "completion.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <map>

#include "common/errors.hpp"
#include "fdbench/error.hpp"
#include "fdbench/version.hpp"

namespace fdbench::cli {

namespace {

// Every word goes into the script between single quotes or bare: ours never need escaping.
std::string words_of(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& word : words) {
    FDBENCH_ASSERT(word.find_first_of("'\"\\$` \t\n") == std::string::npos);
    text += (text.empty() ? "" : " ") + word;
  }
  return text;
}

std::vector<std::string> option_names(const CLI::Option& option) {
  std::vector<std::string> names;
  for (const auto& name : option.get_lnames()) names.push_back("--" + name);
  for (const auto& name : option.get_snames()) names.push_back("-" + name);
  return names;
}

// The bash statement that completes a value from `hint`; "" when nothing can be offered.
std::string complete_value(const ValueHint& hint) {
  switch (hint.paths) {
    case ValueHint::Paths::directories:
      return "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\"))";
    case ValueHint::Paths::files:
      return "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))";
    case ValueHint::Paths::none:
      break;
  }
  if (hint.words.empty()) return "COMPREPLY=()";  // a number or free text: nothing to offer
  const std::string words = words_of(hint.words);
  return hint.comma_list ? fmt::format("_fdbench_items '{}'", words)
                         : fmt::format("COMPREPLY=($(compgen -W '{}' -- \"$cur\"))", words);
}

struct CommandWords {
  std::string name;  // "" for the default suite's (top-level) options
  std::vector<std::string> words;
  std::map<std::string, std::vector<std::string>> values;  // bash statement -> option names
  std::string positional;                                  // bash statement, or ""
};

CommandWords command_words(const CLI::App& command, const std::string& name,
                           const HintFor& hint_for) {
  CommandWords out{name, {}, {}, {}};
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_positional() && !option->nonpositional()) {
      out.positional = complete_value(hint_for(command, *option));
      continue;
    }
    const auto names = option_names(*option);
    out.words.insert(out.words.end(), names.begin(), names.end());
    if (option->get_expected_min() == 0) continue;  // a flag: no value follows
    auto& takers = out.values[complete_value(hint_for(command, *option))];
    takers.insert(takers.end(), names.begin(), names.end());
  }
  return out;
}

constexpr const char* kPrologue =
    R"(# bash completion for fdbench {version}, written by `fdbench completion bash`.
# Use: source it, or save it as ~/.local/share/bash-completion/completions/fdbench
# (installed builds put it in share/bash-completion/completions/ already).

# Completes the item after the last comma of a comma list such as --threads 1,2 or
# --strategy threads,uring.
# An item the list has already is not offered again.
_fdbench_items() {{
  local head="" tail=$cur word words=""
  if [[ $cur == *,* ]]; then
    head=${{cur%,*}},
    tail=${{cur##*,}}
  fi
  for word in $1; do
    [[ ,$head == *,$word,* ]] || words+=" $word"
  done
  COMPREPLY=($(compgen -P "$head" -W "$words" -- "$tail"))
}}

_fdbench() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}}
  local command="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${{COMP_WORDS[i]}} in
      {subcommands}) command=${{COMP_WORDS[i]}}; break ;;
    esac
  done
)";

// fish: the arguments of `complete` that offer `hint`'s values.
std::string fish_values(const ValueHint& hint) {
  switch (hint.paths) {
    case ValueHint::Paths::directories:
      return " -r -a '(__fish_complete_directories)'";
    case ValueHint::Paths::files:
      return " -r -F";
    case ValueHint::Paths::none:
      break;
  }
  if (hint.words.empty()) return " -r -f";
  const std::string words = words_of(hint.words);
  return hint.comma_list ? fmt::format(" -r -f -a '(__fdbench_items {})'", words)
                         : fmt::format(" -r -f -a '{}'", words);
}

// fish: the condition under which a line applies (the suite's: before any subcommand).
std::string fish_condition(const std::string& command, const std::string& subcommands) {
  return command.empty() ? fmt::format("not __fish_seen_subcommand_from {}", subcommands)
                         : fmt::format("__fish_seen_subcommand_from {}", command);
}

constexpr const char* kFishPrologue =
    R"(# fish completion for fdbench {version}, written by `fdbench completion fish`.
# Use: save it as ~/.config/fish/completions/fdbench.fish

# The item after the last comma of a list such as --strategy threads,uring; an item the list
# has already is not offered again.
function __fdbench_items
    set -l token (commandline -ct)
    set -l head (string replace -r '[^,]*$' '' -- $token)
    set -l typed (string split , -- $head)
    for word in $argv
        contains -- $word $typed; or echo $head$word
    end
end

complete -c fdbench -f
)";

}  // namespace

std::string fish_completion_script(const CLI::App& app, const HintFor& hint_for) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  const std::string subcommands = fmt::format("{}", fmt::join(names, " "));
  std::string script = fmt::format(kFishPrologue, fmt::arg("version", version()));
  script += fmt::format("complete -c fdbench -n '{}' -a '{}'\n", fish_condition("", subcommands),
                        subcommands);
  std::vector<std::pair<std::string, const CLI::App*>> commands{{"", &app}};
  for (const CLI::App* sub : app.get_subcommands({})) commands.emplace_back(sub->get_name(), sub);
  for (const auto& [name, command] : commands) {
    const std::string when = fish_condition(name, subcommands);
    for (const CLI::Option* option : command->get_options()) {
      const ValueHint hint = hint_for(*command, *option);
      if (option->get_positional() && !option->nonpositional()) {
        script += fmt::format("complete -c fdbench -n '{}'{}\n", when, fish_values(hint));
        continue;
      }
      std::string line = fmt::format("complete -c fdbench -n '{}'", when);
      for (const auto& long_name : option->get_lnames()) line += " -l " + long_name;
      for (const auto& short_name : option->get_snames()) line += " -s " + short_name;
      if (option->get_expected_min() != 0) line += fish_values(hint);
      script += line + "\n";
    }
  }
  return script;
}

std::string zsh_completion_script(const CLI::App& app, const HintFor& hint_for) {
  // zsh runs the bash script through its own emulation of bash's completion.
  return "#compdef fdbench\n# zsh completion for fdbench, written by `fdbench completion zsh`.\n"
         "# Use: save it as _fdbench in a directory of $fpath, or source it after compinit.\n"
         "autoload -U +X bashcompinit && bashcompinit\n" +
         bash_completion_script(app, hint_for);
}

std::string bash_completion_script(const CLI::App& app, const HintFor& hint_for) {
  std::vector<CommandWords> commands{command_words(app, "", hint_for)};
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names.push_back(sub->get_name());
    commands.push_back(command_words(*sub, sub->get_name(), hint_for));
  }
  commands.front().words.insert(commands.front().words.end(), names.begin(), names.end());

  std::string script = fmt::format(kPrologue, fmt::arg("version", version()),
                                   fmt::arg("subcommands", fmt::join(names, "|")));
  // The value after an option that takes one.
  script += "  case \"$command $prev\" in\n";
  for (const auto& command : commands) {
    for (const auto& [statement, options] : command.values) {
      std::vector<std::string> patterns;
      for (const auto& option : options)
        patterns.push_back(fmt::format("'{} {}'", command.name, option));
      script += fmt::format("    {}) {}; return ;;\n", fmt::join(patterns, "|"), statement);
    }
  }
  script += "  esac\n";
  // Otherwise the command's options (and subcommands, before one), or its positional values.
  script += "  case $command in\n";
  for (const auto& command : commands) {
    script += fmt::format("    {})\n", command.name.empty() ? "''" : command.name);
    if (!command.positional.empty()) {
      script += fmt::format("      if [[ $cur != -* ]]; then {}; return; fi\n", command.positional);
    }
    script += fmt::format("      COMPREPLY=($(compgen -W '{}' -- \"$cur\")) ;;\n",
                          words_of(command.words));
  }
  script += "  esac\n}\n\ncomplete -F _fdbench fdbench\n";
  return script;
}

}  // namespace fdbench::cli
