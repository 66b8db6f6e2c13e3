#pragma once
// Two error paths: FDBENCH_ASSERT for programmer mistakes, exceptions carrying a
// one-line message that names the cause and the fix for failures the world causes.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "fdbench/export.hpp"

namespace fdbench {

// A runtime failure: exit code 1, message printed as "Error: <what>".
class FDBENCH_EXPORT Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A bad command line or option value: exit code 2.
class FDBENCH_EXPORT UsageError : public Error {
 public:
  using Error::Error;
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

// --timeout: a repetition did not finish in time and was abandoned (exit code 1). The
// message says which, and what it was opening.
class FDBENCH_EXPORT TimedOut : public Error {
 public:
  using Error::Error;
};

// strerror text for an errno value, thread-safe.
FDBENCH_EXPORT std::string errno_text(int err);

// The symbolic name of an errno value POSIX defines ("EMFILE", "ENOENT"), else "E<number>".
FDBENCH_EXPORT std::string errno_name(int err);

}  // namespace fdbench

#define FDBENCH_ASSERT(cond)                                                          \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "fdbench: assertion failed: %s (%s:%d)\n", #cond, __FILE__, \
                   __LINE__);                                                         \
      std::abort();                                                                   \
    }                                                                                 \
  } while (0)
