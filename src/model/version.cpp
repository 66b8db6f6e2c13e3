#include "fdbench/version.hpp"

namespace fdbench {

std::string_view version() noexcept { return FDBENCH_VERSION; }

}  // namespace fdbench
