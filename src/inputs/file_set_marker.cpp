// A set's marker and its lock: the marker's format, written when a set is made and read by
// --reuse-files, --keep-files and `fdbench clean`.
#include "inputs/file_set_marker.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <optional>
#include <system_error>

#include "engine/workload.hpp"
#include "inputs/file_set.hpp"

namespace fdbench::file_sets {

static_assert(std::string_view(kAcceptMarkerName) == FileSet::kMarkerName,
              "accept's socket directory is marked as a file set is");

namespace {

constexpr std::string_view kPrivateHead = "fdbench private directory\n";
constexpr std::string_view kKeptHead = "fdbench kept file set\n";
// Appended to a kept set's marker once every file exists: without it the set is unfinished.
constexpr std::string_view kCompleteLine = "complete\n";

std::optional<std::size_t> number(std::string_view text) {
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// A kept set's marker: its head, "files N", "layout flat|dirs:K", then text for people, and
// "complete" last once the set was finished.
Marker parse_kept_marker(std::string_view text) {
  Marker m;
  m.kind = Marker::Kind::other;
  std::optional<std::size_t> files;
  std::optional<std::size_t> subdirs;
  std::size_t at = kKeptHead.size();
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    if (line.starts_with("files ")) files = number(line.substr(6));
    if (line == "layout flat") subdirs = 0;
    if (line.starts_with("layout dirs:")) subdirs = number(line.substr(12));
    at = end + 1;
  }
  if (!files || !subdirs || *files == 0) return m;
  m.kind = Marker::Kind::kept;
  m.files = *files;
  m.subdirs = *subdirs;
  m.complete = text.ends_with(kCompleteLine);
  return m;
}

}  // namespace

std::string private_marker_text() {
  return fmt::format(
      "{}pid {}\n"
      "fdbench created this directory and holds only its own empty files in it.\n"
      "If no fdbench is running, `fdbench clean` removes it.\n",
      kPrivateHead, getpid());
}

std::string kept_marker_text(std::size_t count, std::size_t subdirs) {
  return fmt::format(
      "{}files {}\nlayout {}\n"
      "fdbench created this directory with `fdbench open --keep-files` and holds only its own\n"
      "empty files in it: `fdbench open --reuse-files DIR` uses them, `fdbench clean DIR`\n"
      "removes it.\n",
      kKeptHead, count, layout_name(subdirs));
}

bool mark_complete(int dir) {
  const int marker =
      openat(dir, FileSet::kMarkerName, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  const bool finished = marker >= 0 && write(marker, kCompleteLine.data(), kCompleteLine.size()) ==
                                           static_cast<ssize_t>(kCompleteLine.size());
  const int err = errno;
  if (marker >= 0) close(marker);
  errno = err;
  return finished;
}

Marker read_marker(int dir) {
  const int fd = openat(dir, FileSet::kMarkerName, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return {errno == ENOENT ? Marker::Kind::none : Marker::Kind::other};
  char buf[4096];
  const ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  const std::string_view text(buf, static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
  if (text.starts_with(kKeptHead)) return parse_kept_marker(text);
  Marker m;
  m.kind = Marker::Kind::other;
  constexpr std::string_view kPid = "pid ";
  const bool accept = text.starts_with(kAcceptMarkerHead);
  if (!text.starts_with(kPrivateHead) && !accept) return m;
  const std::string_view rest =
      text.substr(accept ? kAcceptMarkerHead.size() : kPrivateHead.size());
  if (!rest.starts_with(kPid)) return m;
  if (const auto pid = number(rest.substr(kPid.size(), rest.find('\n') - kPid.size()))) {
    m.kind = accept ? Marker::Kind::accept_dir : Marker::Kind::private_dir;
    m.pid = static_cast<pid_t>(*pid);
  }
  return m;
}

bool try_lock(int dir, int how) {
  return lock(dir, how) != LockResult::busy;
}

LockResult lock(int dir, int how) {
  if (flock(dir, how | LOCK_NB) == 0) return LockResult::taken;
  return errno == EWOULDBLOCK ? LockResult::busy : LockResult::unsupported;
}

}  // namespace fdbench::file_sets
