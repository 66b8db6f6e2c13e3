#pragma once
// `fdbench completion bash|zsh|fish`: a completion script made from the command line's own
// definition, so it knows every subcommand and option --help shows, and never falls behind.
#include <functional>
#include <string>
#include <vector>

#include "application/option_rows.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace fdbench::cli {

using app::ValueHint;

// The hint for `option` of `command` (the top-level app for the default suite's options).
using HintFor = std::function<ValueHint(const CLI::App& command, const CLI::Option& option)>;

// The script: `complete -F _fdbench fdbench`, completing subcommands, each one's options, and
// option values from `hint_for`.
std::string bash_completion_script(const CLI::App& app, const HintFor& hint_for);
// zsh: the bash script run through zsh's bashcompinit (the same words and values).
std::string zsh_completion_script(const CLI::App& app, const HintFor& hint_for);
// fish: `complete -c fdbench` lines made from the same commands and hints.
std::string fish_completion_script(const CLI::App& app, const HintFor& hint_for);

}  // namespace fdbench::cli
