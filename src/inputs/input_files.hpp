#pragma once
// Existing files as input (--tree, --list): enumerated once, untimed, read-only. Only
// regular files are kept; symlinks are never followed and FIFOs, sockets and devices are
// never opened, only counted.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "model/path_table.hpp"

namespace fdbench {

struct InputFiles {
  std::string source;     // "tree" or "list"
  std::string origin;     // the --tree directory or the --list file
  std::string dir_path;   // paths are relative to this directory (or absolute)
  PathTable paths;
  std::map<std::string, std::uint64_t> skipped;  // "symlink", "fifo", "socket", "device",
                                                 // "directory", "other", "unreadable directory"
  std::map<std::string, std::uint64_t> missing;  // --list entries that could not be examined,
                                                 // by errno text
};

// Every regular file under `root`. Throws Error if root is missing or not a directory.
InputFiles scan_tree(const std::string& root);

// The paths listed in `list_file`, one per line (or NUL-separated). Relative paths are
// relative to the current directory. Throws Error if the list cannot be read, UsageError if
// it is separated otherwise than `nul_separated` says (list_separator_mistake).
InputFiles read_list(const std::string& list_file, bool nul_separated);

// Why a list whose first bytes are `head` is not separated as `nul_separated` says, as the
// line that refuses it: a NUL in a list of lines (find -print0 wrote it: --list0), or lines
// and no NUL in a NUL-separated one (drop --list0). "" when they agree, or it cannot tell.
// `head` must hold the first path and what ends it (a path is at most PATH_MAX bytes), or the
// whole list.
std::string list_separator_mistake(const std::string& list_file, std::string_view head,
                                   bool nul_separated);

}  // namespace fdbench
