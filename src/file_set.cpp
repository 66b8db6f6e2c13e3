#include "fdbench/file_set.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "fdbench/error.hpp"
#include "fdbench/interrupt.hpp"

namespace fdbench {

namespace {

constexpr int kCreateFlags = O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY;

std::string subdir_name(std::size_t j) { return "d" + std::to_string(j); }

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Creates names [begin, end) until the first failure; returns how many it created and the
// errno that stopped it (0 if none). Polls for Ctrl-C every 1,024 files.
std::pair<std::size_t, int> create_range(int dir, const PathTable& names, std::size_t begin,
                                         std::size_t end) {
  for (std::size_t i = begin; i < end; ++i) {
    if ((i & 1023) == 0 && interrupted() != 0) return {i - begin, EINTR};
    const int fd = openat(dir, names[i], kCreateFlags, 0644);
    if (fd < 0) return {i - begin, errno};
    close(fd);
  }
  return {end - begin, 0};
}

}  // namespace

FileSet FileSet::create(const std::string& parent, std::size_t count, std::size_t subdirs) {
  FileSet set;
  std::string tmpl = (parent.empty() ? std::string(".") : parent) + "/" + kDirPrefix + "XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    const int err = errno;
    throw Error(fmt::format("cannot create a private directory in --dir {}: {}{}", parent,
                            errno_text(err),
                            err == EROFS || err == EACCES || err == EPERM
                                ? " (choose a writable directory with --dir)"
                                : ""));
  }
  set.path_ = tmpl;
  const auto slash = tmpl.find_last_of('/');
  const std::string parent_path = slash == 0 ? "/" : tmpl.substr(0, slash);
  set.parent_.reset(open(parent_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  set.dir_.reset(open(tmpl.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
  if (!set.parent_ || !set.dir_) {
    const int err = errno;
    rmdir(tmpl.c_str());
    throw Error(fmt::format("cannot open the private directory {}: {}", tmpl, errno_text(err)));
  }
  // The marker says "fdbench made this" to `fdbench clean` and to people.
  const int marker = openat(set.dir_.get(), kMarkerName, kCreateFlags, 0644);
  if (marker >= 0) {
    const std::string text = fmt::format(
        "This directory was created by fdbench (pid {}) and holds only its own empty files.\n"
        "It is safe to delete.\n",
        getpid());
    [[maybe_unused]] const auto written = write(marker, text.data(), text.size());
    close(marker);
    set.marker_ = true;
  } else {
    const int err = errno;
    set.remove();
    throw Error(fmt::format("cannot write in --dir {}: {}", parent, errno_text(err)));
  }

  for (; set.subdirs_ < subdirs; ++set.subdirs_) {
    if (mkdirat(set.dir_.get(), subdir_name(set.subdirs_).c_str(), 0755) != 0) {
      const int err = errno;
      set.remove();
      throw Error(fmt::format("cannot create a subdirectory in {}: {}", tmpl, errno_text(err)));
    }
  }

  const std::size_t prefix = subdirs > 0 ? subdir_name(subdirs).size() + 1 : 0;
  std::size_t bytes = 0;
  for (std::size_t i = 1; i <= count; ++i) bytes += std::to_string(i).size() + 5 + prefix;
  set.names_.reserve(count, bytes);
  char name[64];
  for (std::size_t i = 1; i <= count; ++i) {
    if (subdirs > 0) {
      std::snprintf(name, sizeof name, "d%zu/%zu.txt", (i - 1) % subdirs, i);
    } else {
      std::snprintf(name, sizeof name, "%zu.txt", i);
    }
    set.names_.add(name);
  }

  // Setup is not the measured work; two creators halve it on a slow filesystem.
  const std::size_t half = count / 2;
  std::pair<std::size_t, int> second{0, 0};
  std::thread helper;
  if (count >= 2048) {
    helper = std::thread([&] { second = create_range(set.dir_.get(), set.names_, half, count); });
  }
  const std::size_t first_end = helper.joinable() ? half : count;
  const auto first = create_range(set.dir_.get(), set.names_, 0, first_end);
  if (helper.joinable()) helper.join();
  set.created_.emplace_back(0, first.first);
  if (first_end < count) set.created_.emplace_back(half, half + second.first);

  const int err = first.second != 0 ? first.second : second.second;
  if (err != 0) {
    const std::size_t made = first.first + second.first;
    set.remove();
    throw_if_interrupted();
    if (err == ENOSPC || err == EDQUOT) {
      throw Error(fmt::format(
          "no space left in --dir {} after {} of {} files (each needs an inode): free space "
          "or inodes there, choose another --dir, or lower --files",
          parent, made, count));
    }
    throw Error(fmt::format("cannot create file {} of {} in {}: {}", made + 1, count, tmpl,
                            errno_text(err)));
  }
  return set;
}

FileSet::FileSet(FileSet&& other) noexcept
    : path_(std::move(other.path_)),
      parent_(std::move(other.parent_)),
      dir_(std::move(other.dir_)),
      names_(std::move(other.names_)),
      created_(std::move(other.created_)),
      subdirs_(std::exchange(other.subdirs_, 0)),
      marker_(std::exchange(other.marker_, false)) {}

FileSet::~FileSet() { remove(); }

bool FileSet::remove() noexcept {
  if (!dir_) return true;
  // unlinkat relative to our directory descriptor: no path is resolved again and a symlink
  // put in place of one of our names is removed itself, never followed.
  for (const auto& [begin, end] : created_) {
    for (std::size_t i = begin; i < end; ++i) unlinkat(dir_.get(), names_[i], 0);
  }
  created_.clear();
  for (; subdirs_ > 0; --subdirs_) {
    unlinkat(dir_.get(), subdir_name(subdirs_ - 1).c_str(), AT_REMOVEDIR);
  }
  if (marker_) unlinkat(dir_.get(), kMarkerName, 0);
  marker_ = false;
  dir_.reset();
  bool removed = unlinkat(parent_.get(), base_name(path_).c_str(), AT_REMOVEDIR) == 0;
  if (!removed && errno == ENOTEMPTY) {
    std::fprintf(stderr,
                 "fdbench: warning: left %s in place: it holds files fdbench did not create\n",
                 path_.c_str());
  }
  parent_.reset();
  return removed;
}

}  // namespace fdbench
