#include "inputs/input_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <vector>

#include <fmt/format.h>

#include "fdbench/error.hpp"
#include "platform/interrupt.hpp"
#include "fdbench/unique_fd.hpp"

namespace fdbench {

namespace {

// What to do with a directory entry of this mode: "" = keep (regular file), "dir" = descend,
// anything else = the skip category.
std::string classify(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "dir";
  if (S_ISLNK(mode)) return "symlink";
  if (S_ISFIFO(mode)) return "fifo";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "device";
  return "other";
}

std::string classify(unsigned char d_type) {
  switch (d_type) {
    case DT_REG: return "";
    case DT_DIR: return "dir";
    case DT_LNK: return "symlink";
    case DT_FIFO: return "fifo";
    case DT_SOCK: return "socket";
    case DT_CHR:
    case DT_BLK: return "device";
    default: return "?";
  }
}

}  // namespace

InputFiles scan_tree(const std::string& root) {
  InputFiles input;
  input.source = "tree";
  input.origin = root;
  input.dir_path = root;
  UniqueFd root_fd(open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK));
  if (!root_fd) {
    throw Error(fmt::format("--tree {}: {}", root, errno_text(errno)));
  }
  // One directory open at a time: a deep tree cannot run us out of descriptors.
  std::vector<std::string> pending{""};
  std::size_t visited = 0;
  while (!pending.empty()) {
    if ((++visited & 255) == 0) throw_if_interrupted();
    const std::string rel = std::move(pending.back());
    pending.pop_back();
    const int fd = rel.empty() ? dup(root_fd.get())
                               : openat(root_fd.get(), rel.c_str(),
                                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC |
                                            O_NONBLOCK);
    DIR* dir = fd >= 0 ? fdopendir(fd) : nullptr;
    if (dir == nullptr) {
      if (fd >= 0) close(fd);
      ++input.skipped["unreadable directory"];
      continue;
    }
    while (const dirent* entry = readdir(dir)) {
      const std::string_view name = entry->d_name;
      if (name == "." || name == "..") continue;
      const std::string path = rel.empty() ? std::string(name) : rel + "/" + std::string(name);
      std::string what = classify(entry->d_type);
      if (what == "?") {  // the filesystem does not fill d_type: ask, without following
        struct stat info {};
        what = fstatat(dirfd(dir), entry->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0
                   ? classify(info.st_mode)
                   : "other";
      }
      if (what.empty()) {
        input.paths.add(path);
      } else if (what == "dir") {
        pending.push_back(path);
      } else {
        ++input.skipped[what];
      }
    }
    closedir(dir);
  }
  return input;
}

std::string list_separator_mistake(const std::string& list_file, std::string_view head,
                                   bool nul_separated) {
  const bool has_nul = head.find('\0') != std::string_view::npos;
  if (!nul_separated && has_nul) {
    return fmt::format("--list {}: the paths are NUL-separated (as find -print0 writes them); "
                       "add --list0",
                       list_file);
  }
  if (nul_separated && !has_nul && head.find('\n') != std::string_view::npos) {
    return fmt::format("--list0: {} has one path per line and no NUL between them; drop --list0",
                       list_file);
  }
  return "";
}

InputFiles read_list(const std::string& list_file, bool nul_separated) {
  InputFiles input;
  input.source = "list";
  input.origin = list_file;
  char cwd[4096];
  input.dir_path = getcwd(cwd, sizeof cwd) != nullptr ? cwd : ".";
  std::ifstream in(list_file, std::ios::binary);
  if (!in) throw Error(fmt::format("--list {}: {}", list_file, errno_text(errno)));
  std::string entry;
  std::size_t count = 0;
  const char separator = nul_separated ? '\0' : '\n';
  while (std::getline(in, entry, separator)) {
    if ((++count & 1023) == 0) throw_if_interrupted();
    if (count == 1) {  // the first entry and what ended it: enough to tell the separator
      const std::string head = in.eof() ? entry : entry + separator;
      if (auto why = list_separator_mistake(list_file, head, nul_separated); !why.empty()) {
        throw UsageError(why);
      }
    }
    if (!nul_separated && !entry.empty() && entry.back() == '\r') entry.pop_back();
    if (entry.empty()) continue;
    struct stat info {};
    if (lstat(entry.c_str(), &info) != 0) {
      ++input.missing[errno_text(errno)];
      continue;
    }
    const std::string what = classify(info.st_mode);
    if (what.empty()) {
      input.paths.add(entry);
    } else {
      ++input.skipped[what == "dir" ? "directory" : what];
    }
  }
  if (in.bad()) throw Error(fmt::format("--list {}: read error", list_file));
  return input;
}

}  // namespace fdbench
