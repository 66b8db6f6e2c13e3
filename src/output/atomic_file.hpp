#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fdbench/unique_fd.hpp"

namespace fdbench {

// Why fdbench will not write an output at `path` ("" when it will): a regular file with more
// than one hard link (replacing it would break them), or one whose owner it cannot keep (an
// existing file is replaced by one with its mode and owner, never with fdbench's).
std::string output_refusal(const std::string& path);

// Whether an output at `path` is written in place, as a stream, instead of replaced: an
// existing target that is not a regular file (a device such as /dev/null, a FIFO, a
// terminal), the file fdbench's own stdout or stderr already writes, or a descriptor the
// caller passed (/dev/fd/N, /proc/self/fd/N, /dev/stdout): written through it, so a file it
// opened for append is appended to, never truncated. Such a target takes
// one whole document at the end, never a rewrite per result.
bool output_streams(const std::string& path);

// The name `path` leads to once every symlink on it is followed, a dangling one included (its
// target is the file an output creates). Throws Error after 40 links, as open() would (ELOOP).
std::string follow_symlinks(std::string path);

// Whether two paths name the same file: by identity (device and inode) where both exist, so a
// hard link, a symlink or a /proc/self/fd/N name of the file is the file; by their names once
// symlinks, "." and ".." are resolved where one does not (a loop of symlinks compared as it is
// written, never thrown). The null device is no clash: it takes any number.
bool same_output(const std::string& a, const std::string& b);

// An output file written whole or not at all. A regular target is written beside the file
// it names (a symlink followed to the end) and given its name by commit(): readers see the old
// file or the complete new one, never half of it; an existing file keeps its mode and owner, a
// new one gets 0666 less the umask. Where the filesystem can (Linux: O_TMPFILE), the new file
// has no name at all until commit() links it, so a run killed meanwhile (SIGKILL) leaves
// nothing; a new target is then linked under its own name directly, an existing one under a
// temporary name renamed over it at once. Elsewhere it is written under a temporary name,
// "<target>.tmp-fdbench-<pid>-XXXXXX", held locked (flock) while this object lives, which
// clean_output_temporaries() removes once no live run holds it. Destroyed without a commit,
// nothing is left. A target that output_streams() is written in place.
// Errors throw Error naming the file as `what` calls it (the flag that asked for it:
// "--output", "--export-json", "--trace-out").
class AtomicFile {
 public:
  AtomicFile(std::string path, std::string what);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  // Throws Error when the content cannot be written; the file is then emptied but stays open
  // (the descriptors of a run do not change under it) until commit() throws the same error,
  // or the destructor removes it.
  void write(std::string_view content);
  // Syncs the file and renames it into place (a stream: closes it); once.
  void commit();

 private:
  [[nodiscard]] std::string message(int err) const;
  // Closes and removes the file, and throws Error saying `err`.
  [[noreturn]] void fail(int err);
  void open_beside();
  void open_named_temporary();
  void name_unnamed();
  std::string path_;
  std::string what_;
  std::string target_;     // the file it names, symlinks followed
  std::string tmp_;        // the temporary's name, while it has one
  bool in_place_ = false;  // a stream: written where it is
  bool unnamed_ = false;   // no name until commit() (O_TMPFILE)
  bool existed_ = false;   // the target existed when this object was made
  int write_error_ = 0;    // errno of a write that failed
  UniqueFd fd_;
};

// The whole of `content` through an AtomicFile.
void write_file_atomically(const std::string& path, std::string_view content,
                           std::string_view what);

// The pid in the name of an output's temporary file ("run.json.tmp-fdbench-4242-a1B2c3"), or
// nullopt when `name` is not one.
std::optional<int> output_temporary_owner(std::string_view name);

struct CleanedTemporaries {
  std::vector<std::string> removed;  // paths
  std::vector<std::string> kept;     // "<path>: <why it was left>"
};
// For `fdbench clean`: removes the temporary files that runs killed while writing an output
// left in `dir` (where the filesystem gives unnamed files, none is ever left). Only a regular
// file named as AtomicFile names them, with one link, of this user (any, for root), whose run
// is gone and that no live run holds locked is removed; the others are said in `kept`.
// Throws Error if `dir` cannot be read.
CleanedTemporaries clean_output_temporaries(const std::string& dir);

}  // namespace fdbench
