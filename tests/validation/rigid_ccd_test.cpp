// Rigid CCD (issue 14, `collision.ccd: true`): a 2 cm ball at 200 m/s against a 2 cm static
// plate at dt = 10 ms (2 m per step, 100 times the ball's size) must not pass through it, for
// every registered solver that simulates scenes, head on and at 30 degrees.
#include <coulomb/solver.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

using namespace coulomb;

namespace {

struct Flight {
  double max_x = -1e9;  // the ball centre's largest x over the run
  double final_x = 0.0;
  bool ok = true;
};

// The plate occupies -0.01 <= x <= 0.01 (|y|, |z| <= 5: wide enough that a ball sliding along
// it at 100 m/s stays in front of it for the whole run); the ball (r = 0.01) starts -x0 m in front
// of it and flies at 200 m/s at `angle` from the normal, aimed at the plate's centre.
Flight fly(const std::string& solver, double angle, bool ccd, double x0, const std::string& integrator = "moreau") {
  const double r = 0.01, speed = 200.0;
  const double vx = speed * std::cos(angle), vy = speed * std::sin(angle);
  const double y0 = x0 * std::tan(angle);
  nlohmann::json scene = {
      {"format", "coulomb-scene/1"},
      {"gravity", {0, 0, 0}},
      {"time", {{"dt", 0.01}, {"duration", 0.04}}},
      {"integrator", integrator},
      {"solver", {{"type", solver}}},
      {"collision", {{"envelope", 0.005}, {"ccd", ccd}}},
      {"materials", {{"default", {{"density", 1000}, {"friction", 0.0}}}}},
      {"shapes", {{"plate", {{"type", "box"}, {"half_extents", {0.01, 5, 5}}}}, {"ball", {{"type", "sphere"}, {"radius", r}}}}},
      {"bodies",
       {{{"name", "plate"}, {"shape", "plate"}, {"fixed", true}},
        {{"name", "ball"}, {"shape", "ball"}, {"position", {x0, y0, 0}}, {"velocity", {vx, vy, 0}}}}}};
  World w(parse_scene(scene, "."));
  const int ball = w.find_body("ball");
  Flight run;
  while (w.step_count() < w.total_steps()) {
    run.ok &= w.step().ok();
    run.max_x = std::max(run.max_x, w.body(ball).position.x());
    if (std::getenv("COULOMB_TRACE"))
      std::printf("  step %d x %.4f y %.4f vx %.2f vy %.2f\n", w.step_count(), w.body(ball).position.x(),
                  w.body(ball).position.y(), w.body(ball).velocity.x(), w.body(ball).velocity.y());
  }
  run.final_x = w.body(ball).position.x();
  return run;
}

std::vector<std::string> scene_solvers() {
  std::vector<std::string> names;
  for (const SolverInfo& s : solver_registry())
    if (simulates_scenes(s)) names.push_back(s.name);
  return names;
}

}  // namespace

class RigidCcd : public ::testing::TestWithParam<std::string> {};

TEST_P(RigidCcd, FastBallDoesNotTunnelThroughAThinPlate) {
  const std::string solver = GetParam();
  // 1.05 m: the first detection sees the plate; 0.55 m: within Moreau's explicit half step (1 m)
  // of it, so the first detection comes after the ball has already passed (the first-step case)
  for (double x0 : {-1.05, -0.55})
  for (double angle : {0.0, 30.0 * M_PI / 180.0}) {
    const Flight with = fly(solver, angle, true, x0);
    const Flight without = fly(solver, angle, false, x0);
    std::printf("%s from x %.2f at %.0f deg: max x with ccd %.4f, without %.4f (front face -0.01, ball r 0.01)\n",
                solver.c_str(), x0, angle * 180 / M_PI, with.max_x, without.max_x);
    EXPECT_TRUE(with.ok);
    // the centre stays in front of the plate's front face (a touch of penetration allowed)
    EXPECT_LT(with.max_x, -0.01) << solver << " at " << angle;
    EXPECT_LT(with.final_x, -0.01) << solver << " at " << angle;
  }
}

TEST(RigidCcd, SemiImplicitIntegratorToo) {
  const Flight with = fly("pgs", 0.0, true, -1.05, "semi-implicit");
  EXPECT_LT(with.max_x, -0.01);
}

INSTANTIATE_TEST_SUITE_P(EverySceneSolver, RigidCcd, ::testing::ValuesIn(scene_solvers()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });
