#pragma once
// The files an `open` command works on: a private generated set, or the user's files from
// --tree or --list, with a summary of where they came from and what was left out.
#include <optional>
#include <string>

#include "engine/strategy.hpp"
#include "engine/workload.hpp"
#include "inputs/file_set.hpp"
#include "inputs/input_files.hpp"
#include "inputs/input_options.hpp"
#include "model/path_table.hpp"
#include "model/result.hpp"

namespace fdbench {

struct OpenInput {
  std::optional<FileSet> generated;
  InputFiles existing;
  InputSummary summary;
  std::string dir_path;  // absolute: a relative --tree or --dir is resolved against the cwd
  int dir_fd = -1;       // borrowed from `generated`, or -1 (opened where needed)
  PathMode path_mode = PathMode::relative;
  PathTable absolute;  // --paths absolute: every path in full, built once, before any timing

  // What the workload opens: names relative to dir_path (a listed absolute path stays as it
  // is), or with --paths absolute their full paths.
  [[nodiscard]] const PathTable& paths() const {
    if (path_mode == PathMode::absolute) return absolute;
    return generated ? generated->names() : existing.paths;
  }
  // The filesystem the files are on ("ext4", "tmpfs", ...).
  [[nodiscard]] std::string fs_type() const;
};

// Creates the generated set, or reads the tree or list (abandoned after `timeout_s` seconds,
// 0: no limit); throws Error if nothing is left to open. `progress` hears how the creation of
// a generated set goes.
OpenInput prepare_input(const InputOptions& o, double timeout_s,
                        const FileSet::CreationProgress& progress = {});

// Whether each repetition on `in` runs in a fresh child process rather than in this one: with
// --keep-open (only a fresh process shows a held table's growth), and on the user's files
// (--tree, --list), which may be on a mount whose opens never return. A child stuck in such an
// open can be killed, or at worst left behind, and fdbench exits at its --timeout; a thread of
// fdbench stuck there would keep fdbench itself from ever exiting (not even SIGKILL ends a wait
// a FUSE server never answers). fdbench's generated set is its own, on a local filesystem.
bool measured_in_fresh_children(const InputOptions& options, const OpenInput& in);
// What the run is doing, for a hang's message: "opening files under DIR", or with --list
// "opening the files --list FILE names" (they may be anywhere).
std::string opening_text(const InputOptions& options, const OpenInput& in);

// How a workload opens `in`'s files with `options`' flags (and holds them with --keep-open).
OpenSpec open_spec(const InputOptions& options, const OpenInput& in);

// Records in an open result's configuration how its files were named (config.paths), and, for
// a strategy that can only open by full path, that --paths relative did not apply to it (the
// parameter "paths_note").
// `foreign`: the user's files (--tree, --list), which such a strategy opens through the
// directory descriptors checked before the clock (/proc/self/fd/N/NAME).
void record_paths(Result& r, PathMode asked, const StrategyInfo& strategy, bool foreign);

}  // namespace fdbench
