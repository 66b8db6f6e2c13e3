// socket: create descriptors and hold them to the end of the repetition, so the descriptor
// table must grow during the timed region (the second seed experiment).
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "fdbench/workload.hpp"

namespace fdbench {

namespace {

struct KindName {
  SocketKind kind;
  std::string_view name;
};
constexpr KindName kKinds[] = {
    {SocketKind::tcp, "tcp"}, {SocketKind::udp, "udp"}, {SocketKind::unix_stream, "unix"}};

int create_one(SocketKind kind) noexcept {
  switch (kind) {
    case SocketKind::tcp: return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    case SocketKind::udp: return socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    case SocketKind::unix_stream: return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  }
  errno = EINVAL;
  return -1;
}

class SocketWorkload final : public Workload {
 public:
  SocketWorkload(SocketKind kind, std::size_t count) : kind_(kind), fds_(count, -1) {}
  ~SocketWorkload() override { after_repetition(); }

  [[nodiscard]] std::string_view name() const override { return "socket"; }
  [[nodiscard]] std::string kind() const override { return std::string(to_string(kind_)); }
  [[nodiscard]] std::size_t ops() const override { return fds_.size(); }

  void run_range(std::size_t begin, std::size_t end, Tally& tally) noexcept override {
    for (std::size_t i = begin; i < end; ++i) {
      fds_[i] = create_one(kind_);
      if (fds_[i] < 0) tally.fail(errno);
    }
  }

  void after_repetition() override {
    for (int& fd : fds_) {
      if (fd >= 0) close(fd);
      fd = -1;
    }
  }

 private:
  SocketKind kind_;
  std::vector<int> fds_;  // one slot per item: workers write disjoint slots
};

}  // namespace

std::string_view to_string(SocketKind kind) {
  for (const auto& k : kKinds) {
    if (k.kind == kind) return k.name;
  }
  return "unknown";
}

bool parse_socket_kind(std::string_view text, SocketKind& kind) {
  for (const auto& k : kKinds) {
    if (k.name == text) {
      kind = k.kind;
      return true;
    }
  }
  return false;
}

std::vector<std::string> socket_kind_names() {
  std::vector<std::string> names;
  for (const auto& k : kKinds) names.emplace_back(k.name);
  return names;
}

std::unique_ptr<Workload> make_socket_workload(SocketKind kind, std::size_t count) {
  return std::make_unique<SocketWorkload>(kind, count);
}

}  // namespace fdbench
