// socket: create descriptors and hold them to the end of the repetition, so the descriptor
// table must grow during the timed region (the second seed experiment). Kinds other than
// sockets (eventfd, pipe) show that the stall is about the table, not about networking.
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <netinet/in.h>

#include "fdbench/platform.hpp"
#include "fdbench/interrupt.hpp"
#include "fdbench/workload.hpp"

namespace fdbench {

namespace {

struct KindInfo {
  SocketKind kind;
  std::string_view name;
  int domain;  // AF_UNSPEC: not a socket
  int type;
};
constexpr KindInfo kKinds[] = {
    {SocketKind::tcp, "tcp", AF_INET, SOCK_STREAM},
    {SocketKind::tcp6, "tcp6", AF_INET6, SOCK_STREAM},
    {SocketKind::udp, "udp", AF_INET, SOCK_DGRAM},
    {SocketKind::unix_stream, "unix", AF_UNIX, SOCK_STREAM},
    {SocketKind::eventfd, "eventfd", AF_UNSPEC, 0},
    {SocketKind::pipe, "pipe", AF_UNSPEC, 0},
};

const KindInfo& info(SocketKind kind) {
  for (const auto& k : kKinds) {
    if (k.kind == kind) return k;
  }
  return kKinds[0];
}

int socket_cloexec(int domain, int type) noexcept {
#if defined(SOCK_CLOEXEC)
  return socket(domain, type | SOCK_CLOEXEC, 0);
#else
  return socket(domain, type, 0);  // macOS: nothing here ever execs
#endif
}

class SocketWorkload final : public Workload {
 public:
  SocketWorkload(SocketKind kind, std::size_t count)
      : info_(info(kind)), fds_(count * (kind == SocketKind::pipe ? 2 : 1), -1) {}
  ~SocketWorkload() override { after_repetition(); }

  [[nodiscard]] std::string_view name() const override { return "socket"; }
  [[nodiscard]] std::string kind() const override { return std::string(info_.name); }
  [[nodiscard]] std::size_t ops() const override {
    return fds_.size() / static_cast<std::size_t>(descriptors_per_item());
  }
  [[nodiscard]] int descriptors_per_item() const override {
    return info_.kind == SocketKind::pipe ? 2 : 1;
  }

  void run_range(std::size_t begin, std::size_t end, Tally& tally) noexcept override {
    for (std::size_t i = begin; i < end; ++i) {
      if ((i & 4095) == 0 && interrupted() != 0) return;  // huge sets: stop within a second
      if (!create(i)) tally.fail(errno);
    }
  }

  [[nodiscard]] ItemSpec spec() const override {
    ItemSpec spec;
    if (info_.domain != AF_UNSPEC) {
      spec.op = ItemSpec::Op::create_socket;
      spec.domain = info_.domain;
      spec.type = info_.type;
    }
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
  bool create(std::size_t i) noexcept {
    switch (info_.kind) {
      case SocketKind::eventfd: fds_[i] = platform::create_eventfd(); return fds_[i] >= 0;
      case SocketKind::pipe: return platform::create_pipe(&fds_[2 * i]) == 0;
      default: fds_[i] = socket_cloexec(info_.domain, info_.type); return fds_[i] >= 0;
    }
  }

  const KindInfo& info_;
  std::vector<int> fds_;  // one slot per descriptor: workers write disjoint slots
};

}  // namespace

std::string_view to_string(SocketKind kind) { return info(kind).name; }

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
