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

struct SocketArgs {
  int domain;
  int type;
};

SocketArgs socket_args(SocketKind kind) noexcept {
  switch (kind) {
    case SocketKind::tcp: return {AF_INET, SOCK_STREAM | SOCK_CLOEXEC};
    case SocketKind::udp: return {AF_INET, SOCK_DGRAM | SOCK_CLOEXEC};
    case SocketKind::unix_stream: return {AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC};
  }
  return {AF_UNSPEC, 0};
}

class SocketWorkload final : public Workload {
 public:
  SocketWorkload(SocketKind kind, std::size_t count)
      : kind_(kind), args_(socket_args(kind)), fds_(count, -1) {}
  ~SocketWorkload() override { after_repetition(); }

  [[nodiscard]] std::string_view name() const override { return "socket"; }
  [[nodiscard]] std::string kind() const override { return std::string(to_string(kind_)); }
  [[nodiscard]] std::size_t ops() const override { return fds_.size(); }

  void run_range(std::size_t begin, std::size_t end, Tally& tally) noexcept override {
    for (std::size_t i = begin; i < end; ++i) {
      fds_[i] = socket(args_.domain, args_.type, 0);
      if (fds_[i] < 0) tally.fail(errno);
    }
  }

  [[nodiscard]] ItemSpec spec() const override {
    ItemSpec spec;
    spec.op = ItemSpec::Op::create_socket;
    spec.domain = args_.domain;
    spec.type = args_.type;
    return spec;
  }

  void keep(std::size_t i, int fd) noexcept override { fds_[i] = fd; }

  void after_repetition() override {
    for (int& fd : fds_) {
      if (fd >= 0) close(fd);
      fd = -1;
    }
  }

 private:
  SocketKind kind_;
  SocketArgs args_;
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
