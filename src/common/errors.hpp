#pragma once
// fdbench's own error kinds beyond the public API's Error (fdbench/error.hpp), and its
// assertion. Header-only, below every layer: each may include it.
#include <cstdio>
#include <cstdlib>

#include "fdbench/error.hpp"

namespace fdbench {

// A bad command line or option value, or an input the command line named that will not do:
// exit code 2.
class UsageError : public Error {
 public:
  using Error::Error;
};

// --timeout: a repetition did not finish in time and was abandoned (exit code 1). The
// message says which, and what it was opening.
class TimedOut : public Error {
 public:
  using Error::Error;
};

}  // namespace fdbench

// A programmer's mistake: says where, and aborts.
#define FDBENCH_ASSERT(cond)                                                          \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "fdbench: assertion failed: %s (%s:%d)\n", #cond, __FILE__, \
                   __LINE__);                                                         \
      std::abort();                                                                   \
    }                                                                                 \
  } while (0)
