// Sleeping islands as stages over plain data (solvers/sleep.h). Oracle: the components and the
// timers are worked out by hand on small graphs.
#include <coulomb/sleep.h>
#include <gtest/gtest.h>

using namespace coulomb;

namespace {

// bodies 0 (fixed ground), 1..6 moving
const std::vector<std::uint8_t> kFixed = {1, 0, 0, 0, 0, 0, 0};

SleepState asleep(const std::vector<int>& island) {
  SleepState s;
  s.resize(int(island.size()));
  s.island = island;
  return s;
}

}  // namespace

TEST(Sleep, AContactFromAnAwakeBodyWakesTheWholeSleepingIsland) {
  // island {1, 2, 3} sleeps (named 1) on the ground; 4 is awake and touches 3 only
  SleepState s = asleep({-1, 1, 1, 1, -1, -1, -1});
  s.timer = {0, 0.7, 0.7, 0.7, 0.2, 0, 0};
  const std::vector<int> a = {0, 0, 3}, b = {1, 4, 4};  // ground-1, ground-4, 3-4
  EXPECT_EQ(wake_touched(kFixed, a, b, {}, {}, s), 3);
  EXPECT_EQ(s.sleeping_count(), 0);
  EXPECT_EQ(s.timer, (std::vector<double>{0, 0, 0, 0, 0.2, 0, 0}));
}

TEST(Sleep, TheFixedGroundDoesNotCarryTheWake) {
  // island {1, 2} sleeps on the ground; 4 is awake on the same ground and touches nothing else
  SleepState s = asleep({-1, 1, 1, -1, -1, -1, -1});
  const std::vector<int> a = {0, 0, 0}, b = {1, 2, 4};
  EXPECT_EQ(wake_touched(kFixed, a, b, {}, {}, s), 0);
  EXPECT_EQ(s.sleeping_count(), 2);
}

TEST(Sleep, WakingPropagatesThroughSleepingIslandsAndJoints) {
  // islands {1, 2} and {3, 5} sleep; 3 touches 2; 6 is awake and jointed to 5; 4 sleeps alone
  SleepState s = asleep({-1, 1, 1, 3, 4, 3, -1});
  const std::vector<int> a = {2}, b = {3}, ja = {5}, jb = {6};
  EXPECT_EQ(wake_touched(kFixed, a, b, ja, jb, s), 4);
  EXPECT_EQ(s.island, (std::vector<int>{-1, -1, -1, -1, 4, -1, -1}));
  // a joint to the world does not wake anything
  SleepState t = asleep({-1, 1, 1, -1, -1, -1, -1});
  EXPECT_EQ(wake_touched(kFixed, {}, {}, std::vector<int>{1}, std::vector<int>{-1}, t), 0);
}

TEST(Sleep, WakeIslandWakesItsMembersOnly) {
  SleepState s = asleep({-1, 1, 1, 3, 3, -1, -1});
  EXPECT_EQ(wake_island(2, s), 2);
  EXPECT_EQ(s.island, (std::vector<int>{-1, -1, -1, 3, 3, -1, -1}));
  EXPECT_EQ(wake_island(1, s), 0);
}

TEST(Sleep, AnIslandSleepsWhenItsSlowestBodyHasRestedLongEnough) {
  // islands of this step: {1, 2} (contact 1-2) and {3} (contact ground-3); 4 has no contact
  const std::vector<int> a = {1, 0}, b = {2, 3};
  Islands islands;
  build_islands(5, {1, 0, 0, 0, 0}, a, b, islands);
  RigidState st;
  st.resize(5);
  st.v[2] = Vec3(0.03, 0, 0);          // slow: 0.03 + 0.1 * 0.1 < 0.05
  st.w[2] = Vec3(0, 0, 0.1);
  st.v[3] = Vec3(0, 0.03, 0);          // point speed 0.03 + 0.1 * 0.3 = 0.06: not slow
  st.w[3] = Vec3(0.3, 0, 0);
  const std::vector<double> radius = {0, 0.1, 0.1, 0.1, 0.1};
  SleepSettings set;
  set.enabled = true;
  set.time = 0.05;
  SleepState s;
  s.resize(5);
  s.timer = {0, 0.04, 0.03, 1.0, 0.04};
  const std::vector<std::uint8_t> still = {1, 0, 0, 0, 0};
  // body 2 reaches 0.04 < 0.05: island {1, 2} stays awake; 3 is too fast; 4 reaches 0.05 alone
  EXPECT_EQ(update_sleep(still, radius, islands, set, 0.01, st, s), 1);
  EXPECT_EQ(s.island, (std::vector<int>{-1, -1, -1, -1, 4}));
  EXPECT_DOUBLE_EQ(s.timer[2], 0.04);
  EXPECT_EQ(s.timer[3], 0.0);
  // one more slow step: {1, 2} sleeps together, named by body 1, with its velocities zeroed
  st.v[3] = Vec3(0, 1, 0);
  EXPECT_EQ(update_sleep(still, radius, islands, set, 0.01, st, s), 2);
  EXPECT_EQ(s.island, (std::vector<int>{-1, 1, 1, -1, 4}));
  EXPECT_TRUE(st.v[2].isZero(0.0) && st.w[2].isZero(0.0));
  EXPECT_EQ(st.v[3], Vec3(0, 1, 0));
}

TEST(Sleep, StillBodiesAreTheFixedAndTheSleeping) {
  std::vector<std::uint8_t> still;
  still_bodies({1, 0, 0}, asleep({-1, -1, 2}), still);
  EXPECT_EQ(still, (std::vector<std::uint8_t>{1, 0, 1}));
}
