#pragma once
// What every refusal of the CLI looks like: exactly one line, "Error: ...", naming the cause
// and the fix.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace fdbench::testing {

// Exactly one line, "Error: ...", holding every one of `parts`.
inline void expect_one_error_line(const std::string& err, const std::vector<std::string>& parts) {
  EXPECT_EQ(err.rfind("Error: ", 0), 0U) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << "not one line:\n" << err;
  for (const auto& part : parts) {
    EXPECT_NE(err.find(part), std::string::npos) << "message lacks '" << part << "': " << err;
  }
}

}  // namespace fdbench::testing
