// open: open each file of a list and close it again (or hold it, with keep_open); nothing
// is ever read or written. This file only describes the item (ItemSpec); item_workload.cpp
// performs it.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>

#include "common/errors.hpp"
#include "fdbench/error.hpp"
#include "fdbench/unique_fd.hpp"
#include "engine/workload.hpp"
#include "engine/workloads/item_workload.hpp"
#include "platform/platform.hpp"

namespace fdbench {

namespace {

struct FlagName {
  OpenFlags flags;
  std::string_view name;
};
constexpr FlagName kFlagNames[] = {
    {OpenFlags::rdonly, "rdonly"}, {OpenFlags::path, "path"}, {OpenFlags::rdwr, "rdwr"}};

bool all_absolute(const PathTable& paths) {
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (paths[i][0] != '/') return false;
  }
  return true;
}

int open_flags(const OpenSpec& spec) {
  int flags = O_CLOEXEC;
  switch (spec.flags) {
    case OpenFlags::rdonly: flags |= O_RDONLY; break;
#if defined(O_PATH)
    case OpenFlags::path: flags |= O_PATH; break;
#else
    case OpenFlags::path: flags |= O_RDONLY; break;  // no O_PATH here (macOS, older BSDs)
#endif
    case OpenFlags::rdwr: flags |= O_RDWR; break;
  }
  // Never follow a link, never block on a FIFO that slipped in, never acquire a controlling
  // terminal: for someone else's files, and for our own as well, since anything can be put in
  // place of a name in our directory while we run. None of these changes opening a regular file.
  flags |= O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
  return flags;
}

}  // namespace

std::string_view to_string(OpenFlags flags) {
  for (const auto& f : kFlagNames) {
    if (f.flags == flags) return f.name;
  }
  return "unknown";
}

bool parse_open_flags(std::string_view text, OpenFlags& flags) {
  for (const auto& f : kFlagNames) {
    if (f.name == text) {
      flags = f.flags;
      return true;
    }
  }
  return false;
}

std::vector<std::string> open_flags_names() {
  std::vector<std::string> names;
  for (const auto& f : kFlagNames) names.emplace_back(f.name);
  return names;
}

std::unique_ptr<Workload> make_open_workload(const OpenSpec& spec) {
  // The user's files are never opened for writing (the CLI refuses --flags rdwr for them).
  FDBENCH_ASSERT(!spec.foreign || spec.flags != OpenFlags::rdwr);
  ItemSpec item;
  item.op = ItemSpec::Op::open_file;
  item.dir_fd = spec.dir_fd;
  item.dir_path = spec.dir_path;
  item.paths = spec.paths;
  item.open_flags = open_flags(spec);
  item.keep_open = spec.keep_open;
  UniqueFd own_dir;
  if (spec.directories != nullptr) {
    // The user's files: by their checked directories (or full paths with no link followed),
    // never through the directory's path again.
    FDBENCH_ASSERT(spec.foreign && spec.paths->size() == spec.directories->dir_of.size());
    if (spec.path_mode == PathMode::absolute) {
      FDBENCH_ASSERT(all_absolute(*spec.paths));  // directories->full_paths()
      item.absolute = true;
      item.dir_fd = AT_FDCWD;
      item.resolve = platform::no_links_resolve();
    }
  } else if (spec.path_mode == PathMode::absolute) {
    FDBENCH_ASSERT(all_absolute(*spec.paths));  // the caller built them (joined_paths)
    item.absolute = true;
    item.dir_fd = AT_FDCWD;  // the same as open(path): no directory descriptor at all
  } else if (item.dir_fd < 0) {
    own_dir.reset(open(spec.dir_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!own_dir) throw Error(fmt::format("cannot open {}: {}", spec.dir_path, errno_text(errno)));
    item.dir_fd = own_dir.get();
  }
  const std::size_t count = spec.paths->size();
  return std::make_unique<ItemWorkload>("open", DescriptorKind::file, std::move(item), count,
                                        std::move(own_dir), spec.directories);
}

std::unique_ptr<Workload> make_open_workload(int dir_fd, std::string dir_path,
                                             const PathTable& paths) {
  OpenSpec spec;
  spec.dir_fd = dir_fd;
  spec.dir_path = std::move(dir_path);
  spec.paths = &paths;
  return make_open_workload(spec);
}

}  // namespace fdbench
