// accept: a server that receives its first burst. A listening socket on the loopback (or a
// Unix-domain socket in a private directory), and a client process that connects the whole
// burst before the clock starts, so the timed region holds only the server's accepts; each
// accepted connection is held to the end of the repetition, so the server's descriptor table
// grows while timed, as a fresh server's does under its first burst. The accepts themselves
// are ItemWorkload's loop (ItemSpec::Op::accept_connection), so every strategy that runs a
// range of items runs them, timed per call with --latency.
//
// The client is a process of its own, forked while the workload is made (before any worker
// thread exists), so its descriptors are never in the server's table. It waits for a word:
// connect (untimed, before_repetition()) or close (after_repetition()); it dies with its
// parent, and the workload's destructor ends and reaps it. Only the process that made the
// workload talks to it: a `process` worker runs its fork-time copy's before_repetition() and
// after_repetition() too, and only accepts (and closes what it accepted).
#include <fmt/format.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>  // timeval, for SO_RCVTIMEO: <sys/socket.h> need not declare it (macOS, BSDs)
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "engine/child_process.hpp"
#include "engine/workload.hpp"
#include "engine/workloads/item_workload.hpp"
#include "fdbench/error.hpp"
#include "fdbench/unique_fd.hpp"
#include "platform/platform.hpp"
#include "platform/unavailable.hpp"

namespace fdbench {

namespace {

// How long the connected burst may take to reach the listener's queue (TCP's last ACK of
// each handshake is the listener's to process) before the clock starts anyway.
constexpr std::int64_t kQueueWaitNs = 5'000'000'000;
// A blocking accept that waits this long finds nothing to accept (EAGAIN, counted as a
// failure): no burst is ever short, but a worker must never wait forever for one.
constexpr int kAcceptTimeoutS = 10;

// What the client is told, and what it answers.
struct ClientOrder {
  enum class Do : std::int32_t { connect, close } what = Do::connect;
};
struct ClientAnswer {
  std::uint64_t connected = 0;
  std::int32_t err = 0;  // the first connect's errno, or 0
};

// Where the listener is: an address the client connects to.
struct Address {
  sockaddr_storage storage{};
  socklen_t size = 0;
  [[nodiscard]] const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
};

int cloexec(int type) {
#if defined(SOCK_CLOEXEC)
  return type | SOCK_CLOEXEC;
#else
  return type;
#endif
}

// A private directory for the Unix-domain socket, removed with what it holds.
class SocketDirectory {
 public:
  SocketDirectory() = default;
  SocketDirectory(const SocketDirectory&) = delete;
  SocketDirectory& operator=(const SocketDirectory&) = delete;
  ~SocketDirectory() { remove(); }
  // Made, marked and locked: a run killed while it holds it leaves it for `fdbench clean`.
  std::string make() {
    std::string pattern = platform::default_dir() + "/" + kAcceptDirPrefix + "XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      throw Error(fmt::format("cannot make a directory for the Unix socket under {}: {}",
                              platform::default_dir(), errno_text(errno)));
    }
    dir_ = pattern;
    socket_ = dir_ + "/" + kAcceptSocketName;
    lock_.reset(open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    // Best effort, as a file set's: a filesystem without locks still has the pid in the marker.
    if (lock_) (void)flock(lock_.get(), LOCK_EX | LOCK_NB);
    const std::string marker = fmt::format(
        "{}pid {}\nfdbench made this directory for the Unix socket `accept --kind unix` listens "
        "on.\nIf no fdbench is running, `fdbench clean` removes it.\n",
        kAcceptMarkerHead, getpid());
    const UniqueFd fd(lock_ ? openat(lock_.get(), kAcceptMarkerName,
                                     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)
                            : -1);
    if (!fd || write(fd.get(), marker.data(), marker.size()) !=
                   static_cast<ssize_t>(marker.size())) {
      const int err = errno;
      remove();
      throw Error(fmt::format("cannot mark the directory for the Unix socket under {}: {}",
                              platform::default_dir(), errno_text(err)));
    }
    return socket_;
  }
  void remove() noexcept {
    if (dir_.empty()) return;
    unlink(socket_.c_str());
    if (lock_) unlinkat(lock_.get(), kAcceptMarkerName, 0);
    rmdir(dir_.c_str());
    lock_.reset();
    dir_.clear();
  }

 private:
  std::string dir_;
  std::string socket_;
  UniqueFd lock_;  // the directory, locked while this run may use it
};

Address loopback_address(AcceptKind kind, SocketDirectory& dir) {
  Address a;
  if (kind == AcceptKind::unix_stream) {
    const std::string path = dir.make();
    auto* un = reinterpret_cast<sockaddr_un*>(&a.storage);
    if (path.size() >= sizeof un->sun_path) {
      throw Unavailable(fmt::format("the Unix socket's path {} is longer than {} bytes: set "
                                    "TMPDIR to a shorter directory",
                                    path, sizeof un->sun_path - 1));
    }
    un->sun_family = AF_UNIX;
    std::memcpy(un->sun_path, path.c_str(), path.size() + 1);
    a.size = sizeof(sockaddr_un);
  } else if (kind == AcceptKind::tcp6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&a.storage);
    in6->sin6_family = AF_INET6;
    in6->sin6_addr = in6addr_loopback;
    a.size = sizeof(sockaddr_in6);
  } else {
    auto* in = reinterpret_cast<sockaddr_in*>(&a.storage);
    in->sin_family = AF_INET;
    in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.size = sizeof(sockaddr_in);
  }
  return a;  // port 0: the kernel picks one at bind()
}

// A listener of `kind` with room for `backlog` queued connections; `address` becomes where it
// listens (the port the kernel chose). `shared`: the port may be shared (SO_REUSEPORT).
UniqueFd listen_on(AcceptKind kind, Address& address, int backlog, bool shared) {
  const int domain = address.get()->sa_family;
  UniqueFd fd(socket(domain, cloexec(SOCK_STREAM), 0));
  if (!fd) {
    if (kind == AcceptKind::tcp6 && (errno == EAFNOSUPPORT || errno == EADDRNOTAVAIL)) {
      throw Unavailable("this system has no IPv6 loopback (::1): try --kind tcp");
    }
    throw Error("cannot create the listening socket: " + errno_text(errno));
  }
  if (shared && platform::allow_port_sharing(fd.get()) != 0) {
    throw Unavailable("cannot share a port between listeners (SO_REUSEPORT): " +
                      errno_text(errno));
  }
  if (bind(fd.get(), address.get(), address.size) != 0) {
    if (kind == AcceptKind::tcp6 && errno == EADDRNOTAVAIL) {
      throw Unavailable("this system has no IPv6 loopback (::1): try --kind tcp");
    }
    throw Error("cannot bind the listening socket: " + errno_text(errno));
  }
  if (listen(fd.get(), backlog) != 0) throw Error("cannot listen: " + errno_text(errno));
  timeval limit{kAcceptTimeoutS, 0};
  setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  if (kind != AcceptKind::unix_stream) {
    address.size = sizeof address.storage;
    getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address.storage), &address.size);
  }
  return fd;
}

// The client process's life: connect the burst when told, hold it, close it when told.
void client_loop(Channel& channel, const Address& address, std::size_t connections) {
  std::vector<int> held;
  held.reserve(connections);
  ClientOrder order;
  while (channel.receive(order)) {
    ClientAnswer answer;
    if (order.what == ClientOrder::Do::connect) {
      for (std::size_t i = 0; i < connections; ++i) {
        const int fd = socket(address.get()->sa_family, cloexec(SOCK_STREAM), 0);
        if (fd < 0 || connect(fd, address.get(), address.size) != 0) {
          answer.err = errno;
          if (fd >= 0) close(fd);
          break;
        }
        held.push_back(fd);
      }
      answer.connected = held.size();
    } else {
      for (const int fd : held) close(fd);
      held.clear();
    }
    if (!channel.send(answer)) return;
  }
}

// Why `listeners` listeners of `kind` cannot share a port here; "" when they can.
std::string sharing_refusal(AcceptKind kind, int listeners) {
  if (listeners == 1) return {};
  if (!platform::has_reuseport_balancing()) {
    return "SO_REUSEPORT spreads one port's connections over its listeners on Linux only";
  }
  if (kind == AcceptKind::unix_stream) {
    return "SO_REUSEPORT spreads TCP connections over listeners, not Unix-domain ones: try "
           "--kind tcp";
  }
  return {};
}

class AcceptWorkload final : public Workload {
 public:
  AcceptWorkload(AcceptKind kind, std::size_t connections, int listeners)
      : kind_(kind), connections_(connections), address_(loopback_address(kind, dir_)) {
    if (auto why = accept_backlog_refusal(connections); !why.empty()) throw Error(why);
    if (auto why = sharing_refusal(kind, listeners); !why.empty()) throw Unavailable(why);
    for (int l = 0; l < listeners; ++l) {
      listeners_.push_back(
          listen_on(kind, address_, static_cast<int>(connections), listeners > 1));
      listener_fds_.push_back(listeners_.back().get());
    }
    ItemSpec item;
    item.op = ItemSpec::Op::accept_connection;
    item.listen_fd = listener_fds_[0];
    item.listen_fds = listener_fds_.data();
    item.listeners = listeners;
    item.keep_open = true;
    items_.emplace(name(), kind, item, connections);
    client_.emplace(
        [this](Channel& channel) {
          listeners_.clear();  // the client only connects
          client_loop(channel, address_, connections_);
        },
        ChildOptions{});
  }
  AcceptWorkload(const AcceptWorkload&) = delete;
  AcceptWorkload& operator=(const AcceptWorkload&) = delete;
  ~AcceptWorkload() override {
    items_.reset();  // the server's ends first, then the client's
    if (client_) client_->wait();
  }

  [[nodiscard]] std::string_view name() const override { return "accept"; }
  [[nodiscard]] DescriptorKind kind() const override { return kind_; }
  [[nodiscard]] std::size_t ops() const override { return connections_; }
  [[nodiscard]] int fixed_descriptors() const override {
    return accept_fixed_descriptors(static_cast<int>(listeners_.size()), kind_);
  }
  [[nodiscard]] std::string_view unit() const override { return items_->unit(); }
  [[nodiscard]] bool holds_descriptors() const override { return true; }
  [[nodiscard]] SeedThreads seed_threads() const override { return SeedThreads::caller_and_created; }

  void before_repetition() override {
    if (getpid() != owner_) return;  // a `process` worker: the burst is queued already
    ask(ClientOrder::Do::connect);
    wait_for_queue();
  }
  void prepare_range(std::size_t begin, std::size_t end) noexcept override {
    items_->prepare_range(begin, end);
  }
  void run_range(std::size_t begin, std::size_t end, Tally& tally) noexcept override {
    items_->run_range(begin, end, tally);
  }
  void after_repetition() override {
    items_->after_repetition();
    if (getpid() == owner_) ask(ClientOrder::Do::close);
  }
  void set_trace(CallTrace* trace) noexcept override { items_->set_trace(trace); }
  [[nodiscard]] bool traces_calls() const override { return true; }
  [[nodiscard]] CallTrace* trace() const noexcept override { return items_->trace(); }
  [[nodiscard]] ItemSpec spec() const override { return items_->spec(); }
  void keep(std::size_t i, int fd) noexcept override { items_->keep(i, fd); }

 private:
  void ask(ClientOrder::Do what) {
    ClientAnswer answer;
    if (!client_->send(ClientOrder{what}) || !client_->receive(answer)) {
      client_->throw_died("the accept workload's client process");
    }
    if (what == ClientOrder::Do::connect && answer.connected != connections_) {
      throw Error(fmt::format("the client connected {} of {} connections: {}", answer.connected,
                              connections_, errno_text(answer.err)));
    }
  }
  // Every connect() returned; TCP's listener may still be taking the last handshakes' ACKs.
  void wait_for_queue() const {
    const std::int64_t until = platform::now_ns() + kQueueWaitNs;
    while (platform::now_ns() < until) {
      std::size_t queued = 0;
      for (const int fd : listener_fds_) {
        const std::optional<int> on_it = platform::accept_queue_length(fd);
        if (!on_it) return;  // the system does not say: connect() returning must do
        queued += static_cast<std::size_t>(*on_it);
      }
      if (queued >= connections_) return;
      const timespec pause{0, 100'000};
      nanosleep(&pause, nullptr);
    }
  }

  AcceptKind kind_;
  std::size_t connections_;
  pid_t owner_ = getpid();  // the process that made it, and its client
  SocketDirectory dir_;
  Address address_;
  std::vector<UniqueFd> listeners_;
  std::vector<int> listener_fds_;
  std::optional<ItemWorkload> items_;
  std::optional<ChildProcess> client_;
};

}  // namespace

bool parse_accept_kind(std::string_view text, AcceptKind& kind) {
  for (const auto& name : accept_kind_names()) {
    if (text == name) return parse_descriptor_kind(text, kind);
  }
  return false;
}

std::vector<std::string> accept_kind_names() {
  std::vector<std::string> names;
  for (const auto k : {AcceptKind::tcp, AcceptKind::tcp6, AcceptKind::unix_stream}) {
    names.emplace_back(to_string(k));
  }
  return names;
}

std::string accept_backlog_refusal(std::size_t connections) {
  const std::optional<int> most = platform::somaxconn();
  if (!most || connections <= static_cast<std::size_t>(*most)) return {};
  return fmt::format(
      "a burst of {} connections needs a listen backlog of {}, but the system caps it at {} "
      "(net.core.somaxconn): lower --connections or raise it (sysctl -w "
      "net.core.somaxconn={})",
      connections, connections, *most, connections);
}

std::unique_ptr<Workload> make_accept_workload(AcceptKind kind, std::size_t connections,
                                               int listeners) {
  return std::make_unique<AcceptWorkload>(kind, connections, listeners);
}

}  // namespace fdbench
