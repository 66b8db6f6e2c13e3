// A result's identity is typed (model/configuration.hpp): behaviour never branches on the
// spelling of a strategy, a descriptor kind, an input source or file set, or a stall cause.
// This reads the sources and fails where such a spelling is compared as a string literal
// (`== "threads"`, `"growth" != x`, strcmp(x, "uring-direct")) outside the boundary
// converters: the files that define the spellings and turn text into values and back. The
// spellings come from those converters themselves, so a strategy or kind added later is
// checked without editing this test.
//
// FDBENCH_CHECK_ROOT, where set, names a copy of the tree to read instead (to see the check
// fail on a planted comparison without touching the real one).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/strategy.hpp"
#include "model/configuration.hpp"
#include "model/kernel_evidence.hpp"
#include "model/latency.hpp"
#include "model/result.hpp"

namespace fdbench {
namespace identity_strings_test {

namespace fs = std::filesystem;

// Every identity spelling, as the converters define them.
std::set<std::string> identity_spellings() {
  std::set<std::string> out;
  for (const auto& name : strategy_names()) out.insert(name);
  for (const DescriptorKind kind : every_descriptor_kind()) out.emplace(to_string(kind));
  for (const InputSource source :
       {InputSource::generated, InputSource::private_set, InputSource::kept, InputSource::reused,
        InputSource::tree, InputSource::list}) {
    out.emplace(source_name(source));
    if (!file_set_name(source).empty()) out.emplace(file_set_name(source));
  }
  for (const OffCpuCause cause : kEveryOffCpuCause) out.emplace(cause_name(cause));
  out.emplace(kOnCpuCause);
  out.emplace(kUnexplainedCause);
  return out;
}

// Where spellings are defined and parsed: the boundary converters (relative to the root).
const std::set<std::string>& boundary_files() {
  static const std::set<std::string> files = {
      "src/model/configuration.cpp",         // DescriptorKind, PathMode
      "src/model/result.cpp",                // InputSource
      "src/model/kernel_evidence.cpp",       // OffCpuCause
      "src/engine/strategies/registry.cpp",  // the strategies' names
      "src/library/recommend.cpp",           // a strategy's name as open_many's (C/C++ API)
  };
  return files;
}

struct Violation {
  std::string where;  // file:line
  std::string line;
};

// The string literals on `line` (outside a // comment) that are compared: an operand of == or
// !=, or an argument of strcmp/strncmp or .compare().
std::vector<std::string> compared_literals(const std::string& line) {
  static const std::regex kCompared(
      R"re((?:==|!=)\s*"([^"\\]*)"|"([^"\\]*)"\s*(?:==|!=)|str(?:n)?cmp\s*\([^;]*?"([^"\\]*)"|\.compare\s*\(\s*"([^"\\]*)")re");
  std::string code = line;
  if (const auto comment = code.find("//"); comment != std::string::npos) code.erase(comment);
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), kCompared);
       it != std::sregex_iterator(); ++it) {
    for (std::size_t group = 1; group < it->size(); ++group) {
      if ((*it)[group].matched) out.push_back((*it)[group].str());
    }
  }
  return out;
}

// The comparisons of an identity spelling in `text` (named `where` in the result).
std::vector<Violation> violations_in(const std::string& text, const std::string& where,
                                     const std::set<std::string>& spellings) {
  std::vector<Violation> out;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    for (const auto& literal : compared_literals(line)) {
      if (spellings.count(literal) != 0) {
        out.push_back({where + ":" + std::to_string(number), line});
      }
    }
  }
  return out;
}

fs::path checked_root() {
  if (const char* root = std::getenv("FDBENCH_CHECK_ROOT"); root != nullptr && *root != '\0') {
    return root;
  }
  return FDBENCH_SOURCE_ROOT;
}

bool is_source(const fs::path& path) {
  static const std::set<std::string> kExtensions = {".cpp", ".hpp", ".h", ".c", ".in"};
  return kExtensions.count(path.extension().string()) != 0;
}

std::vector<Violation> violations_under(const fs::path& root) {
  const auto spellings = identity_spellings();
  std::vector<Violation> out;
  for (const char* dir : {"src", "apps", "include"}) {
    if (!fs::exists(root / dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      if (!entry.is_regular_file() || !is_source(entry.path())) continue;
      const std::string relative = fs::relative(entry.path(), root).generic_string();
      if (boundary_files().count(relative) != 0) continue;
      std::ifstream file(entry.path());
      std::stringstream text;
      text << file.rdbuf();
      for (auto& v : violations_in(text.str(), relative, spellings)) out.push_back(std::move(v));
    }
  }
  return out;
}

TEST(IdentityStrings, SpellingsComeFromTheConverters) {
  const auto spellings = identity_spellings();
  for (const char* name : {"threads", "uring-direct", "file", "unix", "generated", "reused", "tree",
                           "fd-table-growth", "unexplained", "on-cpu"}) {
    EXPECT_EQ(spellings.count(name), 1U) << name;
  }
}

TEST(IdentityStrings, FindsComparedSpellings) {
  const std::set<std::string> spellings = {"threads", "generated", "growth", "uring-direct"};
  EXPECT_EQ(violations_in("if (r.strategy == \"threads\") {", "a", spellings).size(), 1U);
  EXPECT_EQ(violations_in("x = in.source != \"generated\";", "a", spellings).size(), 1U);
  EXPECT_EQ(violations_in("return \"growth\" == kind;", "a", spellings).size(), 1U);
  EXPECT_EQ(violations_in("strcmp(c.strategy, \"uring-direct\") == 0", "a", spellings).size(), 1U);
  EXPECT_EQ(violations_in("name.compare(\"threads\")", "a", spellings).size(), 1U);
  // Not comparisons, or not identity spellings: a table, a message, a comment, another word.
  EXPECT_TRUE(violations_in("{\"threads\", \"#0072B2\"},", "a", spellings).empty());
  EXPECT_TRUE(violations_in("fmt::format(\"threads {}\", n)", "a", spellings).empty());
  EXPECT_TRUE(violations_in("ok();  // never == \"threads\"", "a", spellings).empty());
  EXPECT_TRUE(violations_in("if (text == \"all\") return;", "a", spellings).empty());
}

TEST(IdentityStrings, NotComparedOutsideTheConverters) {
  const fs::path root = checked_root();
  ASSERT_TRUE(fs::exists(root / "src")) << root;
  std::string listed;
  for (const auto& v : violations_under(root)) listed += "\n  " + v.where + ": " + v.line;
  EXPECT_TRUE(listed.empty())
      << "an identity spelling compared as text outside the converters: compare the typed "
         "value (model/configuration.hpp, InputSource, the recorded strategy properties) instead"
      << listed;
}

}  // namespace identity_strings_test
}  // namespace fdbench
