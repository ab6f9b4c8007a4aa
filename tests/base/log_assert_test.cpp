// base/: the "coulomb" logger, set_log_level's accepted names, and COULOMB_ASSERT's failure path
// (log file:line and the message, then abort, in every build type).
#include <coulomb/assert.h>
#include <coulomb/error.h>
#include <coulomb/log.h>
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

using namespace coulomb;

namespace {

// Restores the default level whatever a test set.
struct LogLevelGuard {
  ~LogLevelGuard() { set_log_level("warn"); }
};

TEST(Log, IsTheNamedCoulombLoggerInSpdlogsRegistryAtWarn) {
  EXPECT_EQ(logger().name(), "coulomb");
  EXPECT_EQ(spdlog::get("coulomb").get(), &logger());
  EXPECT_EQ(logger().level(), spdlog::level::warn);
}

TEST(Log, SetLogLevelAcceptsTheSevenNames) {
  LogLevelGuard guard;
  const std::pair<const char*, spdlog::level::level_enum> levels[] = {
      {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug}, {"info", spdlog::level::info},
      {"warn", spdlog::level::warn},   {"error", spdlog::level::err},   {"critical", spdlog::level::critical},
      {"off", spdlog::level::off}};
  for (const auto& [name, level] : levels) {
    set_log_level(name);
    EXPECT_EQ(logger().level(), level) << name;
  }
}

TEST(Log, SetLogLevelRejectsOtherNamesWithTheOptionName) {
  LogLevelGuard guard;
  set_log_level("error");
  for (const char* bad : {"bogus", "", "WARN", "warning", "err", "3"}) {
    try {
      set_log_level(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_EQ(e.pointer(), "--log-level");
      EXPECT_NE(std::string(e.what()).find("trace, debug, info, warn, error, critical or off"), std::string::npos);
    }
    EXPECT_EQ(logger().level(), spdlog::level::err) << "a rejected name must leave the level alone";
  }
}

TEST(Assert, PassingCheckDoesNothingAndEvaluatesNoMessage) {
  int evaluated = 0;
  auto message = [&] { ++evaluated; return std::string("never built"); };
  COULOMB_ASSERT(1 + 1 == 2, message());
  EXPECT_EQ(evaluated, 0);
}

TEST(AssertDeathTest, FailingCheckLogsFileLineAndMessageThenAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(COULOMB_ASSERT(2 < 1, "two is not less than one"),
               "log_assert_test\\.cpp:[0-9]+: assertion '2 < 1' failed: two is not less than one");
}

TEST(AssertDeathTest, StillSaysWhyWhenTheLoggerIsOff) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        set_log_level("off");
        COULOMB_ASSERT(false, std::string("built ") + "on failure");
      },
      "assertion 'false' failed: built on failure");
}

}  // namespace
