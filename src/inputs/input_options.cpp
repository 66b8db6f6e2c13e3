#include "inputs/input_options.hpp"

#include <cstdlib>

namespace fdbench {

std::string default_dir() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

}  // namespace fdbench
