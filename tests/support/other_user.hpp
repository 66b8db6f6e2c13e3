#pragma once
// Runs fdbench as a user other than root, for the tests that need the rules an ordinary user
// meets: another user's file, a limit on the user's processes (RLIMIT_NPROC, which the
// kernel never enforces on root). Only root can switch users: callers skip without it.
//
// The user is a uid no account has (60000 + this test's pid modulo 5000), so that no other
// process of the machine counts against its process limit and concurrent test programs do
// not share one.
#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

#include "support/fdbench_process.hpp"

namespace fdbench::testing {

inline constexpr const char* kSetpriv = "/usr/bin/setpriv";
inline constexpr const char* kPrlimit = "/usr/bin/prlimit";

// Why this test cannot run fdbench as another user here ("" when it can).
inline std::string cannot_switch_user() {
  if (geteuid() != 0) return "not root: only root can run fdbench as another user";
  if (access(kSetpriv, X_OK) != 0) return std::string("no ") + kSetpriv + " (util-linux)";
  if (access(kPrlimit, X_OK) != 0) return std::string("no ") + kPrlimit + " (util-linux)";
  return "";
}

inline uid_t unused_uid() {
  return static_cast<uid_t>(60000 + getpid() % 5000);
}

// `options` changed to run `args` as `uid` (its own group, no supplementary groups, no
// capabilities), and with at most `processes` processes and threads for that user when given
// (prlimit --nproc, soft and hard). Returns the arguments to pass to FdbenchProcess.
inline std::vector<std::string> as_user(uid_t uid, const std::vector<std::string>& args,
                                        RunOptions& options,
                                        std::optional<int> processes = std::nullopt) {
  std::vector<std::string> wrapped;
  const std::string id = std::to_string(uid);
  if (processes) {
    options.program = kPrlimit;
    wrapped = {"--nproc=" + std::to_string(*processes), "--", kSetpriv};
  } else {
    options.program = kSetpriv;
  }
  wrapped.insert(wrapped.end(),
                 {"--reuid=" + id, "--regid=" + id, "--clear-groups", fdbench_binary()});
  wrapped.insert(wrapped.end(), args.begin(), args.end());
  return wrapped;
}

}  // namespace fdbench::testing
