#pragma once
#include <string_view>

namespace fdbench {

// "0.1.0": the project version from CMake.
std::string_view version() noexcept;

}  // namespace fdbench
