#pragma once
// Which files an `open` command works on, and how it opens them: the inputs layer's own
// options (the command's OpenOptions adds the sweep's).
#include <cstddef>
#include <optional>
#include <string>

#include "engine/workload.hpp"
#include "model/configuration.hpp"

namespace fdbench {

struct InputOptions {
  // --files. Empty only with --reuse-files when --files was not given: the set's marker says.
  std::optional<std::size_t> files = 10000;
  std::string dir;  // empty: $TMPDIR or /tmp (platform::default_dir())
  // --layout dirs:K (0: flat). Empty only with --reuse-files when --layout was not given.
  std::optional<std::size_t> subdirs = 0;
  // --keep-files DIR: the generated set is made at DIR itself and left there afterwards.
  std::string keep_files;
  // --reuse-files DIR: the set a --keep-files run left at DIR is checked and opened, nothing is
  // made. It must hold `files` files laid out as `subdirs` says where these are given; where
  // they are empty, the set's marker says.
  std::string reuse_files;
  std::string tree;              // --tree DIR: open the regular files under DIR instead
  bool cross_mounts = false;     // --cross-mounts: the --tree walk enters other filesystems
  bool allow_pseudo_fs = false;  // --allow-pseudo-fs: ... and proc, sysfs, tracefs, ... too
  std::string list;              // --list FILE: open the paths listed in FILE instead
  bool list0 = false;            // --list0: the list is NUL-separated
  OpenFlags flags = OpenFlags::rdonly;
  PathMode paths = PathMode::relative;  // --paths
  bool keep_open = false;               // hold every descriptor to the end of the repetition
};

}  // namespace fdbench
