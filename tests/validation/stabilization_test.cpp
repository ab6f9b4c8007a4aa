// Stabilisation of an initial overlap: none keeps it (a velocity-level solver cannot see it),
// Baumgarte pushes it out over a few steps, post-stabilisation (seed 000 section 4.4, eq. 43-51)
// projects it out at the end of the first step, without adding velocity.
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace coulomb;

namespace {

World sunken_box(const nlohmann::json& stabilization) {
  nlohmann::json scene = {
      {"format", "coulomb-scene/1"},
      {"time", {{"dt", 0.01}, {"steps", 100}}},
      {"stabilization", stabilization},
      {"solver", {{"type", "pgs"}, {"max_iterations", 200}, {"abs_tol", 1e-12}, {"rel_tol", 1e-12}}},
      {"shapes", {{"floor", {{"type", "plane"}, {"normal", {0, 0, 1}}}}, {"cube", {{"type", "box"}, {"half_extents", {0.2, 0.2, 0.2}}}}}},
      {"bodies", {{{"name", "floor"}, {"shape", "floor"}, {"fixed", true}}, {{"name", "box"}, {"shape", "cube"}, {"position", {0, 0, 0.19}}}}}};
  return World(parse_scene(scene, "."));
}

double depth_after(World& w, int steps) {
  for (int i = 0; i < steps; ++i) EXPECT_TRUE(w.step().ok());
  return 0.2 - w.body(w.find_body("box")).position.z();
}

}  // namespace

TEST(Stabilization, NoneKeepsTheInitialOverlap) {
  World w = sunken_box({{"type", "none"}});
  EXPECT_NEAR(depth_after(w, 50), 0.01, 2e-4);
}

TEST(Stabilization, BaumgarteRemovesTheOverlapGradually) {
  World w = sunken_box({{"type", "baumgarte"}, {"beta", 0.2}});
  const double after_one = depth_after(w, 1);
  EXPECT_GT(after_one, 0.005);  // a fraction per step, not all at once
  EXPECT_LT(depth_after(w, 99), 1e-4);
}

TEST(Stabilization, PostProjectsTheOverlapOutWithoutVelocity) {
  World w = sunken_box({{"type", "post"}});
  EXPECT_LT(depth_after(w, 1), 1e-6);
  // the projection moves positions only: the box does not fly off
  EXPECT_LT(w.body(w.find_body("box")).velocity.norm(), 0.1);
  EXPECT_LT(std::abs(depth_after(w, 99)), 1e-6);
  EXPECT_LT(w.body(w.find_body("box")).velocity.norm(), 1e-6);
}
