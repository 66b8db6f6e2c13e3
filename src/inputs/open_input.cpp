#include "inputs/open_input.hpp"

#include <fmt/format.h>
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "fdbench/error.hpp"
#include "inputs/examined_files.hpp"
#include "platform/platform.hpp"

namespace fdbench {

std::string OpenInput::fs_type() const {
  // A private set lives in a directory under --dir, a kept one in its own: name the filesystem
  // of that. The user's files were named where they were examined (InputFiles::fs_type).
  return generated ? platform::fs_type(summary.origin) : existing.fs_type;
}

namespace {

// What was left out and why, for "no regular files to open": ": 2 entries skipped (1 fifo, 1
// directory); 1 listed path could not be examined (1 No such file or directory)", or nothing.
std::string left_out_text(const InputFiles& in) {
  const auto counted = [](const std::map<std::string, std::uint64_t>& by_why) {
    std::uint64_t total = 0;
    std::string parts;
    for (const auto& [why, n] : by_why) {
      total += n;
      parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", n, why);
    }
    return std::pair{total, parts};
  };
  std::string text;
  if (const auto [n, parts] = counted(in.skipped); n > 0) {
    text = fmt::format(": {} {} skipped ({})", n, n == 1 ? "entry" : "entries", parts);
  }
  if (const auto [n, parts] = counted(in.missing); n > 0) {
    text += fmt::format("{} {} listed {} could not be examined ({})", text.empty() ? ":" : ";", n,
                        n == 1 ? "path" : "paths", parts);
  }
  return text;
}

// How many of `paths` differ, when fewer than all: a list may name one file many times.
std::optional<std::uint64_t> distinct_if_fewer(const PathTable& paths) {
  std::unordered_set<std::string_view> seen;
  seen.reserve(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) seen.insert(paths[i]);
  if (seen.size() == paths.size()) return std::nullopt;
  return seen.size();
}

// `dir` from the root: joined to the current directory when relative, as open() would.
std::string absolute_dir(const std::string& dir) {
  if (!dir.empty() && dir.front() == '/') return dir;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) == nullptr) {
    throw Error(fmt::format("cannot tell the absolute path of {}: {}", dir, errno_text(errno)));
  }
  return dir.empty() || dir == "." ? cwd : fmt::format("{}/{}", cwd, dir);
}

// The generated set: made for this run under --dir, made at --keep-files DIR and kept, or the
// one kept at --reuse-files DIR, checked.
FileSet generated_set(const InputOptions& o, const FileSet::CreationProgress& progress,
                      InputSummary& summary) {
  if (!o.reuse_files.empty()) {
    summary.origin = o.reuse_files;
    summary.source = InputSource::reused;
    return FileSet::open_kept(o.reuse_files, o.files, o.subdirs);
  }
  if (!o.keep_files.empty()) {
    summary.origin = o.keep_files;
    summary.source = InputSource::kept;
    return FileSet::create_kept(o.keep_files, o.files.value(), o.subdirs.value(), progress);
  }
  summary.origin = o.dir.empty() ? platform::default_dir() : o.dir;
  summary.source = InputSource::private_set;
  // Named as the user gave it: a TMPDIR they never passed as --dir is called TMPDIR.
  return FileSet::create(summary.origin, o.files.value(), o.subdirs.value(), progress,
                         o.dir.empty() ? "TMPDIR" : "--dir");
}

}  // namespace

OpenInput prepare_input(const InputOptions& o, double timeout_s,
                        const FileSet::CreationProgress& progress) {
  OpenInput in;
  const std::int64_t start = platform::now_ns();
  in.summary.flags = std::string(to_string(o.flags));
  in.summary.keep_open = o.keep_open;
  if (!o.tree.empty() || !o.list.empty()) {
    // Looked at under --timeout's limit, in a child process: a path on a dead mount hangs
    // lstat() as it hangs open().
    const auto examine = [&o] {
      TreeWalk walk;
      walk.cross_mounts = o.cross_mounts;
      walk.allow_pseudo_fs = o.allow_pseudo_fs;
      InputFiles files = o.tree.empty() ? read_list(o.list, o.list0, o.allow_pseudo_fs)
                                        : scan_tree(o.tree, walk);
      if (o.tree.empty()) return files;  // each listed file's own, named as it was read
      files.fs_type = platform::fs_type(files.dir_path.empty() ? "." : files.dir_path);
      return files;
    };
    in.existing = examine_in_child(examine, timeout_s,
                                   o.tree.empty() ? "--list " + o.list : "--tree " + o.tree);
    in.summary.source = in.existing.source;
    in.summary.origin = in.existing.origin;
    in.summary.layout = "";
    in.summary.skipped = in.existing.skipped;
    in.summary.missing = in.existing.missing;
    in.dir_path = in.existing.dir_path;
    in.summary.distinct = distinct_if_fewer(in.existing.paths);
    if (in.existing.paths.empty()) {
      throw Error(fmt::format("no regular files to open in {} {}{}",
                              o.tree.empty() ? "--list" : "--tree", in.summary.origin,
                              left_out_text(in.existing)));
    }
  } else {
    in.generated.emplace(generated_set(o, progress, in.summary));
    in.summary.layout = layout_name(in.generated->subdirs());
    in.dir_path = in.generated->path();
    in.dir_fd = in.generated->dir_fd();
  }
  in.dir_path = absolute_dir(in.dir_path);
  if (o.paths == PathMode::absolute) {
    // The user's files by the paths the scan found them at, with no link on them (a link in
    // the --tree root's own path resolved): opened with no link followed (openat2()), which
    // the command line asks for before anything runs.
    if (!in.generated && !platform::has_open_resolved()) {
      throw Error(fmt::format("--paths absolute with {}: this system has no openat2(), which "
                              "opens a full path following no link a race may put on it",
                              o.tree.empty() ? "--list" : "--tree"));
    }
    in.absolute = in.generated ? joined_paths(in.dir_path, in.paths())
                               : in.existing.by_directory.full_paths();
    in.path_mode = PathMode::absolute;
  }
  in.summary.files = in.paths().size();
  in.summary.setup_ns = platform::now_ns() - start;
  return in;
}

std::string opening_text(const InputOptions& options, const OpenInput& in) {
  if (!options.list.empty()) return "opening the files --list " + options.list + " names";
  return "opening files under " + in.dir_path;
}

bool measured_in_fresh_children(const InputOptions& options, const OpenInput& in) {
  return options.keep_open || !in.generated;
}

OpenSpec open_spec(const InputOptions& options, const OpenInput& in) {
  OpenSpec spec;
  spec.dir_path = in.dir_path;
  spec.dir_fd = in.dir_fd;
  spec.paths = &in.paths();
  spec.flags = options.flags;
  spec.path_mode = in.path_mode;
  spec.keep_open = options.keep_open;
  spec.foreign = !in.generated;
  if (spec.foreign) {
    // Each by its last name, relative to its directory opened and checked before the clock.
    spec.directories = &in.existing.by_directory;
    if (in.path_mode == PathMode::relative) spec.paths = &in.existing.by_directory.names;
  }
  return spec;
}

void record_paths(Result& r, PathMode asked, const StrategyInfo& strategy, bool foreign) {
  if (r.config.harness == Harness::published) {
    r.config.paths = PathMode::relative;
    r.parameters["paths_note"] =
        "the first seed's names: each file's relative name <set>/N.txt, built per file as a "
        "std::string and opened with a std::ifstream from the set's parent directory";
    return;
  }
  if (strategy.full_paths_only && foreign) {
    r.config.paths = PathMode::absolute;
    r.parameters["paths_note"] = fmt::format(
        "{} has no openat(): it opened each of your files by the path /proc/self/fd/N/NAME, N "
        "the descriptor of its directory, checked before the clock, so that no link a race put "
        "on its path was followed; that step through /proc is in its times",
        strategy.name);
    return;
  }
  const bool forced = strategy.full_paths_only && asked == PathMode::relative;
  r.config.paths = forced ? PathMode::absolute : asked;
  if (forced) {
    r.parameters["paths_note"] = fmt::format(
        "{} has no openat(): it could only open each file by its absolute path, so --paths "
        "relative did not apply to it",
        strategy.name);
  }
}

}  // namespace fdbench
