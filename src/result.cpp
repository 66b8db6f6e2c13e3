#include "fdbench/result.hpp"

namespace fdbench {

void finalize(Result& result) {
  result.stats = summarize(result.times_ns);
  result.ops_per_sec = result.stats.median > 0
                           ? static_cast<double>(result.ops) * 1e9 / result.stats.median
                           : 0.0;
}

}  // namespace fdbench
