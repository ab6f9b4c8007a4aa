// Sleeping islands in the World (scene `sleep`, engine/src/world_sleep.cpp): a stack at rest
// falls asleep after the scene's time and then holds its poses bit for bit; a ball thrown at
// it wakes it and the stack reacts; sleep off changes nothing, and sleep on with a time that is
// never reached changes nothing either; 1 and 2 threads agree bitwise; State and checkpoint JSON
// carry the sleep state; the API wakes what it moves.
#include <coulomb/checkpoint.h>
#include <coulomb/error.h>
#include <coulomb/scene.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

using namespace coulomb;

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace sleep_test {
using nlohmann::json;

namespace {

// `stacks` stacks of three 0.5 m boxes, 2 m apart along x, on a ground plane; `balls` balls of
// 0.2 m, one above each of the first stacks at heights 6, 9, ... m, a little off-centre.
json stacks_scene(int stacks, int balls, const json& sleep) {
  json doc = json::parse(R"({
    "format": "coulomb-scene/1",
    "time": {"dt": 0.01, "steps": 400},
    "solver": {"type": "prox-gs", "max_iterations": 50},
    "shapes": {"ground": {"type": "plane", "normal": [0, 0, 1]},
               "box": {"type": "box", "half_extents": [0.25, 0.25, 0.25]},
               "ball": {"type": "sphere", "radius": 0.2}},
    "bodies": [{"name": "ground", "shape": "ground", "fixed": true}]
  })");
  for (int s = 0; s < stacks; ++s)
    for (int k = 0; k < 3; ++k)
      doc["bodies"].push_back({{"name", "box_" + std::to_string(s) + "_" + std::to_string(k)},
                               {"shape", "box"},
                               {"position", {2.0 * s, 0.0, 0.25 + 0.5 * k}}});
  for (int b = 0; b < balls; ++b)
    doc["bodies"].push_back({{"name", "ball_" + std::to_string(b)},
                             {"shape", "ball"},
                             {"position", {2.0 * b + 0.15, 0.05, 6.0 + 3.0 * b}}});
  if (!sleep.is_null()) doc["sleep"] = sleep;
  return doc;
}

World make_world(const json& doc, int threads = 1) {
  WorldSettings settings;
  settings.threads = threads;
  return World(parse_scene(doc, "."), settings);
}

template <class T>
bool bit_identical(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0);
}

bool bit_identical(const RigidState& a, const RigidState& b) {
  return bit_identical(a.x, b.x) && bit_identical(a.q, b.q) && bit_identical(a.v, b.v) && bit_identical(a.w, b.w);
}

void step_ok(World& w) {
  const StepResult r = w.step();
  ASSERT_TRUE(r.ok()) << r.message;
}

// Steps until `count` bodies sleep; returns the step, or -1 after `max_steps`.
int step_until_asleep(World& w, int count, int max_steps) {
  for (int i = 0; i < max_steps; ++i) {
    step_ok(w);
    if (w.last_stats().sleeping == count) return w.step_count();
  }
  return -1;
}

const json kSleep = {{"time", 0.3}};

}  // namespace

TEST(Sleep, AStackAtRestFallsAsleepAfterTheTimeAndHoldsItsPosesBitForBit) {
  World w = make_world(stacks_scene(1, 0, kSleep));
  const int asleep_at = step_until_asleep(w, 3, 200);
  ASSERT_GT(asleep_at, 0) << "the stack never fell asleep";
  // not before it has rested 0.3 s (30 steps), and not long after it settled (within 1 s)
  EXPECT_GE(asleep_at, 30);
  EXPECT_LE(asleep_at, 100);
  const RigidState at_sleep = w.rigid_state();
  for (int i = 1; i <= 3; ++i) {
    EXPECT_TRUE(w.sleeping(i));
    EXPECT_TRUE(at_sleep.v[std::size_t(i)].isZero(0.0) && at_sleep.w[std::size_t(i)].isZero(0.0));
  }
  EXPECT_FALSE(w.sleeping(0));  // the fixed ground never sleeps
  for (int i = 0; i < 100; ++i) step_ok(w);
  EXPECT_TRUE(bit_identical(at_sleep, w.rigid_state()));
  EXPECT_EQ(w.last_stats().sleeping, 3);
  EXPECT_EQ(w.last_stats().contacts, 0);  // nothing left to solve
  EXPECT_EQ(w.last_stats().islands, 0);
  EXPECT_EQ(w.last_stats().kinetic_energy, 0.0);
}

TEST(Sleep, ABallThrownAtASleepingStackWakesItAndTheStackReacts) {
  // the ball flies in from the side and arrives at the top box's face after about 1 s (x: -4.45 +
  // 4 t reaches -0.45 at t = 1, z: 6.155 - g t^2 / 2 reaches 1.25, the top box's centre)
  json doc = stacks_scene(1, 1, kSleep);
  doc["bodies"].back()["position"] = {-4.45, 0.0, 6.155};
  doc["bodies"].back()["velocity"] = {4.0, 0.0, 0.0};
  World w = make_world(doc);
  const int top = w.find_body("box_0_2"), ball = w.find_body("ball_0");
  ASSERT_GT(step_until_asleep(w, 3, 100), 0) << "the stack did not fall asleep before the ball arrived";
  EXPECT_FALSE(w.sleeping(ball));
  const Vec3 top_at_sleep = w.body(top).position;
  int woke_at = -1;
  double top_speed = 0.0;
  for (int i = 0; i < 150; ++i) {
    step_ok(w);
    if (woke_at < 0 && w.last_stats().sleeping == 0) woke_at = w.step_count();
    top_speed = std::max(top_speed, w.body(top).velocity.norm());
  }
  ASSERT_GT(woke_at, 0) << "the ball did not wake the stack";
  EXPECT_GT(woke_at, 80);     // not before the ball arrived
  EXPECT_GT(top_speed, 0.5);  // the top box was knocked (the ball arrives at ~10 m/s)
  EXPECT_GT(w.body(top).position.x() - top_at_sleep.x(), 0.01);  // pushed 1.8 cm along the throw
  // the stack held: the ball never went through the boxes
  EXPECT_GT(w.body(ball).position.z(), 0.1);
}

TEST(Sleep, OffByDefaultAndAnUnreachedSleepTimeChangeNothing) {
  EXPECT_FALSE(parse_scene(stacks_scene(1, 1, nullptr), ".").sleep.enabled);
  World off = make_world(stacks_scene(2, 2, nullptr));
  World never = make_world(stacks_scene(2, 2, {{"time", 1e9}}));
  for (int i = 0; i < 150; ++i) {
    step_ok(off);
    step_ok(never);
    ASSERT_EQ(off.last_stats().sleeping, 0);
    ASSERT_TRUE(bit_identical(off.contact_impulses(), never.contact_impulses())) << "step " << i + 1;
  }
  EXPECT_TRUE(bit_identical(off.rigid_state(), never.rigid_state()));
}

TEST(Sleep, OneAndTwoThreadsGiveBitIdenticalStates) {
  // four stacks fall asleep; two balls wake two of them at different times
  World one = make_world(stacks_scene(4, 2, kSleep), 1), two = make_world(stacks_scene(4, 2, kSleep), 2);
  int asleep_before_the_balls = 0, fewest_after = 100;
  for (int i = 0; i < 220; ++i) {
    step_ok(one);
    step_ok(two);
    ASSERT_EQ(one.last_stats().sleeping, two.last_stats().sleeping) << "step " << i + 1;
    if (one.step_count() == 80) asleep_before_the_balls = one.last_stats().sleeping;
    if (one.step_count() > 80) fewest_after = std::min(fewest_after, one.last_stats().sleeping);
  }
  EXPECT_TRUE(bit_identical(one.rigid_state(), two.rigid_state()));
  EXPECT_EQ(asleep_before_the_balls, 12);  // every stack slept (the balls were still falling)
  EXPECT_LE(fewest_after, 6);              // and the balls woke two of them
}

TEST(Sleep, StateAndCheckpointJsonCarryTheSleepState) {
  World w = make_world(stacks_scene(2, 2, kSleep));
  ASSERT_GT(step_until_asleep(w, 6, 100), 0);
  const State snapshot = w.state();
  const State restored = state_from_json(json::parse(state_json(snapshot).dump()));
  EXPECT_TRUE(bit_identical(restored.sleep.timer, snapshot.sleep.timer));
  EXPECT_EQ(restored.sleep.island, snapshot.sleep.island);
  // the next 150 steps wake both stacks; the replay from the JSON state repeats them bit for bit
  std::vector<int> sleeping;
  for (int i = 0; i < 150; ++i) step_ok(w), sleeping.push_back(w.last_stats().sleeping);
  const RigidState first = w.rigid_state();
  w.set_state(restored);
  EXPECT_EQ(w.sleeping_count(), 6);
  for (int i = 0; i < 150; ++i) {
    step_ok(w);
    EXPECT_EQ(w.last_stats().sleeping, sleeping[std::size_t(i)]) << "step " << i + 1;
  }
  EXPECT_TRUE(bit_identical(first, w.rigid_state()));
}

TEST(Sleep, MovingOrPushingASleepingBodyThroughTheApiWakesItsIsland) {
  World w = make_world(stacks_scene(2, 0, kSleep));
  ASSERT_GT(step_until_asleep(w, 6, 100), 0);
  const int a0 = w.find_body("box_0_0"), b1 = w.find_body("box_1_1");
  // a velocity on one box wakes its stack, not the other one
  State s = w.state();
  s.rigid.v[std::size_t(w.find_body("box_0_2"))] = Vec3(0.5, 0, 0);
  w.set_state(s);
  EXPECT_FALSE(w.sleeping(a0));
  EXPECT_TRUE(w.sleeping(b1));
  EXPECT_EQ(w.sleeping_count(), 3);
  // a pose moved in a State of the current step wakes it too
  s = w.state();
  s.rigid.x[std::size_t(b1)].x() += 0.01;
  w.set_state(s);
  EXPECT_EQ(w.sleeping_count(), 0);
  // wake(id) wakes the body's island and says how many woke
  World v = make_world(stacks_scene(2, 0, kSleep));
  ASSERT_GT(step_until_asleep(v, 6, 100), 0);
  EXPECT_EQ(v.wake(b1), 3);
  EXPECT_EQ(v.wake(b1), 0);
  EXPECT_THROW(v.wake(-1), std::out_of_range);
}

TEST(Sleep, BadSleepSettingsAndStatesAreInputErrors) {
  const auto error_at = [](const json& doc) -> std::string {
    try {
      make_world(doc);
    } catch (const InputError& e) {
      return e.pointer();
    }
    return "no error";
  };
  EXPECT_EQ(error_at(stacks_scene(1, 0, 3)), "/sleep");
  EXPECT_EQ(error_at(stacks_scene(1, 0, {{"time", -1}})), "/sleep/time");
  EXPECT_EQ(error_at(stacks_scene(1, 0, {{"linear", 0}})), "/sleep/linear");
  EXPECT_EQ(error_at(stacks_scene(1, 0, {{"angular", "fast"}})), "/sleep/angular");
  EXPECT_EQ(error_at(stacks_scene(1, 0, {{"tme", 1}})), "/sleep/tme");
  json position = stacks_scene(1, 0, true);
  position["solver"] = {{"type", "xpbd-jacobi"}};
  EXPECT_EQ(error_at(position), "/sleep");
  // a State whose island ids make no sense
  World w = make_world(stacks_scene(1, 0, kSleep));
  State s = w.state();
  s.sleep.island[2] = 1;  // sleeps with body 1, which is awake
  EXPECT_THROW(w.set_state(s), InputError);
  s.sleep.island = {0, -1, -1, -1};  // the fixed ground cannot sleep
  EXPECT_THROW(w.set_state(s), InputError);
  s.sleep.island.resize(2);
  EXPECT_THROW(w.set_state(s), InputError);
}

}  // namespace sleep_test
