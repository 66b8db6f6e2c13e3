// libFuzzer target: the JSON results reader must reject any input with an Error, never
// crash, hang or leak (it reads files other machines wrote, for compare and report).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fdbench/error.hpp"
#include "fdbench/results_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto doc =
        fdbench::parse_results_json(std::string_view(reinterpret_cast<const char*>(data), size));
    (void)doc;
  } catch (const fdbench::Error&) {
  }
  return 0;
}
