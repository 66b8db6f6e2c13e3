#include "engine/capture.hpp"

#include <fmt/format.h>

#include <string_view>
#include <utility>

#include "platform/platform.hpp"

namespace fdbench {

namespace {

std::string compiler_name() {
#if defined(__clang__)
  return fmt::format("clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  return fmt::format("gcc {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  return "unknown";
#endif
}

// What the CPU and the kernel cost here, beside what they are.
void capture_costs(Environment& env, const std::string& dir) {
  env.virtualization = platform::virtualization();
  env.cpu_mitigations = platform::cpu_mitigations();
  env.syscall_ns = platform::syscall_ns();
  env.cpus_allowed = platform::cpus_allowed();
  env.cpu_quota = platform::cgroup_cpu_quota();
  env.memory_bytes = platform::memory_bytes();
  env.fs_mount_options = platform::fs_mount_options(dir);
}

}  // namespace

Environment capture_environment(const std::string& dir) {
  Environment env;
  env.os = platform::os_name();
  env.kernel = platform::kernel_release();
  env.cpu_model = platform::cpu_model();
  env.logical_cpus = platform::logical_cpus();
  env.fs_type = platform::fs_type(dir);
  const platform::NofileLimit nofile = platform::nofile_limit();
  env.rlimit_nofile = {nofile.soft, nofile.hard};
  env.fdsize_at_start = platform::fd_table_size();
  env.io_uring_disabled = platform::io_uring_disabled();
  env.rcu_expedited = platform::rcu_expedited();
  const std::string kernel_trace = platform::kernel_trace_unavailable();
  env.kernel_trace = kernel_trace.empty() ? "available" : kernel_trace;
  capture_costs(env, dir);
  const std::string_view build_type = FDBENCH_BUILD_TYPE;
  env.build_type = build_type.empty() ? "unknown" : std::string(build_type);
  env.compiler = compiler_name();
  env.liburing_version = platform::liburing_version();
  env.libuv_version = platform::libuv_version();
  if (env.build_type != "Release") {
    env.warnings.push_back(fmt::format(
        "this fdbench is a {} build, not Release: its times are slower than they should be "
        "(configure with -DCMAKE_BUILD_TYPE=Release)",
        env.build_type));
  }
  return env;
}

LoadSnapshot capture_load() {
  LoadSnapshot load;
  if (const auto a = platform::load_averages()) {
    load.load_average = LoadAverages{a->one, a->five, a->fifteen};
  }
  if (const auto p = platform::cpu_pressure()) {
    load.cpu_pressure = CpuPressure{p->some_avg10, p->some_avg60, p->some_total_us};
  }
  return load;
}

RunContext capture_context(std::vector<std::string> command_line) {
  RunContext context;
  context.date = platform::utc_date_now();
  context.host = platform::host_name();
  context.command_line = std::move(command_line);
  context.user = platform::user_id();
  context.load_before = capture_load();
  return context;
}

}  // namespace fdbench
