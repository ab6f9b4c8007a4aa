// Rigid joints against closed forms, in every solver that simulates them (pgs, prox-gs,
// prox-jacobi: joint rows beside the contacts; xpbd-jacobi: joint blocks at position level):
// pendulum periods, double-pendulum energy drift, a hinge limit, a prismatic slider on an incline,
// a hanging chain, and a heavy chain end.
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numbers>

using namespace coulomb;

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace joints_test {
using Json = nlohmann::json;

namespace {

constexpr double g = 9.81;
const std::vector<std::string> kSolvers = {"pgs", "prox-gs", "prox-jacobi", "xpbd-jacobi", "newton-pcr"};

Json vec(const Vec3& v) { return {v.x(), v.y(), v.z()}; }
Json quat(const Quat& q) { return {q.w(), q.x(), q.y(), q.z()}; }

Json scene(const std::string& solver, double dt, double duration, Json shapes, Json bodies, Json joints,
           const std::string& integrator = "moreau", int iterations = 100) {
  return {{"format", "coulomb-scene/1"},
          {"gravity", {0, 0, -g}},
          {"time", {{"dt", dt}, {"duration", duration}}},
          {"integrator", integrator},
          {"solver", {{"type", solver}, {"max_iterations", iterations}, {"abs_tol", 1e-10}, {"rel_tol", 1e-10}}},
          {"shapes", shapes},
          {"bodies", bodies},
          {"joints", joints}};
}

World make(const Json& j) { return World(parse_scene(j, ".")); }

// The period of a signal from its upward zero crossings (linear interpolation), averaged.
double period(const std::vector<double>& t, const std::vector<double>& x) {
  std::vector<double> up;
  for (std::size_t i = 1; i < x.size(); ++i)
    if (x[i - 1] < 0.0 && x[i] >= 0.0) up.push_back(t[i - 1] + (t[i] - t[i - 1]) * (-x[i - 1]) / (x[i] - x[i - 1]));
  if (up.size() < 2) return 0.0;
  return (up.back() - up.front()) / double(up.size() - 1);
}

// A pendulum released from theta0 about the y axis through the origin; returns the measured period.
// rod = false: a 1 kg bob of radius r on a ball joint at distance L; rod = true: a thin rod of
// length L on a hinge at its end.
double pendulum_period(const std::string& solver, bool rod, double L, double theta0) {
  const Quat q(Eigen::AngleAxisd(theta0, Vec3::UnitY()));
  const Vec3 centre = q * Vec3(0, 0, rod ? -L / 2 : -L);
  Json shapes = {{"bob", {{"type", "sphere"}, {"radius", 0.01}}},
                 {"rod", {{"type", "box"}, {"half_extents", {0.005, 0.005, L / 2}}}}};
  Json body = {{"name", "p"}, {"shape", rod ? "rod" : "bob"}, {"position", vec(centre)}, {"orientation", quat(q)}};
  if (!rod) body["mass"] = 1.0;
  Json joint = {{"type", rod ? "hinge" : "ball"}, {"a", "p"}, {"b", nullptr}, {"anchor", {0, 0, 0}}};
  if (rod) joint["axis"] = {0, 1, 0};
  World w = make(scene(solver, 0.002, 6.0, shapes, Json::array({body}), Json::array({joint})));
  std::vector<double> t, x;
  while (w.step_count() < w.total_steps()) {
    EXPECT_TRUE(w.step().ok());
    t.push_back(w.time());
    x.push_back(w.body(0).position.x());
  }
  return period(t, x);
}

}  // namespace

class JointSolver : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Solvers, JointSolver, ::testing::ValuesIn(kSolvers));

// 2 pi sqrt(L / g) for a point mass (the bob's own inertia, 2/5 m r^2, shifts it by 1e-6), and
// 2 pi sqrt(2 L / (3 g)) for a thin rod about its end; theta0 = 0.05 adds theta0^2 / 16 = 0.016%.
TEST_P(JointSolver, PendulumPeriodsMatchTheSmallAngleFormulas) {
  const double L = 1.0;
  const double point = 2.0 * std::numbers::pi * std::sqrt(L / g);
  const double rod = 2.0 * std::numbers::pi * std::sqrt(2.0 * L / (3.0 * g));
  const double tp = pendulum_period(GetParam(), false, L, 0.05);
  const double tr = pendulum_period(GetParam(), true, L, 0.05);
  std::printf("%s: point mass %.5f s (exact %.5f, %+.3f%%), rod %.5f s (exact %.5f, %+.3f%%)\n", GetParam().c_str(), tp,
              point, 100.0 * (tp / point - 1.0), tr, rod, 100.0 * (tr / rod - 1.0));
  EXPECT_NEAR(tp, point, 0.005 * point);
  EXPECT_NEAR(tr, rod, 0.005 * rod);
}

// Two 1 m rods on hinges released horizontal: a chaotic motion whose energy the integrator
// should keep. Measured drift bounds, per integrator (solvers/README.md "Joints").
TEST(DoublePendulum, EnergyDriftStaysWithinTheStatedBoundPerIntegrator) {
  struct Case {
    std::string solver, integrator;
    double bound;  // |E(t) - E(0)| / (m g L) over 10 s
  };
  const std::vector<Case> cases = {{"prox-gs", "moreau", 0.02},
                                   {"pgs", "moreau", 0.02},
                                   {"prox-gs", "implicit-euler", 0.6},
                                   // implicit Euler at position level dissipates (measured 0.75)
                                   {"xpbd-jacobi", "moreau", 0.8}};
  for (const Case& c : cases) {
    Json shapes = {{"rod", {{"type", "box"}, {"half_extents", {0.5, 0.02, 0.02}}}}};
    Json bodies = Json::array({{{"name", "r1"}, {"shape", "rod"}, {"position", {0.5, 0, 0}}},
                               {{"name", "r2"}, {"shape", "rod"}, {"position", {1.5, 0, 0}}}});
    Json joints = Json::array({{{"type", "hinge"}, {"a", "r1"}, {"b", nullptr}, {"anchor", {0, 0, 0}}, {"axis", {0, 1, 0}}},
                               {{"type", "hinge"}, {"a", "r2"}, {"b", "r1"}, {"anchor", {1, 0, 0}}, {"axis", {0, 1, 0}}}});
    World w = make(scene(c.solver, 0.002, 10.0, shapes, bodies, joints, c.integrator, 200));
    const double m = w.body(0).mass;
    const auto energy = [&] { return w.last_stats().kinetic_energy + w.last_stats().potential_energy; };
    ASSERT_TRUE(w.step().ok());
    const double e0 = energy();
    double drift = 0.0, joint = 0.0;
    while (w.step_count() < w.total_steps()) {
      ASSERT_TRUE(w.step().ok());
      drift = std::max(drift, std::abs(energy() - e0) / (m * g * 1.0));
      joint = std::max(joint, w.last_stats().joint_error_linear);
    }
    std::printf("%s + %s: energy drift %.4f m g L, joint error %.2e m\n", c.solver.c_str(), c.integrator.c_str(), drift, joint);
    EXPECT_LT(drift, c.bound) << c.solver << " " << c.integrator;
    EXPECT_LT(joint, 1e-3);
  }
}

// A horizontal flap hinged at its edge falls under gravity and must come to rest on its limit.
TEST_P(JointSolver, HingeLimitStopsTheDoorAtTheLimit) {
  const double limit = 0.6;  // rad
  Json shapes = {{"door", {{"type", "box"}, {"half_extents", {0.5, 0.4, 0.02}}}}};
  Json bodies = Json::array({{{"name", "door"}, {"shape", "door"}, {"position", {0.5, 0, 0}}}});
  // rotation about +y takes +x towards -z: gravity turns the flap the positive way
  Json joints = Json::array({{{"type", "hinge"}, {"a", "door"}, {"b", nullptr}, {"anchor", {0, 0, 0}},
                              {"axis", {0, 1, 0}}, {"limits", {-1.0, limit}}}});
  World w = make(scene(GetParam(), 0.005, 3.0, shapes, bodies, joints));
  double worst = 0.0;
  while (w.step_count() < w.total_steps()) {
    ASSERT_TRUE(w.step().ok());
    const Vec3 x = w.body(0).position;
    const double angle = std::atan2(-x.z(), x.x());
    worst = std::max(worst, angle - limit);
  }
  const Vec3 x = w.body(0).position;
  const double angle = std::atan2(-x.z(), x.x());
  std::printf("%s: rest angle %.4f rad (limit %.4f), largest overshoot %.4f rad\n", GetParam().c_str(), angle, limit, worst);
  EXPECT_NEAR(angle, limit, std::numbers::pi / 180.0);
  EXPECT_LT(worst, std::numbers::pi / 180.0);
  EXPECT_LT(w.body(0).angular_velocity.norm(), 0.05);
}

// A slider on a frictionless prismatic joint along an incline of 30 degrees: s = g sin(theta) t^2 / 2.
TEST_P(JointSolver, PrismaticSliderAcceleratesAtGSinTheta) {
  const double theta = std::numbers::pi / 6.0;
  const Vec3 axis(std::cos(theta), 0.0, -std::sin(theta));
  Json shapes = {{"slider", {{"type", "box"}, {"half_extents", {0.1, 0.1, 0.1}}}}};
  Json bodies = Json::array({{{"name", "s"}, {"shape", "slider"}, {"position", {0, 0, 0}}}});
  Json joints = Json::array({{{"type", "prismatic"}, {"a", "s"}, {"b", nullptr}, {"axis", vec(axis)}}});
  World w = make(scene(GetParam(), 0.005, 1.0, shapes, bodies, joints));
  while (w.step_count() < w.total_steps()) ASSERT_TRUE(w.step().ok());
  const double t = w.time();
  const Vec3 x = w.body(0).position;
  const double a = 2.0 * x.dot(axis) / (t * t);
  std::printf("%s: a = %.5f m/s^2 (g sin theta = %.5f), off-axis %.2e m\n", GetParam().c_str(), a, g * std::sin(theta),
              (x - x.dot(axis) * axis).norm());
  EXPECT_NEAR(a, g * std::sin(theta), 0.01 * g * std::sin(theta));
  EXPECT_LT((x - x.dot(axis) * axis).norm(), 1e-4);
  EXPECT_LT(w.body(0).angular_velocity.norm(), 1e-6);
}

// A prismatic drive along x moves a box on a schedule (0 until 0.2 s, then 0.3 m by 0.7 s, held),
// and a hinge drive turns a rod to 0.5 rad: both reach their targets and the drives do not count
// as joint error.
TEST_P(JointSolver, DrivesFollowTheirSchedules) {
  Json shapes = {{"box", {{"type", "box"}, {"half_extents", {0.1, 0.1, 0.1}}}},
                 {"rod", {{"type", "box"}, {"half_extents", {0.25, 0.02, 0.02}}}}};
  Json bodies = Json::array({{{"name", "s"}, {"shape", "box"}, {"position", {0, 0, 0}}},
                             {{"name", "r"}, {"shape", "rod"}, {"position", {0.25, 2, 0}}}});
  Json joints = Json::array(
      {{{"type", "prismatic"}, {"a", "s"}, {"b", nullptr}, {"axis", {1, 0, 0}},
        {"drive", {{"target", {{0.2, 0.0}, {0.7, 0.3}}}}}},
       {{"type", "hinge"}, {"a", "r"}, {"b", nullptr}, {"anchor", {0, 2, 0}}, {"axis", {0, 0, 1}},
        {"drive", {{"target", {{0.0, 0.0}, {0.5, 0.5}}}}}}});
  World w = make(scene(GetParam(), 0.005, 1.0, shapes, bodies, joints));
  double mid = 0.0, worst = 0.0;
  while (w.step_count() < w.total_steps()) {
    ASSERT_TRUE(w.step().ok());
    if (w.step_count() == 90) mid = w.body(0).position.x();  // t = 0.45 s: halfway, 0.15 m
    worst = std::max(worst, w.last_stats().joint_error_linear);
  }
  const Quat q = w.body(1).orientation;
  const double angle = 2.0 * std::atan2(q.z(), q.w());
  std::printf("%s: slide %.5f m at 0.45 s (0.15), %.5f m at 1 s (0.3); hinge %.5f rad (0.5)\n", GetParam().c_str(), mid,
              w.body(0).position.x(), angle);
  EXPECT_NEAR(mid, 0.15, 2e-3);
  EXPECT_NEAR(w.body(0).position.x(), 0.3, 1e-3);
  EXPECT_NEAR(std::abs(angle), 0.5, 2e-3);
  EXPECT_LT(worst, 1e-3);
}

namespace {

// n links of 0.1 m on ball joints, hanging from the world at the origin, released horizontal
// along x; the last link has `end_mass` times a link's mass.
Json chain(const std::string& solver, int n, double end_mass, double duration, int iterations) {
  Json shapes = {{"link", {{"type", "capsule"}, {"radius", 0.02}, {"half_height", 0.03}}}};
  Json bodies = Json::array(), joints = Json::array();
  const Quat along_x(Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitY()));
  for (int i = 0; i < n; ++i) {
    const std::string name = "link" + std::to_string(i);
    Json b = {{"name", name}, {"shape", "link"}, {"position", {0.05 + 0.1 * i, 0, 0}}, {"orientation", quat(along_x)}};
    if (i + 1 == n && end_mass != 1.0) b["mass"] = end_mass * 1000.0 * std::numbers::pi * 0.02 * 0.02 * (0.06 + 4.0 / 3.0 * 0.02);
    bodies.push_back(b);
    joints.push_back({{"type", "ball"}, {"a", name}, {"b", i == 0 ? Json(nullptr) : Json("link" + std::to_string(i - 1))},
                      {"anchor", {0.1 * i, 0, 0}}});
  }
  return scene(solver, 0.005, duration, shapes, bodies, joints, "moreau", iterations);
}

}  // namespace

TEST_P(JointSolver, ThirtyLinkChainStaysConnected) {
  World w = make(chain(GetParam(), 30, 1.0, 10.0, 100));
  double worst = 0.0;
  while (w.step_count() < w.total_steps()) {
    const StepResult r = w.step();
    ASSERT_TRUE(r.ok()) << r.message;
    worst = std::max(worst, w.last_stats().joint_error_linear);
  }
  std::printf("%s: joint error %.2e m at 10 s, largest %.2e m\n", GetParam().c_str(), w.last_stats().joint_error_linear, worst);
  EXPECT_LT(w.last_stats().joint_error_linear, 1e-3);
}

// A 10-link chain with a 100x heavier end: what each solver does is reported (solvers/README.md).
// Relaxation on velocity rows does not converge in 100 sweeps at this mass ratio (the case seed
// 003's Newton method is for) and the chain stretches until the step's health check stops the run
// naming a torn joint (coulomb/health.h); xpbd-jacobi's position-level joint blocks and newton-pcr
// hold it within 1 mm.
TEST_P(JointSolver, HeavyChainEndIsReported) {
  World w = make(chain(GetParam(), 10, 100.0, 3.0, 100));
  double worst = 0.0;
  int converged = 0;
  StepResult failed;
  while (w.step_count() < w.total_steps()) {
    failed = w.step();
    if (!failed.ok()) break;
    worst = std::max(worst, w.last_stats().joint_error_linear);
    converged += w.last_stats().solver.converged ? 1 : 0;
  }
  std::printf("%s, mass ratio 100: largest joint error %.2e m, converged in %d of %d steps%s%s\n", GetParam().c_str(), worst,
              converged, w.step_count(), failed.ok() ? "" : ", stopped: ", failed.message.c_str());
  if (GetParam() == "xpbd-jacobi" || GetParam() == "newton-pcr") {
    EXPECT_TRUE(failed.ok()) << failed.message;
    EXPECT_LT(worst, 1e-3);
  } else if (!failed.ok()) {
    EXPECT_EQ(failed.status, StepResult::Status::InvalidState);
    EXPECT_NE(failed.message.find("is torn"), std::string::npos) << failed.message;
    ASSERT_FALSE(w.last_stats().health.empty());
    EXPECT_EQ(w.last_stats().health.front().check, "joint");
    EXPECT_FALSE(w.last_stats().solver.converged);
  }
}

}  // namespace joints_test
