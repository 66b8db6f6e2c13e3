#pragma once
// What a set's marker (.fdbench-private) says it is, and the set's lock: private to the file
// set's parts (file_set_create.cpp, file_set.cpp, file_set_clean.cpp).
#include <sys/types.h>

#include <cstddef>
#include <string>

namespace fdbench::file_sets {

// The marker of a run's private directory: which fdbench made it.
std::string private_marker_text();
// The marker of a kept set: its count and layout, for --reuse-files to check.
std::string kept_marker_text(std::size_t count, std::size_t subdirs);

struct Marker {
  enum class Kind {
    none,         // no marker: not fdbench's
    private_dir,  // a run's private directory
    kept,         // a kept set
    accept_dir,   // the directory accept --kind unix made for its listening socket
    other,        // a marker fdbench does not write
  } kind = Kind::none;
  pid_t pid = 0;          // private_dir, accept_dir: the fdbench that made it
  std::size_t files = 0;  // kept: the set's count and layout
  std::size_t subdirs = 0;
  bool complete = false;  // kept: every file was made
};

// Appends "complete" to the kept set's marker in `dir`, once every file exists: without it
// the set is unfinished. False, with errno set, if it could not.
bool mark_complete(int dir);

// The marker in the directory `dir`, read without following a symlink.
Marker read_marker(int dir);

// Sets are flock()ed: exclusively while they are made (and removed by `fdbench clean`), shared
// while a run reuses a kept one, so that clean never removes a set a running fdbench uses.
// False only when another holds a conflicting lock: a filesystem without flock (some network
// ones) goes without.
bool try_lock(int dir, int how);

// What taking the lock found: taken (now ours), busy (another holds a conflicting one: a run
// that is alive, whatever its pid says) or unsupported (this filesystem has no flock).
enum class LockResult { taken, busy, unsupported };
LockResult lock(int dir, int how);

}  // namespace fdbench::file_sets
