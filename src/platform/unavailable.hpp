#pragma once
// What a part throws when this machine or this build cannot do what was asked (no io_uring,
// a workload a strategy cannot do, a kernel feature missing): the result is then
// "unavailable", where any other Error from a run is "failed". In the lowest layer so that
// io_uring's set-up (uring) and the strategies (engine) throw the same type.
#include "fdbench/error.hpp"

namespace fdbench {

class Unavailable : public Error {
 public:
  using Error::Error;
};

}  // namespace fdbench
