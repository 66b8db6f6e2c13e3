#include "fdbench/error.hpp"

#include <cstring>

namespace fdbench {

std::string errno_text(int err) {
  char buf[256];
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return strerror_r(err, buf, sizeof buf);  // GNU variant returns the text
#else
  if (strerror_r(err, buf, sizeof buf) != 0) return "errno " + std::to_string(err);
  return buf;
#endif
}

}  // namespace fdbench
