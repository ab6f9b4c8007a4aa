// The bundled joint scenes (scenes/README.md) with asserted outcomes: the door stops at its limit,
// the chain knocks the box stack, the ragdoll reaches the bottom of the stairs in one piece, in
// every solver that simulates rigid joints.
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

using namespace coulomb;

namespace {

World load(const std::string& scene, const std::string& solver, int steps = -1) {
  std::vector<std::string> overrides = {"/solver/type=" + solver};
  SceneDef def = load_scene(std::string(COULOMB_SOURCE_DIR) + "/scenes/" + scene, overrides);
  if (steps > 0) def.steps = steps;
  return World(std::move(def));
}

// runs to the end; returns the largest joint violation (m) seen at the end of any step
double run(World& w) {
  double worst = 0.0;
  while (w.step_count() < w.total_steps()) {
    const StepResult r = w.step();
    EXPECT_TRUE(r.ok()) << r.message;
    if (!r.ok()) break;
    worst = std::max(worst, w.last_stats().joint_error_linear);
  }
  return worst;
}

}  // namespace

class JointScenes : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Solvers, JointScenes, ::testing::Values("pgs", "prox-gs", "prox-jacobi", "xpbd-jacobi"));

TEST_P(JointScenes, DoorStopsAtItsLimit) {
  World w = load("door.json", GetParam());
  const double worst = run(w);
  const BodyState door = w.body(w.find_body("door"));
  const double yaw = 2.0 * std::atan2(door.orientation.z(), door.orientation.w());
  std::printf("%s: door at %.4f rad (limit 1.5), joint error up to %.1e m\n", GetParam().c_str(), yaw, worst);
  EXPECT_NEAR(yaw, 1.5, 3.14159 / 180.0);
  EXPECT_LT(worst, 1e-3);
}

TEST_P(JointScenes, RagdollTumblesDownTheStairsInOnePiece) {
  World w = load("ragdoll.json", GetParam());
  const double worst = run(w);
  const BodyState torso = w.body(w.find_body("torso"));
  std::printf("%s: torso at (%.2f, %.2f, %.2f), joint error up to %.1e m, %.1e m at the end\n", GetParam().c_str(),
              torso.position.x(), torso.position.y(), torso.position.z(), worst, w.last_stats().joint_error_linear);
  EXPECT_GT(torso.position.x(), 1.2);  // left the top step (x < 0.6) for the lower ones
  EXPECT_LT(torso.position.z(), 1.5);  // below the top step's surface
  EXPECT_LT(worst, 0.1);
  EXPECT_LT(w.last_stats().joint_error_linear, 0.01);
}

TEST(JointScenesChain, SwingsIntoTheStack) {
  World w = load("chain.json", "prox-gs");
  std::vector<Vec3> start;
  for (int k = 0; k < 5; ++k) start.push_back(w.body(w.find_body("box" + std::to_string(k))).position);
  const double worst = run(w);
  double moved = 0.0;
  for (int k = 0; k < 5; ++k) moved = std::max(moved, (w.body(w.find_body("box" + std::to_string(k))).position - start[std::size_t(k)]).norm());
  std::printf("chain: the stack moved up to %.3f m, joint error up to %.1e m\n", moved, worst);
  EXPECT_GT(moved, 0.05);
  EXPECT_LT(worst, 0.02);
}
