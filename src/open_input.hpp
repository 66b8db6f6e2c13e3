#pragma once
// The files an `open` command works on: a private generated set, or the user's files from
// --tree or --list, with a summary of where they came from and what was left out.
#include <optional>
#include <string>

#include "fdbench/file_set.hpp"
#include "fdbench/input_files.hpp"
#include "fdbench/options.hpp"
#include "fdbench/path_table.hpp"
#include "fdbench/result.hpp"

namespace fdbench {

struct OpenInput {
  std::optional<FileSet> generated;
  InputFiles existing;
  InputSummary summary;
  std::string dir_path;
  int dir_fd = -1;  // borrowed from `generated`, or -1 (opened where needed)

  [[nodiscard]] const PathTable& paths() const {
    return generated ? generated->names() : existing.paths;
  }
  // The filesystem the files are on ("ext4", "tmpfs", ...).
  [[nodiscard]] std::string fs_type() const;
};

// Creates the generated set, or reads the tree or list; throws Error if nothing is left to open.
OpenInput prepare_input(const OpenOptions& o);

}  // namespace fdbench
