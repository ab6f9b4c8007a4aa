// Seed 003 section 10's rigid scenes (figure 14) with newton-pcr, and what the relaxation solvers
// do on the same scenes (printed; the heavy stack's failure is asserted, as the paper reports).
// COULOMB_LONG_NEWTON (long_tests) runs the arch for its full 10 s.
#include <coulomb/soft_body.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

using namespace coulomb;

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace newton_scenes_test {

namespace {

struct Outcome {
  double penetration = 0.0;  // largest contact depth over the run (m)
  double drift = 0.0;        // largest displacement of a body from its start (m)
  double newton = 0.0;       // mean solver iterations per step
  int converged = 0, steps = 0;
};

Outcome run(const std::string& scene, const std::vector<std::string>& overrides, int steps = -1) {
  SceneDef def = load_scene(std::string(COULOMB_SOURCE_DIR) + "/scenes/" + scene, overrides);
  if (steps > 0) def.steps = steps;
  World w(std::move(def));
  std::vector<Vec3> start;
  for (int i = 0; i < w.body_count(); ++i) start.push_back(w.body(i).position);
  Outcome o;
  while (w.step_count() < w.total_steps()) {
    const StepResult r = w.step();
    EXPECT_TRUE(r.ok()) << r.message;
    if (!r.ok()) break;
    o.penetration = std::max(o.penetration, w.last_stats().max_penetration);
    o.newton += w.last_stats().solver.iterations;
    o.converged += w.last_stats().solver.converged ? 1 : 0;
    ++o.steps;
  }
  for (int i = 0; i < w.body_count(); ++i) o.drift = std::max(o.drift, (w.body(i).position - start[std::size_t(i)]).norm());
  o.newton /= std::max(o.steps, 1);
  return o;
}

void print(const char* scene, const std::string& what, const Outcome& o) {
  std::printf("%s %-34s penetration %.3e m, drift %.3e m, %.1f iterations/step, converged %d/%d\n", scene, what.c_str(),
              o.penetration, o.drift, o.newton, o.converged, o.steps);
}

}  // namespace

// Masses 8 ... 32768 kg, mu 0.5, dt 10 ms, 5 s: newton-pcr keeps penetration below 1 mm and
// drift below 5 mm; the relaxation solvers sink (issue 13's table: 0.05-0.5 m).
TEST(NewtonScenes, HeavyStackStandsWhereRelaxationSinks) {
  const Outcome n = run("heavy_stack.json", {});
  print("heavy_stack", "newton-pcr", n);
  EXPECT_LT(n.penetration, 1e-3);
  EXPECT_LT(n.drift, 5e-3);
  EXPECT_EQ(n.converged, n.steps);
  for (const char* s : {"pgs", "prox-gs", "xpbd-jacobi"}) {
    const Outcome r = run("heavy_stack.json", {std::string("/solver/type=\"") + s + "\""});
    print("heavy_stack", s, r);
    EXPECT_GT(r.penetration, 10.0 * n.penetration + 1e-2) << s;
  }
}

// Figure 17: the complementarity preconditioner (eq. 66) needs fewer Newton iterations than
// identity scaling on the heavy stack; min-map and Fischer-Burmeister both keep it standing.
TEST(NewtonScenes, HeavyStackScalingsAndNcpFunctions) {
  const Outcome c = run("heavy_stack.json", {}, 200);
  print("heavy_stack", "fb, complementarity", c);
  const Outcome id = run("heavy_stack.json", {"/solver/scaling=\"identity\""}, 200);
  print("heavy_stack", "fb, identity", id);
  const Outcome mm = run("heavy_stack.json", {"/solver/ncp=\"minmap\""}, 200);
  print("heavy_stack", "minmap, complementarity", mm);
  EXPECT_LT(c.newton, id.newton);
  for (const Outcome& o : {c, id, mm}) EXPECT_LT(o.penetration, 1e-3);
}

// The self-supporting parabolic arch (masses 17-110 kg, mu 0.6) stands: 3 s here, 10 s in the
// long suite. Its crown is the body that would fall first.
TEST(NewtonScenes, ArchStands) {
#ifdef COULOMB_LONG_NEWTON
  const int steps = -1;
#else
  const int steps = 300;
#endif
  const Outcome n = run("arch.json", {}, steps);
  print("arch", "newton-pcr", n);
  EXPECT_LT(n.penetration, 1e-3);
  EXPECT_LT(n.drift, 5e-3);
#ifdef COULOMB_LONG_NEWTON
  for (const char* s : {"pgs", "prox-gs", "xpbd-jacobi"})
    print("arch", s, run("arch.json", {std::string("/solver/type=\"") + s + "\""}));
#endif
}

// Seed 003 s.10.1.2: 16 rigid links of 3 g on fixed joints of bending stiffness 250 N m sag to
// the continuous cantilever's tip deflection w L^4 / (8 EI), EI = k l (the clamp joint, half a
// link, has 2k): 2.411 mm, and the chain's own static value is (1 + 1/16^2) times that.
TEST(NewtonScenes, BeamSagsLikeTheContinuousCantilever) {
  SceneDef def = load_scene(std::string(COULOMB_SOURCE_DIR) + "/scenes/beam.json", {});
  def.steps = 100;
  World w(std::move(def));
  double worst = 0.0;
  while (w.step_count() < w.total_steps()) {
    ASSERT_TRUE(w.step().ok());
    worst = std::max(worst, w.last_stats().joint_error_linear);
  }
  const BodyState tip = w.body(w.find_body("link_15"));
  const double deflection = 1.0 - (tip.position + tip.orientation * Vec3(0.025, 0, 0)).z();
  const double l = 0.05, L = 16 * l, EI = 250.0 * l, wl = 0.003 * 9.81 / l;
  const double continuous = wl * std::pow(L, 4) / (8.0 * EI);
  std::printf("beam: tip deflection %.4f mm, continuous %.4f mm (ratio %.4f), joint error up to %.1e m\n",
              1e3 * deflection, 1e3 * continuous, deflection / continuous, worst);
  EXPECT_NEAR(deflection / continuous, 1.0, 0.05);
  EXPECT_NEAR(deflection / continuous, 1.0 + 1.0 / 256.0, 1e-3);  // the chain's exact static sag
  EXPECT_LT(worst, 1e-8);
  EXPECT_TRUE(w.last_stats().solver.converged);
}

// Sixteen compound tables (4.7 kg, mu 0.7) dropped in random orientations pile up and come to
// rest, some on others, without sinking into each other.
TEST(NewtonScenes, TablesPileUpAndRest) {
  SceneDef def = load_scene(std::string(COULOMB_SOURCE_DIR) + "/scenes/table_pile.json", {});
  World w(std::move(def));
  double penetration = 0.0;
  while (w.step_count() < w.total_steps()) {
    ASSERT_TRUE(w.step().ok());
    penetration = std::max(penetration, w.last_stats().max_penetration);
  }
  double top = 0.0;
  for (int i = 0; i < w.body_count(); ++i) top = std::max(top, w.body(i).position.z());
  std::printf("table_pile: highest table centre %.3f m, max penetration %.4f m, kinetic energy %.2e J\n", top,
              penetration, w.last_stats().kinetic_energy);
  EXPECT_GT(top, 0.4);  // a table on another (one standing on the ground has its centre at 0.185 m)
  EXPECT_LT(penetration, 0.03);
  EXPECT_LT(w.last_stats().kinetic_energy, 1e-4);
}

// Two jaws on driven prismatic joints squeeze a soft Neo-Hookean ball and a carriage lifts it
// 20 cm: friction on the deforming ball carries its weight (seed 003 s.10.1.4 in miniature).
TEST(NewtonScenes, SoftGraspLiftsTheBall) {
  SceneDef def = load_scene(std::string(COULOMB_SOURCE_DIR) + "/scenes/soft_grasp.json", {});
  World w(std::move(def));
  while (w.step_count() < w.total_steps()) ASSERT_TRUE(w.step().ok());
  const SoftBody& ball = w.soft_body(0);
  const double z = soft_centroid(ball).z(), volume = soft_volume(ball) / ball.total_rest_volume;
  const double jaw = w.body(w.find_body("jaw_left")).position.z();
  std::printf("soft_grasp: ball centroid at %.4f m (start 0.06), jaws at %.4f m, volume %.4f of rest\n", z, jaw, volume);
  EXPECT_GT(z, 0.25);                  // lifted about 20 cm with the jaws
  EXPECT_LT(std::abs(z - jaw), 0.01);  // and not slipping out of them
  EXPECT_GT(volume, 0.95);
}

// The joints through newton-pcr: the door swings to its hinge limit and stops there.
TEST(NewtonScenes, DoorStopsAtItsLimit) {
  SceneDef def = load_scene(std::string(COULOMB_SOURCE_DIR) + "/scenes/door.json", {"/solver/type=\"newton-pcr\""});
  World w(std::move(def));
  double worst = 0.0;
  while (w.step_count() < w.total_steps()) {
    ASSERT_TRUE(w.step().ok());
    worst = std::max(worst, w.last_stats().joint_error_linear);
  }
  const BodyState door = w.body(w.find_body("door"));
  const double yaw = 2.0 * std::atan2(door.orientation.z(), door.orientation.w());
  std::printf("newton-pcr: door at %.4f rad (limit 1.5), joint error up to %.1e m\n", yaw, worst);
  EXPECT_NEAR(yaw, 1.5, 3.14159 / 180.0);
  EXPECT_LT(worst, 1e-6);
}

}  // namespace newton_scenes_test
