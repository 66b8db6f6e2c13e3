// Stands in for open_uring.cpp when fdbench is built without liburing: open_many says so
// before any worker starts, so open_share_uring is never reached.
#include "common/errors.hpp"
#include "fdbench/error.hpp"
#include "library/open_engine.hpp"

namespace fdbench::library {

ShareOutcome open_share_uring(const OpenJob& /*job*/, std::size_t /*begin*/, std::size_t /*end*/,
                              unsigned /*batch*/) noexcept {
  FDBENCH_ASSERT(!"open_many checks uring_unavailable_reason() first");
  return {};
}

std::string uring_unavailable_reason() {
  return "io_uring unavailable: fdbench was built without liburing (Linux: install it and "
         "build with -DFDBENCH_WITH_URING=ON)";
}

}  // namespace fdbench::library
