// Newton restitution (seed 000 eq. 14): a sphere dropped from height H rebounds to e^2 H.
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>

using namespace coulomb;

namespace {

// Height of the lowest point of the sphere at the top of its first rebound: 0 if it never moves
// up again (e = 0 may leave it at rest with no upward velocity at all, or with one of rounding's
// size: either is no bounce). `rest`, if given, receives that height at the end of the run.
double first_rebound_height(double e, double H, const std::string& integrator, double dt, double* rest = nullptr) {
  const double r = 0.1;
  nlohmann::json scene = {
      {"format", "coulomb-scene/1"},
      {"time", {{"dt", dt}, {"duration", 3.0}}},
      {"integrator", integrator},
      {"solver", {{"type", "pgs"}, {"max_iterations", 50}, {"abs_tol", 1e-12}, {"rel_tol", 1e-12}}},
      {"collision", {{"envelope", 0.01}}},
      {"materials", {{"default", {{"density", 1000}, {"friction", 0.3}, {"restitution", e}}}}},
      {"shapes", {{"floor", {{"type", "plane"}, {"normal", {0, 0, 1}}, {"offset", 0}}}, {"ball", {{"type", "sphere"}, {"radius", r}}}}},
      {"bodies", {{{"name", "floor"}, {"shape", "floor"}, {"fixed", true}}, {{"name", "ball"}, {"shape", "ball"}, {"position", {0, 0, H + r}}}}}};
  World w(parse_scene(scene, "."));
  const int ball = w.find_body("ball");
  bool bounced = false;
  double top = 0.0;
  while (w.step_count() < w.total_steps()) {
    EXPECT_TRUE(w.step().ok());
    const BodyState b = w.body(ball);
    if (!bounced && b.velocity.z() > 0.0) bounced = true;
    if (bounced) {
      top = std::max(top, b.position.z() - r);
      if (b.velocity.z() < 0.0 && !rest) break;  // past the apex
    }
  }
  if (e > 0.0) {
    EXPECT_TRUE(bounced);
  }
  if (rest) *rest = w.body(ball).position.z() - r;
  return top;
}

}  // namespace

class Restitution : public ::testing::TestWithParam<std::tuple<double, std::string>> {};

TEST_P(Restitution, ReboundHeightIsESquaredH) {
  const auto& [e, integrator] = GetParam();
  const double H = 1.0;
  const double h = first_rebound_height(e, H, integrator, 0.001);
  EXPECT_NEAR(h, e * e * H, 0.02 * e * e * H) << "e = " << e << ", " << integrator;
}

INSTANTIATE_TEST_SUITE_P(CoefficientsAndIntegrators, Restitution,
                         ::testing::Combine(::testing::Values(0.5, 0.8, 1.0),
                                            ::testing::Values("moreau", "semi-implicit")));

TEST(Restitution, ZeroRestitutionDoesNotBounce) {
  double rest = 1.0;
  EXPECT_LT(first_rebound_height(0.0, 1.0, "moreau", 0.001, &rest), 1e-3);
  EXPECT_LT(std::abs(rest), 1e-3);  // it landed (from 1 m, in the 3 s run) and stays on the floor
}
