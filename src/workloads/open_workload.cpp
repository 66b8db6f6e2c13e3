// open: open and close each file of a list; nothing is read or written.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "fdbench/workload.hpp"

namespace fdbench {

namespace {

class OpenWorkload final : public Workload {
 public:
  OpenWorkload(int dir_fd, std::string dir_path, const PathTable& paths)
      : dir_fd_(dir_fd), dir_path_(std::move(dir_path)), paths_(paths) {}

  [[nodiscard]] std::string_view name() const override { return "open"; }
  [[nodiscard]] std::string kind() const override { return "file"; }
  [[nodiscard]] std::size_t ops() const override { return paths_.size(); }

  void run_range(std::size_t begin, std::size_t end, Tally& tally) noexcept override {
    for (std::size_t i = begin; i < end; ++i) {
      const int fd = openat(dir_fd_, paths_[i], kFlags);
      if (fd < 0) {
        tally.fail(errno);
        continue;
      }
      close(fd);
    }
  }

  [[nodiscard]] ItemSpec spec() const override {
    ItemSpec spec;
    spec.op = ItemSpec::Op::open_file;
    spec.dir_fd = dir_fd_;
    spec.dir_path = dir_path_;
    spec.paths = &paths_;
    spec.open_flags = kFlags;
    return spec;
  }

  void keep(std::size_t /*i*/, int fd) noexcept override { close(fd); }

 private:
  static constexpr int kFlags = O_RDONLY | O_CLOEXEC;
  int dir_fd_;
  std::string dir_path_;
  const PathTable& paths_;
};

}  // namespace

std::unique_ptr<Workload> make_open_workload(int dir_fd, std::string dir_path,
                                             const PathTable& paths) {
  return std::make_unique<OpenWorkload>(dir_fd, std::move(dir_path), paths);
}

}  // namespace fdbench
