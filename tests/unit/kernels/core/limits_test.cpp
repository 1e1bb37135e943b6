// The prune categories (kernels/core/limits.hpp, violation_name) are the ones docs/tuner.md and
// docs/database.md list, in the same order, so the documented names are the stored ones.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "kernels/core/limits.hpp"

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ViolationNames, AreTheDocumentedPruneReasons) {
  using coalesce::Violation;
  std::string list;
  for (int v = static_cast<int>(Violation::shape); v <= static_cast<int>(Violation::workspace); ++v)
    list += (list.empty() ? "(`" : ", `") + std::string(coalesce::violation_name(static_cast<Violation>(v))) + "`";
  list += ")";
  EXPECT_EQ(list, "(`shape`, `divisibility`, `threads`, `smem`, `registers`, `occupancy`, `dtype`, `arch`, `schedule`, `workspace`)");
  for (const char* doc : {"docs/tuner.md", "docs/database.md"}) {
    std::string text = read(std::string(COALESCE_SOURCE_DIR) + "/" + doc);
    ASSERT_FALSE(text.empty()) << doc;
    // Line breaks inside the list are spaces to the reader.
    for (char& c : text)
      if (c == '\n') c = ' ';
    for (std::size_t at; (at = text.find("  ")) != std::string::npos;) text.erase(at, 1);
    EXPECT_NE(text.find(list), std::string::npos) << doc << " does not list " << list;
  }
}

}  // namespace
