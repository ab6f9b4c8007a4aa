// Newton restitution (seed 000 eq. 14): a sphere dropped from height H rebounds to e^2 H.
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace coulomb;

namespace {

// Steps `w` and returns the height of the lowest point of its body "ball" (radius r) at the top
// of its first rebound, 0 if it never moves up; stops past the apex unless `whole_run`.
double first_rebound(World& w, double r, bool whole_run, bool& bounced) {
  const int ball = w.find_body("ball");
  bounced = false;
  double top = 0.0;
  while (w.step_count() < w.total_steps()) {
    EXPECT_TRUE(w.step().ok());
    const BodyState b = w.body(ball);
    if (!bounced && b.velocity.z() > 0.0) bounced = true;
    if (bounced) {
      top = std::max(top, b.position.z() - r);
      if (b.velocity.z() < 0.0 && !whole_run) break;  // past the apex
    }
  }
  return top;
}

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
  bool bounced = false;
  const double top = first_rebound(w, r, rest != nullptr, bounced);
  if (e > 0.0) {
    EXPECT_TRUE(bounced);
  }
  if (rest) *rest = w.body(w.find_body("ball")).position.z() - r;
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

// Material pair rules (collision.restitution_combine, collision.friction_combine): a bouncy ball
// on a ground of the default material (restitution 0) bounces with its own e under the default
// rule (max, as Box2D and Jolt), and every rule gives its pair value to the solver.
namespace restitution_combine_test {

// first rebound height of a ball of restitution `e_ball` dropped from H = 1 m onto a ground of
// restitution `e_ground`, under `rule` ("" = the default)
double rebound_on_ground(double e_ball, double e_ground, const std::string& rule) {
  const double r = 0.1, H = 1.0;
  nlohmann::json scene = {
      {"format", "coulomb-scene/1"},
      {"time", {{"dt", 0.001}, {"duration", 1.5}}},
      {"solver", {{"type", "pgs"}, {"max_iterations", 50}, {"abs_tol", 1e-12}, {"rel_tol", 1e-12}}},
      {"materials", {{"default", {{"density", 1000}, {"friction", 0.3}, {"restitution", e_ground}}},
                     {"bouncy", {{"density", 1000}, {"friction", 0.3}, {"restitution", e_ball}}}}},
      {"shapes", {{"floor", {{"type", "plane"}, {"normal", {0, 0, 1}}}}, {"ball", {{"type", "sphere"}, {"radius", r}}}}},
      {"bodies", {{{"name", "floor"}, {"shape", "floor"}, {"fixed", true}},
                  {{"name", "ball"}, {"shape", "ball"}, {"material", "bouncy"}, {"position", {0, 0, H + r}}}}}};
  if (!rule.empty()) scene["collision"] = {{"restitution_combine", rule}};
  World w(parse_scene(scene, "."));
  bool bounced = false;
  return first_rebound(w, r, false, bounced);
}

TEST(RestitutionCombine, ABouncyBallBouncesOnDefaultGroundToESquaredH) {
  for (double e : {0.5, 0.8}) {
    const double h = rebound_on_ground(e, 0.0, "");
    std::printf("e = %.1f on default ground: rebound %.4f m, e^2 H = %.4f m\n", e, h, e * e);
    EXPECT_NEAR(h, e * e, 0.03 * e * e) << "e = " << e;
  }
  // under the geometric mean a ground of restitution 0 takes every bounce
  EXPECT_LT(rebound_on_ground(0.8, 0.0, "geometric"), 1e-3);
}

TEST(RestitutionCombine, EachRuleReachesTheSolver) {
  const double a = 0.8, b = 0.2;
  for (const auto& [rule, e] : {std::pair<std::string, double>{"average", 0.5}, {"min", 0.2}, {"max", 0.8},
                                {"multiply", 0.16}, {"geometric", 0.4}}) {
    const double h = rebound_on_ground(a, b, rule);
    std::printf("%-9s e = %.2f: rebound %.4f m, e^2 H = %.4f m\n", rule.c_str(), e, h, e * e);
    EXPECT_NEAR(h, e * e, 0.03 * e * e + 1e-3) << rule;
  }
}

TEST(RestitutionCombine, EachRuleGivesItsPairValue) {
  EXPECT_DOUBLE_EQ(combine(CombineRule::Average, 0.8, 0.2), 0.5);
  EXPECT_DOUBLE_EQ(combine(CombineRule::Min, 0.8, 0.2), 0.2);
  EXPECT_DOUBLE_EQ(combine(CombineRule::Max, 0.8, 0.2), 0.8);
  EXPECT_DOUBLE_EQ(combine(CombineRule::Multiply, 0.8, 0.2), 0.16);
  EXPECT_DOUBLE_EQ(combine(CombineRule::Geometric, 0.8, 0.2), 0.4);
  // the pair table of a scene: materials x (friction 0.9, restitution 0.8) and y (0.1, 0.2), a
  // pair entry that gives friction only; friction by the geometric mean unless a rule is given
  for (const auto& [rule, e, mu] : {std::tuple<std::string, double, double>{"", 0.8, 0.3}, {"average", 0.5, 0.5},
                                    {"min", 0.2, 0.1}, {"max", 0.8, 0.9}, {"multiply", 0.16, 0.09}, {"geometric", 0.4, 0.3}}) {
    nlohmann::json scene = {{"format", "coulomb-scene/1"},
                            {"time", {{"dt", 0.01}, {"steps", 1}}},
                            {"materials", {{"x", {{"friction", 0.9}, {"restitution", 0.8}, {"torsional_friction", 0.04}}},
                                           {"y", {{"friction", 0.1}, {"restitution", 0.2}, {"torsional_friction", 0.01}}}}},
                            {"contact_materials", {{{"a", "x"}, {"b", "default"}, {"friction", 0.7}}}}};
    if (!rule.empty()) scene["collision"] = {{"restitution_combine", rule}, {"friction_combine", rule}};
    const SceneDef s = parse_scene(scene, ".");
    const std::vector<ContactCoefficients> table = material_pair_table(s);
    const std::size_t nm = s.materials.size(), x = 1, y = 2;  // default is material 0
    ASSERT_EQ(nm, 3u);
    EXPECT_NEAR(table[x * nm + y].restitution, e, 1e-15) << rule;
    EXPECT_NEAR(table[y * nm + x].restitution, e, 1e-15) << rule;
    EXPECT_NEAR(table[x * nm + y].mu[0], mu, 1e-15) << rule;
    EXPECT_NEAR(table[x * nm + y].mu[1], mu, 1e-15) << rule;
    EXPECT_NEAR(table[x * nm + y].mu[2], combine(s.friction_combine, 0.04, 0.01), 1e-15) << rule;
    // the entry's friction as given, its restitution by the rule over x (0.8) and default (0)
    EXPECT_DOUBLE_EQ(table[x * nm + 0].mu[0], 0.7) << rule;
    EXPECT_DOUBLE_EQ(table[x * nm + 0].restitution, combine(s.restitution_combine, 0.8, 0.0)) << rule;
  }
}

}  // namespace restitution_combine_test
