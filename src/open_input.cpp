#include "open_input.hpp"

#include <fmt/format.h>

#include "fdbench/error.hpp"
#include "fdbench/platform.hpp"

namespace fdbench {

std::string OpenInput::fs_type() const {
  // A generated set lives in a private directory under --dir: name the filesystem of --dir.
  return platform::fs_type(generated ? summary.origin : dir_path);
}

OpenInput prepare_input(const OpenOptions& o) {
  OpenInput in;
  in.summary.flags = std::string(to_string(o.flags));
  in.summary.keep_open = o.keep_open;
  if (!o.tree.empty() || !o.list.empty()) {
    in.existing = o.tree.empty() ? read_list(o.list, o.list0) : scan_tree(o.tree);
    in.summary.source = in.existing.source;
    in.summary.origin = in.existing.origin;
    in.summary.layout = "";
    in.summary.skipped = in.existing.skipped;
    in.summary.missing = in.existing.missing;
    in.dir_path = in.existing.dir_path;
    if (in.existing.paths.empty()) {
      throw Error(fmt::format("no regular files to open in {} {}",
                              o.tree.empty() ? "--list" : "--tree", in.summary.origin));
    }
  } else {
    const std::string dir = o.dir.empty() ? default_dir() : o.dir;
    in.generated.emplace(FileSet::create(dir, o.files, o.subdirs));
    in.summary.origin = dir;
    in.summary.layout = o.subdirs == 0 ? "flat" : fmt::format("dirs:{}", o.subdirs);
    in.dir_path = in.generated->path();
    in.dir_fd = in.generated->dir_fd();
  }
  in.summary.files = in.paths().size();
  return in;
}

}  // namespace fdbench
