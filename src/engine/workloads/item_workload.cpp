#include "engine/workloads/item_workload.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "common/errors.hpp"
#include "fdbench/error.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"

namespace fdbench {

ItemWorkload::ItemWorkload(std::string_view name, DescriptorKind kind, ItemSpec item,
                           std::size_t count, UniqueFd own_dir, const DirectoryTable* directories)
    : name_(name),
      kind_(kind),
      item_(std::move(item)),
      count_(count),
      own_dir_(std::move(own_dir)),
      directories_(directories),
      dir_fds_(directories != nullptr ? directories->dirs.size() : 0, -1),
      held_(item_.keep_open ? count * static_cast<std::size_t>(item_.descriptors()) : 0, -1) {
  FDBENCH_ASSERT(item_.op != ItemSpec::Op::other);
  if (directories_ != nullptr) {
    FDBENCH_ASSERT(directories_->dir_of.size() == count);
    item_.dir_fds = dir_fds_.data();  // filled by before_repetition()
    item_.dir_of = directories_->dir_of.data();
    item_.check_regular = true;
  }
}

// The user's directories, each opened from its parent's descriptor (a top one name by name
// from "/"), no link followed, and checked to be the one the scan found: untimed, so that each
// timed open is one openat() of a last name. One that is not is the end of the repetition,
// named: the tree changed under the run.
void ItemWorkload::before_repetition() {
  if (directories_ == nullptr) return;
  close_directories();
  const auto& dirs = directories_->dirs;
  for (std::uint32_t i = 0; i < dirs.size(); ++i) {
    const auto& dir = dirs[i];
    const int fd = dir.parent == DirectoryTable::kTop
                       ? platform::open_absolute_directory_nofollow(dir.name)
                       : platform::open_directory_nofollow(dir_fds_[dir.parent], dir.name);
    const int err = errno;
    struct stat info {};
    const bool same = fd >= 0 && fstat(fd, &info) == 0 &&
                      static_cast<std::uint64_t>(info.st_dev) == dir.dev &&
                      static_cast<std::uint64_t>(info.st_ino) == dir.ino;
    if (!same) {
      if (fd >= 0) close(fd);
      close_directories();
      throw Error(fmt::format(
          "{} changed since the files were looked at ({}): its files were not opened",
          directories_->path_of(i),
          fd < 0 ? (err == ELOOP ? std::string("it, or a directory above it, is a symlink now")
                                 : errno_text(err))
                 : std::string("it is another directory now")));
    }
    dir_fds_[i] = fd;
  }
}

void ItemWorkload::close_directories() noexcept {
  for (int& fd : dir_fds_) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
}

std::string_view ItemWorkload::unit() const {
  switch (item_.op) {
    case ItemSpec::Op::open_file:
      return "files";
    case ItemSpec::Op::accept_connection:
      return "connections";
    default:
      return "fds";
  }
}

// Creates item i's descriptors into `fds` (0, or -1 with errno) and then holds them or closes
// them, as the description says.
template <int kDescriptors, class Create>
void ItemWorkload::each(std::size_t begin, std::size_t end, Tally& tally, Create create) noexcept {
  if (trace_ != nullptr) return each_traced<kDescriptors>(begin, end, tally, create);
  for (std::size_t i = begin; i < end; ++i) {
    if ((i & 4095) == 0 && interrupted() != 0) return;  // huge sets: stop within a second
    int own[kDescriptors];
    int* fds = item_.keep_open ? &held_[i * kDescriptors] : own;
    const int created = create(i, fds);
    if (created < 0) {
      tally.fail(errno);
    } else if (created > 0) {
      ++tally.not_regular;  // closed already
    } else if (!item_.keep_open) {
      for (const int fd : own) close(fd);
    }
  }
}

// The same loop with every call timed: the clock read around the creation and around the
// close, written into the item's own record (no other worker writes it).
template <int kDescriptors, class Create>
void ItemWorkload::each_traced(std::size_t begin, std::size_t end, Tally& tally,
                               Create create) noexcept {
  const std::int16_t worker = trace_->worker();
  for (std::size_t i = begin; i < end; ++i) {
    if ((i & 4095) == 0 && interrupted() != 0) return;
    int own[kDescriptors];
    int* fds = item_.keep_open ? &held_[i * kDescriptors] : own;
    const std::int64_t start = platform::now_ns();
    const int made = create(i, fds);
    const int err = made < 0 ? errno : 0;
    const std::int64_t created = platform::now_ns();
    trace_->created(i, start, created, worker,
                    made != 0 ? -1 : *std::max_element(fds, fds + kDescriptors));
    if (made < 0) {
      tally.fail(err);
      continue;
    }
    if (made > 0) {
      ++tally.not_regular;  // closed already
      continue;
    }
    if (!item_.keep_open) {
      for (const int fd : own) close(fd);
      trace_->at(i).close_ns = platform::now_ns() - created;
    }
  }
}

void ItemWorkload::prepare_range(std::size_t begin, std::size_t end) noexcept {
  if (!item_.keep_open) return;  // nothing but the caller's tally is written
  const auto k = static_cast<std::size_t>(item_.descriptors());
  std::fill(held_.begin() + static_cast<std::ptrdiff_t>(begin * k),
            held_.begin() + static_cast<std::ptrdiff_t>(end * k), -1);
}

void ItemWorkload::run_range(std::size_t begin, std::size_t end, Tally& tally) noexcept {
  const ItemSpec& item = item_;
  // One branch per range, not per item: fast-pool calls this once per item.
  switch (item.op) {
    case ItemSpec::Op::open_file:
      if (item.check_regular) {
        // The user's files: relative to its checked directory (or a full path with no link
        // followed), and what opened checked before it is kept or closed.
        const auto checked = [](int* fd) {
          if (*fd < 0) return -1;
          if (platform::is_regular_descriptor(*fd)) return 0;
          close(*fd);
          *fd = -1;
          return 1;
        };
        if (item.absolute) {
          return each<1>(begin, end, tally, [&item, &checked](std::size_t i, int* fd) {
            *fd = platform::open_resolved(AT_FDCWD, item.path(i), item.open_flags, item.resolve);
            return checked(fd);
          });
        }
        return each<1>(begin, end, tally, [&item, &checked](std::size_t i, int* fd) {
          *fd = openat(item.dir_fds[item.dir_of[i]], item.path(i), item.open_flags);
          return checked(fd);
        });
      }
      return each<1>(begin, end, tally, [&item](std::size_t i, int* fd) {
        *fd = openat(item.dir_fd, item.path(i), item.open_flags);
        return *fd < 0 ? -1 : 0;
      });
    case ItemSpec::Op::create_socket:
      return each<1>(begin, end, tally, [&item](std::size_t, int* fd) {
        *fd = socket(item.domain, item.type, item.protocol);
        return *fd < 0 ? -1 : 0;
      });
    case ItemSpec::Op::create_eventfd:
      return each<1>(begin, end, tally, [](std::size_t, int* fd) {
        *fd = platform::create_eventfd();
        return *fd < 0 ? -1 : 0;
      });
    case ItemSpec::Op::create_pipe:
      return each<2>(begin, end, tally,
                     [](std::size_t, int* fds) { return platform::create_pipe(fds); });
    case ItemSpec::Op::accept_connection:
      return each<1>(begin, end, tally, [&item](std::size_t, int* fd) {
        *fd = platform::accept_connection(item.listen_fd);
        return *fd < 0 ? -1 : 0;
      });
    case ItemSpec::Op::other:
      break;
  }
}

void ItemWorkload::after_repetition() {
  for (int& fd : held_) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
  close_directories();
}

void ItemWorkload::keep(std::size_t i, int fd) noexcept {
  if (item_.keep_open) {
    held_[i] = fd;  // strategies hand over one descriptor per item (no pipes)
  } else {
    close(fd);
  }
}

}  // namespace fdbench
