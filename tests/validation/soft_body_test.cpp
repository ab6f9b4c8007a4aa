// Soft bodies with xpbd-jacobi against closed forms and the claims of seeds 002 and 003:
// cantilever deflection (Euler-Bernoulli), volume under large stretch (seed 003 figure 13),
// Rayleigh damping (seed 002 figure 10), a soft cube resting under its weight, and the bundled
// soft scenes (box on torus, seed 002 figure 7; ball drop; soft stack).
#include <coulomb/position_problem.h>
#include <coulomb/soft_body.h>
#include <coulomb/solver.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

using namespace coulomb;

namespace {

const std::string kScenes = std::string(COULOMB_SOURCE_DIR) + "/scenes/";

World load(const std::string& file, const std::vector<std::string>& overrides = {}) {
  return World(load_scene(kScenes + file, overrides));
}

void run(World& w) {
  while (w.step_count() < w.total_steps()) {
    const StepResult r = w.step();
    ASSERT_TRUE(r.ok()) << r.message;
  }
}

// lowest point of the beam's free end (x = +0.5) relative to its rest height
double tip_deflection(const SoftBody& b) {
  double sum = 0.0;
  int n = 0;
  for (std::size_t i = 0; i < b.x.size(); ++i)
    if (b.mesh.rest[i].x() > 0.499) {
      sum += b.x[i].z() - b.mesh.rest[i].z();
      ++n;
    }
  return -sum / n;
}

}  // namespace

// Euler-Bernoulli: delta = q L^4 / (8 E I) with q = rho g A, I = b h^3 / 12 (scenes/cantilever.json).
TEST(Cantilever, TipDeflectionMatchesEulerBernoulliOnAConvergedMesh) {
  const double rho = 1000, g = 9.81, E = 1e8, L = 1.0, b = 0.1, h = 0.1;
  const double expected = rho * g * b * h * std::pow(L, 4) / (8.0 * E * b * h * h * h / 12.0);
  std::vector<double> tips;
  for (const char* res : {"[10,1,1]", "[20,2,2]", "[40,4,4]"}) {
    World w = load("cantilever.json", {std::string("/soft_bodies/0/mesh/resolution=") + res,
                                       "/time/duration=1.5"});
    run(w);
    tips.push_back(tip_deflection(w.soft_body(0)));
    std::printf("cantilever %s: tip %.3f mm (Euler-Bernoulli %.3f mm, ratio %.3f)\n", res, 1e3 * tips.back(),
                1e3 * expected, tips.back() / expected);
  }
  // converging: each refinement changes the tip less than the one before
  EXPECT_LT(std::abs(tips[2] - tips[1]), std::abs(tips[1] - tips[0]));
  EXPECT_NEAR(tips[2], expected, 0.10 * expected);
}

// Seed 003 figure 13 / s.10.1.6: stretched to 1.5x, stable Neo-Hookean keeps its volume, the
// linear and corotational models lose it (nu = 0.48). Quasi-static: the bar's end vertices are
// held at 1.5x their rest x and the solver runs implicit steps from rest until it settles.
TEST(Stretch, NeoHookeanKeepsVolumeWhereLinearModelsLoseIt) {
  const double young = 1e5, nu = 0.48;
  const auto middle_volume_ratio = [&](MaterialModel model) {
    TetMesh mesh = box_tet_mesh(Vec3(0.5, 0.05, 0.05), {20, 2, 2});
    std::vector<std::uint8_t> pinned(mesh.rest.size(), 0);
    for (std::size_t i = 0; i < mesh.rest.size(); ++i) pinned[i] = std::abs(mesh.rest[i].x()) > 0.499;
    Lame lame = lame_from_young(young, nu);
    if (model == MaterialModel::NeoHookean) lame = stable_neo_hookean_lame(lame);
    SoftBody body = make_soft_body("bar", 0, model, lame, 0.0, mesh, 1000.0, Vec3::Zero(), pinned);
    PositionProblem p;
    p.dt = 0.01;
    p.p_inv_mass = body.inv_mass;
    for (const Vec3& x : body.x) p.px.push_back(Vec3(1.5 * x.x(), x.y(), x.z()));
    p.pv.assign(p.px.size(), Vec3::Zero());
    p.materials = {PbdMaterial{model, lame, 0.0}};
    for (std::size_t t = 0; t < body.mesh.tets.size(); ++t)
      p.elements.push_back(PbdElement{body.mesh.tets[t], body.Dm_inv[t], body.rest_volume[t], 0});
    SolverOptions o;
    o.gauss_seidel = true;
    o.max_iterations = 50;
    o.abs_tol = o.rel_tol = 0.0;
    for (int step = 0; step < 200; ++step) {
      find_solver("xpbd-jacobi")->solve_position(p, o);
      std::fill(p.pv.begin(), p.pv.end(), Vec3::Zero());  // quasi-static: restart each step from rest
    }
    double v = 0.0, v0 = 0.0;
    for (std::size_t t = 0; t < body.mesh.tets.size(); ++t) {
      const auto& T = body.mesh.tets[t];
      const Vec3 c = 0.25 * (mesh.rest[std::size_t(T[0])] + mesh.rest[std::size_t(T[1])] + mesh.rest[std::size_t(T[2])] +
                             mesh.rest[std::size_t(T[3])]);
      if (std::abs(c.x()) > 0.25) continue;  // away from the clamped ends
      v += signed_volume(p.px[std::size_t(T[0])], p.px[std::size_t(T[1])], p.px[std::size_t(T[2])], p.px[std::size_t(T[3])]);
      v0 += body.rest_volume[t];
    }
    std::printf("stretch 1.5x, %s: volume ratio %.4f\n", material_model_name(model), v / v0);
    return v / v0;
  };
  EXPECT_NEAR(middle_volume_ratio(MaterialModel::NeoHookean), 1.0, 0.05);
  EXPECT_LT(middle_volume_ratio(MaterialModel::Linear), 0.95);
  EXPECT_LT(middle_volume_ratio(MaterialModel::Corotational), 0.95);
}

// Seed 002 figure 10: Rayleigh damping along the constraint directions (eq. 19-21) makes a
// hanging beam's kinetic energy die out faster than without it.
TEST(Damping, RayleighDampingRemovesKineticEnergyFaster) {
  const auto late_kinetic_energy = [](double rho) {
    World w = load("cantilever.json", {"/materials/beam/damping=" + std::to_string(rho), "/time/duration=1.0",
                                       "/materials/beam/young=1e6", "/soft_bodies/0/mesh/resolution=[10,1,1]"});
    double sum = 0.0;
    while (w.step_count() < w.total_steps()) {
      EXPECT_TRUE(w.step().ok());
      if (w.time() > 0.5) sum += w.last_stats().kinetic_energy;
    }
    return sum;
  };
  const double undamped = late_kinetic_energy(0.0), damped = late_kinetic_energy(0.02);
  std::printf("kinetic energy summed over 0.5-1 s: rho = 0: %.4g J, rho = 0.02 s: %.4g J\n", undamped, damped);
  EXPECT_LT(damped, 0.2 * undamped);
}

// A soft cube resting on the ground under its own weight: no inverted tet, volume within 2%.
TEST(SoftCube, RestsOnTheGroundKeepingItsVolume) {
  nlohmann::json scene = {
      {"format", "coulomb-scene/1"},
      {"time", {{"dt", 0.005}, {"duration", 1.5}}},
      {"solver", {{"type", "xpbd-jacobi"}, {"max_iterations", 30}}},
      {"materials", {{"default", {{"density", 1000}, {"friction", 0.5}}},
                     {"gel", {{"density", 1000}, {"young", 2e5}, {"poisson", 0.3}, {"model", "corotational"}, {"damping", 0.005}}}}},
      {"shapes", {{"ground", {{"type", "plane"}, {"normal", {0, 0, 1}}}}}},
      {"bodies", {{{"name", "ground"}, {"shape", "ground"}, {"fixed", true}}}},
      {"soft_bodies", {{{"name", "cube"}, {"material", "gel"}, {"position", {0, 0, 0.1005}},
                        {"mesh", {{"type", "box"}, {"half_extents", {0.1, 0.1, 0.1}}, {"resolution", {4, 4, 4}}}}}}}};
  World w(parse_scene(scene, "."));
  run(w);
  const SoftBody& b = w.soft_body(0);
  EXPECT_GT(soft_min_tet_volume(b), 0.0);
  EXPECT_NEAR(soft_volume(b) / b.total_rest_volume, 1.0, 0.02);
  EXPECT_NEAR(soft_centroid(b).z(), 0.1, 0.01);  // resting on the ground, slightly squashed
  EXPECT_LT(w.last_stats().kinetic_energy, 1e-3);
  std::printf("soft cube: volume ratio %.4f, min tet volume %.3g m^3, centroid z %.4f m\n",
              soft_volume(b) / b.total_rest_volume, soft_min_tet_volume(b), soft_centroid(b).z());
}

// Seed 002 figure 7, scenes/box_on_torus.json: on a 10 degree slope with mu = 0.3 the box stays put.
TEST(BoxOnTorus, BoxStaysPut) {
  World w = load("box_on_torus.json");
  const int box = w.find_body("box");
  // settle for 0.5 s, then measure the sliding over the remaining 2.5 s and over the whole run
  const Vec3 start = w.body(box).position;
  Vec3 settled = start;
  while (w.step_count() < w.total_steps()) {
    ASSERT_TRUE(w.step().ok());
    if (w.step_count() == 50) settled = w.body(box).position;
  }
  const Vec3 end = w.body(box).position;
  const double slide = std::hypot(end.x() - start.x(), end.y() - start.y());
  std::printf("box on torus: slid %.2f mm in 3 s (%.2f mm after settling), torus min tet volume %.3g m^3\n",
              1e3 * slide, 1e3 * std::hypot(end.x() - settled.x(), end.y() - settled.y()),
              soft_min_tet_volume(w.soft_body(0)));
  EXPECT_LT(slide, 0.01);
  EXPECT_GT(end.z(), 0.15);  // still on top of the torus
  EXPECT_GT(soft_min_tet_volume(w.soft_body(0)), 0.0);
}

TEST(SoftBallDrop, BallBouncesAndComesToRestRound) {
  World w = load("soft_ball_drop.json");
  double lowest = 1.0;
  while (w.step_count() < w.total_steps()) {
    ASSERT_TRUE(w.step().ok());
    lowest = std::min(lowest, soft_centroid(w.soft_body(0)).z());
  }
  const SoftBody& b = w.soft_body(0);
  std::printf("ball: lowest centroid %.4f m, final %.4f m, volume ratio %.4f\n", lowest, soft_centroid(b).z(),
              soft_volume(b) / b.total_rest_volume);
  EXPECT_LT(lowest, 0.1);                        // squashed at impact
  EXPECT_NEAR(soft_centroid(b).z(), 0.1, 0.02);  // resting on the ground
  EXPECT_NEAR(soft_volume(b) / b.total_rest_volume, 1.0, 0.03);
  EXPECT_GT(soft_min_tet_volume(b), 0.0);
  for (const Vec3& x : b.x) EXPECT_GT(x.z(), -0.005);  // no vertex through the ground
}

TEST(SoftStack, StandsOnTheGround) {
  World w = load("soft_stack.json");
  run(w);
  const BodyState top = w.body(w.find_body("rigid_2"));
  std::printf("soft stack: top box at z = %.4f m, offset %.2f mm\n", top.position.z(),
              1e3 * std::hypot(top.position.x(), top.position.y()));
  EXPECT_GT(top.position.z(), 0.5);  // the stack carries it (rest: 0.64 m minus the squash)
  EXPECT_LT(std::hypot(top.position.x(), top.position.y()), 0.01);
  EXPECT_LT(w.last_stats().kinetic_energy, 1e-2);
  for (int i = 0; i < w.soft_body_count(); ++i) EXPECT_GT(soft_min_tet_volume(w.soft_body(i)), 0.0);
}
