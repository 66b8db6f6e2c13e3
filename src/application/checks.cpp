// What the command line names on disk, looked at as it is parsed: the directories a command
// works in, the files it will write, the user's --tree and --list. A refusal is a UsageError
// naming the flag (exit 2).
#include "application/checks.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <fstream>

#include "application/history_commands.hpp"
#include "application/option_rows.hpp"
#include "engine/workload.hpp"
#include "fdbench/error.hpp"
#include "history/history.hpp"
#include "inputs/examined_files.hpp"
#include "inputs/input_files.hpp"
#include "model/format.hpp"
#include "output/atomic_file.hpp"
#include "platform/platform.hpp"

namespace fdbench::app {

void check_directory(std::string_view flag, const std::string& dir, bool writable) {
  struct stat info {};
  if (stat(dir.c_str(), &info) != 0) {
    throw UsageError(fmt::format("{} {}: {}: create it or name another directory{}", flag, dir,
                                 errno_text(errno), flag == "TMPDIR" ? " with --dir" : ""));
  }
  if (!S_ISDIR(info.st_mode)) {
    throw UsageError(fmt::format("{} {}: not a directory: name a directory{}", flag, dir,
                                 flag == "TMPDIR" ? " with --dir" : ""));
  }
  if (writable && access(dir.c_str(), W_OK | X_OK) != 0) {
    throw UsageError(fmt::format("{} {}: not writable ({}); choose a writable directory{}", flag,
                                 dir, errno_text(errno), flag == "TMPDIR" ? " with --dir" : ""));
  }
}

// What the directory a command works in is called in its messages: --dir where it was given,
// else TMPDIR (whose default is /tmp), which the user may never have thought of as an option.
std::string dir_flag(const std::string& given) {
  return given.empty() ? "TMPDIR" : flag(Opt::dir);
}
std::string dir_or_default(const std::string& given) {
  return given.empty() ? platform::default_dir() : given;
}

// A file fdbench will write (--output, --export-*): its directory must take it, the directory
// of the file a symlink leads to where it is one.
void check_output(std::string_view flag, const std::string& output) {
  if (output.empty()) return;
  if (output_streams(output)) return;  // a device, FIFO or terminal, written in place
  std::string target;
  try {
    target = follow_symlinks(output);
  } catch (const Error& e) {
    throw UsageError(fmt::format("{} {}: {}", flag, output, e.what()));
  }
  const auto slash = target.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : target.substr(0, slash + 1);
  check_directory(fmt::format("{}: directory", flag), dir, true);
  struct stat info {};
  if (stat(output.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    throw UsageError(fmt::format("{} {}: is a directory; name a file", flag, output));
  }
  if (const std::string why = output_refusal(output); !why.empty()) {
    throw UsageError(fmt::format("{} {}: {}", flag, output, why));
  }
}

// --export-FORMAT FILE, one line per format, as hyperfine lists its exporters: a new export is

// The directory `path` is in ("." for a bare name), as the kernel resolves it.
std::string parent_of(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}


void check_reused_set(const std::string& flag_name, const std::string& dir) {
  struct stat info {};
  const int err = stat(dir.c_str(), &info) != 0 ? errno
                  : S_ISDIR(info.st_mode)       ? 0
                                                : ENOTDIR;
  if (err != 0) {
    throw UsageError(fmt::format("{} {}: {}: name the DIR of a --keep-files run", flag_name, dir,
                                 errno_text(err)));
  }
}

void check_kept_sets(const std::vector<std::string>& sets) {
  for (const auto& set : sets) {
    struct stat info {};
    if (lstat(set.c_str(), &info) != 0) {
      throw UsageError(
          fmt::format("{}: {}: name a set made with --keep-files", set, errno_text(errno)));
    }
  }
}

namespace {

// A list file separated otherwise than --list0 says, refused before the run starts. A pipe
// is read once, by the run: read_list() refuses it there.
void check_list_separator(const std::string& list, bool list0) {
  std::ifstream in(list, std::ios::binary);
  std::string head(2 * PATH_MAX, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (auto why = list_separator_mistake(list, head, list0); !why.empty()) throw UsageError(why);
}

// The user's --tree directory or --list file, looked at here: whether it is there and of the
// kind it must be, and how a list file is separated.
void check_input_path(const OpenOptions& open) {
  if (!open.tree.empty()) check_directory(flag(Opt::tree), open.tree, false);
  if (!open.list.empty()) {
    struct stat info {};
    if (stat(open.list.c_str(), &info) != 0) {
      throw UsageError(fmt::format("--list {}: {}", open.list, errno_text(errno)));
    }
    if (S_ISDIR(info.st_mode)) {
      throw UsageError(fmt::format("--list {}: is a directory (did you mean --tree?)", open.list));
    }
    // Read from a file or a pipe (<(find ...)); a device is never opened (/dev/zero would
    // never end).
    if (!S_ISREG(info.st_mode) && !S_ISFIFO(info.st_mode)) {
      throw UsageError(fmt::format("--list {} is {}; --list reads a file of paths, or a pipe",
                                   open.list, platform::file_type_words(info.st_mode)));
    }
    if (S_ISREG(info.st_mode)) check_list_separator(open.list, open.list0);
  }
}

}  // namespace

// check_input_path() as the run looks at the user's files: in a child process under
// --timeout's limit (examine_in_child), since on a mount whose server stopped answering stat()
// and open() wait where no signal reaches them, and this process could never exit. Throws
// UsageError for what check_input_path() refuses, TimedOut or Interrupted where it hangs.
void check_input_paths(const OpenOptions& open) {
  if (open.tree.empty() && open.list.empty()) return;
  examine_in_child(
      [&open] {
        check_input_path(open);
        return InputFiles{};
      },
      open.timeout_s, open.tree.empty() ? flag(Opt::list) + " " + open.list : flag(Opt::tree) + " " + open.tree);
}

namespace {

// Whether `id` is read by `command` as an input (opened, not only looked at). The --list file
// and --tree directory are examined in a child of their own (check_input_paths).
bool read_as_input(Cmd command, Opt id, const OptionValues& values) {
  if (id == Opt::results || id == Opt::baseline) return true;
  return command == Cmd::history && id == Opt::arguments && values[Opt::action] == "import";
}

// Whether `command` works in TMPDIR as `values` stand: it makes or cleans a set there, or
// describes its filesystem.
bool works_in_tmpdir(Cmd command, const OptionValues& values) {
  // accept --kind unix (tune --workload accept's too) binds its listener in a directory it
  // makes under TMPDIR: a TMPDIR on a dead mount would hold it there (issue 49 item 3).
  AcceptKind kind{};
  const bool accepting = command == Cmd::accept ||
                         (command == Cmd::tune && values[Opt::workload] == "accept");
  if (accepting && parse_accept_kind(values[Opt::kind], kind) && kind == AcceptKind::unix_stream) {
    return true;
  }
  if (!row_of(Opt::dir).commands.has(command) || values.given(Opt::dir)) return false;
  for (const Opt elsewhere : {Opt::tree, Opt::list, Opt::keep_files, Opt::reuse_files}) {
    if (!values[elsewhere].empty()) return false;
  }
  return command != Cmd::clean || values.list.at(Opt::sets).empty();
}

// Whether `command` reads or writes the history where it lives by default (no --history):
// history's actions, a run saved (--save, FDBENCH_HISTORY=1), compare's baseline by its run.
bool uses_default_history(Cmd command, const OptionValues& values) {
  if (values.given(Opt::history_file) || !row_of(Opt::history_file).commands.has(command)) {
    return false;
  }
  if (command == Cmd::history) return true;
  if (command == Cmd::compare) return baseline_from_history(values[Opt::baseline]);
  return saves_by_variable() || (command != Cmd::tune && values.on(Opt::save));
}

// What the parent will do to `named` later, done here first: in the child, where a call that
// never returns costs only the child. What fails is for the parent's own checks to say.
void look_at(const NamedPath& named) {
  const char* path = named.path.c_str();
  struct stat info {};
  const bool there = stat(path, &info) == 0;
  if (there && S_ISDIR(info.st_mode)) (void)access(path, W_OK | X_OK);
  const std::string parent = parent_of(named.path);
  if (stat(parent.c_str(), &info) == 0) (void)access(parent.c_str(), W_OK | X_OK);
  if (char* resolved = realpath(path, nullptr); resolved != nullptr) {
    (void)stat(parent_of(resolved).c_str(), &info);
    std::free(resolved);
  }
  if (named.input && there && stat(path, &info) == 0 && S_ISREG(info.st_mode)) {
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0) close(fd);
  }
}

}  // namespace

std::vector<NamedFile> written_files(Cmd command, const OptionValues& values) {
  std::vector<Opt> rows{Opt::output};
  for (const auto& [id, format] : export_rows()) rows.push_back(id);
  rows.push_back(Opt::trace_out);
  if (row_of(Opt::save).commands.has(command) && row_of(Opt::save).bind_in(command) == Bind::text) {
    rows.push_back(Opt::save);  // tune's --save FILE (elsewhere a flag: the history's)
  }
  std::vector<NamedFile> written;
  for (const Opt id : rows) {
    if (row_of(id).commands.has(command) && !values[id].empty()) {
      written.push_back({flag(id), values[id]});
    }
  }
  return written;
}

namespace {

// The history `command` reads or writes as `values` stand: --history FILE where given, else the
// default one where the command uses it or writes any file (an output must never replace it,
// whether this run reads it or not); "" where there is none.
std::string history_of(Cmd command, const OptionValues& values) {
  if (values.given(Opt::history_file)) return values[Opt::history_file];
  if (!uses_default_history(command, values) && written_files(command, values).empty()) return "";
  return history::default_history_path();
}

}  // namespace

std::vector<NamedFile> read_files(Cmd command, const OptionValues& values) {
  std::vector<NamedFile> read;
  if (const std::string& list = values[Opt::list]; !list.empty()) {
    read.push_back({flag(Opt::list) + " " + list, list});
  }
  for (const auto& file : values.list.count(Opt::results) > 0 ? values.list.at(Opt::results)
                                                                : std::vector<std::string>{}) {
    if (row_of(Opt::results).commands.has(command)) read.push_back({"the results file " + file, file});
  }
  if (const std::string& baseline = values[Opt::baseline];
      !baseline.empty() && !baseline_from_history(baseline)) {
    read.push_back({flag(Opt::baseline) + " " + baseline, baseline});
  }
  if (read_as_input(command, Opt::arguments, values)) {
    for (const auto& file : values.list.at(Opt::arguments)) {
      read.push_back({"the results file " + file, file});
    }
  }
  if (const std::string history = history_of(command, values); !history.empty()) {
    read.push_back({"the history " + history, history});
    // SQLite's files beside it: the write-ahead log holds runs not yet in the file itself.
    for (const char* beside : {"-wal", "-journal", "-shm"}) {
      read.push_back({fmt::format("the history {}'s {}", history, history + beside),
                      history + beside});
    }
  }
  return read;
}

void check_outputs_apart(Cmd command, const OptionValues& values) {
  const std::vector<NamedFile> written = written_files(command, values);
  if (written.empty()) return;
  const std::vector<NamedFile> read = read_files(command, values);
  for (std::size_t i = 0; i < written.size(); ++i) {
    const auto& [flag_name, path] = written[i];
    for (const NamedFile& input : read) {
      if (same_output(path, input.path)) {
        throw UsageError(fmt::format("{} {}: it is {}, which fdbench reads; name another file",
                                     flag_name, path, input.what));
      }
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (same_output(written[j].path, path)) {
        throw UsageError(fmt::format("{} {}: {} writes that file too; name another file",
                                     flag_name, path, written[j].what));
      }
    }
  }
}

std::vector<NamedPath> named_paths(Cmd command, const OptionValues& values) {
  std::vector<NamedPath> paths;
  if (works_in_tmpdir(command, values)) {
    const std::string tmpdir = platform::default_dir();
    paths.push_back({"TMPDIR " + tmpdir, tmpdir});
  }
  if (!values.given(Opt::history_file)) {
    if (const std::string history = history_of(command, values); !history.empty()) {
      paths.push_back({"the history " + history, history});
    }
  }
  for (const OptionRow& row : option_rows()) {
    if (!row.commands.has(command) || row.hint_in(command).paths == ValueHint::Paths::none) {
      continue;
    }
    if (command == Cmd::history && row.id == Opt::arguments && values[Opt::action] != "import") {
      continue;  // run IDs
    }
    const bool positional = row.names_in(command).rfind('-', 0) != 0;
    const bool input = read_as_input(command, row.id, values);
    const auto add = [&](const std::string& path) {
      if (path.empty() || (row.id == Opt::baseline && path == "last")) return;
      paths.push_back({positional ? path : flag(row.id) + " " + path, path, input});
    };
    if (row.bind_in(command) == Bind::list) {
      for (const auto& path : values.list.at(row.id)) add(path);
    } else if (values.given(row.id)) {
      add(values[row.id]);
    }
  }
  return paths;
}

void check_paths_answer(const std::vector<NamedPath>& paths, double timeout_s) {
  for (const NamedPath& named : paths) {
    try {
      look_in_child([&named] { look_at(named); }, timeout_s, named.what);
    } catch (const TimedOut&) {
      throw;
    } catch (const Error&) {
      // No child or thread to be had (ulimit -u, a cgroup's pids.max), or it died: the
      // command's own checks look at the paths in this process, as before there was this look,
      // and a run under such a limit goes on with its strategies unavailable.
      return;
    }
  }
}

bool same_output_file(const std::string& a, const std::string& b) {
  return same_output(a, b);
}

}  // namespace fdbench::app
