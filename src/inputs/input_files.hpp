#pragma once
// Existing files as input (--tree, --list): enumerated once, untimed, read-only. Only
// regular files with a read permission bit for this user are kept; symlinks are never
// followed and FIFOs, sockets, devices and files whose mode says "not for reading" (sysfs's
// write-only triggers) are never opened, only counted. A tree is walked on its own filesystem
// only, unless asked, and never on the kernel's pseudo-filesystems (proc, sysfs, tracefs, ...),
// where opening and closing a file can change the kernel's state, unless asked.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "common/errors.hpp"
#include "model/path_table.hpp"
#include "model/result.hpp"

namespace fdbench {

struct InputFiles {
  InputSource source = InputSource::tree;  // tree or list
  std::string origin;     // the --tree directory or the --list file
  std::string dir_path;   // paths are relative to this directory (or absolute)
  PathTable paths;          // each file as the user knows it: below the root, or as listed
  DirectoryTable by_directory;  // the same files by directory: how they are opened
  std::map<std::string, std::uint64_t> skipped;  // "symlink", "fifo", "socket", "device",
                                                 // "symlink on its path" (--list),
                                                 // "directory", "other", "unreadable directory",
                                                 // "no read permission", "other filesystem",
                                                 // "changed during the scan"
  std::map<std::string, std::uint64_t> missing;  // --list entries that could not be examined,
                                                 // by errno text
  // The filesystem dir_path is on ("ext4"), or a list's files are on ("ext4, tmpfs"), named
  // where the files were examined: in the child that may be abandoned, since a statfs() on a
  // dead mount hangs as an open does.
  std::string fs_type;
};

// How far a --tree walk may go.
struct TreeWalk {
  bool cross_mounts = false;     // --cross-mounts: descend into other filesystems mounted below
  bool allow_pseudo_fs = false;  // --allow-pseudo-fs: walk proc, sysfs, tracefs, ... too
  // Called with each entry's path below the root once it has been looked at, before it is
  // opened to check it: where tests change the tree under the walk.
  std::function<void(const std::string&)> looked_at;
};

// Every regular file under `root`. Throws Error if root is missing or not a directory, or is
// (or, with cross_mounts, holds a mount of) a pseudo-filesystem that `walk` does not allow:
// before anything on it is opened.
InputFiles scan_tree(const std::string& root, const TreeWalk& walk = {});

// The paths listed in `list_file`, one per line (or NUL-separated). Relative paths are
// relative to the current directory. Throws Error if the list cannot be read, or names a
// regular file on a pseudo-filesystem and `allow_pseudo_fs` is false (before anything is
// opened); UsageError if it is separated otherwise than `nul_separated` says
// (list_separator_mistake). fs_type names every filesystem the kept files are on.
InputFiles read_list(const std::string& list_file, bool nul_separated,
                     bool allow_pseudo_fs = false);

// Why a list whose first bytes are `head` is not separated as `nul_separated` says, as the
// line that refuses it: a NUL in a list of lines (find -print0 wrote it: --list0), or lines
// and no NUL in a NUL-separated one (drop --list0). "" when they agree, or it cannot tell.
// `head` must hold the first path and what ends it (a path is at most PATH_MAX bytes), or the
// whole list.
std::string list_separator_mistake(const std::string& list_file, std::string_view head,
                                   bool nul_separated);

}  // namespace fdbench
