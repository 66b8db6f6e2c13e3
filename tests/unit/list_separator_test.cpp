// A --list file separated otherwise than --list0 says: told from its first bytes, and refused
// with the flag to add or drop.
#include <gtest/gtest.h>

#include <string>

#include "inputs/input_files.hpp"

namespace fdbench {
namespace list_separator_test {

using namespace std::string_literals;

TEST(ListSeparator, NulSeparatedListReadAsLines) {
  EXPECT_EQ(list_separator_mistake("l", "/a/b\0/a/c\0"s, false),
            "--list l: the paths are NUL-separated (as find -print0 writes them); add --list0");
}

TEST(ListSeparator, LinesReadAsNulSeparated) {
  EXPECT_EQ(list_separator_mistake("l", "/a/b\n/a/c\n", true),
            "--list0: l has one path per line and no NUL between them; drop --list0");
}

TEST(ListSeparator, ListsAsSaidPass) {
  EXPECT_EQ(list_separator_mistake("l", "/a/b\n/a/c\n", false), "");
  EXPECT_EQ(list_separator_mistake("l", "/a/b\0/a/c\0"s, true), "");
  // A NUL-separated path may hold a newline: the NUL says which list it is.
  EXPECT_EQ(list_separator_mistake("l", "/a/new\nline\0/a/c\0"s, true), "");
  // One path and nothing after it: either reading is the same.
  EXPECT_EQ(list_separator_mistake("l", "/a/b", true), "");
  EXPECT_EQ(list_separator_mistake("l", "", false), "");
}

}  // namespace list_separator_test
}  // namespace fdbench
