// The io_uring strategies with real descriptors: every file is opened exactly once, nothing
// leaks, and direct descriptors leave the process's descriptor table alone. Skipped where
// io_uring cannot run (no liburing at build time, io_uring_disabled, seccomp). The tests of
// the ring set-up itself, which need liburing, are in tests/uring/.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "engine/measure.hpp"
#include "engine/strategy.hpp"
#include "engine/workload.hpp"
#include "fdbench/error.hpp"
#include "fdbench/unique_fd.hpp"
#include "inputs/file_set.hpp"
#include "platform/platform.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"
#include "support/warnings.hpp"

namespace fdbench {
namespace uring_test {

using testing::TempDir;

#define SKIP_UNAVAILABLE_STRATEGY(info)                                           \
  do {                                                                      \
    if (const auto reason = (info).unavailable_reason(); !reason.empty()) { \
      FDBENCH_SKIP_WITHOUT(testing::strategy_feature((info).name))          \
          << (info).name << ": " << reason;                                 \
    }                                                                       \
  } while (0)

const StrategyInfo& strategy_named(std::string_view name) {
  const StrategyInfo* info = find_strategy(name);
  FDBENCH_ASSERT(info != nullptr);
  return *info;
}

// Enough descriptors for 512 held sockets plus what the test binary holds.
void ensure_nofile(std::uint64_t needed) {
  if (platform::nofile_limit().soft < needed) {
    ASSERT_EQ(platform::raise_nofile_soft(needed), 0) << "needs " << needed << " descriptors";
  }
}

// Every file name of `set`, with every `every`-th entry replaced by a name that does not exist.
PathTable with_missing_names(const FileSet& set, std::size_t every, std::size_t& missing) {
  PathTable table;
  missing = 0;
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (i % every == 0) {
      table.add("missing-" + std::to_string(i));
      ++missing;
    } else {
      table.add(set.names()[i]);
    }
  }
  return table;
}

// An open workload that keeps every descriptor a strategy hands over, and records which item
// each came from, so a test can check that item i opened path i, once.
class RecordingOpenWorkload final : public Workload {
 public:
  RecordingOpenWorkload(int dir_fd, const PathTable& paths)
      : dir_fd_(dir_fd), paths_(paths), fds_(paths.size()) {}
  ~RecordingOpenWorkload() override { after_repetition(); }

  [[nodiscard]] std::string_view name() const override { return "open"; }
  [[nodiscard]] std::string kind() const override { return "file"; }
  [[nodiscard]] std::size_t ops() const override { return paths_.size(); }
  void run_range(std::size_t /*begin*/, std::size_t /*end*/, Tally& /*tally*/) noexcept override {
    FDBENCH_ASSERT(!"io_uring strategies issue the calls themselves");
  }
  [[nodiscard]] ItemSpec spec() const override {
    ItemSpec spec;
    spec.op = ItemSpec::Op::open_file;
    spec.dir_fd = dir_fd_;
    spec.paths = &paths_;
    spec.open_flags = O_RDONLY | O_CLOEXEC;
    spec.keep_open = true;
    return spec;
  }
  void keep(std::size_t i, int fd) noexcept override { fds_[i].push_back(fd); }
  void after_repetition() override {
    for (auto& fds : fds_) {
      for (const int fd : fds) close(fd);
      fds.clear();
    }
  }

  [[nodiscard]] std::size_t kept(std::size_t i) const { return fds_[i].size(); }

  // "" when item i holds exactly one descriptor of paths[i] (none if it does not exist).
  [[nodiscard]] std::string check(std::size_t i) const {
    struct stat want {};
    const bool exists = fstatat(dir_fd_, paths_[i], &want, 0) == 0;
    if (fds_[i].size() != (exists ? 1U : 0U)) {
      return "item " + std::to_string(i) + " kept " + std::to_string(fds_[i].size()) + " fds";
    }
    struct stat got {};
    if (exists && (fstat(fds_[i][0], &got) != 0 || got.st_ino != want.st_ino)) {
      return "item " + std::to_string(i) + " holds another file than " + paths_[i];
    }
    return {};
  }

 private:
  int dir_fd_;
  const PathTable& paths_;
  std::vector<std::vector<int>> fds_;
};

class UringOpen : public ::testing::TestWithParam<const char*> {
 protected:
  static constexpr std::size_t kFiles = 300;
  const StrategyInfo& info_ = strategy_named(GetParam());
  TempDir parent_;
  FileSet files_ = FileSet::create(parent_.path(), kFiles);
};

TEST_P(UringOpen, OpensEveryFileWithoutFailuresOrLeaks) {
  SKIP_UNAVAILABLE_STRATEGY(info_);
  const auto work = make_open_workload(files_.dir_fd(), files_.path(), files_.names());
  const auto held_before = platform::open_descriptors();
  for (const int threads : {1, 2}) {
    for (const int batch : {1, 7, 64}) {
      SCOPED_TRACE(std::string(info_.name) + " threads=" + std::to_string(threads) +
                   " batch=" + std::to_string(batch));
      const Result r = measure(*work, info_, {threads, batch}, 3, 1);
      EXPECT_EQ(r.error, "");
      EXPECT_EQ(r.failures, 0U) << r.first_failure;
      EXPECT_EQ(r.times_ns.size(), 3U);
      EXPECT_EQ(r.batch, batch);
      EXPECT_TRUE(testing::warnings_besides_noise(r.warnings).empty()) << r.warnings.front();
      EXPECT_EQ(platform::open_descriptors(), held_before);
    }
  }
}

TEST_P(UringOpen, TriesEveryNameExactlyOnce) {
  SKIP_UNAVAILABLE_STRATEGY(info_);
  std::size_t missing = 0;
  const PathTable names = with_missing_names(files_, 7, missing);
  const auto work = make_open_workload(files_.dir_fd(), files_.path(), names);
  const auto held_before = platform::open_descriptors();
  for (const int threads : {1, 2}) {
    for (const int batch : {1, 7, 64}) {
      SCOPED_TRACE(std::string(info_.name) + " threads=" + std::to_string(threads) +
                   " batch=" + std::to_string(batch));
      // One repetition, no warm-up: the failures are exactly the missing names, once each.
      const Result r = measure(*work, info_, {threads, batch}, 1, 0);
      EXPECT_EQ(r.error, "");
      EXPECT_EQ(r.failures, missing);
      EXPECT_EQ(r.failures_by_errno.size(), 1U);
      EXPECT_EQ(r.first_failure, errno_text(ENOENT));
      EXPECT_EQ(platform::open_descriptors(), held_before);
    }
  }
}

TEST_P(UringOpen, HeldFilesAreReleasedAfterTheRepetition) {
  SKIP_UNAVAILABLE_STRATEGY(info_);
  OpenSpec spec;
  spec.dir_fd = files_.dir_fd();
  spec.dir_path = files_.path();
  spec.paths = &files_.names();
  spec.keep_open = true;
  const auto work = make_open_workload(spec);
  const auto held_before = platform::open_descriptors();
  const Result r = measure(*work, info_, {2, 16}, 2, 1);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.failures, 0U) << r.first_failure;
  EXPECT_EQ(platform::open_descriptors(), held_before);
}

TEST_P(UringOpen, RefusesDescriptorKindsItCannotCreate) {
  SKIP_UNAVAILABLE_STRATEGY(info_);
  const auto work = make_socket_workload(SocketKind::eventfd, 8);
  const Result r = measure(*work, info_, {1, 4}, 1, 0);
  EXPECT_EQ(r.status, Status::unavailable);
  EXPECT_EQ(r.error, info_.cannot_make(ItemSpec::Op::create_eventfd));
  EXPECT_EQ(r.error.rfind(std::string(info_.name) + " cannot create eventfd descriptors", 0), 0U)
      << r.error;
  EXPECT_TRUE(r.times_ns.empty());
}

TEST_P(UringOpen, HandsEachItemItsOwnFile) {
  SKIP_UNAVAILABLE_STRATEGY(info_);
  std::size_t missing = 0;
  const PathTable names = with_missing_names(files_, 9, missing);
  RecordingOpenWorkload work(files_.dir_fd(), names);
  const bool direct = std::string_view(info_.name) == "uring-direct";
  for (const int batch : {1, 7, 64}) {
    SCOPED_TRACE("batch=" + std::to_string(batch));
    const auto strategy = info_.make({2, batch});
    work.before_repetition();
    const Repetition rep = strategy->run(work);
    EXPECT_EQ(rep.tally.failures, missing);
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (direct) {
        EXPECT_EQ(work.kept(i), 0U) << i;  // direct descriptors live in the ring, never here
      } else {
        EXPECT_EQ(work.check(i), "");
      }
    }
    work.after_repetition();
  }
}

TEST_P(UringOpen, SocketsGrowTheDescriptorTableOnlyWithNormalDescriptors) {
  SKIP_UNAVAILABLE_STRATEGY(info_);
  ensure_nofile(600);
  const Result r = measure_in_fresh_child(socket_workload_recipe(SocketKind::tcp, 512), info_,
                                          {2, 64}, Pregrow{}, 2, 0);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.failures, 0U) << r.first_failure;
  ASSERT_TRUE(r.fdsize_before.has_value());
  ASSERT_TRUE(r.fdsize_after.has_value());
  EXPECT_EQ(*r.fdsize_before, platform::kSmallestFdTable);
  if (std::string_view(info_.name) == "uring-direct") {
    EXPECT_EQ(*r.fdsize_after, *r.fdsize_before);
  } else {
    EXPECT_GE(*r.fdsize_after, 512);
  }
}

TEST_P(UringOpen, ResultsRecordTheRingFeaturesTheyUsed) {
  SKIP_UNAVAILABLE_STRATEGY(info_);
  const auto work = make_open_workload(files_.dir_fd(), files_.path(), files_.names());
  StrategyConfig plain{1, 8};
  plain.uring.setup_flags = false;
  plain.uring.register_ring_fd = false;
  const Result off = measure(*work, info_, plain, 1, 0);
  EXPECT_EQ(off.error, "");
  EXPECT_EQ(off.parameters.at("ring_setup"), "none");
  EXPECT_EQ(off.parameters.at("ring_fd"), "not registered");

  const Result tuned = measure(*work, info_, {2, 8}, 1, 0);
  EXPECT_EQ(tuned.error, "");
  EXPECT_EQ(tuned.failures, 0U) << tuned.first_failure;
  ASSERT_EQ(tuned.parameters.count("ring_setup"), 1U);
  const bool direct = std::string_view(info_.name) == "uring-direct";
  EXPECT_EQ(tuned.parameters.count("close"), direct ? 1U : 0U);

  // A fresh child's result says the same; held descriptors are never closed, so no close mode.
  const Result child = measure_in_fresh_child(socket_workload_recipe(SocketKind::tcp, 16), info_,
                                              {2, 8}, Pregrow{}, 1, 0);
  EXPECT_EQ(child.error, "");
  EXPECT_EQ(child.failures, 0U) << child.first_failure;
  EXPECT_EQ(child.parameters.at("ring_setup"), tuned.parameters.at("ring_setup"));
  EXPECT_EQ(child.parameters.at("ring_fd"), tuned.parameters.at("ring_fd"));
  EXPECT_EQ(child.parameters.count("close"), 0U);
}

// Test names carry "uring" so that ctest -R uring selects them all.
INSTANTIATE_TEST_SUITE_P(uring, UringOpen, ::testing::Values("uring", "uring-direct"),
                         [](const auto& param) {
                           return std::string_view(param.param) == "uring" ? std::string("uring")
                                                                           : std::string("direct");
                         });

// A unity build compiles the next file in the same translation unit.
#undef SKIP_UNAVAILABLE_STRATEGY

}  // namespace uring_test
}  // namespace fdbench
