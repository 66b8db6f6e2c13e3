#pragma once
// What the command line names on disk, looked at as it is parsed (the command line itself
// touches no file): the directories a command works in, the files it will write, the sets it
// keeps or reuses, the user's --tree and --list. Each refusal is a UsageError naming the flag.
#include <string>
#include <string_view>
#include <vector>

#include "application/option_rows.hpp"
#include "run/options.hpp"

namespace fdbench::app {

// `dir` exists and is a directory (and, if `writable`, takes new files).
void check_directory(std::string_view flag, const std::string& dir, bool writable);
// What the directory a command works in is called in its messages: --dir where it was given,
// else TMPDIR (whose default is /tmp).
std::string dir_flag(const std::string& given);
std::string dir_or_default(const std::string& given);
// A file fdbench will write (--output, --export-*, --save): its directory must take it.
void check_output(std::string_view flag, const std::string& output);
// Whether two files the command line names are one (the same file, device or pipe): by
// identity (device and inode) where both exist, by their names once links and "." are
// resolved otherwise.
bool same_output_file(const std::string& a, const std::string& b);

// A file the command line names, and what its messages call it ("--export-json run.json",
// "the history /h.db").
struct NamedFile {
  std::string what;
  std::string path;
};
// Every file `command` writes as `values` stand (--output, each --export-*, --trace-out, tune's
// --save), in that order.
std::vector<NamedFile> written_files(Cmd command, const OptionValues& values);
// Every file `command` reads that an output must never replace: the results files, a --baseline
// FILE, --list, history import's files, and the history (--history FILE, or the default one,
// with its write-ahead log and journal) of every command that writes a file.
std::vector<NamedFile> read_files(Cmd command, const OptionValues& values);
// The one rule of outputs: no two outputs are one file, and no output is a file the command
// reads (the history above all: an export over it would lose every saved run), through
// symlinks, hard links and /proc/self/fd names alike. Throws UsageError naming both.
void check_outputs_apart(Cmd command, const OptionValues& values);
// The directory `path` is in ("." for a bare name), as the kernel resolves it.
std::string parent_of(std::string path);
// --reuse-files DIR names a directory.
void check_reused_set(const std::string& flag_name, const std::string& dir);
// clean's SETs exist.
void check_kept_sets(const std::vector<std::string>& sets);
// The user's --tree directory or --list file, looked at as the run will look at their files: in
// a child process under --timeout's limit. Throws UsageError for what is missing or of the
// wrong kind, TimedOut or Interrupted where it hangs.
void check_input_paths(const OpenOptions& open);

// A path the command line names (or TMPDIR, where the command works there), and what its
// messages call it: "--dir /mnt/x", "TMPDIR /tmp", or the path alone for a positional.
struct NamedPath {
  std::string what;
  std::string path;
  bool input = false;  // read by the command: a regular file is opened once, read-only
};
// Every path `command`'s `values` name: each row whose value is a file or a directory, and
// TMPDIR where the command would make or look at its files there.
std::vector<NamedPath> named_paths(Cmd command, const OptionValues& values);
// Each path looked at (stat, access, its directory's, an input opened) in a child process
// under `timeout_s` (0: no limit; Ctrl-C ends it either way), before this process touches it:
// on a dead mount this process would wait in the kernel where no signal, not even SIGKILL,
// reaches it. Throws TimedOut ("--dir /mnt/x: no answer from its filesystem in 10 s (a dead
// mount?)") or Interrupted; where no child can be made (ulimit -u), returns without looking.
void check_paths_answer(const std::vector<NamedPath>& paths, double timeout_s);

}  // namespace fdbench::app
