// open: open and close each file of a list; nothing is read or written.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "fdbench/workload.hpp"

namespace fdbench {

namespace {

class OpenWorkload final : public Workload {
 public:
  OpenWorkload(int dir_fd, const PathTable& paths) : dir_fd_(dir_fd), paths_(paths) {}

  [[nodiscard]] std::string_view name() const override { return "open"; }
  [[nodiscard]] std::string kind() const override { return "file"; }
  [[nodiscard]] std::size_t ops() const override { return paths_.size(); }

  void run_range(std::size_t begin, std::size_t end, Tally& tally) noexcept override {
    for (std::size_t i = begin; i < end; ++i) {
      const int fd = openat(dir_fd_, paths_[i], O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        tally.fail(errno);
        continue;
      }
      close(fd);
    }
  }

 private:
  int dir_fd_;
  const PathTable& paths_;
};

}  // namespace

std::unique_ptr<Workload> make_open_workload(int dir_fd, const PathTable& paths) {
  return std::make_unique<OpenWorkload>(dir_fd, paths);
}

}  // namespace fdbench
