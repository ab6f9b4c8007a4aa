// What imported robots (URDF, MJCF) need, against closed forms (scenes/README.md: bodies'
// inertia tensors, centres of mass and missing shapes, the collision filter and exclusions, a
// joint's position, damping, friction and armature, an actuator's gear, ctrl_range, velocity
// damping and max_velocity). The joint rows run in every solver that simulates joints.
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <numbers>

using namespace coulomb;

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace robot_model_test {
using Json = nlohmann::json;

namespace {

constexpr double g = 9.81;
const std::vector<std::string> kSolvers = {"pgs", "prox-gs", "prox-jacobi", "xpbd-jacobi", "newton-pcr", "cr-mlcp"};

Json scene(const std::string& solver, double dt, Json bodies, Json joints = Json::array(), Json actuators = Json::array(),
           double gravity = g) {
  return {{"format", "coulomb-scene/1"},
          {"gravity", {0, 0, -gravity}},
          {"time", {{"dt", dt}, {"steps", 1}}},
          {"integrator", "semi-implicit"},
          {"solver", {{"type", solver}, {"max_iterations", 200}, {"abs_tol", 1e-12}, {"rel_tol", 1e-12}}},
          {"shapes",
           {{"ball", {{"type", "sphere"}, {"radius", 0.1}}},
            {"block", {{"type", "box"}, {"half_extents", {0.5, 0.5, 0.5}}}}}},
          {"bodies", bodies},
          {"joints", joints},
          {"actuators", actuators}};
}

World make(const Json& j) { return World(parse_scene(j, ".")); }

void run(World& w, int steps) {
  for (int i = 0; i < steps; ++i) {
    const StepResult r = w.step();
    ASSERT_TRUE(r.ok()) << r.message;
  }
}

// the mean period of joint 0's angle over `steps`: the times between its upward crossings of its
// mean `centre`
double period(World& w, int steps, double centre = 0.0) {
  std::vector<double> up;
  double last = w.joint_state(0).position - centre;
  for (int i = 0; i < steps; ++i) {
    if (!w.step().ok()) return -1.0;
    const double now = w.joint_state(0).position - centre;
    if (last < 0.0 && now >= 0.0) up.push_back(w.time() - w.dt() * now / (now - last));
    last = now;
  }
  if (up.size() < 2) return -1.0;
  return (up.back() - up.front()) / double(up.size() - 1);
}

// a link without a shape (its inertial only): mass 1 kg, a full tensor about a centre of mass
// 0.3 m below a hinge about y at the origin (0.05 m along the axis, which does not matter)
Json link(double w0) {
  return {{"name", "link"},
          {"mass", 1.0},
          {"inertia", {0.05, 0.04, 0.03, 0.005, -0.004, 0.006}},
          {"center_of_mass", {0.0, 0.05, -0.3}},
          {"angular_velocity", {0, w0, 0}}};
}
Json hinge() { return {{"name", "hinge"}, {"type", "hinge"}, {"a", "link"}, {"b", nullptr}, {"anchor", {0, 0, 0}}, {"axis", {0, 1, 0}}}; }

}  // namespace

class RobotModelSolver : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Solvers, RobotModelSolver, ::testing::ValuesIn(kSolvers));

// A shapeless link given by a full tensor and a centre of mass swings as the compound pendulum,
// T = 2 pi sqrt((I_yy + m d^2) / (m g d)), d = 0.3 m, through a fixed box it does not touch; with
// an armature a on the hinge, T = 2 pi sqrt((I_yy + m d^2 + a) / (m g d)).
TEST_P(RobotModelSolver, ShapelessCompoundPendulumAndArmature) {
  const double m = 1.0, d = 0.3, Iyy = 0.04, a = 0.05, dt = 0.002;
  Json bodies = {link(0.1), {{"name", "table"}, {"shape", "block"}, {"fixed", true}, {"position", {0, 0, -0.3}}}};
  World w = make(scene(GetParam(), dt, bodies, Json::array({hinge()})));
  const double T0 = 2.0 * std::numbers::pi * std::sqrt((Iyy + m * d * d) / (m * g * d));
  EXPECT_NEAR(period(w, int(2.2 * T0 / dt)), T0, 0.005 * T0) << GetParam();
  EXPECT_TRUE(w.contact_records().empty());

  Json j = hinge();
  j["armature"] = a;
  World wa = make(scene(GetParam(), dt, bodies, Json::array({j})));
  const double Ta = 2.0 * std::numbers::pi * std::sqrt((Iyy + m * d * d + a) / (m * g * d));
  EXPECT_NEAR(period(wa, int(2.2 * Ta / dt)), Ta, 0.005 * Ta) << GetParam();
}

// A hinge with damping c turns a free body of inertia I (no gravity) at w0 exp(-c t / I).
TEST_P(RobotModelSolver, HingeDampingDecaysExponentially) {
  const double I = 0.1, c = 0.1, w0 = 2.0, dt = 0.002;
  Json bodies = {{{"name", "link"}, {"mass", 1.0}, {"inertia", {I, I, I}}, {"angular_velocity", {0, w0, 0}}}};
  Json j = hinge();
  j["damping"] = c;
  World w = make(scene(GetParam(), dt, bodies, Json::array({j}), Json::array(), 0.0));
  run(w, 500);
  const double expected = w0 * std::exp(-c * w.time() / I);
  EXPECT_NEAR(w.joint_state(0).velocity, expected, 0.01 * expected) << GetParam();
}

// Dry friction on a hinge holds a link whose weight's torque m g d is below it, and lets it go
// above: angular acceleration (m g d - f) / (I + m d^2) from rest.
TEST_P(RobotModelSolver, HingeFrictionHoldsBelowBreakaway) {
  const double m = 1.0, d = 0.3, I = 0.01, dt = 0.001;
  const double torque = m * g * d;
  for (const double f : {1.2 * torque, 0.8 * torque}) {
    Json bodies = {{{"name", "link"}, {"mass", m}, {"inertia", {I, I, I}}, {"center_of_mass", {d, 0, 0}}}};
    Json j = hinge();
    j["friction"] = f;
    World w = make(scene(GetParam(), dt, bodies, Json::array({j})));
    const int n = 100;
    run(w, n);
    if (f > torque) {
      EXPECT_NEAR(w.joint_state(0).position, 0.0, 1e-4) << GetParam();
    } else {  // 0.03 rad in 0.1 s: the torque barely changes; semi-implicit Euler's a h^2 n (n + 1) / 2
      const double expected = 0.5 * (torque - f) / (I + m * d * d) * dt * dt * n * (n + 1);
      EXPECT_NEAR(w.joint_state(0).position, expected, 0.01 * expected) << GetParam();
    }
  }
}

// A gear of 2 on an effort actuator doubles the torque on the joint; the effort reported is the
// actuator's force. A velocity actuator with damping kv and gear 1 spins a free body up as
// v (1 - exp(-kv t / I)).
TEST_P(RobotModelSolver, GearAndVelocityDamping) {
  const double I = 0.1, F = 0.5, dt = 0.002;
  Json bodies = {{{"name", "link"}, {"mass", 1.0}, {"inertia", {I, I, I}}}};
  Json motor = {{"name", "motor"}, {"type", "effort"}, {"joint", "hinge"}, {"gear", 2.0}, {"command", F}};
  World w = make(scene(GetParam(), dt, bodies, Json::array({hinge()}), Json::array({motor}), 0.0));
  run(w, 100);
  EXPECT_NEAR(w.joint_state(0).velocity, 2.0 * F / I * w.time(), 1e-3 * 2.0 * F / I * w.time()) << GetParam();
  EXPECT_EQ(w.actuator_efforts()[0], F);

  const double kv = 0.2, v = 3.0;
  Json servo = {{"name", "motor"}, {"type", "velocity"}, {"joint", "hinge"}, {"damping", kv}, {"command", v}};
  World s = make(scene(GetParam(), dt, bodies, Json::array({hinge()}), Json::array({servo}), 0.0));
  run(s, 250);
  const double expected = v * (1.0 - std::exp(-kv * s.time() / I));
  EXPECT_NEAR(s.joint_state(0).velocity, expected, 0.01 * expected) << GetParam();
  EXPECT_NEAR(s.actuator_efforts()[0], kv * (v - s.joint_state(0).velocity), 0.02 * kv * v) << GetParam();
}

// A hinge loaded at `position` 0.5 reads 0.5, and its limits [0.2, 1.0] hold it as it swings down.
// A position servo with gear 2 and command 1.4 holds it at q = 0.7.
TEST_P(RobotModelSolver, JointPositionLimitsAndGearedServo) {
  const double dt = 0.002;
  Json j = hinge();
  j["position"] = 0.5;
  j["limits"] = {0.2, 1.0};
  World w = make(scene(GetParam(), dt, Json::array({link(-3.0)}), Json::array({j})));
  EXPECT_DOUBLE_EQ(w.joint_state(0).position, 0.5);
  double lowest = 1.0;
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(w.step().ok());
    lowest = std::min(lowest, w.joint_state(0).position);
  }
  EXPECT_GT(lowest, 0.2 - 2e-3) << GetParam();
  EXPECT_LT(lowest, 0.2 + 2e-3) << GetParam();

  Json servo = {{"name", "servo"}, {"type", "position"}, {"joint", "hinge"}, {"gear", 2.0}, {"command", 1.4}};
  World s = make(scene(GetParam(), dt, Json::array({link(0.0)}), Json::array({j}), Json::array({servo})));
  run(s, 50);
  EXPECT_NEAR(s.joint_state(0).position, 0.7, 1e-3) << GetParam();
}

// max_velocity: an effort actuator stops pushing at that joint speed.
TEST_P(RobotModelSolver, MaxVelocityCapsAnEffortActuator) {
  const double I = 0.1, F = 1.0, vmax = 2.0, dt = 0.002;
  Json bodies = {{{"name", "link"}, {"mass", 1.0}, {"inertia", {I, I, I}}}};
  Json motor = {{"name", "motor"}, {"type", "effort"}, {"joint", "hinge"}, {"max_velocity", vmax}, {"command", F}};
  World w = make(scene(GetParam(), dt, bodies, Json::array({hinge()}), Json::array({motor}), 0.0));
  run(w, 200);  // 10 rad/s^2: it would reach 4 rad/s
  EXPECT_GE(w.joint_state(0).velocity, vmax - 1e-9) << GetParam();
  EXPECT_LE(w.joint_state(0).velocity, vmax + F / I * dt + 1e-9) << GetParam();
}

// Two balls dropped onto each other: they collide unless the collision filter or
// collision.exclude keeps them apart.
TEST(RobotModel, CollisionFilterAndExclude) {
  const auto drop = [](int contype, int conaffinity, bool exclude) {
    Json bodies = {{{"name", "low"}, {"shape", "ball"}, {"fixed", true}, {"contype", 1}, {"conaffinity", 1}},
                   {{"name", "high"}, {"shape", "ball"}, {"position", {0, 0, 0.25}}, {"contype", contype},
                    {"conaffinity", conaffinity}}};
    Json j = scene("pgs", 0.005, bodies);
    if (exclude) j["collision"]["exclude"] = Json::array({Json::array({"high", "low"})});
    World w = make(j);
    for (int i = 0; i < 100; ++i)
      if (!w.step().ok()) return 1e9;
    return w.body(w.find_body("high")).position.z();
  };
  EXPECT_NEAR(drop(1, 1, false), 0.2, 0.01);  // rests on the low ball (contype 1, conaffinity 1)
  EXPECT_LT(drop(2, 2, false), 0.0);          // disjoint bits both ways: falls through
  EXPECT_NEAR(drop(3, 0, false), 0.2, 0.01);  // its contype meets the low ball's conaffinity
  EXPECT_NEAR(drop(0, 1, false), 0.2, 0.01);  // the low ball's contype meets its conaffinity
  EXPECT_LT(drop(1, 1, true), 0.0);           // excluded
}

}  // namespace robot_model_test
