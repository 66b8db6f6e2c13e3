// --harness published: the first seed's open, as its open.cpp does it. Each item builds its
// name, std::string("tmp/") + std::to_string(N) + ".txt" there, and opens it with a
// std::ifstream, relative to the current directory (the kernel walks two components), counts
// it in one std::atomic the threads share, and closes it; nothing is read. Here the set's own
// name stands in for "tmp", and the current directory is the set's parent during a repetition.
// A set's name is longer than "tmp", so the name no longer fits std::string's inline buffer:
// one allocation per file the seed's program does not make (tens of nanoseconds, against
// microseconds for the open).
//
// std::ifstream opens with a plain open(O_RDONLY): no O_NOFOLLOW, O_NONBLOCK or O_CLOEXEC.
// The CLI gives this workload only fdbench's own sets (a private directory, or a kept set
// checked to hold regular files), never --tree or --list; and nothing forks while it runs.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "engine/workload.hpp"
#include "fdbench/error.hpp"
#include "fdbench/unique_fd.hpp"
#include "platform/interrupt.hpp"

namespace fdbench {

namespace {

UniqueFd open_directory_to_return_to(const std::string& path, std::string_view what) {
  UniqueFd dir(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) {
    throw Error(fmt::format("--harness published: cannot open {} {}: {} (run fdbench from a "
                            "readable directory, or use --harness minimal)",
                            what, path, errno_text(errno)));
  }
  return dir;
}

// "/tmp/fdbench-x1y2" -> "/tmp" and "fdbench-x1y2/".
std::pair<std::string, std::string> parent_and_prefix(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const auto slash = dir.find_last_of('/');
  if (slash == std::string::npos) return {".", dir + "/"};
  return {slash == 0 ? "/" : dir.substr(0, slash), dir.substr(slash + 1) + "/"};
}

class PublishedOpenWorkload final : public Workload {
 public:
  PublishedOpenWorkload(const std::string& dir_path, const PathTable& names)
      : dir_path_(dir_path), names_(names) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (std::to_string(i + 1) + ".txt" != names[i]) {
        throw Error(fmt::format(
            "--harness published opens the first seed's names 1.txt .. N.txt of a flat set, "
            "and file {} here is {}: use a set fdbench makes (no --tree, --list or --layout), "
            "or --harness minimal",
            i + 1, names[i]));
      }
    }
    auto [parent, prefix] = parent_and_prefix(dir_path);
    prefix_ = std::move(prefix);
    parent_ = open_directory_to_return_to(parent, "the set's parent directory");
    home_ = open_directory_to_return_to(".", "the current directory");
  }
  PublishedOpenWorkload(const PublishedOpenWorkload&) = delete;
  PublishedOpenWorkload& operator=(const PublishedOpenWorkload&) = delete;
  ~PublishedOpenWorkload() override {
    if (away_) (void)fchdir(home_.get());
  }

  [[nodiscard]] std::string_view name() const override { return "open"; }
  [[nodiscard]] DescriptorKind kind() const override { return DescriptorKind::file; }
  [[nodiscard]] std::size_t ops() const override { return names_.size(); }
  [[nodiscard]] std::string_view unit() const override { return "files"; }
  [[nodiscard]] SeedThreads seed_threads() const override { return SeedThreads::created; }

  // The whole process's current directory, off the clock. The only other threads of the
  // process then wait for this repetition, or write to descriptors they hold.
  void before_repetition() override {
    opened_.store(0, std::memory_order_relaxed);
    if (fchdir(parent_.get()) != 0) {
      throw Error(fmt::format("--harness published: cannot change to the set's parent directory: {}",
                              errno_text(errno)));
    }
    away_ = true;
  }

  void run_range(std::size_t begin, std::size_t end, Tally& tally) noexcept override {
    for (std::size_t i = begin; i < end; ++i) {
      if ((i & 4095) == 0 && interrupted() != 0) return;
      errno = 0;
      std::string filename = prefix_ + std::to_string(i + 1) + ".txt";
      std::ifstream file(filename);
      if (file.is_open()) {
        opened_.fetch_add(1, std::memory_order_relaxed);
        file.close();
      } else {
        tally.fail(errno != 0 ? errno : EIO);
      }
    }
  }

  void after_repetition() override {
    if (!away_) return;
    if (fchdir(home_.get()) != 0) {
      throw Error(fmt::format("--harness published: cannot return to the directory fdbench was "
                              "started in: {}",
                              errno_text(errno)));
    }
    away_ = false;
  }

  // The same files as the minimal open: what the strategies that issue their own calls would
  // read. None of them has a published harness, so none runs this workload.
  [[nodiscard]] ItemSpec spec() const override {
    ItemSpec item;
    item.op = ItemSpec::Op::open_file;
    item.dir_path = dir_path_;
    item.paths = &names_;
    item.open_flags = O_RDONLY;
    return item;
  }
  void keep(std::size_t /*i*/, int fd) noexcept override { close(fd); }

 private:
  std::string dir_path_;
  const PathTable& names_;
  std::string prefix_;  // "<set>/": the seed's "tmp/"
  UniqueFd parent_;
  UniqueFd home_;
  bool away_ = false;  // the current directory is the set's parent
  std::atomic<int> opened_{0};  // the seed's success_count
};

}  // namespace

std::unique_ptr<Workload> make_published_open_workload(const std::string& dir_path,
                                                       const PathTable& names) {
  return std::make_unique<PublishedOpenWorkload>(dir_path, names);
}

}  // namespace fdbench
