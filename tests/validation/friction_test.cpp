// Friction against closed forms (seed 002 section 7 sliding box; incline stick/slip; seed 000
// eq. 15b Coulomb-Contensou torsion): prox-gs is exact to the Coulomb cone in every direction,
// pgs's box friction is not.
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

using namespace coulomb;

namespace {

constexpr double g = 9.81;

nlohmann::json box_scene(const std::string& solver, const Vec3& gravity, const Vec3& v0, double mu, double duration) {
  return {{"format", "coulomb-scene/1"},
          {"gravity", {gravity.x(), gravity.y(), gravity.z()}},
          {"time", {{"dt", 0.01}, {"duration", duration}}},
          {"solver", {{"type", solver}, {"max_iterations", 200}, {"abs_tol", 1e-10}, {"rel_tol", 1e-10}}},
          {"materials", {{"default", {{"density", 1000}, {"friction", mu}}}}},
          {"shapes", {{"floor", {{"type", "plane"}, {"normal", {0, 0, 1}}}}, {"cube", {{"type", "box"}, {"half_extents", {0.5, 0.5, 0.5}}}}}},
          {"bodies",
           {{{"name", "floor"}, {"shape", "floor"}, {"fixed", true}},
            {{"name", "box"}, {"shape", "cube"}, {"position", {0, 0, 0.5}}, {"velocity", {v0.x(), v0.y(), v0.z()}}}}}};
}

// distance slid until the box stops (or the run ends)
double slide_distance(const std::string& solver, const Vec3& v0, double mu) {
  World w(parse_scene(box_scene(solver, Vec3(0, 0, -g), v0, mu, 6.0), "."));
  while (w.step_count() < w.total_steps()) EXPECT_TRUE(w.step().ok());
  const BodyState b = w.body(1);
  EXPECT_LT(b.velocity.norm(), 1e-6);
  return std::hypot(b.position.x(), b.position.y());
}

}  // namespace

TEST(SlidingBox, StopsAfterTheCoulombDistanceAlongAnAxisAndTheDiagonal) {
  const double d = 25.0 / (2.0 * 0.1 * g);  // v0^2 / (2 mu g) = 12.742 m
  EXPECT_NEAR(slide_distance("prox-gs", Vec3(5, 0, 0), 0.1), d, 0.01 * d);
  EXPECT_NEAR(slide_distance("prox-gs", Vec3(5, 5, 0) / std::sqrt(2.0), 0.1), d, 0.01 * d);  // isotropy
  EXPECT_NEAR(slide_distance("prox-jacobi", Vec3(5, 5, 0) / std::sqrt(2.0), 0.1), d, 0.01 * d);
  // seed 002 section 7: the position-level smooth cone is isotropic too
  EXPECT_NEAR(slide_distance("xpbd-jacobi", Vec3(5, 0, 0), 0.1), d, 0.01 * d);
  EXPECT_NEAR(slide_distance("xpbd-jacobi", Vec3(5, 5, 0) / std::sqrt(2.0), 0.1), d, 0.01 * d);
}

TEST(SlidingBox, BoxFrictionOfPgsStopsShortOnTheDiagonal) {
  // pgs bounds each tangent by mu lambda_n separately (an outer approximation of the cone): along
  // an axis it is exact, along the diagonal the friction is sqrt(2) mu lambda_n and the box stops
  // after 1/sqrt(2) of the Coulomb distance
  const double d = 25.0 / (2.0 * 0.1 * g);
  EXPECT_NEAR(slide_distance("pgs", Vec3(5, 0, 0), 0.1), d, 0.01 * d);
  EXPECT_NEAR(slide_distance("pgs", Vec3(5, 5, 0) / std::sqrt(2.0), 0.1), d / std::sqrt(2.0), 0.01 * d);
}

class Incline : public ::testing::TestWithParam<std::string> {};

TEST_P(Incline, SticksBelowTheFrictionAngle) {
  // 20 degrees, mu = 0.5 (tan 20 = 0.36 < 0.5): gravity tilted instead of the plane
  const double th = 20.0 * M_PI / 180.0;
  World w(parse_scene(box_scene(GetParam(), Vec3(-g * std::sin(th), 0, -g * std::cos(th)), Vec3::Zero(), 0.5, 2.0), "."));
  while (w.step_count() < w.total_steps()) ASSERT_TRUE(w.step().ok());
  EXPECT_LT(std::abs(w.body(1).position.x()), 1e-3);
}

TEST_P(Incline, SlidesWithTheCoulombAcceleration) {
  // 30 degrees, mu = 0.3: a = g (sin - mu cos) = 2.356 m/s^2; x(t) = a t^2 / 2
  const double th = 30.0 * M_PI / 180.0, a = g * (std::sin(th) - 0.3 * std::cos(th));
  World w(parse_scene(box_scene(GetParam(), Vec3(-g * std::sin(th), 0, -g * std::cos(th)), Vec3::Zero(), 0.3, 2.0), "."));
  while (w.step_count() < w.total_steps()) ASSERT_TRUE(w.step().ok());
  EXPECT_NEAR(-w.body(1).position.x(), 0.5 * a * 4.0, 0.02 * 0.5 * a * 4.0);
  EXPECT_NEAR(-w.body(1).velocity.x(), a * 2.0, 0.02 * a * 2.0);
}

INSTANTIATE_TEST_SUITE_P(Solvers, Incline, ::testing::Values("prox-gs", "prox-jacobi", "pgs", "xpbd-jacobi"));

namespace {

// angular velocity about z of a ball spinning on the floor after `t` seconds
double spin_after(double torsional, double t) {
  nlohmann::json scene = {
      {"format", "coulomb-scene/1"},
      {"time", {{"dt", 0.005}, {"duration", t}}},
      {"solver", {{"type", "prox-gs"}, {"max_iterations", 200}, {"abs_tol", 1e-12}, {"rel_tol", 1e-12}}},
      {"materials", {{"default", {{"density", 1000}, {"friction", 0.5}, {"torsional_friction", torsional}}}}},
      {"shapes", {{"floor", {{"type", "plane"}, {"normal", {0, 0, 1}}}}, {"ball", {{"type", "sphere"}, {"radius", 0.1}}}}},
      {"bodies", {{{"name", "floor"}, {"shape", "floor"}, {"fixed", true}},
                  {{"name", "ball"}, {"shape", "ball"}, {"position", {0, 0, 0.1}}, {"angular_velocity", {0, 0, 10}}}}}};
  World w(parse_scene(scene, "."));
  while (w.step_count() < w.total_steps()) EXPECT_TRUE(w.step().ok());
  return w.body(1).angular_velocity.z();
}

}  // namespace

TEST(TorsionalFriction, SpinDecaysAtTheContensouRateAndStops) {
  // a ball is a single contact point, the case the Coulomb-Contensou ellipsoid models: the spin
  // torque is mu_tau lambda_n, so omega drops at mu_tau m g / I = mu_tau g / (0.4 r^2) = 24.5 rad/s^2
  const double alpha = 0.01 * g / (0.4 * 0.01);
  EXPECT_NEAR(spin_after(0.01, 0.2), 10.0 - 0.2 * alpha, 0.02 * (10.0 - 0.2 * alpha));
  EXPECT_NEAR(spin_after(0.01, 1.0), 0.0, 1e-6);
}

TEST(TorsionalFriction, WithoutItTheBallKeepsSpinning) {
  EXPECT_NEAR(spin_after(0.0, 2.0), 10.0, 0.01 * 10.0);
}
