#include "fdbench/environment.hpp"

namespace fdbench {

Environment capture_environment(const std::string& dir) {
  Environment env;
  env.os = platform::os_name();
  env.kernel = platform::kernel_release();
  env.cpu_model = platform::cpu_model();
  env.logical_cpus = platform::logical_cpus();
  env.fs_type = platform::fs_type(dir);
  env.rlimit_nofile = platform::nofile_limit();
  env.fdsize_at_start = platform::fd_table_size();
  env.io_uring_disabled = platform::io_uring_disabled();
  env.rcu_expedited = platform::rcu_expedited();
  return env;
}

}  // namespace fdbench
