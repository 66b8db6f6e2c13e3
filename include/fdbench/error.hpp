#pragma once
// Failures the world causes are exceptions carrying a one-line message that names the cause
// and the fix (programmer mistakes abort instead).
#include <stdexcept>
#include <string>

#include "fdbench/export.hpp"

namespace fdbench {

// A runtime failure: exit code 1, message printed as "Error: <what>".
class FDBENCH_EXPORT Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// SIGINT/SIGTERM arrived; results finished so far are still exported.
class FDBENCH_EXPORT Interrupted : public std::exception {
 public:
  explicit Interrupted(int signal) : signal_(signal) {}
  [[nodiscard]] int signal() const noexcept { return signal_; }
  [[nodiscard]] const char* what() const noexcept override { return "interrupted"; }

 private:
  int signal_;
};

// strerror text for an errno value, thread-safe.
FDBENCH_EXPORT std::string errno_text(int err);

// The symbolic name of an errno value POSIX defines ("EMFILE", "ENOENT"), else "E<number>".
FDBENCH_EXPORT std::string errno_name(int err);

}  // namespace fdbench
