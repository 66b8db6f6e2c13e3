// open: open each file of a list and close it again (or hold it, with keep_open); nothing
// is ever read or written.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include "fdbench/error.hpp"
#include "fdbench/unique_fd.hpp"
#include "fdbench/interrupt.hpp"
#include "fdbench/workload.hpp"

namespace fdbench {

namespace {

struct FlagName {
  OpenFlags flags;
  std::string_view name;
};
constexpr FlagName kFlagNames[] = {
    {OpenFlags::rdonly, "rdonly"}, {OpenFlags::path, "path"}, {OpenFlags::rdwr, "rdwr"}};

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

class OpenWorkload final : public Workload {
 public:
  explicit OpenWorkload(const OpenSpec& spec)
      : spec_(spec), flags_(open_flags(spec)), held_(spec.keep_open ? spec.paths->size() : 0, -1) {
    // The user's files are never opened for writing (the CLI refuses --flags rdwr for them).
    FDBENCH_ASSERT(!spec_.foreign || spec_.flags != OpenFlags::rdwr);
    if (spec_.dir_fd < 0) {
      own_dir_.reset(open(spec_.dir_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      if (!own_dir_) {
        throw Error(fmt::format("cannot open {}: {}", spec_.dir_path, errno_text(errno)));
      }
      spec_.dir_fd = own_dir_.get();
    }
  }
  ~OpenWorkload() override { after_repetition(); }

  [[nodiscard]] std::string_view name() const override { return "open"; }
  [[nodiscard]] std::string kind() const override { return "file"; }
  [[nodiscard]] std::size_t ops() const override { return spec_.paths->size(); }

  void run_range(std::size_t begin, std::size_t end, Tally& tally) noexcept override {
    const PathTable& paths = *spec_.paths;
    for (std::size_t i = begin; i < end; ++i) {
      if ((i & 4095) == 0 && interrupted() != 0) return;  // huge sets: stop within a second
      const int fd = openat(spec_.dir_fd, paths[i], flags_);
      if (fd < 0) {
        tally.fail(errno);
      } else if (spec_.keep_open) {
        held_[i] = fd;
      } else {
        close(fd);
      }
    }
  }

  void after_repetition() override {
    for (int& fd : held_) {
      if (fd >= 0) close(fd);
      fd = -1;
    }
  }

  [[nodiscard]] ItemSpec spec() const override {
    ItemSpec item;
    item.op = ItemSpec::Op::open_file;
    item.dir_fd = spec_.dir_fd;
    item.dir_path = spec_.dir_path;
    item.paths = spec_.paths;
    item.open_flags = flags_;
    item.keep_open = spec_.keep_open;
    return item;
  }

  void keep(std::size_t i, int fd) noexcept override {
    if (spec_.keep_open) {
      held_[i] = fd;
    } else {
      close(fd);
    }
  }

 private:
  OpenSpec spec_;
  int flags_;
  UniqueFd own_dir_;
  std::vector<int> held_;  // keep_open: one slot per item, workers write disjoint slots
};

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
  return std::make_unique<OpenWorkload>(spec);
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
