// The probe of ctest's skip rule (skip_rule_test.sh): one case always skips, the other passes,
// skips or fails as COALESCE_RULE_PROBE (unset, "skip", "fail") says.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

std::string mode() {
  const char* m = std::getenv("COALESCE_RULE_PROBE");
  return m ? m : "";
}

TEST(SkipRuleProbe, AlwaysSkips) { GTEST_SKIP() << "the probe's skipped case"; }

TEST(SkipRuleProbe, DoesWhatTheEnvironmentSays) {
  if (mode() == "skip") GTEST_SKIP() << "COALESCE_RULE_PROBE=skip";
  EXPECT_NE(mode(), "fail") << "COALESCE_RULE_PROBE=fail: the probe's failing case";
}

}  // namespace
