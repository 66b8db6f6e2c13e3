#pragma once
// `fdbench completion bash`: a bash completion script made from the command line's own
// definition, so it knows every subcommand and option --help shows, and never falls behind.
#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace fdbench::cli {

// What may follow an option that takes a value.
struct ValueHint {
  std::vector<std::string> words;  // the choices, if the value is one of a fixed set
  bool comma_list = false;         // a comma list of them: complete the item after the last ','
  enum class Paths { none, directories, files } paths = Paths::none;
};

// The hint for `option` of `command` (the top-level app for the default suite's options).
using HintFor = std::function<ValueHint(const CLI::App& command, const CLI::Option& option)>;

// The script: `complete -F _fdbench fdbench`, completing subcommands, each one's options, and
// option values from `hint_for`.
std::string bash_completion_script(const CLI::App& app, const HintFor& hint_for);

}  // namespace fdbench::cli
