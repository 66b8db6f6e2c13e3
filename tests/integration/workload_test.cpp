// The built-in workloads with real descriptors: what spec() describes is what run_range()
// does, so a strategy that issues the calls itself from spec() does the same work.
#include "engine/workload.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "fdbench/error.hpp"
#include "inputs/file_set.hpp"
#include "platform/platform.hpp"
#include "platform/unavailable.hpp"
#include "support/temp_dir.hpp"

namespace fdbench {
namespace workload_test {

using testing::TempDir;

#if defined(SOCK_CLOEXEC)
constexpr int kNoCloexec = ~SOCK_CLOEXEC;
#else
constexpr int kNoCloexec = ~0;
#endif

// Descriptors the process holds beyond `before`.
std::vector<int> new_descriptors(const std::vector<int>& before) {
  std::vector<int> added;
  for (const int fd : platform::open_descriptors()) {
    if (std::find(before.begin(), before.end(), fd) == before.end()) added.push_back(fd);
  }
  return added;
}

class OpenItems : public ::testing::Test {
 protected:
  TempDir parent_;
  FileSet files_ = FileSet::create(parent_.path(), 20);
};

TEST_F(OpenItems, TheRelativeAndTheFullPathOfEveryItemAreTheSameFile) {
  PathTable names;  // relative names and absolute ones, as a --list may mix them
  for (std::size_t i = 0; i < files_.size(); ++i) {
    names.add(i % 3 == 0 ? files_.path() + "/" + files_.names()[i]
                         : std::string(files_.names()[i]));
  }
  const auto work = make_open_workload(files_.dir_fd(), files_.path(), names);
  const ItemSpec item = work->spec();
  ASSERT_EQ(item.op, ItemSpec::Op::open_file);
  EXPECT_FALSE(item.keep_open);
  EXPECT_NE(item.open_flags & O_CLOEXEC, 0);
  EXPECT_FALSE(item.absolute);
  const PathTable full_paths = joined_paths(item.dir_path, *item.paths);
  ASSERT_EQ(full_paths.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    SCOPED_TRACE(names[i]);
    EXPECT_STREQ(item.path(i), names[i]);
    struct stat by_name {};
    struct stat by_full_path {};
    ASSERT_EQ(fstatat(item.dir_fd, item.path(i), &by_name, 0), 0);
    const char* full = full_paths[i];
    EXPECT_EQ(full[0], '/') << full;
    if (names[i][0] == '/') {
      EXPECT_STREQ(full, names[i]);  // an absolute path stays as it is
    }
    ASSERT_EQ(stat(full, &by_full_path), 0) << full;
    EXPECT_EQ(by_full_path.st_ino, by_name.st_ino) << full;
  }
}

TEST_F(OpenItems, AbsolutePathsAreOpenedFromTheRootWithoutADirectoryDescriptor) {
  const PathTable full_paths = joined_paths(files_.path() + "/", files_.names());
  EXPECT_EQ(std::string(full_paths[0]), files_.path() + "/" + files_.names()[0]);  // one '/'
  OpenSpec spec;
  spec.dir_path = files_.path();
  spec.paths = &full_paths;
  spec.path_mode = PathMode::absolute;
  const auto before = platform::open_descriptors();
  {
    const auto work = make_open_workload(spec);
    const ItemSpec item = work->spec();
    EXPECT_TRUE(item.absolute);
    EXPECT_EQ(item.dir_fd, AT_FDCWD);
    EXPECT_EQ(platform::open_descriptors(), before) << "no directory opened";
    Tally tally;
    work->run_range(0, work->ops(), tally);
    EXPECT_EQ(tally.failures, 0U);
  }
  EXPECT_EQ(platform::open_descriptors(), before);
}

TEST(PathModes, ParseAndName) {
  EXPECT_EQ(path_mode_names(), (std::vector<std::string>{"relative", "absolute"}));
  for (const PathMode mode : {PathMode::relative, PathMode::absolute}) {
    PathMode parsed = mode == PathMode::relative ? PathMode::absolute : PathMode::relative;
    EXPECT_TRUE(parse_path_mode(to_string(mode), parsed));
    EXPECT_EQ(parsed, mode);
  }
  PathMode untouched = PathMode::absolute;
  EXPECT_FALSE(parse_path_mode("Absolute", untouched));
  EXPECT_EQ(untouched, PathMode::absolute);
}

TEST_F(OpenItems, RunRangeClosesOrHoldsAsTheDescriptionSays) {
  for (const bool keep_open : {false, true}) {
    SCOPED_TRACE(keep_open ? "keep_open" : "open+close");
    OpenSpec spec;
    spec.dir_fd = files_.dir_fd();
    spec.dir_path = files_.path();
    spec.paths = &files_.names();
    spec.keep_open = keep_open;
    const auto work = make_open_workload(spec);
    EXPECT_EQ(work->spec().keep_open, keep_open);
    EXPECT_EQ(work->holds_descriptors(), keep_open);
    EXPECT_EQ(work->unit(), "files");
    EXPECT_EQ(work->name(), "open");
    const auto before = platform::open_descriptors();
    Tally tally;
    work->before_repetition();
    work->run_range(0, work->ops(), tally);
    EXPECT_EQ(tally.failures, 0U);
    const auto held = new_descriptors(before);
    ASSERT_EQ(held.size(), keep_open ? files_.size() : 0U);
    for (const int fd : held) {
      struct stat info {};
      ASSERT_EQ(fstat(fd, &info), 0);
      EXPECT_TRUE(S_ISREG(info.st_mode));
      EXPECT_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC) << fd;
    }
    work->after_repetition();
    EXPECT_EQ(platform::open_descriptors(), before);
  }
}

// keep() is how a self-issuing strategy hands over a descriptor: held only when the
// description says so, closed at once otherwise.
TEST_F(OpenItems, KeepFollowsTheDescription) {
  for (const bool keep_open : {false, true}) {
    SCOPED_TRACE(keep_open ? "keep_open" : "open+close");
    OpenSpec spec;
    spec.dir_fd = files_.dir_fd();
    spec.dir_path = files_.path();
    spec.paths = &files_.names();
    spec.keep_open = keep_open;
    const auto work = make_open_workload(spec);
    const auto before = platform::open_descriptors();
    const ItemSpec item = work->spec();
    work->keep(3, openat(item.dir_fd, item.path(3), item.open_flags));
    EXPECT_EQ(new_descriptors(before).size(), keep_open ? 1U : 0U);
    work->after_repetition();
    EXPECT_EQ(platform::open_descriptors(), before);
  }
}

TEST(SocketItems, RunRangeMakesWhatTheDescriptionSaysAndHoldsIt) {
  for (const std::string& name : socket_kind_names()) {
    SCOPED_TRACE(name);
    SocketKind kind{};
    ASSERT_TRUE(parse_socket_kind(name, kind));
    constexpr std::size_t kItems = 5;
    if (kind == SocketKind::eventfd && !platform::has_eventfd()) {  // unavailable, not failing
      EXPECT_THROW(make_socket_workload(kind, kItems), Unavailable);
      continue;
    }
    const auto work = make_socket_workload(kind, kItems);
    const ItemSpec item = work->spec();
    EXPECT_TRUE(item.keep_open);
    EXPECT_TRUE(work->holds_descriptors());
    EXPECT_EQ(work->unit(), "fds");
    EXPECT_EQ(to_string(work->kind()), name);
    EXPECT_EQ(work->descriptors_per_item(), item.descriptors());
    const auto before = platform::open_descriptors();
    Tally tally;
    work->before_repetition();
    work->run_range(0, kItems, tally);
    if (tally.failures != 0) {  // e.g. no IPv6 or no eventfd here: nothing may be held then
      work->after_repetition();
      EXPECT_EQ(platform::open_descriptors(), before);
      std::printf("[ note ] %s: %s\n", name.c_str(), errno_text(tally.first_errno).c_str());
      continue;
    }
    const auto held = new_descriptors(before);
    ASSERT_EQ(held.size(), kItems * static_cast<std::size_t>(item.descriptors()));
    for (const int fd : held) {
      EXPECT_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC) << fd;
      if (item.op != ItemSpec::Op::create_socket) continue;
      int type = 0;
      socklen_t size = sizeof type;
      ASSERT_EQ(getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size), 0);
      EXPECT_EQ(type, item.type & kNoCloexec);
#if defined(SO_DOMAIN)
      int domain = 0;
      size = sizeof domain;
      ASSERT_EQ(getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &size), 0);
      EXPECT_EQ(domain, item.domain);
#endif
    }
    work->after_repetition();
    EXPECT_EQ(platform::open_descriptors(), before);
  }
}

}  // namespace workload_test
}  // namespace fdbench
