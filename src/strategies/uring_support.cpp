#include "strategies/uring_support.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "fdbench/error.hpp"
#include "fdbench/platform.hpp"

namespace fdbench::uring {

namespace {

// The usual reasons a ring cannot be set up, and what to do about each.
std::string explain(int err) {
  const std::string text = errno_text(err);
  switch (err) {
    case EPERM:
      return text +
             " (blocked by a seccomp filter or policy; Docker's default profile blocks "
             "io_uring: run with --security-opt seccomp=unconfined)";
    case ENOSYS:
      return text + " (this kernel has no io_uring: needs Linux 5.1+ with CONFIG_IO_URING)";
    case ENOMEM:
      return text + " (locked-memory limit too low: raise it with ulimit -l)";
    case EMFILE:
    case ENFILE:
      return text + " (out of descriptors: raise ulimit -n)";
    default:
      return text;
  }
}

bool in_group(int gid) {
  if (gid < 0) return false;
  if (getegid() == static_cast<gid_t>(gid)) return true;
  const int n = getgroups(0, nullptr);
  if (n <= 0) return false;
  std::vector<gid_t> groups(static_cast<std::size_t>(n));
  const int got = getgroups(n, groups.data());
  return got > 0 && std::find(groups.begin(), groups.begin() + got, static_cast<gid_t>(gid)) !=
                        groups.begin() + got;
}

// kernel.io_uring_disabled (Linux 6.6): 0 all, 1 root and kernel.io_uring_group, 2 nobody.
std::string sysctl_reason() {
  const auto disabled = platform::read_int_file("/proc/sys/kernel/io_uring_disabled");
  if (!disabled || *disabled == 0) return {};
  if (*disabled >= 2) {
    return "io_uring unavailable: kernel.io_uring_disabled is 2 (disabled for everyone; "
           "sysctl kernel.io_uring_disabled=0 re-enables it)";
  }
  const int gid = platform::read_int_file("/proc/sys/kernel/io_uring_group").value_or(-1);
  if (geteuid() == 0 || in_group(gid)) return {};
  return "io_uring unavailable: kernel.io_uring_disabled is 1 (only root and the group in "
         "kernel.io_uring_group may use it: run as root or join that group)";
}

bool can_register_sparse_files(io_uring* ring) {
  if (io_uring_register_files_sparse(ring, 1) != 0) return false;
  io_uring_unregister_files(ring);
  return true;
}

Support probe() {
  Support s;
  s.unavailable = sysctl_reason();
  if (!s.unavailable.empty()) return s;
  io_uring ring{};
  if (const int ret = io_uring_queue_init(2, &ring, 0); ret < 0) {
    s.unavailable = "io_uring unavailable: " + explain(-ret);
    return s;
  }
  const std::unique_ptr<io_uring_probe, void (*)(io_uring_probe*)> ops(
      io_uring_get_probe_ring(&ring), io_uring_free_probe);
  if (ops) {
    s.socket = io_uring_opcode_supported(ops.get(), IORING_OP_SOCKET) != 0;
    s.direct = io_uring_opcode_supported(ops.get(), IORING_OP_OPENAT) != 0 &&
               io_uring_opcode_supported(ops.get(), IORING_OP_CLOSE) != 0 &&
               can_register_sparse_files(&ring);
  }
  io_uring_queue_exit(&ring);
  return s;
}

}  // namespace

const Support& support() {
  static const Support probed = probe();
  return probed;
}

Ring::Ring(unsigned entries) {
  io_uring_params params{};
  params.flags = IORING_SETUP_CLAMP;  // a batch above the kernel's maximum gets the maximum
  if (const int ret = io_uring_queue_init_params(std::max(1U, entries), &ring_, &params); ret < 0) {
    throw Error(fmt::format("cannot set up an io_uring of {} entries: {}", entries, explain(-ret)));
  }
}

int Ring::prime() noexcept {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) return -EBUSY;
  io_uring_prep_nop(sqe);
  return submit_and_reap(&ring_, 1, [](const io_uring_cqe&) {});
}

void prime_rings(WorkerGroup& group, const std::function<Ring&(int)>& ring_of) {
  std::vector<int> errors(static_cast<std::size_t>(group.size()), 0);
  group.run([&](int w) { errors[static_cast<std::size_t>(w)] = ring_of(w).prime(); });
  for (const int err : errors) {
    if (err < 0) throw Error("cannot submit to a new io_uring: " + explain(-err));
  }
}

}  // namespace fdbench::uring
