#pragma once
#include <string>
#include <string_view>

namespace fdbench {

// Writes `content` to a temporary file beside `path`, then renames it over `path`: readers
// see the old file or the complete new one, never half of it. Throws Error naming the file as
// `what` calls it (the flag that asked for it: "--output", "--export-json").
void write_file_atomically(const std::string& path, std::string_view content,
                           std::string_view what);

}  // namespace fdbench
