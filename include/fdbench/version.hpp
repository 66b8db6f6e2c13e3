#pragma once
#include <string_view>

#include "fdbench/export.hpp"

namespace fdbench {

// "0.1.0": the project version from CMake.
FDBENCH_EXPORT std::string_view version() noexcept;

}  // namespace fdbench
