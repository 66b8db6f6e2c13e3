#include "uring/ring.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <vector>

#include "common/errors.hpp"
#include "fdbench/error.hpp"
#include "platform/platform.hpp"
#include "platform/unavailable.hpp"

#if defined(__SANITIZE_THREAD__)
#define FDBENCH_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FDBENCH_TSAN 1
#endif
#endif
#ifdef FDBENCH_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace fdbench::uring {

namespace {

// liburing maps and unmaps a ring's queues with system calls of its own, which
// ThreadSanitizer does not see: when a ring freed on one thread is mapped again at the same
// address for another thread's new ring, the new owner's writes to its SQEs would look like a
// race with the old owner's. Every teardown releases this and every set-up acquires it,
// which is the order the kernel's munmap and mmap guarantee.
#ifdef FDBENCH_TSAN
char g_ring_memory;
void ring_memory_acquired() noexcept {
  __tsan_acquire(&g_ring_memory);
}
void ring_memory_released() noexcept {
  __tsan_release(&g_ring_memory);
}
#else
void ring_memory_acquired() noexcept {}
void ring_memory_released() noexcept {}
#endif

// io_uring_queue_init, as every ring in fdbench is set up.
int queue_init(unsigned entries, io_uring* ring, unsigned flags) noexcept {
  const int ret = io_uring_queue_init(entries, ring, flags);
  if (ret == 0) ring_memory_acquired();
  return ret;
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

// io_uring_register_ring_fd returns how many it registered: 1.
bool can_register_ring_fd(io_uring* ring) {
  if (io_uring_register_ring_fd(ring) != 1) return false;
  io_uring_unregister_ring_fd(ring);
  return true;
}

Support probe() {
  Support s;
  s.unavailable = sysctl_reason();
  if (!s.unavailable.empty()) return s;
  io_uring ring{};
  if (const int ret = queue_init(2, &ring, 0); ret < 0) {
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
  s.ring_fd = can_register_ring_fd(&ring);
  exit_ring(&ring);
  s.best_flags = first_accepted(setup_flag_candidates(), try_ring_setup);
  return s;
}

constexpr unsigned kSetupFlagCandidates[] = {
    IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,  // Linux 6.1
    IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,  // 6.0
    IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,                               // 5.19
    0,
};

struct FlagName {
  unsigned flag;
  const char* name;
};
constexpr FlagName kFlagNames[] = {
    {IORING_SETUP_SINGLE_ISSUER, "single_issuer"},
    {IORING_SETUP_DEFER_TASKRUN, "defer_taskrun"},
    {IORING_SETUP_COOP_TASKRUN, "coop_taskrun"},
    {IORING_SETUP_TASKRUN_FLAG, "taskrun_flag"},
};

}  // namespace

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

const Support& support() {
  static const Support probed = probe();
  return probed;
}

std::span<const unsigned> setup_flag_candidates() {
  return kSetupFlagCandidates;
}

unsigned first_accepted(std::span<const unsigned> candidates,
                        const std::function<int(unsigned flags)>& try_setup) {
  for (const unsigned flags : candidates) {
    const int ret = try_setup(flags);
    if (ret == 0) return flags;
    if (ret != -EINVAL) break;
  }
  return 0;
}

int try_ring_setup(unsigned flags) noexcept {
  io_uring ring{};
  const int ret = queue_init(2, &ring, flags);
  if (ret == 0) exit_ring(&ring);
  return ret;
}

RingSetup ring_setup(const UringOptions& options) {
  const Support& s = support();
  return {options.setup_flags ? s.best_flags : 0U, options.register_ring_fd && s.ring_fd};
}

std::map<std::string, std::string> describe(const RingSetup& setup) {
  std::string flags;
  for (const auto& [flag, name] : kFlagNames) {
    if ((setup.flags & flag) != 0) flags += (flags.empty() ? "" : ",") + std::string(name);
  }
  return {{"ring_setup", flags.empty() ? "none" : flags},
          {"ring_fd", setup.register_ring_fd ? "registered" : "not registered"}};
}

int init_ring(io_uring* ring, unsigned entries, const RingSetup& setup) noexcept {
  io_uring_params params{};
  // CLAMP: a batch above the kernel's maximum gets the maximum.
  params.flags = IORING_SETUP_CLAMP | setup.flags;
  if (const int ret = io_uring_queue_init_params(std::max(1U, entries), ring, &params); ret < 0) {
    return ret;
  }
  ring_memory_acquired();
  if (setup.register_ring_fd) {
    if (const int ret = io_uring_register_ring_fd(ring); ret != 1) {
      exit_ring(ring);
      return ret < 0 ? ret : -EBUSY;
    }
  }
  return 0;
}

void exit_ring(io_uring* ring) noexcept {
  ring_memory_released();
  io_uring_queue_exit(ring);
}

Ring::Ring(unsigned entries, const RingSetup& setup) {
  if (const int ret = init_ring(&ring_, entries, setup); ret < 0) {
    throw Unavailable(fmt::format("cannot set up an io_uring of {} entries ({}): {}", entries,
                                  describe(setup).at("ring_setup"), explain(-ret)));
  }
}

void prime(Ring& ring) {
  io_uring_sqe* sqe = io_uring_get_sqe(ring.get());
  FDBENCH_ASSERT(sqe != nullptr);  // a new ring is empty
  io_uring_prep_nop(sqe);
  if (const int ret = submit_and_reap(ring.get(), 1, [](const io_uring_cqe&) {}); ret < 0) {
    throw Unavailable("cannot submit to a new io_uring: " + explain(-ret));
  }
}

}  // namespace fdbench::uring
