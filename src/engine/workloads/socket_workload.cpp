// socket: create descriptors and hold them to the end of the repetition, so the descriptor
// table must grow during the timed region (the second seed experiment). Kinds other than
// sockets (eventfd, pipe) show that the stall is about the table, not about networking.
// This file only describes the item (ItemSpec); item_workload.cpp performs it.
#include <netinet/in.h>
#include <sys/socket.h>

#include "engine/workload.hpp"
#include "engine/workloads/item_workload.hpp"
#include "platform/platform.hpp"
#include "platform/unavailable.hpp"

namespace fdbench {

namespace {

using Op = ItemSpec::Op;

struct KindInfo {
  SocketKind kind;
  Op op;
  int domain;  // create_socket only
  int type;
};
constexpr KindInfo kKinds[] = {
    {SocketKind::tcp, Op::create_socket, AF_INET, SOCK_STREAM},
    {SocketKind::tcp6, Op::create_socket, AF_INET6, SOCK_STREAM},
    {SocketKind::udp, Op::create_socket, AF_INET, SOCK_DGRAM},
    {SocketKind::unix_stream, Op::create_socket, AF_UNIX, SOCK_STREAM},
    {SocketKind::eventfd, Op::create_eventfd, 0, 0},
    {SocketKind::pipe, Op::create_pipe, 0, 0},
};

const KindInfo& info(SocketKind kind) {
  for (const auto& k : kKinds) {
    if (k.kind == kind) return k;
  }
  return kKinds[0];
}

// Where the system has SOCK_CLOEXEC it goes into the type (macOS lacks it: nothing here
// ever execs there).
int cloexec_type(int type) {
#if defined(SOCK_CLOEXEC)
  return type | SOCK_CLOEXEC;
#else
  return type;
#endif
}

ItemSpec describe(const KindInfo& kind) {
  ItemSpec item;
  item.op = kind.op;
  item.domain = kind.domain;
  item.type = kind.op == Op::create_socket ? cloexec_type(kind.type) : 0;
  item.keep_open = true;  // what makes the table grow while timed
  return item;
}

}  // namespace

bool parse_socket_kind(std::string_view text, SocketKind& kind) {
  SocketKind parsed{};
  if (!parse_descriptor_kind(text, parsed) || parsed == DescriptorKind::file) return false;
  kind = parsed;
  return true;
}

std::vector<std::string> socket_kind_names() {
  std::vector<std::string> names;
  for (const auto& k : kKinds) names.emplace_back(to_string(k.kind));
  return names;
}

ItemSpec::Op item_op(SocketKind kind) {
  return info(kind).op;
}

std::string_view item_words(ItemSpec::Op op) {
  switch (op) {
    case Op::open_file:
      return "files";
    case Op::create_socket:
      return "sockets";
    case Op::create_eventfd:
      return "eventfd descriptors";
    case Op::create_pipe:
      return "pipes";
    case Op::accept_connection:
      return "accepted connections";
    case Op::other:
      break;
  }
  return "these items";
}

std::string socket_kind_unavailable_reason(SocketKind kind) {
  if (info(kind).op == Op::create_eventfd && !platform::has_eventfd()) {
    return "this system has no eventfd (Linux and FreeBSD have it): try --kind pipe";
  }
  return {};
}

std::unique_ptr<Workload> make_socket_workload(SocketKind kind, std::size_t count) {
  const KindInfo& k = info(kind);
  if (auto why = socket_kind_unavailable_reason(kind); !why.empty()) throw Unavailable(why);
  return std::make_unique<ItemWorkload>("socket", k.kind, describe(k), count);
}

}  // namespace fdbench
