// Opening a history: what the file is told from its header before SQLite touches it (a foreign
// or damaged file is refused without being opened for writing), then its schema migrated to
// this fdbench's in one transaction, then WAL and the busy timeout for concurrent runs.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "history/history.hpp"
#include "history/schema.hpp"

namespace fdbench::history {

namespace {

constexpr int kBusyTimeoutMs = 30'000;  // a concurrent run's transaction is milliseconds

std::string refusal(const std::string& path, std::string_view what) {
  return fmt::format("{} {}: left as it is; move it away or name another with --history FILE", path,
                     what);
}

std::int32_t big_endian_32(const unsigned char* bytes) {
  return static_cast<std::int32_t>((std::uint32_t{bytes[0]} << 24) |
                                   (std::uint32_t{bytes[1]} << 16) |
                                   (std::uint32_t{bytes[2]} << 8) | std::uint32_t{bytes[3]});
}

// What the file at `path` is by its first 100 bytes (SQLite's header): true where it is an
// fdbench history, false where it is empty (a history another run is creating this moment).
// Throws Refused for anything else.
bool is_history_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) throw Error(fmt::format("cannot read {}: {}", path, errno_text(errno)));
  struct stat st {};
  std::array<unsigned char, 100> header{};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  const ssize_t got = regular ? ::pread(fd, header.data(), header.size(), 0) : -1;
  ::close(fd);
  if (!regular) throw Refused(refusal(path, "is not a regular file"));
  if (got == 0) return false;
  if (got < static_cast<ssize_t>(header.size()) ||
      std::memcmp(header.data(), "SQLite format 3", 16) != 0) {
    throw Refused(refusal(path, "is not an fdbench history (not an SQLite database)"));
  }
  if (big_endian_32(header.data() + 68) != kApplicationId) {
    throw Refused(refusal(path, "is an SQLite database, but not an fdbench history"));
  }
  return true;
}

int pragma_integer(sqlite::Database& db, std::string_view pragma) {
  auto statement = db.prepare(fmt::format("PRAGMA {}", pragma));
  return statement.step() ? static_cast<int>(statement.integer(0)) : 0;
}

void refuse_newer(sqlite::Database& db, const std::string& path) {
  const int version = pragma_integer(db, "user_version");
  if (version > kHistoryVersion) {
    throw Refused(fmt::format(
        "{} was written by a newer fdbench (history schema {}; this one knows up to {}): left "
        "as it is; use that fdbench, or name another with --history FILE",
        path, version, kHistoryVersion));
  }
}

void refuse_damaged(sqlite::Database& db, const std::string& path) {
  std::string verdict;
  try {
    auto check = db.prepare("PRAGMA quick_check(1)");
    verdict = check.step() ? check.text(0) : "no answer";
  } catch (const Error& e) {
    verdict = e.what();
  }
  if (verdict != "ok") throw Refused(refusal(path, fmt::format("is damaged ({})", verdict)));
}

std::string parent_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The directory that must already be there for the history at `path`: where it lives by
// default, the home ($HOME, or the directory $XDG_DATA_HOME is in), below which the XDG
// directories are made; elsewhere (--history FILE) the directory above the file's two: the
// file's directory and the one above it are made, no more.
// A home that is missing (HOME=/nonexistent, as root) is never made, nor anything above it.
std::string existing_base(const std::string& path) {
  if (path == default_history_path()) {
    const char* data = std::getenv("XDG_DATA_HOME");
    if (data != nullptr && data[0] == '/') return parent_of(data);
    return std::getenv("HOME");  // default_history_path() says it is set
  }
  return parent_of(parent_of(parent_of(path)));
}

// Creates the directories between `base`, which must exist, and `path` that are missing
// (private: 0700), as XDG asks.
void make_parent_directories(const std::string& path, const std::string& base) {
  std::vector<std::string> missing;
  struct stat st {};
  for (std::string dir = parent_of(path); ::stat(dir.c_str(), &st) != 0; dir = parent_of(dir)) {
    if (dir == base || dir == "/" || dir == ".") {
      throw Error(fmt::format("cannot create {}: {} does not exist, and fdbench makes only the "
                              "directories below it; create it, or name another file with "
                              "--history FILE",
                              parent_of(path), base));
    }
    missing.push_back(dir);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST) {
      throw Error(fmt::format("cannot create {}: {}", *it, errno_text(errno)));
    }
  }
}

}  // namespace

History History::open_for_writing(const std::string& path) {
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  const bool initialized = exists && is_history_file(path);
  if (!exists) make_parent_directories(path, existing_base(path));
  sqlite::Database db(path, sqlite::Database::Mode::create);
  db.busy_timeout(kBusyTimeoutMs);
  if (initialized) {
    refuse_newer(db, path);
    refuse_damaged(db, path);
  }
  migrate(db);
  db.exec("PRAGMA journal_mode=WAL");
  db.exec("PRAGMA foreign_keys=ON");
  return History(std::move(db));
}

History History::open_for_reading(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw Refused(fmt::format("no history at {} yet: a run saves into it with --save", path));
  }
  if (!is_history_file(path)) {
    throw Refused(
        fmt::format("{} is an empty file, not yet a history: a run saves into it "
                    "with --save",
                    path));
  }
  sqlite::Database db(path, sqlite::Database::Mode::read_write);
  db.busy_timeout(kBusyTimeoutMs);
  refuse_newer(db, path);
  refuse_damaged(db, path);
  migrate(db);
  db.exec("PRAGMA foreign_keys=ON");
  return History(std::move(db));
}

bool History::started(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && is_history_file(path);
}

namespace {

// The folder `path` is in, or would be created in: its nearest ancestor that exists.
std::string existing_folder(const std::string& path) {
  std::string folder = path;
  for (;;) {
    const auto slash = folder.find_last_of('/');
    if (slash == std::string::npos) return ".";
    folder = slash == 0 ? "/" : folder.substr(0, slash);
    struct stat st {};
    if (folder == "/" || ::stat(folder.c_str(), &st) == 0) return folder;
  }
}

}  // namespace

void History::check_writable(const std::string& path) {
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists) is_history_file(path);  // refuses a foreign file
  // SQLite writes its journal (-wal, -shm) beside the file: the folder must be writable too.
  const std::string folder = existing_folder(path);
  for (const std::string& needed :
       exists ? std::vector<std::string>{path, folder} : std::vector<std::string>{folder}) {
    if (::access(needed.c_str(), W_OK) != 0) {
      throw Refused(
          fmt::format("cannot save in {}: {} is not writable ({}): name another with "
                      "--history FILE",
                      path, needed, errno_text(errno)));
    }
  }
}

std::string default_history_path() {
  const char* data = std::getenv("XDG_DATA_HOME");
  if (data != nullptr && data[0] == '/') return std::string(data) + "/fdbench/history.db";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != '\0') {
    return std::string(home) + "/.local/share/fdbench/history.db";
  }
  return {};
}

}  // namespace fdbench::history
