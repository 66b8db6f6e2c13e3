// Facts about the host recorded with results: the OS, the CPU, memory, the cost of a syscall,
// filesystems, kernel knobs, and the clock every measurement uses.
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "platform/platform.hpp"
#include "platform/os.hpp"

#if defined(FDBENCH_LINUX)
#include <sys/statfs.h>
#include <sys/syscall.h>
#elif defined(FDBENCH_BSD)
#include <sys/mount.h>
#include <sys/param.h>
#include <sys/sysctl.h>
#endif

namespace fdbench::platform {

bool uses_linux_interfaces() noexcept {
#if defined(FDBENCH_LINUX)
  return true;
#else
  return false;
#endif
}

std::int64_t now_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::string os_name() {
  utsname name{};
  return uname(&name) == 0 ? name.sysname : "unknown";
}

std::string kernel_release() {
  utsname name{};
  return uname(&name) == 0 ? name.release : "unknown";
}

std::string cpu_model() {
#if defined(FDBENCH_LINUX)
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    // x86 says "model name", arm64 often only "CPU part"/"Hardware"
    for (const char* key : {"model name", "Hardware", "cpu model"}) {
      if (line.rfind(key, 0) == 0) {
        const auto colon = line.find(':');
        if (colon != std::string::npos) {
          const auto start = line.find_first_not_of(" \t", colon + 1);
          if (start != std::string::npos) return line.substr(start);
        }
      }
    }
  }
  return "unknown";
#elif defined(__APPLE__)
  char buf[256];
  size_t size = sizeof buf;
  if (sysctlbyname("machdep.cpu.brand_string", buf, &size, nullptr, 0) == 0) return buf;
  return "unknown";
#elif defined(FDBENCH_BSD)
  char buf[256];
  size_t size = sizeof buf;
  int mib[2] = {CTL_HW, HW_MODEL};
  if (sysctl(mib, 2, buf, &size, nullptr, 0) == 0) return buf;
  return "unknown";
#else
  return "unknown";
#endif
}

int logical_cpus() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

std::optional<std::uint64_t> memory_bytes() {
#if defined(_SC_PHYS_PAGES)
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) {
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
  }
#endif
  return std::nullopt;
}

double syscall_ns() {
  // Batches rather than single calls, so the clock's own cost and resolution vanish; the
  // median batch, so a preempted one does not count. ~2,300 calls: a few ms under PTI.
  constexpr int kBatches = 9;
  constexpr int kCallsPerBatch = 256;
  std::array<std::int64_t, kBatches> batches{};
  for (auto& batch : batches) {
    const std::int64_t start = now_ns();
    for (int i = 0; i < kCallsPerBatch; ++i) {
#if defined(FDBENCH_LINUX)
      syscall(SYS_getppid);  // the raw call: no library wrapper can answer it from a cache
#else
      getppid();
#endif
    }
    batch = now_ns() - start;
  }
  std::nth_element(batches.begin(), batches.begin() + kBatches / 2, batches.end());
  return static_cast<double>(batches[kBatches / 2]) / kCallsPerBatch;
}

std::string default_dir() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

std::string fs_type(const std::string& path) {
#if defined(FDBENCH_LINUX)
  struct statfs info {};
  if (statfs(path.c_str(), &info) != 0) return "unknown";
  // Magic numbers from linux/magic.h; statfs has no name field on Linux.
  static const std::map<unsigned long, const char*> kNames = {
      {0xEF53, "ext4"},       {0x01021994, "tmpfs"},  {0x9123683E, "btrfs"},
      {0x58465342, "xfs"},    {0x2FC12FC1, "zfs"},    {0x6969, "nfs"},
      {0x794C7630, "overlay"}, {0x65735546, "fuse"},  {0xF2F52010, "f2fs"},
      {0x4D44, "vfat"},       {0x5346544E, "ntfs"},   {0x858458F6, "ramfs"},
      {0xFF534D42, "cifs"},   {0x01021997, "9p"},     {0x62656572, "sysfs"},
      {0x9FA0, "proc"},       {0x73717368, "squashfs"}, {0x2011BAB0, "exfat"},
      {0xCA451A4E, "bcachefs"}, {0x7461636f, "ocfs2"},
  };
  const auto it = kNames.find(static_cast<unsigned long>(info.f_type));
  if (it != kNames.end()) return it->second;
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%lx", static_cast<unsigned long>(info.f_type));
  return hex;
#elif defined(FDBENCH_BSD)
  struct statfs info {};
  if (statfs(path.c_str(), &info) != 0) return "unknown";
  return info.f_fstypename;
#else
  (void)path;
  return "unknown";
#endif
}

std::optional<int> io_uring_disabled() {
#if defined(FDBENCH_LINUX)
  return read_int_file("/proc/sys/kernel/io_uring_disabled");
#else
  return std::nullopt;
#endif
}

std::optional<int> rcu_expedited() {
#if defined(FDBENCH_LINUX)
  return read_int_file("/sys/kernel/rcu_expedited");
#else
  return std::nullopt;
#endif
}

std::optional<std::int64_t> steal_time_ns() {
#if defined(FDBENCH_LINUX)
  // "cpu  user nice system idle iowait irq softirq steal guest guest_nice"
  std::ifstream in("/proc/stat");
  std::string cpu;
  std::int64_t field[8] = {};
  if (!(in >> cpu) || cpu != "cpu") return std::nullopt;
  for (auto& f : field) {
    if (!(in >> f)) return std::nullopt;
  }
  const long ticks = sysconf(_SC_CLK_TCK);
  if (ticks <= 0) return std::nullopt;
  return field[7] * (1'000'000'000 / ticks);
#else
  return std::nullopt;
#endif
}

std::optional<int> read_int_file(const std::string& path) {
  std::ifstream in(path);
  int value = 0;
  if (in >> value) return value;
  return std::nullopt;
}

std::optional<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

}  // namespace fdbench::platform
