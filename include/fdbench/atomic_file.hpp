#pragma once
#include <string>
#include <string_view>

namespace fdbench {

// Writes `content` to a temporary file beside `path`, then renames it over `path`: readers
// see the old file or the complete new one, never half of it. Throws Error.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace fdbench
